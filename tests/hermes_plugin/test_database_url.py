"""The provider's `database_url` setting: a postgresql:// URL replaces the SQLite file, and `hermes memory
status` names it with the password masked."""

from __future__ import annotations

import pytest

from factledger.hermes_plugin.paths import HermesPaths
from factledger.hermes_plugin.settings import ProviderSettings
from factledger.hermes_plugin.status import memory_status
from factledger.ledger import ValidationError

URL = "postgresql://bob:hunter2@/ledger?host=/nonexistent-factledger-socket"


def test_the_url_replaces_the_file(tmp_path):
    settings = ProviderSettings.from_mapping({"database_url": URL})
    assert settings.ledger_location(tmp_path / "ledger.db") == URL
    assert ProviderSettings.from_mapping({}).ledger_location(tmp_path / "ledger.db") == tmp_path / "ledger.db"


@pytest.mark.parametrize("value", ["mysql://h/db", "ledger.db", ["postgresql://h/db"]])
def test_anything_but_a_postgres_url_is_refused(value):
    with pytest.raises(ValidationError) as caught:
        ProviderSettings.from_mapping({"database_url": value})
    assert caught.value.field == "database_url"


def test_status_masks_the_password(tmp_path):
    paths = HermesPaths(tmp_path)
    paths.state_dir.mkdir()
    paths.settings_path.write_text(f"database_url: '{URL}'\n", "utf-8")
    lines = memory_status(paths, environ={})
    assert lines["ledger"] == "postgresql://bob:***@/ledger?host=/nonexistent-factledger-socket"
    assert "ledger_error" in lines  # unreachable: reported as a line, never raised
    assert "hunter2" not in repr(lines)

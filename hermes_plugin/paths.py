"""Where things live under a Hermes home. Resolved per call: HERMES_HOME is never read at import time."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from factledger.ledger.chain_key import default_heads_path, default_key_path

PROVIDER_NAME = "factledger"


def resolve_hermes_home(explicit: str | Path | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """The Hermes home: an explicit path, else $HERMES_HOME, else ~/.hermes (Hermes's own order)."""
    if explicit is not None and str(explicit).strip():
        return Path(explicit).expanduser()
    env = os.environ if environ is None else environ
    value = env.get("HERMES_HOME", "").strip()
    if value:
        return Path(value).expanduser()
    return Path.home() / ".hermes"


@dataclass(frozen=True)
class HermesPaths:
    home: Path

    @classmethod
    def resolve(cls, explicit: str | Path | None = None, environ: Mapping[str, str] | None = None) -> "HermesPaths":
        return cls(resolve_hermes_home(explicit, environ))

    @property
    def config_yaml(self) -> Path:
        """Hermes's own config (memory.provider selects us)."""
        return self.home / "config.yaml"

    @property
    def plugin_dir(self) -> Path:
        return self.home / "plugins" / PROVIDER_NAME

    @property
    def shim(self) -> Path:
        return self.plugin_dir / "__init__.py"

    @property
    def cli_shim(self) -> Path:
        """`hermes factledger ...`: Hermes reads the active memory provider's cli.py for its commands."""
        return self.plugin_dir / "cli.py"

    @property
    def plugin_yaml(self) -> Path:
        return self.plugin_dir / "plugin.yaml"

    @property
    def state_dir(self) -> Path:
        """factledger's own state: the ledger, the vector index, settings."""
        return self.home / PROVIDER_NAME

    @property
    def ledger_path(self) -> Path:
        return self.state_dir / "ledger.db"

    @property
    def index_dir(self) -> Path:
        """The vector index: beside the ledger, as for every other process (the ledger records it)."""
        return Path(str(self.ledger_path) + ".lance")

    @property
    def legacy_index_dir(self) -> Path:
        """Where versions before the recorded index kept the provider's vectors (removed on open)."""
        return self.state_dir / "lancedb"

    @property
    def settings_path(self) -> Path:
        return self.state_dir / "config.yaml"

    def chain_key_path(self, location: Path | str) -> Path:
        """The key of the ledger's hash chain, beside the settings: `ledger.db.chain-key` for the SQLite
        file (where every other process finds it too), `chain.key` for a database URL."""
        return default_key_path(location) or self.state_dir / "chain.key"

    def heads_path(self, location: Path | str) -> Path:
        """Where the provider records the ledger's heads: `ledger.db.heads` beside the SQLite file (where
        `factledger verify` reads the last one), `heads` for a database URL."""
        return default_heads_path(location) or self.state_dir / "heads"

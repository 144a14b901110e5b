"""One secret policy on every write path: each documented credential shape (ledger/values.py) is
refused as a fact by `factledger apply`, `Ledger.transaction().add` and `digest.remember`, and never
reaches the journal verbatim (redacted, or the turn refused). Nothing of the secret is stored."""

from __future__ import annotations

import json

import pytest

from factledger.digest import Journal, Turn, remember
from factledger.ledger import ValidationError
from tests.fuzz_strategies import invoke_cli

SHAPES = [
    ("api key", "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2"),
    ("api key", "sk-ant-" + "api03-Zx9Yw8Vu7Ts6Rq5Po4"),
    ("api key", "pk_live_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm"),
    ("github token", "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
    ("github token", "github_pat_" + "11ABCDEFG0123456789abcdefghijklmnop"),
    ("slack token", "xoxb-" + "1234567890-abcdefghij"),
    ("aws key", "AKIA" + "ABCDEFGHIJKLMNOP"),
    ("google api key", "AIza" + "SyA1234567890abcdefghijklmnopqrstuv"),
    ("huggingface token", "hf_" + "abcdefghijklmnopqrstuvwxyzABCDEFGH"),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("bearer token", "Bearer " + "abcdefghijklmnop1234"),
    ("password", "password is " + "hunter2x9"),
    ("secret", "api_key=" + "9f8e7d6c5b4a"),
    ("private key", "-----BEGIN RSA PRIVATE KEY----- MIIEow"),
]
IDS = [f"{kind}-{i}" for i, (kind, _) in enumerate(SHAPES)]


def secret_part(value: str) -> str:
    return value.split()[-1].split("=")[-1]


def assert_not_stored(ledger, value: str) -> None:
    needle = secret_part(value)
    for table in ("claims", "transactions", "proposals", "journal", "predicates"):
        rows = ledger.storage.query(f"SELECT * FROM {table}")
        assert not any(needle in str(tuple(row)) for row in rows), table


@pytest.mark.parametrize(("kind", "value"), SHAPES, ids=IDS)
def test_ledger_transaction_refuses_a_credential_value(fresh_ledger, kind: str, value: str) -> None:
    with pytest.raises(ValidationError) as caught:
        with fresh_ledger.transaction(principal="operator:t") as tx:
            tx.add("s", "user", "note", f"my key: {value}")
    assert caught.value.field == "value" and kind in caught.value.message
    assert_not_stored(fresh_ledger, value)


@pytest.mark.parametrize(("kind", "value"), SHAPES, ids=IDS)
def test_apply_refuses_a_credential_value(tmp_path, fresh_ledger, ledger_path, kind: str, value: str) -> None:
    path = tmp_path / "ops.jsonl"
    path.write_text(json.dumps({"op": "add", "scope": "s", "subject": "user", "predicate": "note", "value": value}) + "\n")
    result = invoke_cli(["--db", str(ledger_path), "--principal", "operator:t", "apply", str(path)], db=ledger_path)
    assert result.exit_code == 2 and "value: looks like a credential" in result.output and kind in result.output
    assert_not_stored(fresh_ledger, value)


@pytest.mark.parametrize(("kind", "value"), SHAPES, ids=IDS)
def test_remember_refuses_a_credential_before_anything_is_stored(fresh_ledger, kind: str, value: str) -> None:
    with pytest.raises(ValidationError) as caught:
        remember(fresh_ledger, scope="s", subject="user", predicate="api_key", value=value, principal="agent:a")
    assert caught.value.field == "value" and kind in caught.value.message
    with pytest.raises(ValidationError) as caught:
        remember(fresh_ledger, scope="s", subject="user", predicate="likes", value="jazz", principal="agent:a",
                 reason=f"the user said {value}")
    assert caught.value.field == "reason"
    assert_not_stored(fresh_ledger, value)


@pytest.mark.parametrize(("kind", "value"), SHAPES, ids=IDS)
def test_the_journal_never_stores_a_credential(fresh_ledger, kind: str, value: str) -> None:
    outcome = Journal(fresh_ledger).append(Turn(scope="s", text=f"here it is {value} and I work at Acme in Lisbon"))
    assert outcome.status in ("redacted", "refused")
    assert_not_stored(fresh_ledger, value)

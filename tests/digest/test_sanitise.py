"""Secrets never reach the journal; trivial turns are skipped."""

from __future__ import annotations

import pytest

from factledger.digest import Journal, Turn, sanitise

GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
OPENAI = "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2"
AWS = "AKIA" + "ABCDEFGHIJKLMNOP"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        (f"my github token is {GITHUB}, I work at Acme", GITHUB, "github token"),
        (f"use {OPENAI} for the staging bot we run at work", OPENAI, "api key"),
        (f"our AWS key {AWS} is in the vault for the team", AWS, "aws key"),
        (f"here is the session cookie {JWT} from my laptop", JWT, "jwt"),
        ("my password is hunter2 and I live in Paris", "hunter2", "password"),
        ("the wifi password: Tr0ub4dor&3 at home", "Tr0ub4dor&3", "password"),
        ("set api_key=9f8e7d6c5b4a for the weather service", "9f8e7d6c5b4a", "secret"),
        ("Authorization: Bearer abcdefghijklmnop1234 was the header I sent", "abcdefghijklmnop1234", "bearer token"),
    ],
)
def test_secret_is_redacted_and_the_rest_kept(text: str, secret: str, kind: str) -> None:
    result = sanitise(text)
    assert result.action == "redact"
    assert secret not in result.text
    assert f"[redacted {kind}]" in result.text
    assert kind in result.reason


@pytest.mark.parametrize(
    "text",
    [
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
        "here: -----BEGIN RSA PRIVATE KEY----- MIIEow...",
        GITHUB,
        f"token: {OPENAI}",
    ],
)
def test_private_keys_and_bare_secrets_are_refused(text: str) -> None:
    assert sanitise(text).action == "refuse"


@pytest.mark.parametrize(
    "text",
    [
        "the password is wrong, can you reset it?",
        "I forgot my password again",
        "my token expired yesterday",
        "I like the password manager you suggested",
        "I live in Paris",
    ],
)
def test_talk_about_secrets_is_kept(text: str) -> None:
    result = sanitise(text)
    assert result.action == "keep"
    assert result.text == text


@pytest.mark.parametrize("text", ["ok", "Thanks!", "thank you", "  lol  ", "👍", "...", "Sounds good.", "hi"])
def test_trivial_turns_are_skipped(text: str) -> None:
    assert sanitise(text).action == "skip"


def test_journal_never_stores_the_secret(fresh_ledger) -> None:
    journal = Journal(fresh_ledger)
    outcome = journal.append(Turn(scope="s", text=f"my github token is {GITHUB} and I work at Acme"))
    assert outcome.status == "redacted" and outcome.entry_id is not None
    stored = journal.entry(outcome.entry_id)
    assert stored is not None and GITHUB not in stored.text
    refused = journal.append(Turn(scope="s", text=GITHUB))
    assert (refused.status, refused.entry_id) == ("refused", None)
    rows = fresh_ledger.storage.query("SELECT text FROM journal")
    assert all(GITHUB not in r["text"] for r in rows)

"""Which journal entries a Hermes /undo took back, from the session's user messages (pure)."""

import pytest

from factledger.digest import JournalEntry
from factledger.hermes_plugin.memory import undone_entries
from factledger.hermes_plugin.transcript import HostMessage


def entries(*turns: str) -> list[JournalEntry]:
    """'u:text' a user entry, 'a:text' an assistant entry, ids from 1."""
    return [JournalEntry(id=i, scope="s", session="x", role="user" if t[0] == "u" else "assistant", text=t[2:],
                         said_at="2026-01-01T00:00:00.000000Z") for i, t in enumerate(turns, 1)]


def host(*messages: str) -> list[HostMessage]:
    """'+text' an active message, '-text' one an /undo took back."""
    return [HostMessage(m[1:], m[0] == "+") for m in messages]


def stored(text: str) -> str | None:
    return None if text == "ok" else text.strip()  # the journal keeps no trivial turn


@pytest.mark.parametrize(
    ("journal", "messages", "undone"),
    [
        (["u:a", "a:A", "u:b", "a:B"], ["+a", "+b"], []),
        (["u:a", "a:A", "u:b", "a:B"], ["+a", "-b"], [3, 4]),
        (["u:a", "a:A", "u:b", "a:B"], ["-a", "-b"], [1, 2, 3, 4]),
        (["u:a", "u:b"], ["+a", "-b", "+b"], [2]),  # b undone, then said again: the first b is the undone one
        (["u:a", "u:b"], ["+a", "-b", "-c", "+d"], [2]),  # new turns after the undo are not journaled yet
        (["u:x", "u:a"], ["+ok", "+a  ", "-ok"], []),  # an unmatched entry stays; trivial messages have none
        (["u:a", "u:a"], ["+a", "-a"], [2]),  # repeated words: matched in order
        ([], ["-a"], []),
    ],
)
def test_undone_entries(journal, messages, undone):
    assert [e.id for e in undone_entries(entries(*journal), host(*messages), stored)] == undone

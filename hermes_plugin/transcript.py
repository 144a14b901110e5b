"""What the provider reads of Hermes's own session store ($HERMES_HOME/state.db, through Hermes's
SessionDB): a session's user messages with whether an /undo took them back, its rewind count and its
title. The host passes none of these to every hook (the gateway's /undo calls no provider hook at all,
and a title set after initialize is never passed), so the provider reads them where the host keeps them.
Every read opens the store read-only and closes it; a missing or unreadable store reads as None.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from .paths import HermesPaths

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class HostMessage:
    """One user message of a Hermes session, in the session's order."""

    text: str
    active: bool  # False: an /undo soft-deleted it (Hermes keeps the row for audit)


@dataclass(frozen=True)
class SessionState:
    """What the provider needs of one Hermes session."""

    user_messages: tuple[HostMessage, ...]
    rewinds: int  # how many /undo rewinds the session has seen (sessions.rewind_count)
    title: str | None


def read_session(paths: HermesPaths, session_id: str, *, messages: bool = True) -> SessionState | None:
    """The session as Hermes's state.db holds it (None: no store, or it cannot be read). Without
    `messages`, only the counter and the title (one row)."""
    state_db = paths.home / "state.db"
    if not session_id or not state_db.exists():
        return None
    try:
        from hermes_state import SessionDB  # the host's module: this provider runs inside Hermes

        db = SessionDB(state_db, read_only=True)
        try:
            row = db.get_session(session_id) or {}
            rows = db.get_messages(session_id, include_inactive=True) if messages else []
        finally:
            db.close()
    except Exception:
        logger.warning("factledger: cannot read Hermes's session store %s", state_db, exc_info=True)
        return None
    users = tuple(HostMessage(message_text(m.get("content")), m.get("active", 1) != 0) for m in rows if m.get("role") == "user")
    return SessionState(users, int(row.get("rewind_count") or 0), row.get("title") or None)


def message_text(content: Any) -> str:
    """A transcript message's text (multimodal content is a list of typed parts, as Hermes stores it)."""
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return content if isinstance(content, str) else ""

"""Ledger scopes from the identity Hermes passes to `initialize`.

Two scopes per provider instance:
- durable: facts about one user as seen by one agent, shared across that user's chats;
- scratch: what belongs to one chat (or, with no chat, one session) of that user.

Each component is length-framed (`<len>:<text>`), so an id that contains a delimiter cannot be read as
two components and cannot collide with another identity. A gateway context (a messaging platform) with
no user id gets no durable scope: its memory stays in its chat instead of landing in a pool shared by
every anonymous caller. Local front ends (cli, tui, acp) are one person at one machine; they share one
local durable scope whatever the front end.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from factledger.ledger import ScopeFamily, ValidationError

SCOPE_PREFIX = "hermes"
# Front ends where the person at the keyboard is the machine's user (no platform user ids).
LOCAL_PLATFORMS = frozenset({"cli", "tui", "local", "acp"})
# Chat types where several people may speak in one session: turns stay in the chat's scratch scope.
SHARED_CHAT_TYPES = frozenset({"group", "channel", "supergroup", "thread", "forum"})
LOCAL_USER = "local"


def frame(*components: str) -> str:
    """Join components so that the result can be split back unambiguously (length-prefixed)."""
    parts = []
    for component in components:
        if not isinstance(component, str):
            raise ValidationError(f"scope component {component!r} is not a string", field="scope")
        parts.append(f"{len(component)}:{component}")
    return "/".join(parts)


def unframe(text: str) -> list[str]:
    """The inverse of `frame` (raises ValidationError on anything `frame` cannot produce)."""
    components: list[str] = []
    position = 0
    while position < len(text):
        colon = text.find(":", position)
        if colon < 0 or not text[position:colon].isdigit():
            raise ValidationError(f"{text!r} is not a framed scope", field="scope")
        length = int(text[position:colon])
        start, end = colon + 1, colon + 1 + length
        if end > len(text):
            raise ValidationError(f"{text!r} is not a framed scope", field="scope")
        components.append(text[start:end])
        position = end
        if position < len(text):
            if text[position] != "/":
                raise ValidationError(f"{text!r} is not a framed scope", field="scope")
            position += 1
            if position == len(text):
                raise ValidationError(f"{text!r} is not a framed scope", field="scope")
    return components


def _text(value: Any) -> str:
    """An id as Hermes passed it (str or int); None and blank become ''."""
    if value is None:
        return ""
    return str(value).strip()


@dataclass(frozen=True)
class HermesIdentity:
    """The parts of Hermes's initialize kwargs that decide scope (typed, so nothing else leaks in)."""

    session_id: str
    platform: str = "cli"
    agent_context: str = "primary"
    agent_workspace: str = ""
    agent_identity: str = ""
    user_id: str = ""
    chat_id: str = ""
    chat_type: str = ""
    thread_id: str = ""
    gateway_session_key: str = ""
    # A platform's stable id for the user when its user_id can change (Signal's UUID, Feishu's
    # union_id): Hermes's gateway keys a person by `user_id_alt or user_id`, and so does the scope.
    user_id_alt: str = ""
    # Display only (never part of a scope): how the user's turns are labelled in recalled excerpts.
    user_name: str = ""

    @classmethod
    def from_kwargs(cls, session_id: str, kwargs: Mapping[str, Any]) -> "HermesIdentity":
        return cls(
            session_id=_text(session_id),
            platform=_text(kwargs.get("platform")).lower() or "cli",
            agent_context=_text(kwargs.get("agent_context")) or "primary",
            agent_workspace=_text(kwargs.get("agent_workspace")),
            agent_identity=_text(kwargs.get("agent_identity")) or "default",
            user_id=_text(kwargs.get("user_id")),
            chat_id=_text(kwargs.get("chat_id")),
            chat_type=_text(kwargs.get("chat_type")).lower(),
            thread_id=_text(kwargs.get("thread_id")),
            gateway_session_key=_text(kwargs.get("gateway_session_key")),
            user_id_alt=_text(kwargs.get("user_id_alt")),
            user_name=_text(kwargs.get("user_name")),
        )

    @property
    def is_local(self) -> bool:
        return self.platform in LOCAL_PLATFORMS

    @property
    def is_primary(self) -> bool:
        """Cron, subagent and flush contexts read memory but must not write it (Hermes's own rule)."""
        return self.agent_context == "primary"

    @property
    def principal(self) -> str:
        """Who the model is when it writes through a tool."""
        return f"agent:{self.agent_identity}"


@dataclass(frozen=True)
class ScopeSet:
    """The scopes one provider instance reads and writes."""

    durable: str | None
    scratch: str
    turns: str  # where journaled turns (and so digested facts) go
    # False: recall (prefetch, search, history, profile) reads this chat only, not long-term memory
    # (the operator's `recall.group_long_term` switch for shared chats); writes are unchanged.
    recalls_long_term: bool = True

    @property
    def readable(self) -> tuple[str, ...]:
        return (self.durable, self.scratch) if self.durable and self.recalls_long_term else (self.scratch,)

    def for_keep(self, keep: str) -> str:
        """The scope an explicit write targets: 'long_term' (durable) or 'this_chat' (scratch)."""
        if keep == "this_chat":
            return self.scratch
        if keep == "long_term":
            if self.durable is None:
                raise ValidationError(
                    "no long-term memory in this context (no user id): use keep='this_chat'", field="keep"
                )
            return self.durable
        raise ValidationError(f"{keep!r} is not one of 'long_term', 'this_chat'", field="keep")


def derive_scopes(identity: HermesIdentity, aliases: Mapping[str, str] | None = None) -> ScopeSet:
    """Durable and scratch scopes for one Hermes identity (pure; see the module docstring). `aliases`
    (the operator's alias map, `realm:user` -> `realm:user`) makes an identity use another identity's
    durable scope: one person on several platforms. Scratch stays the platform's own (chat ids are
    per platform); an identity not in the map is unchanged."""
    workspace, agent = identity.agent_workspace, identity.agent_identity
    if identity.is_local:
        realm, user = "local", identity.user_id or LOCAL_USER
    else:
        realm, user = identity.platform, identity.user_id_alt or identity.user_id
    durable_realm, durable_user = realm, user
    if user and aliases and (target := aliases.get(f"{realm}:{user}")):
        durable_realm, durable_user = target.split(":", 1)
    durable = frame(SCOPE_PREFIX, "durable", workspace, agent, durable_realm, durable_user) if user else None

    if identity.chat_id:
        chat = ("chat", identity.chat_id, identity.thread_id)
    elif identity.gateway_session_key:
        chat = ("gateway-session", identity.gateway_session_key, "")
    else:
        chat = ("session", identity.session_id, "")
    scratch = frame(SCOPE_PREFIX, "scratch", workspace, agent, realm, user, *chat)

    shared_chat = identity.chat_type in SHARED_CHAT_TYPES
    turns = durable if durable is not None and not shared_chat else scratch
    return ScopeSet(durable=durable, scratch=scratch, turns=turns)


def scope_family(scope: str) -> ScopeFamily:
    """Every scope of the person a scope belongs to, for erase (pure): for a Hermes durable or scratch
    scope of a known user, the durable scope `hermes/durable/<ws>/<agent>/<realm>/<user>` and every
    scratch scope `hermes/scratch/<ws>/<agent>/<realm>/<user>/...` (framed, so the prefix cannot match
    another user whose id merely begins the same). Any other scope (not framed, not Hermes's, or a
    scratch scope with no user: an anonymous gateway chat) is a family of one."""
    try:
        parts = unframe(scope)
    except ValidationError:
        return ScopeFamily.of(scope)
    if len(parts) < 6 or parts[0] != SCOPE_PREFIX or parts[1] not in ("durable", "scratch") or not parts[5]:
        return ScopeFamily.of(scope)
    if parts[1] == "durable" and len(parts) != 6:
        return ScopeFamily.of(scope)
    person = parts[2:6]
    durable = frame(SCOPE_PREFIX, "durable", *person)
    scratch_prefix = frame(SCOPE_PREFIX, "scratch", *person) + "/"
    return ScopeFamily(exact=(durable,), prefixes=(scratch_prefix,))


HERMES_WORKSPACE = "hermes"  # the agent_workspace Hermes 0.19.0 passes to every provider


def _realm_user(text: str, field: str) -> tuple[str, str]:
    """`local` (the person at this machine) or `platform:id`, as the alias map spells identities."""
    realm, _, ident = text.strip().partition(":")
    realm = realm.strip().lower()
    if realm in LOCAL_PLATFORMS and not ident.strip():
        return "local", LOCAL_USER
    if not realm or not ident.strip():
        raise ValidationError(f"{text!r} is not 'platform:id' (e.g. 'telegram:12345') or 'local'", field=field)
    return ("local" if realm in LOCAL_PLATFORMS else realm), ident.strip()


def scope_for(*, profile: str = "default", user: str = "", chat: str = "", workspace: str = HERMES_WORKSPACE) -> str:
    """The scope an operator names in words (`factledger erase --profile coder --user telegram:12345`):
    a person's long-term scope as one profile sees it (erase then reaches every chat of theirs too), or,
    for a chat with no user id (an anonymous gateway chat), that chat's own scope."""
    profile = profile.strip() or "default"
    if user.strip() and chat.strip():
        raise ValidationError("give --user (the person, every chat of theirs) or --chat (a chat with no user id), not both",
                              field="chat")
    if user.strip():
        realm, ident = _realm_user(user, "user")
        return frame(SCOPE_PREFIX, "durable", workspace, profile, realm, ident)
    if chat.strip():
        realm, chat_id = _realm_user(chat, "chat")
        if realm == "local":
            raise ValidationError("a local chat belongs to the local user: use --user local", field="chat")
        return frame(SCOPE_PREFIX, "scratch", workspace, profile, realm, "", "chat", chat_id, "")
    raise ValidationError("name the person (--user platform:id, or local) or the chat (--chat platform:chat_id)", field="user")


def describe_scope(scope: str) -> str:
    """A scope in words, for an operator (the framed text is for the ledger): whose memory, which profile."""
    try:
        parts = unframe(scope)
    except ValidationError:
        return f"scope {scope}"
    if len(parts) < 6 or parts[0] != SCOPE_PREFIX or parts[1] not in ("durable", "scratch"):
        return f"scope {scope}"
    kind, _workspace, profile, realm, user = parts[1:6]
    person = "the local user" if realm == "local" else f"{realm} user {user}" if user else f"an unnamed {realm} user"
    if kind == "durable":
        return f"long-term memory of {person} (profile {profile})"
    where = parts[6:8]
    place = (f"{realm} chat {where[1]}" if where[0] == "chat" else f"session {where[1]}") if len(where) == 2 else "a chat"
    if not user:
        return f"memory of {place}, no user id (profile {profile})"
    return f"chat memory of {person} in {place} (profile {profile})"

"""The model's tools: their schemas (bare OpenAI function schemas, as Hermes wants them) and strict
argument parsing. Unknown arguments are refused, so nothing the model writes can reach a parameter the
tool does not offer: no tool names a scope, a principal, or a review, confirm, lift or erase action.
"""

from __future__ import annotations

from typing import Any, Literal

import pydantic
from pydantic import BaseModel, ConfigDict, Field

from factledger.ledger import ValidationError

SEARCH = "factledger_search"
HISTORY = "factledger_history"
REMEMBER = "factledger_remember"
FORGET = "factledger_forget"
PROFILE = "factledger_profile"

Keep = Literal["long_term", "this_chat"]

_TIME = "ISO date or datetime with offset, e.g. 2024-06-01 or 2024-06-01T10:00:00+02:00"
_KEEP = (
    "'long_term' (default): a fact about the user that follows them across chats; "
    "'this_chat': something that only matters in this conversation."
)

TOOL_SCHEMAS: list[dict[str, Any]] = [
    {
        "name": SEARCH,
        "description": (
            "Search long-term memory (facts with the time they hold). Current truth by default; give valid_at "
            "for what was true at a time, known_at for what memory believed at a time."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for, in words."},
                "valid_at": {"type": "string", "description": f"Facts true at this time ({_TIME})."},
                "known_at": {"type": "string", "description": f"As memory knew them at this time ({_TIME})."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 20, "description": "At most this many facts (default 8)."},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    },
    {
        "name": HISTORY,
        "description": (
            "Every version a fact slot (subject + predicate, e.g. user / lives_in) has had: values, when each "
            "was true, when memory learned or dropped it, who changed it and why."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "subject": {"type": "string", "description": "Whom or what the fact is about, e.g. 'user'."},
                "predicate": {"type": "string", "description": "The relation, e.g. 'lives_in', 'works_at', 'likes'."},
            },
            "required": ["subject", "predicate"],
            "additionalProperties": False,
        },
    },
    {
        "name": REMEMBER,
        "description": (
            "Store a fact the user stated explicitly. It may be refused (a value an operator rejected) or held "
            "for review (it would replace a value an operator confirmed); the result says which."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "subject": {"type": "string", "description": "Whom or what the fact is about, e.g. 'user'."},
                "predicate": {"type": "string", "description": "The relation, snake_case, e.g. 'lives_in'."},
                "value": {"type": "string", "description": "The value, e.g. 'Lisbon'."},
                "valid_from": {"type": "string", "description": f"Since when it is true ({_TIME}); default now."},
                "valid_to": {"type": "string", "description": f"Until when it is true ({_TIME}); default open."},
                "cardinality": {
                    "type": "string",
                    "enum": ["one", "many"],
                    "description": "For a new predicate: 'one' value at a time (lives_in) or 'many' (likes).",
                },
                "reason": {"type": "string", "description": "Why, in a few words (kept in the audit trail)."},
                "keep": {"type": "string", "enum": ["long_term", "this_chat"], "description": _KEEP},
            },
            "required": ["subject", "predicate", "value"],
            "additionalProperties": False,
        },
    },
    {
        "name": FORGET,
        "description": (
            "Record that a fact no longer holds (from valid_from, default now) or never held (all_valid_time). "
            "History keeps what was believed; nothing is erased."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "subject": {"type": "string", "description": "Whom or what the fact is about."},
                "predicate": {"type": "string", "description": "The relation, e.g. 'lives_in'."},
                "value": {"type": "string", "description": "The value that no longer holds (needed for 'many' slots)."},
                "valid_from": {"type": "string", "description": f"From when it no longer holds ({_TIME}); default now."},
                "all_valid_time": {"type": "boolean", "description": "True when it was never true."},
                "reason": {"type": "string", "description": "Why, in a few words."},
                "keep": {"type": "string", "enum": ["long_term", "this_chat"], "description": _KEEP},
            },
            "required": ["subject", "predicate"],
            "additionalProperties": False,
        },
    },
    {
        "name": PROFILE,
        "description": (
            "List what long-term memory currently holds about the user in this chat (for 'what do you know "
            "about me?'): current facts, one line each, with since when they hold."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "At most this many facts (default 30)."},
            },
            "required": [],
            "additionalProperties": False,
        },
    },
]

TOOL_NAMES = frozenset(s["name"] for s in TOOL_SCHEMAS)


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, str_strip_whitespace=True)


MAX_QUERY_CHARS = 2000  # a search is a few words; a pasted document is not a query


class SearchArgs(_Args):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    valid_at: str | None = None
    known_at: str | None = None
    limit: int = Field(default=8, ge=1, le=20)


class HistoryArgs(_Args):
    subject: str = Field(min_length=1)
    predicate: str = Field(min_length=1)


class RememberArgs(_Args):
    subject: str = Field(min_length=1)
    predicate: str = Field(min_length=1)
    value: str = Field(min_length=1)
    valid_from: str | None = None
    valid_to: str | None = None
    cardinality: Literal["one", "many"] | None = None
    reason: str = ""
    keep: Keep = "long_term"


class ForgetArgs(_Args):
    subject: str = Field(min_length=1)
    predicate: str = Field(min_length=1)
    value: str | None = None
    valid_from: str | None = None
    all_valid_time: bool = False
    reason: str = ""
    keep: Keep = "long_term"


class ProfileArgs(_Args):
    limit: int = Field(default=30, ge=1, le=100)


ARGUMENT_MODELS: dict[str, type[_Args]] = {
    PROFILE: ProfileArgs,
    SEARCH: SearchArgs,
    HISTORY: HistoryArgs,
    REMEMBER: RememberArgs,
    FORGET: ForgetArgs,
}


def parse_arguments(tool: str, args: Any) -> _Args:
    """Typed arguments for one tool call; a ValidationError naming the bad field otherwise."""
    model = ARGUMENT_MODELS.get(tool)
    if model is None:
        raise ValidationError(f"{tool!r} is not a factledger tool; use one of {', '.join(sorted(TOOL_NAMES))}", field="tool")
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ValidationError("arguments must be a JSON object", field="arguments")
    try:
        return model.model_validate(args)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "arguments"
        if first.get("type") == "extra_forbidden":
            allowed = ", ".join(model.model_fields)
            raise ValidationError(f"unknown argument; {tool} accepts only: {allowed}", field=where) from None
        raise ValidationError(first.get("msg", "invalid"), field=where) from None

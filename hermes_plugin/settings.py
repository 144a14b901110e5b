"""The provider's settings: $HERMES_HOME/factledger/config.yaml, read when a session starts."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from factledger.ledger import ValidationError
from factledger.ledger.pg_storage import is_postgres_url
from factledger.ledger.values import check_identifier

from .scope import LOCAL_PLATFORMS, SHARED_CHAT_TYPES

DEFAULT_SETTINGS_TEXT = """\
# factledger settings for the Hermes memory provider (read when a Hermes session starts).
database_url: ""          # a postgresql://user:password@host/dbname URL: the ledger lives there instead of ledger.db
digest:
  policy: auto            # auto: apply grounded facts now; strict: hold every digested fact for review
  batch_size: 16          # journal entries the background worker digests per run
  max_delay_seconds: 20   # pending turns are digested at least this often
  exit_wait_seconds: 4    # the most a session's end waits for the last digest (0: no wait); the rest stays
                          # in the journal and the next session digests it (`hermes chat`'s exit hands it
                          # to a process of its own instead: docs/hermes.md)
  model:                  # leave empty to use the offline rules extractor (no key, nothing leaves the machine)
    base_url: ""          # any OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1
    name: ""
    api_key_env: ""       # the NAME of the environment variable holding the key (never the key itself)
    from_hermes: false    # true: use the Hermes profile's own model and credentials (base_url/name ignored)
recall:
  configuration: ""       # a named recall configuration; empty for the default
  repeat_after_turns: 3   # an item shown in the last N turns' blocks is not shown again (0: always show)
  group_long_term:        # long-term memory in shared chats (group, channel, thread, forum); DMs always have it
    default: true         # false: shared chats recall only what was said in that chat
    off: []               # platforms ("discord") or chats ("-100123" or "telegram:-100123") where it is off
    on: []                # ... where it is on whatever the default; a chat's entry wins over its platform's
aliases: {}               # one person's identities joined: "discord:67890": "telegram:12345" makes the first
                          # use the second's long-term memory ("local:local" is the person at this machine)
journal:
  assistant_name: ""      # how the assistant's turns are labelled in recalled excerpts; empty: "assistant"
  retention_days: 0       # keep conversation turns (episodes) this many days after they were said; 0: keep them
exclude:                  # kept out of every memory surface: no journal, no recall, no tool writes
  platforms: []           # e.g. [discord]: every chat on these platforms
  chats: []               # chat ids, e.g. ["-100123456"], or "platform:chat_id" for one platform's chat
"""


# Every key the file may hold, by section ("" is the top level; `aliases` maps identities, so its keys are
# the operator's own). A key not listed is an error naming it: a typo is never silently ignored.
KNOWN_KEYS: dict[str, tuple[str, ...]] = {
    "": ("database_url", "digest", "recall", "aliases", "journal", "exclude"),
    "digest": ("policy", "batch_size", "max_delay_seconds", "exit_wait_seconds", "model"),
    "digest.model": ("base_url", "name", "api_key_env", "from_hermes"),
    "recall": ("configuration", "repeat_after_turns", "group_long_term"),
    "recall.group_long_term": ("default", "off", "on"),
    "journal": ("assistant_name", "retention_days"),
    "exclude": ("platforms", "chats"),
}


class _SettingsLoader(yaml.SafeLoader):
    """PyYAML's safe loader, except that a mapping key is always the text written: YAML 1.1 reads a plain
    `off:`, `on:`, `yes:` or `no:` as a boolean (and `1:` as a number), so `recall.group_long_term.off`
    would silently become the key `False`. A key given twice in one mapping is refused (YAML keeps the
    last one without a word)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if not isinstance(node, yaml.MappingNode):
            return super().construct_mapping(node, deep=deep)
        self.flatten_mapping(node)
        mapping: dict[Any, Any] = {}
        lines: dict[Any, int] = {}
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                key: Any = key_node.value
            else:
                key = self.construct_object(key_node, deep=deep)
                if not isinstance(key, (str, int, float, bool)) and key is not None:
                    raise ValidationError(f"a key on line {key_node.start_mark.line + 1} is not a name", field="settings")
            line = key_node.start_mark.line + 1
            if key in mapping:
                raise ValidationError(f"{key!r} is given twice (lines {lines[key]} and {line}); only one may stay",
                                      field=str(key))
            lines[key] = line
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


def read_settings_text(text: str, source: str = "settings") -> Any:
    """The settings file's content as factledger reads it (keys as written; see _SettingsLoader)."""
    try:
        return yaml.load(text, Loader=_SettingsLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise ValidationError(f"cannot read {source}: {exc}", field="settings") from None
    except RecursionError:  # PyYAML parses nesting recursively
        raise ValidationError(f"cannot read {source}: nested too deeply", field="settings") from None


def _check_keys(data: Mapping[str, Any], section: str) -> None:
    known = KNOWN_KEYS[section]
    for key in data:
        if key not in known:
            # A key with no name (`? ''`) is named by its section, or by the file itself.
            name = f"{section}.{key}" if section and str(key) else (str(key) or section or "settings")
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f" (known here: {', '.join(known)})"
            raise ValidationError(f"{key!r} is not a setting{hint}", field=name)


@dataclass(frozen=True)
class ModelSettings:
    base_url: str = ""
    name: str = ""
    api_key_env: str = ""
    from_hermes: bool = False  # digest with the Hermes profile's own model (resolved at session start)

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.name)

    def api_key(self, environ: Mapping[str, str]) -> str:
        return environ.get(self.api_key_env, "") if self.api_key_env else ""


@dataclass(frozen=True)
class ProviderSettings:
    policy: str = "auto"
    batch_size: int = 16
    max_delay_seconds: float = 20.0
    exit_wait_seconds: float = 4.0  # on_session_end and shutdown together (inside Hermes's 5 s exit drain)
    model: ModelSettings = field(default_factory=ModelSettings)
    recall_configuration: str = ""
    repeat_after_turns: int = 3
    assistant_name: str = ""
    retention_days: float = 0.0
    excluded_platforms: tuple[str, ...] = ()
    excluded_chats: tuple[str, ...] = ()
    database_url: str = ""  # a postgresql:// URL replacing the SQLite file; "" keeps the file
    group_long_term: bool = True
    group_long_term_off: tuple[str, ...] = ()
    group_long_term_on: tuple[str, ...] = ()
    aliases: Mapping[str, str] = field(default_factory=dict)  # realm:user -> realm:user (scope.derive_scopes)

    def ledger_location(self, file: Path) -> Path | str:
        """Where the ledger is: the database URL when one is set, else the SQLite file."""
        return self.database_url or file

    def excludes(self, platform: str, chat_id: str) -> bool:
        """True when this chat (or its whole platform) is kept out of memory."""
        platform = platform.lower()
        if platform in self.excluded_platforms:
            return True
        return bool(chat_id) and (chat_id in self.excluded_chats or f"{platform}:{chat_id}" in self.excluded_chats)

    def recalls_long_term(self, platform: str, chat_id: str, chat_type: str) -> bool:
        """Whether recall in this chat reads long-term memory (`recall.group_long_term`): always in a
        direct chat; in a shared chat the chat's own entry, else its platform's, else the default."""
        if chat_type not in SHARED_CHAT_TYPES:
            return True
        platform = platform.lower()
        for names in ((f"{platform}:{chat_id}", chat_id) if chat_id else (), (platform,)):
            if any(n in self.group_long_term_on for n in names):
                return True
            if any(n in self.group_long_term_off for n in names):
                return False
        return self.group_long_term

    @classmethod
    def load(cls, path: Path) -> "ProviderSettings":
        """Defaults when the file is missing; a clear error naming the key when it is malformed."""
        if not path.exists():
            return cls()
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise ValidationError(f"cannot read {path}: {exc.strerror}", field="settings") from None
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            raise ValidationError(f"{path} is not UTF-8 text (byte 0x{raw[exc.start]:02x} on line {line})", field="settings") from None
        return cls.from_mapping(read_settings_text(text, str(path)) or {}, source=str(path))

    @classmethod
    def from_mapping(cls, data: Any, *, source: str = "settings") -> "ProviderSettings":
        if not isinstance(data, Mapping):
            raise ValidationError(f"{source} must be a mapping", field="settings")
        _check_keys(data, "")
        digest = _section(data, "digest")
        model = _section(digest, "model", prefix="digest.")
        recall = _section(data, "recall")
        journal = _section(data, "journal")
        exclude = _section(data, "exclude")
        group = _section(recall, "group_long_term", prefix="recall.")
        for section, values in (("digest", digest), ("digest.model", model), ("recall", recall), ("journal", journal),
                                ("exclude", exclude), ("recall.group_long_term", group)):
            _check_keys(values, section)
        assistant_name = _text(journal, "assistant_name", "journal.assistant_name")
        retention = journal.get("retention_days", 0) or 0
        if isinstance(retention, bool) or not isinstance(retention, (int, float)) or not 0 <= retention <= 36_500:
            raise ValidationError(f"{retention!r} is not a number of days (0 keeps every turn)", field="journal.retention_days")
        policy = _text(digest, "policy", "digest.policy") or "auto"
        if policy not in ("auto", "strict"):
            raise ValidationError(f"{policy!r} is not 'auto' or 'strict'", field="digest.policy")
        batch_size = _number(digest, "batch_size", 16, int, "digest.batch_size", maximum=10_000)
        max_delay = _number(digest, "max_delay_seconds", 20.0, float, "digest.max_delay_seconds", maximum=86_400)
        exit_wait = _number(digest, "exit_wait_seconds", 4.0, float, "digest.exit_wait_seconds", maximum=600,
                            zero=True)  # 0: exit waits for no digest
        database_url = _text(data, "database_url", "database_url")
        if database_url and not is_postgres_url(database_url):
            raise ValidationError("must be a postgresql:// URL (or empty for the ledger file)", field="database_url")
        return cls(
            database_url=database_url,
            policy=policy,
            batch_size=batch_size,
            max_delay_seconds=max_delay,
            exit_wait_seconds=exit_wait,
            model=ModelSettings(
                base_url=_text(model, "base_url", "digest.model.base_url"),
                name=_text(model, "name", "digest.model.name"),
                api_key_env=_text(model, "api_key_env", "digest.model.api_key_env"),
                from_hermes=_flag(model, "from_hermes", "digest.model.from_hermes"),
            ),
            recall_configuration=_text(recall, "configuration", "recall.configuration"),
            repeat_after_turns=_count(recall, "repeat_after_turns", 3, "recall.repeat_after_turns"),
            assistant_name=assistant_name.strip(),
            retention_days=float(retention),
            excluded_platforms=tuple(p.lower() for p in _text_list(exclude, "platforms", "exclude.platforms")),
            excluded_chats=_text_list(exclude, "chats", "exclude.chats"),
            group_long_term=_flag(group, "default", "recall.group_long_term.default", default=True),
            group_long_term_off=_text_list(group, "off", "recall.group_long_term.off"),
            group_long_term_on=_text_list(group, "on", "recall.group_long_term.on"),
            aliases=_aliases(data),
        )


def _section(data: Mapping[str, Any], name: str, *, prefix: str = "") -> Mapping[str, Any]:
    value = data.get(name)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValidationError("must be a mapping", field=prefix + name)
    return value


def _text(data: Mapping[str, Any], name: str, field_name: str) -> str:
    """A text setting ("" when absent); a number is taken as its text, anything else is refused."""
    value = data.get(name)
    if value is None:
        return ""
    if isinstance(value, bool):  # YAML 1.1: a plain no/yes/on/off/true/false is a boolean, not the word
        raise ValidationError(f"reads as {str(value).lower()} (a YAML boolean): quote the word, e.g. \"no\"",
                              field=field_name)
    if not isinstance(value, (str, int, float)):
        raise ValidationError(f"must be text, got {type(value).__name__}", field=field_name)
    return check_identifier(str(value).strip(), field_name, limit=500)


def _flag(data: Mapping[str, Any], name: str, field_name: str, *, default: bool = False) -> bool:
    value = data.get(name, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ValidationError(f"{value!r} is not true or false", field=field_name)
    return value


def _text_list(data: Mapping[str, Any], name: str, field_name: str) -> tuple[str, ...]:
    """A list of ids (numbers taken as their text); blanks dropped, order kept, duplicates folded."""
    value = data.get(name)
    if value is None:
        return ()
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list):
        raise ValidationError(f"must be a list, got {type(value).__name__}", field=field_name)
    items = [_text({name: item}, name, f"{field_name}[{i}]") for i, item in enumerate(value)]
    return tuple(dict.fromkeys(item for item in items if item))


def _person(value: Any, field_name: str) -> str:
    """One identity of the alias map: `realm:user id`, both parts present (a local front end is `local`)."""
    text = _text({"v": value}, "v", field_name)
    realm, _, user = text.partition(":")
    if not realm.strip() or not user.strip():
        raise ValidationError(f"{text!r} is not 'platform:user_id' (e.g. 'telegram:12345', 'local:local')", field=field_name)
    realm = realm.strip().lower()
    return f"{'local' if realm in LOCAL_PLATFORMS else realm}:{user.strip()}"


def _aliases(data: Mapping[str, Any]) -> dict[str, str]:
    """The operator's alias map: each key identity uses its value identity's long-term memory. No
    chains (a target is never itself an alias) and no identity mapped to itself, so one lookup decides."""
    raw = _section(data, "aliases")
    aliases: dict[str, str] = {}
    for key, value in raw.items():
        alias = _person(key, "aliases")
        aliases[alias] = _person(value, f"aliases[{alias}]")
    for alias, target in aliases.items():
        if target == alias:
            raise ValidationError(f"{alias!r} is mapped to itself", field=f"aliases[{alias}]")
        if target in aliases:
            raise ValidationError(f"{target!r} is itself an alias (of {aliases[target]!r}): map {alias!r} to that one",
                                  field=f"aliases[{alias}]")
    return aliases


def _count(data: Mapping[str, Any], name: str, default: int, field_name: str) -> int:
    """A whole number of turns, 0 to 100."""
    value = data.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
        raise ValidationError(f"{value!r} is not a whole number from 0 to 100", field=field_name)
    return value


def _number(data: Mapping[str, Any], name: str, default: Any, kind: type, field_name: str, *, maximum: float,
            zero: bool = False) -> Any:
    """A positive number at most `maximum` (0 too, with `zero`)."""
    value = data.get(name, default)
    if value is None:
        return default
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not number or not (0 <= value if zero else 0 < value) or value > maximum:
        raise ValidationError(f"{value!r} is not a number {'from 0 to' if zero else 'between 0 and'} {maximum:g}", field=field_name)
    if kind is int and value != int(value):
        raise ValidationError(f"{value!r} is not a whole number", field=field_name)
    return kind(value)

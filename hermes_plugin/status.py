"""What `hermes memory status` shows for factledger (the provider's `get_status_config`).

Hermes prints the returned mapping as `key: value` lines under "factledger config:", without calling
`initialize`, so everything here is read from files: the ledger opened read-only (nothing is written,
no index upkeep runs) and the settings file. A problem is reported as a line, never raised: status is
what an operator runs when something is wrong.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from factledger.ledger import Ledger, LedgerError
from factledger.ledger.pg_storage import redact_url

from .install import profile_name, profiles_without_plugin
from .paths import HermesPaths
from .settings import ProviderSettings

REVIEW_COUNT_CAP = 10_000  # status says "10000+" past this rather than listing every proposal


def _digest_model(settings: ProviderSettings, environ: Mapping[str, str]) -> str:
    model = settings.model
    if model.from_hermes:
        return "this Hermes profile's own model (digest.model.from_hermes; resolved when a session starts)"
    if not model.configured:
        return "rules extractor (offline, the default: no model configured)"
    key = ""
    if model.api_key_env:
        key = f", key from ${model.api_key_env} ({'set' if environ.get(model.api_key_env) else 'NOT set'})"
    return f"{model.name} at {model.base_url}{key}"


def memory_status(paths: HermesPaths, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The lines of `hermes memory status` (ordered: Hermes prints them as given)."""
    env = os.environ if environ is None else environ
    lines: dict[str, Any] = {"ledger": str(paths.ledger_path), "settings": str(paths.settings_path)}
    missing = profiles_without_plugin(paths)
    if missing:  # a clone of this profile runs without memory until the plugin is installed there
        lines["profiles_without_plugin"] = (", ".join(profile_name(p) for p in missing)
                                            + " (fix: factledger hermes install --all-profiles)")
    try:
        settings = ProviderSettings.load(paths.settings_path)
    except LedgerError as exc:
        lines["settings_error"] = str(exc)
        settings = None
    if settings is not None:
        lines["digest_model"] = _digest_model(settings, env)
        lines["digest_policy"] = settings.policy
        if settings.excluded_chats or settings.excluded_platforms:
            lines["excluded"] = ", ".join([*settings.excluded_platforms, *settings.excluded_chats])
    location = settings.ledger_location(paths.ledger_path) if settings is not None else paths.ledger_path
    if isinstance(location, str):  # the database_url setting: shown with its password masked
        lines["ledger"] = redact_url(location)
    elif not paths.ledger_path.exists():
        lines["state"] = "no ledger yet (it is created by the first Hermes session)"
        return lines
    try:
        with Ledger.open(location, read_only=True) as ledger:
            lines.update(_ledger_lines(ledger))
    except (LedgerError, OSError) as exc:
        message = f"{type(exc).__name__}: {exc}"
        lines["ledger_error"] = message.replace(location, redact_url(location)) if isinstance(location, str) else message
    return lines


def _ledger_lines(ledger: Ledger) -> dict[str, Any]:
    from factledger.digest import Journal, list_proposals
    from factledger.digest.journal import MAX_TITLE_CHARS
    from factledger.recall.index_meta import quick_status  # neither numpy nor LanceDB
    from factledger.recall.recorder import recorder_for
    from factledger.recall.render import one_line

    pending = len(list_proposals(ledger, status="pending", limit=REVIEW_COUNT_CAP + 1))
    lines: dict[str, Any] = {
        "claims_current": len(ledger.current()),
        "digest_backlog": Journal(ledger).backlog_size(),
        "pending_reviews": f"{REVIEW_COUNT_CAP}+" if pending > REVIEW_COUNT_CAP else pending,
    }
    latest = Journal(ledger).recent_session_titles(1)
    if latest:  # the host's title of the conversation titled last, on one line (it is the user's text)
        session, title = latest[0]
        lines["latest_conversation"] = f"{one_line(title, MAX_TITLE_CHARS)} (session {one_line(session, 80)})"
    index = quick_status(recorder_for(ledger))  # LanceDB costs ~2 s to load: the ledger and the folder's record
    lines["claim_versions"] = index.claim_versions
    lines["episodes"] = index.episodes
    health = f"{index.state} ({index.folder}"
    health += (f", {index.pending} changes to index: the next session that runs a second turn writes them)"
               if index.pending else ")")
    if index.needs_repair and index.reason:
        health += f": {index.reason}"
    lines["index"] = health
    return lines

"""The digest a Hermes CLI exit hands over: a detached process digests the turns the session left.

`hermes chat` (one question with `-q`, or a session that ends with /quit) shuts memory down and then
ends its process. Digesting there would cost the exit the digest's own imports (the rules' patterns:
~0.5 s of CPU; a digest model's client and its calls: seconds), so when the session has not digested
anything yet (or digests with a model), its exit starts this module in a process of its own and
returns at once:

    python -m factledger.hermes_plugin.exit_digest --hermes-home HOME --scope SCOPE [--scope SCOPE ...]

The turns are in the journal already (committed when Hermes acknowledged each turn, in `sync_turn`),
so nothing depends on this process: if it cannot start, or dies, the next session in that scope
digests them as it opens (`MemorySession._digest_left_behind`), and the journal's leases keep two
digests from taking the same entry (a lease held by a process that has ended is taken over at once).
It writes its one-line report and any warning to `$HERMES_HOME/logs/factledger-digest.log`.

This module imports only the standard library: the exiting Hermes process imports it to start the
child, which runs `exit_digest` (that module imports the provider's digest code; this one imports none,
so neither imports the other back).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

logger = logging.getLogger(__name__)
LOG_NAME = "factledger-digest.log"
LOG_LIMIT_BYTES = 1_000_000  # past this the log starts again (the previous one kept as .old)


def host_is_exiting() -> bool:
    """Whether this is Hermes's CLI shutting down: `cli._run_cleanup` (Hermes 0.19.0's exit path for
    `hermes chat`, one-shot and interactive) sets the module's `_cleanup_done` before it calls the
    memory provider's on_session_end and shutdown, and the process ends after it. The gateway, the TUI's
    server and a library embedding the provider never set it, so their sessions digest in process."""
    host_cli = sys.modules.get("cli")
    return (host_cli is not None and getattr(host_cli, "_cleanup_done", False) is True
            and callable(getattr(host_cli, "_run_cleanup", None)))


def log_path(home: Path) -> Path:
    return home / "logs" / LOG_NAME


def hand_over(home: Path, scopes: Sequence[str]) -> subprocess.Popen | None:
    """Start the detached digest of `scopes`' backlog (None when it cannot start: the next session
    digests those turns instead). Returns at once; the child outlives this process."""
    if not sys.executable or not scopes:
        return None
    log = log_path(home)
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        if log.exists() and log.stat().st_size > LOG_LIMIT_BYTES:
            log.replace(log.with_name(LOG_NAME + ".old"))
        with open(log, "ab") as sink:
            return subprocess.Popen(
                [sys.executable, "-m", "factledger.hermes_plugin.exit_digest", "--hermes-home", str(home),
                 f"--after-pid={os.getpid()}", *[f"--scope={scope}" for scope in scopes]],
                stdin=subprocess.DEVNULL, stdout=sink, stderr=sink, close_fds=True,
                start_new_session=True,  # not Hermes's terminal's: a closed terminal does not stop it
                cwd=str(home),
            )
    except OSError as exc:
        logger.warning("factledger: could not start the digest after exit (%s); the next session digests those turns", exc)
        return None

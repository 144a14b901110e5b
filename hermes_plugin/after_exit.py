"""The digest a Hermes CLI exit hands over: a detached process digests the turns the session left.

`hermes chat` (one question with `-q`, or a session that ends with /quit) shuts memory down and then
ends its process. Digesting there would cost the exit the digest's own imports (the rules' patterns:
~0.5 s of CPU; a digest model's client and its calls: seconds), so when the session has not digested
anything yet (or digests with a model), its exit starts this module in a process of its own and
returns at once:

    python -m factledger.hermes_plugin.after_exit --hermes-home HOME --scope SCOPE [--scope SCOPE ...]

The turns are in the journal already (committed when Hermes acknowledged each turn, in `sync_turn`),
so nothing depends on this process: if it cannot start, or dies, the next session in that scope
digests them as it opens (`MemorySession._digest_left_behind`), and the journal's leases keep two
digests from taking the same entry (a lease held by a process that has ended is taken over at once).
It writes its one-line report and any warning to `$HERMES_HOME/logs/factledger-digest.log`.

This module imports only the standard library at its top: the exiting Hermes process imports it to
start the child.
"""

from __future__ import annotations

import argparse
import logging
import os
import select
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

logger = logging.getLogger(__name__)
LOG_NAME = "factledger-digest.log"
LOG_LIMIT_BYTES = 1_000_000  # past this the log starts again (the previous one kept as .old)
MAX_BATCHES = 1000  # bounded, as the in-process worker's drain
WAIT_FOR_HOST_SECONDS = 60.0  # the most the child waits for the exiting Hermes to end before it digests anyway


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
                [sys.executable, "-m", "factledger.hermes_plugin.after_exit", "--hermes-home", str(home),
                 f"--after-pid={os.getpid()}", *[f"--scope={scope}" for scope in scopes]],
                stdin=subprocess.DEVNULL, stdout=sink, stderr=sink, close_fds=True,
                start_new_session=True,  # not Hermes's terminal's: a closed terminal does not stop it
                cwd=str(home),
            )
    except OSError as exc:
        logger.warning("factledger: could not start the digest after exit (%s); the next session digests those turns", exc)
        return None


def wait_for_exit(pid: int, timeout: float = WAIT_FOR_HOST_SECONDS) -> None:
    """Until the process `pid` (the Hermes that started this one) has ended, at most `timeout` seconds:
    its own exit runs first and does not share the CPU with this digest."""
    try:
        handle = os.pidfd_open(pid)
    except (AttributeError, OSError):  # no pidfd (not Linux, or the process is gone already): poll
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            except PermissionError:
                pass
            time.sleep(0.05)
        return
    try:
        select.select([handle], [], [], timeout)
    finally:
        os.close(handle)


def digest_left(home: Path, scopes: Sequence[str]) -> int:
    """Digest the backlog of `scopes` in the ledger of the Hermes home `home`, under its settings, and
    record the ledger's head beside them. Returns the entries digested."""
    from factledger.digest import Digester, build_extractor
    from factledger.ledger.chain_key import KeyFile

    from . import memory, shared_recall
    from .notices import Notices
    from .paths import HermesPaths
    from .settings import ProviderSettings

    paths = HermesPaths(home)
    settings = ProviderSettings.load(paths.settings_path)
    notices = Notices()  # no screen: warnings go to the log
    config = memory.digest_config(settings, os.environ, notices)
    location = settings.ledger_location(paths.ledger_path)
    ledger = shared_recall.open_ledger(location, chain_key=KeyFile(paths.chain_key_path(location)))
    try:
        digester = Digester(ledger, build_extractor(config), policy=config.policy, context_turns=config.context_turns)
        digested = 0
        for _ in range(MAX_BATCHES):
            done = memory.digest_batch(digester, ledger, settings, sorted(scopes), notices)
            if done <= 0:
                break
            digested += done
        memory.record_head(paths, location, ledger, notices)
        return digested
    finally:
        shared_recall.close_ledger(ledger)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m factledger.hermes_plugin.after_exit",
                                     description="Digest the turns a Hermes session left (started by its exit).")
    parser.add_argument("--hermes-home", required=True, type=Path)
    parser.add_argument("--scope", action="append", required=True, help="a journal scope to digest (repeatable)")
    parser.add_argument("--after-pid", type=int, help="start digesting once this process (the exiting Hermes) has ended")
    args = parser.parse_args(argv)
    try:
        os.nice(10)  # background work: the user's next command comes first
    except (AttributeError, OSError):
        pass
    if args.after_pid:
        wait_for_exit(args.after_pid)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s factledger digest after exit (pid %(process)d): %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    try:
        digested = digest_left(args.hermes_home, args.scope)
    except Exception as exc:  # the turns stay in the journal: the next session digests them
        logger.warning("failed (%s: %s); the turns stay in the journal and the next session digests them",
                       type(exc).__name__, exc, exc_info=True)
        return 1
    logger.info("digested %d journal entries", digested)
    return 0


if __name__ == "__main__":
    sys.exit(main())

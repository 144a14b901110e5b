"""The child a Hermes CLI exit starts (`after_exit.hand_over`): it waits for the exiting Hermes to end,
then digests the turns the session left, niced, and writes its report to the digest log.

    python -m factledger.hermes_plugin.exit_digest --hermes-home HOME --scope SCOPE [--scope SCOPE ...]
"""

from __future__ import annotations

import argparse
import logging
import os
import select
import sys
import time
from collections.abc import Sequence
from pathlib import Path

logger = logging.getLogger(__name__)
MAX_BATCHES = 1000  # bounded, as the in-process worker's drain
WAIT_FOR_HOST_SECONDS = 60.0  # the most the child waits for the exiting Hermes to end before it digests anyway


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
    parser = argparse.ArgumentParser(prog="python -m factledger.hermes_plugin.exit_digest",
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

"""Problems the user should see, told through Hermes's own warning line.

Hermes wraps every provider call in try/except and logs what escapes at WARNING in its log file, which a
CLI user never reads: memory that silently stopped working looks like memory that works. On the CLI,
Hermes passes `warning_callback` to `initialize` (its `_emit_warning`, the line it prints for a degraded
side path); `Notices` sends each distinct problem there once per session, and always to the log.

`hermes chat -q` (and `-Q`) silences that line: it sets the agent's `suppress_status_output` so stdout
holds only the reply (Hermes 0.19.0, cli.py and hermes_cli/oneshot.py). There Hermes itself writes what a
user must see to stderr (its error line, `session_id:`), so a notice goes to stderr too: a slow exit
digest is told on the screen of a one-question run, and stdout stays the reply alone.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable

logger = logging.getLogger(__name__)

PREFIX = "factledger memory: "
MAX_NOTICE_CHARS = 300  # one line on the user's terminal; the log keeps the whole text


class Notices:
    """Each distinct message once: to the log, and to the host's warning line when it gave one."""

    def __init__(self, warning_callback: Callable[[str], object] | None = None) -> None:
        self._callback = warning_callback if callable(warning_callback) else None
        self._told: set[str] = set()
        self._lock = threading.Lock()  # the digest worker and Hermes's threads both warn

    def warn(self, message: str, *, key: str = "") -> bool:
        """True when told now; False when this message (or another of the same `key`: one kind of
        problem whose text varies, such as each failing batch's error) was already told this session."""
        text = " ".join(message.split())  # one line: the host prints it as one
        with self._lock:
            if (key or text) in self._told:
                return False
            self._told.add(key or text)
        logger.warning("%s%s", PREFIX, text)
        if self._callback is not None:
            line = PREFIX + text
            if len(line) > MAX_NOTICE_CHARS:
                line = line[: MAX_NOTICE_CHARS - 1] + "…"
            try:
                if self._host_line_silenced():
                    print(line, file=sys.stderr, flush=True)
                else:
                    self._callback(line)
            except Exception:  # the host's printer failing must not break memory
                logger.debug("warning_callback raised", exc_info=True)
        return True

    def _host_line_silenced(self) -> bool:
        """True when the agent whose warning line this is prints nothing on it (`hermes chat -q`): read
        at each notice, since Hermes sets the flag after the provider's initialize."""
        agent = getattr(self._callback, "__self__", None)
        return getattr(agent, "suppress_status_output", False) is True


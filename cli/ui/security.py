"""Who may write through the page: the holder of the operator's token, from the page's own origin.

The token is made at start (printed once) or read from a file only its owner can read. The browser
keeps it in an HttpOnly, SameSite=Strict cookie after /login; scripts send it as a Bearer header. Every
write also needs the CSRF token (an HMAC of the operator's token, put in each form) and an Origin (or,
failing that, Referer) equal to the page's own: a cross-site form cannot read the CSRF token, and a
cross-site request carries a foreign Origin.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

COOKIE = "factledger_token"


class TokenFileError(Exception):
    pass


def read_token_file(path: Path) -> str:
    """The token in `path`, which must be a regular file readable and writable by its owner only."""
    try:
        info = path.stat()
    except OSError as exc:
        raise TokenFileError(f"cannot read {path}: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise TokenFileError(f"{path} is not a regular file")
    if info.st_mode & 0o077:
        raise TokenFileError(f"{path} is readable by others (mode {stat.S_IMODE(info.st_mode):04o}); chmod 600 it")
    token = path.read_text("utf-8").strip()
    if len(token) < 16:
        raise TokenFileError(f"{path} holds no token of at least 16 characters")
    return token


def write_token_file(path: Path, token: str) -> None:
    """Create `path` with mode 0600 holding `token` (refuses to overwrite)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(token + "\n")


def new_token() -> str:
    return secrets.token_urlsafe(24)


@dataclass(frozen=True)
class Guard:
    """The write check. `token` None means the page is read-only for everyone."""

    token: str | None
    principal: str

    @property
    def writable(self) -> bool:
        return self.token is not None and self.principal.startswith("operator:")

    def csrf(self) -> str:
        if self.token is None:
            return ""
        return hmac.new(self.token.encode(), b"factledger-ui-csrf", hashlib.sha256).hexdigest()

    def token_ok(self, presented: str | None) -> bool:
        return self.token is not None and presented is not None and hmac.compare_digest(presented.encode(), self.token.encode())

    def csrf_ok(self, presented: str | None) -> bool:
        return self.token is not None and presented is not None and hmac.compare_digest(presented.encode(), self.csrf().encode())


def same_origin(origin: str | None, referer: str | None, host: str | None) -> bool:
    """Whether the request names this page's own origin (scheme-agnostic host:port match)."""
    if not host:
        return False
    claimed = origin if origin and origin != "null" else referer
    if not claimed:
        return False
    parts = urlsplit(claimed)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.lower()


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def page_hosts(extra: Iterable[str] = ()) -> frozenset[str]:
    """The host names the page answers to: loopback's and those it was bound to (lower case, no brackets)."""
    return frozenset(h.strip().strip("[]").lower() for h in (*LOOPBACK_NAMES, *extra) if h and h.strip())


def host_name(host: str) -> str:
    """The name of a Host header without its port: `[::1]:8765` -> `::1`, `Localhost:80` -> `localhost`."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def allowed_host(host: str | None, names: frozenset[str]) -> bool:
    """Whether a request's Host header names this page (DNS rebinding sends the attacker's name)."""
    return bool(host) and host_name(host) in names  # type: ignore[arg-type]

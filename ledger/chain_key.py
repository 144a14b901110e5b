"""The chain key: the secret that keys the hash chain, kept outside the database (DESIGN §8).

The ledger's own secret (`ledger_secret`, migration 0007) lives in the database, so anyone who can write
the database can read it; a chain keyed with it would prove nothing against them. The chain key is
32 random bytes in a file of its own (mode 0600, refused when anyone else may read it), by default beside
a SQLite ledger as `<ledger>.chain-key`, or in an environment variable the caller names explicitly
(`--chain-key-env NAME`; nothing here reads the environment unless asked, and never at import time).

Whoever holds the key can write links that verify; whoever does not cannot rewrite the keyed part of the
history without `verify` saying so. Keep the key where the people you need to detect cannot read it.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from .errors import ValidationError

KEY_BYTES = 32
KEY_FILE_SUFFIX = ".chain-key"
HEADS_FILE_SUFFIX = ".heads"
_FILE_SOURCE = "key file "  # ChainKey.source: where the key came from
_ENV_SOURCE = "environment variable "


@dataclass(frozen=True)
class ChainKey:
    """A chain key and where it came from (for messages; the key itself is never printed)."""

    secret: bytes = field(repr=False)
    source: str = ""

    @cached_property  # every keyed transaction asks (chain.missing_key): computed once per key
    def key_id(self) -> str:
        """A public fingerprint of the key (16 hex): names it in heads and messages, reveals nothing."""
        return hmac.new(self.secret, b"factledger-chain-key-id-v1", hashlib.sha256).hexdigest()[:16]

    def mac(self, payload: bytes) -> str:
        return hmac.new(self.secret, payload, hashlib.sha256).hexdigest()

    def command_options(self) -> list[str]:
        """The command-line options that name this key again (`--chain-key FILE` for a key file,
        `--chain-key-env NAME` for a variable), for a command a message tells someone to run on a copy
        that has no key beside it (a backup); [] for a key given in code."""
        if self.source.startswith(_FILE_SOURCE):
            return ["--chain-key", str(Path(self.source[len(_FILE_SOURCE):]).absolute())]
        if self.source.startswith(_ENV_SOURCE):
            return ["--chain-key-env", self.source[len(_ENV_SOURCE):]]
        return []

    @classmethod
    def from_text(cls, text: str, source: str, field_name: str = "chain_key") -> "ChainKey":
        value = text.strip()
        try:
            secret = bytes.fromhex(value)
        except ValueError:
            secret = b""
        if len(secret) != KEY_BYTES:
            raise ValidationError(
                f"{source} does not hold a chain key ({KEY_BYTES * 2} hexadecimal digits)", field=field_name
            )
        return cls(secret, source)

    @classmethod
    def from_file(cls, path: str | Path) -> "ChainKey":
        """Read a key file; refused when missing, not a regular file, or readable by group or others."""
        target = Path(path)
        try:
            info = target.stat()
        except FileNotFoundError:
            raise ValidationError(f"no chain key file at {target}", field="chain_key") from None
        except OSError as exc:
            raise ValidationError(f"cannot read the chain key file {target}: {exc.strerror}", field="chain_key") from None
        if not stat.S_ISREG(info.st_mode):
            raise ValidationError(f"the chain key {target} is not a regular file", field="chain_key")
        if info.st_mode & 0o077:
            raise ValidationError(
                f"the chain key file {target} may be read by others (mode {stat.S_IMODE(info.st_mode):04o});"
                f" make it private: chmod 600 {target}",
                field="chain_key",
            )
        try:
            text = target.read_text("ascii")
        except (OSError, UnicodeDecodeError) as exc:
            raise ValidationError(f"cannot read the chain key file {target}: {exc}", field="chain_key") from None
        return cls.from_text(text, f"{_FILE_SOURCE}{target}")

    @classmethod
    def from_env(cls, name: str, environ: Mapping[str, str] | None = None) -> "ChainKey":
        """The key held by the environment variable `name` (read now, from `environ` or os.environ)."""
        env = os.environ if environ is None else environ
        if not name or name not in env:
            raise ValidationError(f"the environment variable {name!r} holding the chain key is not set", field="chain_key_env")
        return cls.from_text(env[name], f"{_ENV_SOURCE}{name}", "chain_key_env")

    @classmethod
    def create(cls, path: str | Path) -> "ChainKey":
        """Write a new random key to `path` (mode 0600; refused if the file exists)."""
        return cls(os.urandom(KEY_BYTES)).write(path)

    def write(self, path: str | Path) -> "ChainKey":
        """Write this key to a new file `path` (mode 0600; refused if the file exists). Written whole
        beside it first and linked into place, so no reader ever sees a half-written key."""
        target = Path(path)
        partial = target.with_name(f".{target.name}.partial-{os.getpid()}-{os.urandom(4).hex()}")
        try:
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.write(fd, (self.secret.hex() + "\n").encode("ascii"))
                os.fsync(fd)
            finally:
                os.close(fd)
            os.link(partial, target)
        except FileExistsError:
            raise ValidationError(f"a chain key file already exists at {target}", field="chain_key") from None
        except OSError as exc:
            raise ValidationError(f"cannot create the chain key file {target}: {exc.strerror}", field="chain_key") from None
        finally:
            partial.unlink(missing_ok=True)
        return ChainKey(self.secret, f"{_FILE_SOURCE}{target}")


@dataclass(frozen=True)
class KeyFile:
    """A ledger's chain key by file: the key file at `path` (None: `<ledger>.chain-key` beside a SQLite
    ledger, nothing for a URL), made (0600) when a writer opens a ledger whose chain is not keyed yet."""

    path: Path | None = None


DEFAULT_KEY = KeyFile()  # Ledger.open's default


def default_key_path(location: str | Path) -> Path | None:
    """Where a ledger's chain key lives unless the caller says otherwise: `<ledger file>.chain-key` beside
    a SQLite ledger; None for a database URL or an in-memory ledger (give the key explicitly)."""
    text = str(location)
    if text == ":memory:" or "://" in text:
        return None
    return Path(text + KEY_FILE_SUFFIX)


def default_heads_path(location: str | Path) -> Path | None:
    """Where heads of a ledger are recorded unless the caller says otherwise: `<ledger file>.heads`; None
    for a database URL or an in-memory ledger."""
    text = str(location)
    if text == ":memory:" or "://" in text:
        return None
    return Path(text + HEADS_FILE_SUFFIX)

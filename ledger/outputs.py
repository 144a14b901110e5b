"""Where a command may write what it produces (`sql -o`, `backup DEST`, `export DIRECTORY`'s files).

An output never replaces one of the ledger's own files — the database file and its -wal, -shm and
-journal, the analytics companion (and its log), the vector folder, the chain key (`<ledger>.chain-key`)
and heads file (`<ledger>.heads`), a settings or key file — and never
anything that exists and is not a regular file (a device such as /dev/null, a folder, a FIFO, a socket):
writing there would destroy the ledger or the thing in its place. A symbolic link is judged by what it
points at. The check runs before anything is written, so a refused output changes nothing.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from .chain_key import HEADS_FILE_SUFFIX, KEY_FILE_SUFFIX
from .errors import ValidationError

__all__ = ["check_output", "ledger_own_paths"]


def ledger_own_paths(location: str | Path) -> list[Path]:
    """The files and folders a ledger at `location` keeps on this machine (its engine's own layout; the
    caller adds what other parts record: a moved vector folder, a settings file, a chain key or heads
    file given elsewhere)."""
    from .analytics.companion import default_path  # duckdb is imported only where analytics is
    from .pg_storage import is_postgres_url, local_data_path

    text = str(location)
    if is_postgres_url(text):
        companion = default_path(text, "postgres")
        return [companion, Path(f"{companion}.wal"), local_data_path(text, "vectors", ".lance")]
    if text == ":memory:":
        return []
    companion = default_path(text, "sqlite")
    return [
        Path(text), Path(f"{text}-wal"), Path(f"{text}-shm"), Path(f"{text}-journal"),
        companion, Path(f"{companion}.wal"), Path(f"{companion}.rebuild"), Path(f"{text}.lance"),
        Path(f"{text}{KEY_FILE_SUFFIX}"), Path(f"{text}{HEADS_FILE_SUFFIX}"),  # the chain key and kept heads
    ]


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: resolve what can be
        return Path(os.path.abspath(path))


def check_output(
    path: str | Path, own: Iterable[str | Path], *, field: str, what: str = "output", folder: bool = False
) -> Path:
    """Refuse `path` as an output when it is (or lies inside) one of `own`, or exists and is not a
    regular file (with `folder`: not a folder, for an export's DIRECTORY). Returns the path as given.
    Raises ValidationError naming the path."""
    target = Path(path)
    where = _resolved(target)
    for item in own:
        mine = _resolved(Path(item))
        if where == mine or where.is_relative_to(mine):  # a folder's contents are its own too
            raise ValidationError(
                f"{target} is the ledger's own {_name(Path(item))}; the {what} would replace it: choose another path",
                field=field,
            )
    try:
        info = os.stat(target)  # follows a symbolic link: what a write would reach
    except FileNotFoundError:
        return target
    except OSError as exc:
        raise ValidationError(f"{target}: {exc.strerror}", field=field) from None
    if folder and not stat.S_ISDIR(info.st_mode):
        raise ValidationError(f"{target} exists and is not a folder ({_kind(info.st_mode)})", field=field)
    if not folder and not stat.S_ISREG(info.st_mode):
        raise ValidationError(
            f"{target} exists and is not a regular file ({_kind(info.st_mode)}); the {what} would replace it:"
            " choose a file path",
            field=field,
        )
    return target


def _name(item: Path) -> str:
    text = item.name
    if text.endswith(".lance"):
        return "vector index folder"
    if ".analytics.duckdb" in text:
        return "analytics companion"
    if text.endswith(("-wal", "-shm", "-journal")):
        return "database log"
    if text.endswith(KEY_FILE_SUFFIX):
        return "chain key file"
    if text.endswith(HEADS_FILE_SUFFIX) or text == "heads":
        return "heads file"
    if text.endswith((".yaml", ".yml", ".toml", ".json")):
        return "settings file"
    if text.endswith((".key", ".secret")):
        return "key file"
    return "database file"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISREG(mode):
        return "a file"
    return "not a regular file"

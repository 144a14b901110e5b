"""`backup`: a consistent copy of the ledger file, taken while writers run, then verified on the copy.

SQLite's online backup copies the pages of one read snapshot (in WAL mode writers are not blocked).
The copy is written beside DEST and renamed onto it only when complete, so an interrupted backup never
leaves a half-written DEST; then the copy is opened read-only and checked (integrity, schema, rows and
the hash chain, keyed links with the source's chain key, which is not copied), and its head is
reported and, when `heads` names a file, recorded there (ledger/head.py): a later `verify --against`
then shows that the ledger still extends it (no truncation, no rollback to an older copy, no swap).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .chain_key import default_heads_path, default_key_path
from .errors import ValidationError
from .exports import BACKUP_FORMAT, record_export
from .outputs import check_output, ledger_own_paths
from .head import Head, record_head, take_head
from .store import Ledger
from .verify import VerifyReport, verify_ledger


@dataclass(frozen=True)
class BackupReport:
    path: str
    bytes: int
    verification: VerifyReport
    head: Head | None = None  # the copy's head, signed with the chain key
    heads_file: str | None = None  # where it was recorded

    @property
    def ok(self) -> bool:
        return self.verification.ok

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "bytes": self.bytes,
            "ok": self.ok,
            "transactions": self.verification.transactions,
            "chain_head": self.verification.chain_head,
            "head": self.head.to_text() if self.head else None,
            "heads_file": self.heads_file,
            "checks": [c.to_dict() for c in self.verification.checks],
        }


def backup(
    ledger: Ledger, dest: str | Path, *, force: bool = False, own: Sequence[str | Path] = (),
    heads: str | Path | None = None,
) -> BackupReport:
    """Copy the ledger to `dest` and verify the copy (with the ledger's chain key). Refuses an existing
    `dest` unless `force`, and always the ledger's own files (its chain key and heads file among them, and
    `own`: what other parts keep, such as a moved vector folder) and anything that exists and is not a
    regular file (outputs.py). The copy's head is recorded in the heads file `heads` when given and the
    copy verified."""
    target = Path(dest)
    try:
        str(target).encode("utf-8")
    except UnicodeEncodeError:  # bytes of another encoding in the name: the manifest of copies holds UTF-8 text
        raise ValidationError(f"{str(target)!r} is not a UTF-8 name; give a file name that is", field="dest") from None
    if target.is_dir():
        raise ValidationError(f"{target} is a folder; give a file name", field="dest")
    if target.resolve() == Path(ledger.storage.path).resolve():
        raise ValidationError("the backup cannot replace the ledger itself", field="dest")
    if target.resolve() in {p.resolve() for p in (default_key_path(ledger.storage.path), default_heads_path(ledger.storage.path)) if p}:
        raise ValidationError("the backup cannot replace the ledger's chain key or heads file", field="dest")
    check_output(target, [*ledger_own_paths(ledger.storage.path), *own, *([heads] if heads else [])], field="dest", what="backup")
    if target.exists() and not force:
        raise ValidationError(f"{target} exists; pass --force to replace it", field="dest")
    if not target.parent.is_dir():
        raise ValidationError(f"folder {target.parent} does not exist", field="dest")
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    ledger.catch_up_lanes()  # recall's pending lexical rows (SQLite, 0027): the copy holds them written
    try:
        ledger.storage.backup(partial)
        # Listed in the manifest of known exports before it is in place, so that an erase names it (exports.py).
        record_export(ledger, directory=target, fmt=BACKUP_FORMAT, snapshot_tx_time=None, tables=[])
        for suffix in ("-wal", "-shm"):  # an older copy's journal files must not be applied to the new one
            Path(f"{target}{suffix}").unlink(missing_ok=True)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    copy = Ledger.open(target, read_only=True, chain_key=None)
    try:
        report = verify_ledger(copy, chain_key=ledger.chain_key)
        head = take_head(copy.storage, ledger.chain_key) if report.ok else None
    finally:
        copy.close()
    recorded = str(record_head(heads, head)) if heads is not None and head is not None else None
    return BackupReport(str(target), target.stat().st_size, report, head, recorded)

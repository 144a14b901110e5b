"""`backup`: a consistent copy of the ledger file, taken while writers run, then verified on the copy.

SQLite's online backup copies the pages of one read snapshot (in WAL mode writers are not blocked).
The copy is written beside DEST and renamed onto it only when complete, so an interrupted backup never
leaves a half-written DEST; then the copy is opened read-only and checked (integrity, schema, rows and
the hash chain), and its chain head is reported: kept elsewhere, it lets a later `verify` show that the
history up to it was not rewritten.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ValidationError
from .exports import BACKUP_FORMAT, record_export
from .outputs import check_output, ledger_own_paths
from .store import Ledger
from .verify import VerifyReport, verify_ledger


@dataclass(frozen=True)
class BackupReport:
    path: str
    bytes: int
    verification: VerifyReport

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
            "checks": [c.to_dict() for c in self.verification.checks],
        }


def backup(ledger: Ledger, dest: str | Path, *, force: bool = False, own: Sequence[str | Path] = ()) -> BackupReport:
    """Copy the ledger to `dest` and verify the copy. Refuses an existing `dest` unless `force`, and
    always the ledger's own files (and `own`: what other parts keep, such as a moved vector folder) and
    anything that exists and is not a regular file (outputs.py)."""
    target = Path(dest)
    try:
        str(target).encode("utf-8")
    except UnicodeEncodeError:  # bytes of another encoding in the name: the manifest of copies holds UTF-8 text
        raise ValidationError(f"{str(target)!r} is not a UTF-8 name; give a file name that is", field="dest") from None
    if target.is_dir():
        raise ValidationError(f"{target} is a folder; give a file name", field="dest")
    if target.resolve() == Path(ledger.storage.path).resolve():
        raise ValidationError("the backup cannot replace the ledger itself", field="dest")
    check_output(target, [*ledger_own_paths(ledger.storage.path), *own], field="dest", what="backup")
    if target.exists() and not force:
        raise ValidationError(f"{target} exists; pass --force to replace it", field="dest")
    if not target.parent.is_dir():
        raise ValidationError(f"folder {target.parent} does not exist", field="dest")
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    try:
        ledger.storage.backup(partial)
        # Listed in the manifest of known exports before it is in place, so that an erase names it (exports.py).
        record_export(ledger, directory=target, fmt=BACKUP_FORMAT, snapshot_tx_time=None, tables=[])
        for suffix in ("-wal", "-shm"):  # an older copy's journal files must not be applied to the new one
            Path(f"{target}{suffix}").unlink(missing_ok=True)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    copy = Ledger.open(target, read_only=True)
    try:
        report = verify_ledger(copy)
    finally:
        copy.close()
    return BackupReport(str(target), target.stat().st_size, report)

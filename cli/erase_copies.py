"""The copies an erase cannot reach, each named with its path and the command that would reach it.

- the analytics companion while a session holds it (it is removed otherwise: erase_cmds.scrub_files);
- what the manifest of known exports lists (ledger/exports.py) and is still on disk: `export` folders,
  `backup` files and `sql -o` files written since the earliest erased copy was;
- transaction reasons and sources that mention the value but were written before reasons were salted
  (ledger/chain.py: their chain row hashes the text itself, so redacting them would break `verify`);
- the Hermes host's own files (hermes_plugin/host_copies.py) when the ledger is a Hermes home's.

Commands name the value as "$VALUE": the report never prints it.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from factledger.ledger.exports import ExportRecord


@dataclass(frozen=True)
class Remaining:
    kind: str  # "companion", "export", "backup", "sql output", "transaction", "hermes"
    path: str
    what: str
    command: str

    def to_dict(self) -> dict:
        return {"kind": self.kind, "path": self.path, "what": self.what, "command": self.command}


def erase_command(
    location: str, *, scope: str, subject: str, predicate: str, value_given: bool, key_options: Sequence[str] = ()
) -> str:
    """`key_options` name the chain key (a backup of a keyed ledger has none beside it: it is keyed with
    the source's, ledger/backup.py), before the command, as the CLI's group options are given."""
    parts = ["factledger", "--db", location, *key_options, "erase", "--scope", scope, "--subject", subject,
             "--predicate", predicate]
    text = " ".join(shlex.quote(p) for p in parts)
    return text + (' --value "$VALUE"' if value_given else "") + " --yes"


def manifest_copies(
    exports: list[ExportRecord], *, scope: str, subject: str, predicate: str, value_given: bool,
    key_options: Sequence[str] = (),
) -> list[Remaining]:
    from pathlib import Path

    found = []
    for record in exports:
        path = Path(record.directory)
        if not path.exists():
            continue  # deleted already: no copy left there
        quoted = shlex.quote(record.directory)
        if record.kind == "backup":
            command = (erase_command(record.directory, scope=scope, subject=subject, predicate=predicate,
                                     value_given=value_given, key_options=key_options)
                       + f"  (or delete it: rm -- {quoted})")
            what = "a backup of this ledger made while the value was held"
        elif record.kind == "sql output":
            command = f"rm -- {quoted}"
            what = f"a `factledger sql -o` result ({record.format[4:]}) written while the value was held"
        else:
            command = f"rm -r -- {quoted}"
            what = f"an export ({record.format}) made while the value was held"
        found.append(Remaining(record.kind, record.directory, what, command))
    return found

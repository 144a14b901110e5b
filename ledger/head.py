"""Signed heads: what `factledger head` prints and `verify --against` checks (DESIGN §8).

A head names one point of a ledger's history: the ledger's public id, its latest transaction (id and
time), that transaction's chain hash, when the head was taken, and the chain key's fingerprint, with an
HMAC under the chain key over all of them. Kept somewhere the ledger's writers cannot rewrite (a heads
file, a ticket, a message), it lets a later `verify --against HEAD` prove the ledger still extends it:

- the same ledger (its id), so another ledger put in its place (a swapped folder) is named as such;
- the head's transaction is still there with the same chain hash, so a truncation (the last
  transactions deleted) or a rollback (an older copy restored, e.g. a backup from before an erase) and a
  rewrite of anything up to it are named;
- every later link chains from it (the chain check of `verify`, keyed links with the key).

Heads are recorded as JSON lines (`record_head`): by `factledger head --record`, by `backup` and by the
Hermes provider at the end of a session, by default in `<ledger>.heads` beside a SQLite ledger
(ledger/chain_key.py `default_heads_path`). `verify` checks against the last one recorded there.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .chain import GENESIS
from .chain_key import ChainKey
from .errors import ValidationError
from .engines import ledger_recorder
from .times import utc_now

FORMAT = "factledger-head-v1"
_HEX = re.compile(r"^[0-9a-f]+$")
_FIELDS = ("ledger", "tx", "chain", "tx_time", "at", "key", "mac")


@dataclass(frozen=True)
class Head:
    ledger_id: str
    tx: int
    chain_hash: str
    tx_time: str | None  # the transaction's time (None before the first transaction)
    taken_at: str
    key_id: str | None = None
    mac: str | None = None

    def payload(self) -> bytes:
        fields = [FORMAT, self.ledger_id, self.tx, self.chain_hash, self.tx_time, self.taken_at, self.key_id]
        return json.dumps(fields, ensure_ascii=True, separators=(",", ":")).encode("ascii")

    @property
    def signed(self) -> bool:
        return self.mac is not None

    def signed_with(self, key: ChainKey) -> "Head":
        return Head(self.ledger_id, self.tx, self.chain_hash, self.tx_time, self.taken_at, key.key_id,
                    key.mac(Head(self.ledger_id, self.tx, self.chain_hash, self.tx_time, self.taken_at, key.key_id).payload()))

    def mac_ok(self, key: ChainKey) -> bool:
        return self.mac is not None and self.key_id == key.key_id and key.mac(self.payload()) == self.mac

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT} | asdict(self)

    def to_text(self) -> str:
        """One line: `factledger-head-v1 ledger=… tx=… chain=… tx_time=… at=… key=… mac=…` (`-` for none)."""
        values = (self.ledger_id, self.tx, self.chain_hash, self.tx_time, self.taken_at, self.key_id, self.mac)
        return " ".join([FORMAT] + [f"{name}={'-' if value is None else value}" for name, value in zip(_FIELDS, values)])

    @classmethod
    def parse(cls, text: str, where: str = "head") -> "Head":
        """A head from its text line or its JSON object; a clear error naming what is wrong."""
        text = text.strip()
        if text.startswith("{"):
            try:
                data = json.loads(text)
            except ValueError as exc:
                raise ValidationError(f"{where} is not a head: invalid JSON ({exc})", field="against") from None
            if not isinstance(data, dict) or data.get("format") != FORMAT:
                raise ValidationError(f"{where} is not a {FORMAT} head", field="against")
            values = {k: data.get(k) for k in ("ledger_id", "tx", "chain_hash", "tx_time", "taken_at", "key_id", "mac")}
        else:
            parts = text.split()
            if not parts or parts[0] != FORMAT:
                raise ValidationError(f"{where} is not a head (it begins with {FORMAT})", field="against")
            pairs = dict(p.partition("=")[::2] for p in parts[1:])
            if set(pairs) != set(_FIELDS):
                raise ValidationError(f"{where}: a head has the fields {', '.join(_FIELDS)}", field="against")
            raw = [None if pairs[name] == "-" else pairs[name] for name in _FIELDS]
            values = dict(zip(("ledger_id", "tx", "chain_hash", "tx_time", "taken_at", "key_id", "mac"), raw))
        return cls._checked(values, where)

    @classmethod
    def _checked(cls, v: dict[str, Any], where: str) -> "Head":
        def bad(name: str, why: str) -> ValidationError:
            return ValidationError(f"{where}: {name} {why}", field="against")

        tx = v["tx"]
        if isinstance(tx, str) and tx.isdigit() and len(tx) < 20:
            tx = int(tx)
        if not isinstance(tx, int) or isinstance(tx, bool) or not 0 <= tx < 2**63:
            raise bad("tx", "must be a transaction id (0 or more)")
        for name, length, optional in (("ledger_id", 32, False), ("chain_hash", 64, False), ("key_id", 16, True), ("mac", 64, True)):
            value = v[name]
            if value is None and optional:
                continue
            if not isinstance(value, str) or len(value) != length or not _HEX.match(value):
                raise bad(name, f"must be {length} hexadecimal digits")
        if (v["key_id"] is None) != (v["mac"] is None):
            raise bad("mac", "and key go together")
        for name in ("tx_time", "taken_at"):
            value = v[name]
            if value is None and name == "tx_time":
                continue
            if not isinstance(value, str) or len(value) != 27 or not value.endswith("Z"):
                raise bad(name, "must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ")
        return cls(v["ledger_id"], tx, v["chain_hash"], v["tx_time"], v["taken_at"], v["key_id"], v["mac"])


def take_head(storage: Any, key: ChainKey | None, *, now: str | None = None) -> Head:
    """The head of the ledger now: its latest transaction's chain row, signed with `key` when given."""
    recorder = ledger_recorder(storage)
    with storage.snapshot():
        keying = recorder.chain_keying()
        link = recorder.last_link()
    if keying is None:
        raise ValidationError("this ledger predates signed heads (migration 0022 SQLite / 0012 PostgreSQL): open it once for writing", field="db")
    head = Head(keying.ledger_id, link.tx_id if link else 0, link.chain_hash if link else GENESIS,
                link.tx_time if link else None, now or utc_now())
    return head.signed_with(key) if key is not None else head


def compare(storage: Any, head: Head, key: ChainKey | None) -> tuple[list[tuple[str, object, str]], str]:
    """What differs between the ledger and `head`, as (table, row, problem); and what held (text)."""
    recorder = ledger_recorder(storage)
    keying = recorder.chain_keying()
    last = recorder.last_link()
    found: list[tuple[str, object, str]] = []
    if keying is None:
        return [("chain_keying", None, "this ledger predates signed heads (migration 0022 SQLite / 0012 PostgreSQL)")], ""
    if keying.ledger_id != head.ledger_id:
        return [("chain_keying", 1, f"another ledger: its id is {keying.ledger_id}, the head's {head.ledger_id}"
                 " (a swapped ledger file or folder?)")], ""
    if head.signed:
        if key is None:
            pass  # the chain_key check says the key is missing
        elif head.key_id != key.key_id:
            found.append(("head", head.tx, f"the head was signed with key {head.key_id}, not this ledger's key {key.key_id}"))
        elif not head.mac_ok(key):
            found.append(("head", head.tx, "the head's MAC does not verify under the chain key: the head was forged or altered"))
    if head.key_id is not None and keying.key_id is not None and keying.key_id != head.key_id:
        found.append(("chain_keying", 1, f"the chain is keyed with key {keying.key_id}; when the head was taken, with {head.key_id}"))
    elif head.key_id is not None and not keying.keyed:
        found.append(("chain_keying", 1, f"the chain is not keyed; when the head was taken it was (key {head.key_id}): its keying was removed"))
    last_tx = last.tx_id if last else 0
    if head.tx > last_tx:
        ends = f"transaction {last_tx}" if last_tx else "no transaction"
        found.append(("transactions", head.tx,
                      f"missing: the ledger ends at {ends}, before the head's transaction {head.tx}"
                      f" ({head.tx_time}, head taken {head.taken_at}); its last {head.tx - last_tx} transaction(s) are gone:"
                      " truncated, or rolled back to an older copy (a backup from before them restored?)"))
    elif head.tx > 0:
        link = recorder.link_at(head.tx)
        if link is None:
            found.append(("tx_chain", head.tx, "the head's transaction has no chain row"))
        elif link.chain_hash != head.chain_hash or link.tx_time != head.tx_time:
            found.append(("tx_chain", head.tx,
                          f"chain hash {link.chain_hash[:16]}… at {link.tx_time}, the head's {head.chain_hash[:16]}… at"
                          f" {head.tx_time}: the history up to transaction {head.tx} was rewritten (or this is another copy)"))
    held = f"extends the head of transaction {head.tx} (taken {head.taken_at}"
    held += f", signed with key {head.key_id})" if head.signed else ", unsigned)"
    held += f" to transaction {last_tx}"
    return found, held


def record_head(path: str | Path, head: Head) -> Path:
    """Append `head` to the heads file at `path` (one JSON object a line; created when missing)."""
    target = Path(path)
    line = json.dumps(head.to_dict(), ensure_ascii=True, separators=(",", ":")) + "\n"
    fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode("ascii"))
    finally:
        os.close(fd)
    return target


def last_recorded_head(path: str | Path) -> Head | None:
    """The last head recorded in the heads file at `path` (None when there is no file or no head)."""
    target = Path(path)
    try:
        lines = target.read_text("utf-8").splitlines()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValidationError(f"cannot read the heads file {target}: {exc}", field="against") from None
    for number in range(len(lines), 0, -1):
        if lines[number - 1].strip():
            return Head.parse(lines[number - 1], f"{target} line {number}")
    return None


def read_head(argument: str) -> tuple[Head, str]:
    """`--against`'s argument: a head (text or JSON) or a file holding heads (the last one counts).
    Returns the head and where it came from."""
    text = argument.strip()
    if text.startswith(FORMAT) or text.startswith("{"):
        return Head.parse(text, "--against"), "the head given"
    path = Path(argument)
    if not path.is_file():
        raise ValidationError(f"{argument!r} is neither a head ({FORMAT} …) nor a file of heads", field="against")
    head = last_recorded_head(path)
    if head is None:
        raise ValidationError(f"{path} holds no head", field="against")
    return head, f"the last head in {path}"

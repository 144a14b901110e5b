"""A slot's history as a picture: each version a bar over its valid interval, one row per transaction
that opened versions (so a correction is a new row of belief), coloured by what became of it.

Drawn with altair (Vega-Lite); this module only shapes the ledger's history into the chart's rows and
the spec. "As known at" K keeps the versions opened by K and judges each as the ledger did at K.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import altair as alt

from factledger.ledger import HistoryEntry
from factledger.ledger.times import display, to_datetime

STATES = ("current", "superseded", "re-dated", "partly retracted", "retracted", "retraction")
COLOURS = ("#2f9e44", "#adb5bd", "#1c7ed6", "#f08c00", "#e03131", "#ffa8a8")  # black value text on each is >= 4.5:1


@dataclass(frozen=True)
class Bar:
    """One version as drawn, as the ledger believed it at the chosen moment; or (state "retraction") a
    transaction that closed versions of the slot and opened none, drawn over the interval it removed."""

    id: int
    value: str
    valid_from: str
    valid_to: str | None
    opened_by: int
    opened_at: str
    closed_by: int | None
    state: str  # one of STATES, at the chosen moment
    row: str  # the transaction row it is drawn in
    retracted: tuple[tuple[str, str | None], ...] = ()  # valid intervals the closing transaction removed

    @property
    def open_end(self) -> bool:
        return self.valid_to is None

    @property
    def label(self) -> str:
        if self.state == "retraction":
            return f"ledger transaction #{self.opened_by} retracted {self.value} {_spans(self.retracted)}"
        text = f"claim version #{self.id} {self.value} {self.state}"
        if self.state == "partly retracted":
            text += f" {_spans(self.retracted)}"
        return text + (", open end" if self.open_end and self.state == "current" else "")

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "retracted": [list(r) for r in self.retracted], "open_end": self.open_end, "label": self.label}


def _spans(spans: tuple[tuple[str, str | None], ...]) -> str:
    return ", ".join(f"from {display(a)}" + (f" to {display(b)}" if b else " on") for a, b in spans)


def _believed(entry: HistoryEntry, known_at: str | None) -> bool:
    v = entry.version
    if known_at is None:
        return v.tx_to is None
    return v.tx_from <= known_at and (v.tx_to is None or known_at < v.tx_to)


def _overlap(a_from: str, a_to: str | None, b_from: str, b_to: str | None) -> bool:
    return (a_to is None or b_from < a_to) and (b_to is None or a_from < b_to)


def _uncovered(start: str, end: str | None, cover: list[tuple[str, str | None]]) -> tuple[tuple[str, str | None], ...]:
    """The parts of [start, end) that no interval of `cover` overlaps (None is the open end)."""
    out: list[tuple[str, str | None]] = []
    at: str | None = start
    for c_from, c_to in sorted(cover):
        if at is None or (end is not None and c_from >= end):
            break
        if c_from > at:
            out.append((at, c_from))
        if c_to is None:
            at = None
        elif c_to > at:
            at = c_to
    if at is not None and (end is None or at < end):
        out.append((at, end))
    return tuple(out)


def _state(v: Any, successors: list[HistoryEntry]) -> tuple[str, tuple[tuple[str, str | None], ...]]:
    """What the closing transaction did to version v: wrote another value over it (superseded); wrote the
    same value over another interval (re-dated); kept part of it and removed the rest (partly retracted,
    with the removed parts); or removed it and wrote nothing over it (retracted)."""
    others = [s.version for s in successors if s.version.value_key != v.value_key]
    if any(_overlap(v.valid_from, v.valid_to, o.valid_from, o.valid_to) for o in others):
        return "superseded", ()
    same = [(s.version.valid_from, s.version.valid_to) for s in successors if s.version.value_key == v.value_key]
    gone = _uncovered(v.valid_from, v.valid_to, same + [(o.valid_from, o.valid_to) for o in others])
    if not same:
        return "retracted", gone
    inside = all(a >= v.valid_from and (v.valid_to is None or (b is not None and b <= v.valid_to)) for a, b in same)
    if inside and gone:
        return "partly retracted", gone
    return "re-dated", ()


def _row(tx_id: int, tx_time: str, principal: str) -> str:
    return f"tx #{tx_id} · {tx_time[:19].replace('T', ' ')} · {principal}"


def bars(history: list[HistoryEntry], known_at: str | None = None) -> list[Bar]:
    """The slot's versions opened by `known_at` (all when None), in transaction order, each with its state
    (see `_state`); then one bar per transaction by `known_at` that closed versions and opened none
    here (a retraction that writes no new version still gets its row)."""
    visible = [e for e in history if known_at is None or e.version.tx_from <= known_at]
    by_tx: dict[int, list[HistoryEntry]] = {}
    for e in history:
        by_tx.setdefault(e.version.opened_by, []).append(e)
    out = []
    for e in visible:
        v = e.version
        state, gone = ("current", ()) if _believed(e, known_at) else _state(v, by_tx.get(v.closed_by or -1, []))
        row = _row(v.opened_by, v.tx_from, e.opened.principal)
        out.append(Bar(v.id, v.value, v.valid_from, v.valid_to, v.opened_by, v.tx_from, v.closed_by, state, row, gone))
    for e in visible:
        v, closing = e.version, e.closed
        if closing is None or closing.id in by_tx or (known_at is not None and closing.tx_time > known_at):
            continue
        _, gone = _state(v, [])
        out.append(Bar(-v.id, v.value, v.valid_from, v.valid_to, closing.id, closing.tx_time, None, "retraction",
                       _row(closing.id, closing.tx_time, closing.principal), gone))
    return out


def moments(history: list[HistoryEntry], known_at: str | None = None) -> list[str]:
    """Every moment the slot's belief changed (a transaction that opened or closed one of its versions),
    oldest first, with `known_at` among them when it names a moment in between."""
    stamps = {e.version.tx_from for e in history} | {e.version.tx_to for e in history if e.version.tx_to}
    if known_at:
        stamps.add(known_at)
    return sorted(stamps)


def value_at(bars_: list[Bar], valid_at: str) -> list[str]:
    """The values the chosen moment's belief holds valid at `valid_at`."""
    return [b.value for b in bars_ if b.state == "current" and b.valid_from <= valid_at and (b.valid_to is None or valid_at < b.valid_to)]


def _iso(stamp: str) -> str:
    return to_datetime(stamp).isoformat().replace("+00:00", "Z")


def _segments(b: Bar) -> list[tuple[str, str | None, str]]:
    """(from, to, state) pieces a bar is drawn as: a partly retracted version shows what was kept and, in
    the retracted colour, what was removed; a retraction shows the intervals it removed."""
    if b.state == "retraction":
        return [(a, z, b.state) for a, z in b.retracted]
    if b.state == "partly retracted":
        kept = [(a, z, b.state) for a, z in _uncovered(b.valid_from, b.valid_to, list(b.retracted))]
        return sorted(kept + [(a, z, "retracted") for a, z in b.retracted])
    return [(b.valid_from, b.valid_to, b.state)]


def spec(bars_: list[Bar], *, now: str, link: str = "/tx/{id}") -> dict[str, Any]:
    """The Vega-Lite spec (a plain dict, embedded as JSON in the page): a bar per version (or piece of
    one) over its valid interval, an open end drawn running off to the right with an arrow, and a
    vertical line at now. The chart takes its container's width."""
    if not bars_:
        return {}
    ends = [b.valid_to or b.valid_from for b in bars_] + [now]
    horizon = (to_datetime(max(ends)) + timedelta(days=30)).isoformat().replace("+00:00", "Z")  # where an open end is drawn to
    rows = list(dict.fromkeys(b.row for b in sorted(bars_, key=lambda b: (b.opened_at, abs(b.id)))))
    data = []
    for b in bars_:
        for a, z, state in _segments(b):
            data.append({
                "id": abs(b.id),
                "value": b.value,
                "start": _iso(a),
                "end": _iso(z) if z else horizon,
                "open": z is None and state == "current",
                "valid": f"[{display(a)}, {display(z) or '…'})",
                "row": b.row,
                "state": state,
                "label": b.label if state == b.state else f"claim version #{b.id} {b.value} retracted from {display(a)}" + (f" to {display(z)}" if z else ""),
                "href": link.format(id=b.opened_by),
            })
    y = alt.Y("row:N", sort=rows, title="believed from (transaction)", axis=alt.Axis(labelLimit=360))
    base = alt.Chart(alt.Data(values=data)).encode(y=y)
    bar = base.mark_bar(height={"band": 0.7}, cornerRadius=2).encode(
        x=alt.X("start:T", title="valid time"),
        x2="end:T",
        color=alt.Color("state:N", scale=alt.Scale(domain=list(STATES), range=list(COLOURS)), title="version"),
        href="href:N",
        description="label:N",
        tooltip=[alt.Tooltip("value:N"), alt.Tooltip("valid:N", title="valid"), alt.Tooltip("state:N"), alt.Tooltip("id:Q", title="claim version")],
    )
    text = base.mark_text(align="left", dx=4, color="black", aria=False).encode(x="start:T", text="value:N")
    # An open end: the bar runs to the chart's edge and ends in an arrow, not a closed edge.
    arrow = base.transform_filter("datum.open").mark_text(align="right", dx=-2, color="black", aria=False, text="→ open").encode(x="end:T")
    now_data = alt.Data(values=[{"now": _iso(now), "label": "now"}])
    rule = alt.Chart(now_data).mark_rule(color="#212529", strokeDash=[4, 3], aria=False).encode(x="now:T")
    now_text = alt.Chart(now_data).mark_text(align="left", baseline="top", dx=3, y=0, color="#212529", aria=False).encode(x="now:T", text="label:N")
    chart = alt.layer(bar, text, arrow, rule, now_text).properties(width="container", height=max(60, 34 * len(rows)))
    return chart.to_dict(validate=False)


CHANGE_STATES = ("unchanged", "closed if accepted", "written if accepted", "competing proposal")
CHANGE_COLOURS = ("#2f9e44", "#e03131", "#1c7ed6", "#f08c00")  # black value text on each is >= 4.5:1
COMPETING_DRAWN = 5  # competing proposals drawn as rows of their own (the rest are linked in words)


def before_after(preview: Any, *, now: str) -> dict[str, Any]:
    """A proposal drawn on its slot's timeline: the row "before" is the slot as believed now (every
    valid time; an empty slot has none), the row "after" what it would hold if the proposal were
    accepted (the accept's own preview: what it closes is gone, what it writes is drawn), then a row per
    competing proposal (the oldest few), each linking to it. Blocked or busy previews draw no "after"."""
    p = preview.proposal
    closes = {v.id for v in preview.closes}
    data: list[dict[str, Any]] = []

    def put(row: str, value: str, start: str, end: str | None, state: str, label: str, href: str) -> None:
        data.append({"row": row, "value": value, "start": start, "end": end, "state": state, "label": label, "href": href,
                     "valid": f"[{display(start)}, {display(end) or '…'})"})

    before, after = "before: believed now", f"after: if proposal #{p.id} is accepted"
    for v in preview.current:
        state = "closed if accepted" if v.id in closes else "unchanged"
        put(before, v.value, v.valid_from, v.valid_to, state, f"before: claim version #{v.id} {v.value} {state}", f"/tx/{v.opened_by}")
    if not preview.blocked and not preview.busy:
        for v in preview.current:
            if v.id not in closes:
                put(after, v.value, v.valid_from, v.valid_to, "unchanged", f"after: claim version #{v.id} {v.value} unchanged", f"/tx/{v.opened_by}")
        for v in preview.opens:
            put(after, v.value, v.valid_from, v.valid_to, "written if accepted", f"after: {v.value} written if accepted", f"/proposal/{p.id}")
    for c in preview.competing[:COMPETING_DRAWN]:
        if c.valid_from is None:
            continue
        label = f"competing proposal #{c.id} {c.value if c.value is not None else c.op}"
        put(f"proposal #{c.id} (competing)", c.value if c.value is not None else c.op, c.valid_from, c.valid_to, "competing proposal",
            label, f"/proposal/{c.id}")
    if not data:
        return {}
    ends = [d["end"] or d["start"] for d in data] + [now]
    horizon = (to_datetime(max(ends)) + timedelta(days=30)).isoformat().replace("+00:00", "Z")
    for d in data:
        d["open"] = d["end"] is None
        d["start"], d["end"] = _iso(d["start"]), _iso(d["end"]) if d["end"] else horizon
    rows = list(dict.fromkeys([before, after] + [d["row"] for d in data]))
    y = alt.Y("row:N", sort=rows, title=None, axis=alt.Axis(labelLimit=360))
    base = alt.Chart(alt.Data(values=data)).encode(y=y)
    bar = base.mark_bar(height={"band": 0.7}, cornerRadius=2).encode(
        x=alt.X("start:T", title="valid time"), x2="end:T",
        color=alt.Color("state:N", scale=alt.Scale(domain=list(CHANGE_STATES), range=list(CHANGE_COLOURS)), title="if accepted"),
        href="href:N", description="label:N",
        tooltip=[alt.Tooltip("value:N"), alt.Tooltip("valid:N", title="valid"), alt.Tooltip("state:N")],
    )
    text = base.mark_text(align="left", dx=4, color="black", aria=False).encode(x="start:T", text="value:N")
    arrow = base.transform_filter("datum.open").mark_text(align="right", dx=-2, color="black", aria=False, text="→ open").encode(x="end:T")
    now_data = alt.Data(values=[{"now": _iso(now), "label": "now"}])
    rule = alt.Chart(now_data).mark_rule(color="#212529", strokeDash=[4, 3], aria=False).encode(x="now:T")
    chart = alt.layer(bar, text, arrow, rule).properties(width="container", height=max(60, 34 * len(rows)))
    return chart.to_dict(validate=False)

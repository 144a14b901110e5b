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

STATES = ("current", "superseded", "retracted")
COLOURS = ("#2f9e44", "#adb5bd", "#e03131")


@dataclass(frozen=True)
class Bar:
    """One version as drawn, as the ledger believed it at the chosen moment."""

    id: int
    value: str
    valid_from: str
    valid_to: str | None
    opened_by: int
    opened_at: str
    closed_by: int | None
    state: str  # current | superseded | retracted (at the chosen moment)
    row: str  # the transaction row it is drawn in

    @property
    def label(self) -> str:
        return f"claim version #{self.id} {self.value} {self.state}"

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "label": self.label}


def _believed(entry: HistoryEntry, known_at: str | None) -> bool:
    v = entry.version
    if known_at is None:
        return v.tx_to is None
    return v.tx_from <= known_at and (v.tx_to is None or known_at < v.tx_to)


def _overlap(a_from: str, a_to: str | None, b_from: str, b_to: str | None) -> bool:
    return (a_to is None or b_from < a_to) and (b_to is None or a_from < b_to)


def bars(history: list[HistoryEntry], known_at: str | None = None) -> list[Bar]:
    """The slot's versions opened by `known_at` (all when None), in transaction order, each with its state:
    current while believed; superseded when the transaction that closed it wrote another value over part
    of it; retracted when it only removed it (a remainder with the same value may follow)."""
    visible = [e for e in history if known_at is None or e.version.tx_from <= known_at]
    by_tx: dict[int, list[HistoryEntry]] = {}
    for e in history:
        by_tx.setdefault(e.version.opened_by, []).append(e)
    out = []
    for e in visible:
        v = e.version
        if _believed(e, known_at):
            state = "current"
        else:
            successors = by_tx.get(v.closed_by or -1, [])
            replaced = any(
                s.version.value_key != v.value_key and _overlap(v.valid_from, v.valid_to, s.version.valid_from, s.version.valid_to)
                for s in successors
            )
            state = "superseded" if replaced else "retracted"
        row = f"tx #{v.opened_by} · {v.tx_from[:19].replace('T', ' ')} · {e.opened.principal}"
        out.append(Bar(v.id, v.value, v.valid_from, v.valid_to, v.opened_by, v.tx_from, v.closed_by, state, row))
    return out


def value_at(bars_: list[Bar], valid_at: str) -> list[str]:
    """The values the chosen moment's belief holds valid at `valid_at`."""
    return [b.value for b in bars_ if b.state == "current" and b.valid_from <= valid_at and (b.valid_to is None or valid_at < b.valid_to)]


def _iso(stamp: str) -> str:
    return to_datetime(stamp).isoformat().replace("+00:00", "Z")


def spec(bars_: list[Bar], *, now: str, link: str = "/tx/{id}") -> dict[str, Any]:
    """The Vega-Lite spec (a plain dict, embedded as JSON in the page)."""
    if not bars_:
        return {}
    ends = [b.valid_to or b.valid_from for b in bars_] + [now]
    horizon = to_datetime(max(ends)) + timedelta(days=30)  # where an open end is drawn to
    rows = list(dict.fromkeys(b.row for b in sorted(bars_, key=lambda b: (b.opened_at, b.id))))
    data = [
        {
            "id": b.id,
            "value": b.value,
            "start": _iso(b.valid_from),
            "end": _iso(b.valid_to) if b.valid_to else horizon.isoformat().replace("+00:00", "Z"),
            "valid": f"[{display(b.valid_from)}, {display(b.valid_to)})",
            "row": b.row,
            "state": b.state,
            "label": b.label,
            "href": link.format(id=b.opened_by),
        }
        for b in bars_
    ]
    base = alt.Chart(alt.Data(values=data)).encode(
        y=alt.Y("row:N", sort=rows, title="believed from (transaction)", axis=alt.Axis(labelLimit=360)),
    )
    bar = base.mark_bar(height={"band": 0.7}, cornerRadius=2).encode(
        x=alt.X("start:T", title="valid time"),
        x2="end:T",
        color=alt.Color("state:N", scale=alt.Scale(domain=list(STATES), range=list(COLOURS)), title="version"),
        href="href:N",
        description="label:N",
        tooltip=[alt.Tooltip("value:N"), alt.Tooltip("valid:N", title="valid"), alt.Tooltip("state:N"), alt.Tooltip("id:Q", title="claim version")],
    )
    text = base.mark_text(align="left", dx=4, color="black", aria=False).encode(x="start:T", text="value:N")
    chart = (bar + text).properties(width=720, height=max(60, 34 * len(rows)))
    return chart.to_dict()

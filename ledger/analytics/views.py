"""What the analyst sees: views and audit macros over the ledger's tables, as data.

Every ledger table is first exposed in DuckDB's schema `raw` (as it is stored: text timestamps in
SQLite, timestamptz in PostgreSQL; JSON lists as text in both). The analyst's views are built over `raw`, each registered only when the tables it reads
exist, so tables added by later migrations (the digest's journal, proposals, rejections) appear without
code changes here beyond one line.

Two kinds of view:
- plain views (transactions, predicates, claim_versions, journal, …) are DuckDB views;
- temporal views (claims, and views over it such as slots) take FOR VALID_TIME / FOR SYSTEM_TIME
  clauses. DuckDB cannot take those, so `rewrite.py` inlines them: `claims` becomes a filtered subquery
  over raw.claims, and a temporal view's text (written in our dialect over `claims`) is inlined with the
  clauses passed on to its `claims`. They are also registered in DuckDB (meaning current truth) so that
  they show in information_schema and in relations built on top of a result.

Audit helpers (table macros), for example:

    SELECT * FROM slot_history('Maya', 'lives_in')              -- every version, who opened/closed it, why
    SELECT * FROM slot_history('Maya', 'lives_in', in_scope := 'demo')
    SELECT * FROM changes_between('2024-06-01', '2024-11-01')   -- appeared / disappeared between two
                                                                -- knowledge times, with the transaction
    SELECT * FROM activity('2024-01-01', '2025-01-01')          -- per principal over [t1, t2)
"""

from __future__ import annotations

from dataclasses import dataclass

RAW = "raw"
TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"  # the ledger's text form; strftime turns a TIMESTAMP into it


@dataclass(frozen=True)
class ViewDef:
    name: str
    requires: tuple[str, ...]  # SQLite tables that must exist
    sql: str  # DuckDB SQL over raw.<table>; for temporal views, our dialect over `claims`
    doc: str
    temporal: bool = False


# One row per claim version; the projection every `claims` reference expands to. Timestamps typed
# (TIMESTAMPTZ, UTC), display texts next to keys, the source list as a list, the rendered sentence.
def claims_projection(claims: str = f"{RAW}.claims", predicates: str = f"{RAW}.predicates") -> str:
    """The typed projection of claim rows read from `claims` (a table, or a table function such as
    the companion's delta read), with their predicates from `predicates`."""
    return f"""
SELECT
    c.id, c.scope, c.subject, c.subject_key, c.predicate, c.cardinality, c.value, c.value_key,
    CAST(c.valid_from AS TIMESTAMPTZ) AS valid_from, CAST(c.valid_to AS TIMESTAMPTZ) AS valid_to,
    CAST(c.tx_from AS TIMESTAMPTZ) AS tx_from, CAST(c.tx_to AS TIMESTAMPTZ) AS tx_to,
    c.opened_by, c.closed_by,
    from_json(c.source, '["VARCHAR"]') AS source,
    {STATEMENT} AS statement
FROM {claims} AS c LEFT JOIN {predicates} AS p ON p.name = c.predicate
"""


# The rendered sentence of a version `c` whose predicate row is `p` (NULL when the predicate is unknown).
STATEMENT = """replace(replace(replace(coalesce(p.template, '{subject} {predicate} {value}'),
        '{subject}', c.subject), '{predicate}', replace(coalesce(p.display, c.predicate), '_', ' ')),
        '{value}', c.value)"""

CLAIMS_PROJECTION = claims_projection()

PLAIN_VIEWS: tuple[ViewDef, ...] = (
    ViewDef(
        "claim_versions",
        ("claims", "predicates"),
        CLAIMS_PROJECTION,
        "every claim version ever written, no time filter (= claims FOR ALL VALID_TIME FOR ALL SYSTEM_TIME)",
    ),
    ViewDef(
        "transactions",
        ("transactions",),
        f"""
SELECT t.id, CAST(t.tx_time AS TIMESTAMPTZ) AS tx_time, t.principal,
       split_part(t.principal, ':', 1) AS principal_kind, t.reason,
       from_json(t.sources, '["VARCHAR"]') AS sources
FROM {RAW}.transactions AS t
""",
        "one row per ledger transaction: when, who (principal and its kind), why, from which sources",
    ),
    ViewDef(
        "predicates",
        ("predicates",),
        f"""
SELECT p.name, p.display, p.cardinality, p.description, p.template, CAST(p.defined_at AS TIMESTAMPTZ) AS defined_at
FROM {RAW}.predicates AS p
""",
        "the predicate registry: cardinality, display name, sentence template",
    ),
    ViewDef(
        "episodes",
        ("journal",),
        f"""
SELECT j.id, j.scope, j.session, j.role, coalesce(j.speaker, j.role) AS speaker, j.text,
       CAST(j.said_at AS TIMESTAMPTZ) AS said_at, CAST(j.appended_at AS TIMESTAMPTZ) AS learned_at,
       j.digested_at IS NOT NULL AS digested
FROM {RAW}.journal AS j
""",
        "what was said: one row per journal turn (evidence beside the facts, never current truth)",
    ),
)

# Each change of a slot as one row: a version a transaction closed, paired with what the same
# transaction opened in its place. The ledger stores a move as three versions (the old one closed, its
# remainder and the new value opened); this puts them back together. Kinds:
#   supersede    a different value from a date inside the old interval (the old one stays true before)
#   correction   a different value from the old one's start or earlier (the past itself was wrong), or
#                the same value with its interval moved beyond the old one (a date corrected)
#   retraction   nothing in its place, and part of the old interval remains (a portion withdrawn)
#   never-true   nothing in its place and nothing of it remains
CORRECTIONS_SQL = """
WITH closed AS (SELECT * FROM main.claim_versions WHERE closed_by IS NOT NULL),
successors AS (
    SELECT o.id AS old_id, n.id AS new_id,
           CASE WHEN n.value_key <> o.value_key AND n.valid_from > o.valid_from THEN 'supersede'
                WHEN n.value_key <> o.value_key THEN 'correction'
                WHEN n.valid_from < o.valid_from
                     OR coalesce(n.valid_to, 'infinity'::TIMESTAMPTZ) > coalesce(o.valid_to, 'infinity'::TIMESTAMPTZ) THEN 'correction'
           END AS kind
    FROM closed AS o
    JOIN main.claim_versions AS n
      ON n.opened_by = o.closed_by AND n.scope = o.scope AND n.subject_key = o.subject_key AND n.predicate = o.predicate
     AND n.valid_from <= coalesce(o.valid_to, 'infinity'::TIMESTAMPTZ)
     AND coalesce(n.valid_to, 'infinity'::TIMESTAMPTZ) >= o.valid_from
),
paired AS (SELECT * FROM successors WHERE kind IS NOT NULL),
remains AS (
    SELECT DISTINCT o.id AS old_id
    FROM closed AS o JOIN main.claim_versions AS r
      ON r.opened_by = o.closed_by AND r.scope = o.scope AND r.subject_key = o.subject_key
     AND r.predicate = o.predicate AND r.value_key = o.value_key
),
changes AS (
    SELECT old_id, new_id, kind FROM paired
    UNION ALL
    SELECT o.id, NULL, CASE WHEN o.id IN (SELECT old_id FROM remains) THEN 'retraction' ELSE 'never-true' END
    FROM closed AS o WHERE o.id NOT IN (SELECT old_id FROM paired)
)
SELECT t.id AS tx, t.tx_time, t.principal, t.reason, ch.kind,
       o.scope, o.subject, o.subject_key, o.predicate,
       o.id AS old_id, o.value AS old_value, o.valid_from AS old_valid_from, o.valid_to AS old_valid_to,
       n.id AS new_id, n.value AS new_value, n.valid_from AS new_valid_from, n.valid_to AS new_valid_to
FROM changes AS ch
JOIN main.claim_versions AS o ON o.id = ch.old_id
JOIN main.transactions AS t ON t.id = o.closed_by
LEFT JOIN main.claim_versions AS n ON n.id = ch.new_id
"""

PLAIN_VIEWS = PLAIN_VIEWS + (
    ViewDef(
        "corrections",
        ("claims", "predicates", "transactions"),
        CORRECTIONS_SQL,
        "each change of a slot as one row: old and new value with both intervals, the transaction and "
        "principal, and its kind (supersede, correction, retraction, never-true)",
    ),
)

# Tables other parts add (migration 0002, the digest). Their columns are theirs: the view passes every
# column through and types text timestamps by the naming convention below (`said_at`, `decided_at`,
# `valid_from`, …); a value that is not a timestamp becomes NULL rather than failing the query.
GENERIC_TABLES: tuple[str, ...] = ("journal", "proposals", "rejections", "confirmations")
TIMESTAMP_SUFFIXES = ("_at", "_time")
TIMESTAMP_NAMES = {"valid_from", "valid_to", "tx_from", "tx_to"}

TEMPORAL_VIEWS: tuple[ViewDef, ...] = (
    ViewDef(
        "claims",
        ("claims", "predicates"),
        "",  # expanded by rewrite.py from CLAIMS_PROJECTION
        "claim versions; with no clause, current truth (valid now, as known now)",
        temporal=True,
    ),
    ViewDef(
        "slots",
        ("claims", "predicates"),
        """
SELECT scope, subject_key, any_value(subject) AS subject, predicate, any_value(cardinality) AS cardinality,
       list(value ORDER BY valid_from, value_key) AS "values", count(*) AS versions,
       min(valid_from) AS valid_from, max(tx_from) AS known_since
FROM claims
GROUP BY scope, subject_key, predicate
""",
        "one row per slot with the values it holds (under the clauses given)",
        temporal=True,
    ),
)

# Audit helpers: DuckDB table macros over the plain views (named with their schema, so that a WITH
# query of the same name in the analyst's SQL cannot stand in for them when the macro is expanded). Time arguments are compared as TIMESTAMPTZ;
# the rewriter turns literal time arguments into the ledger's UTC form first (so offsets are honoured),
# and literal subject/predicate arguments of slot_history into the ledger's normalised keys.
@dataclass(frozen=True)
class MacroDef:
    name: str
    requires: tuple[str, ...]
    sql: str
    doc: str
    time_args: tuple[int, ...] = ()  # positions (0-based) of time arguments
    key_args: tuple[int, ...] = ()  # positions of subject/predicate key arguments


MACROS: tuple[MacroDef, ...] = (
    MacroDef(
        "slot_history",
        ("claims", "transactions", "predicates"),
        """
CREATE MACRO slot_history(slot_subject, slot_predicate, in_scope := NULL) AS TABLE
SELECT c.id, c.scope, c.subject, c.predicate, c.value, c.valid_from, c.valid_to, c.tx_from, c.tx_to,
       c.opened_by, o.principal AS opened_principal, o.reason AS opened_reason, o.sources AS opened_sources,
       c.closed_by, x.principal AS closed_principal, x.reason AS closed_reason, c.source
FROM main.claim_versions AS c
JOIN main.transactions AS o ON o.id = c.opened_by
LEFT JOIN main.transactions AS x ON x.id = c.closed_by
WHERE c.subject_key = slot_subject AND c.predicate = slot_predicate
  AND (in_scope IS NULL OR c.scope = in_scope)
ORDER BY c.tx_from, c.valid_from, c.id
""",
        "slot_history(subject, predicate [, in_scope := scope]): every version of a slot with the principal, "
        "reason and sources of the transactions that opened and closed it",
        key_args=(0, 1),
    ),
    MacroDef(
        "changes_between",
        ("claims", "transactions", "predicates"),
        """
CREATE MACRO changes_between(known_then, known_now) AS TABLE
WITH bounds AS (SELECT CAST(known_then AS TIMESTAMPTZ) AS t1, CAST(known_now AS TIMESTAMPTZ) AS t2),
marked AS (
    SELECT c.*,
           c.tx_from <= b.t1 AND (c.tx_to IS NULL OR c.tx_to > b.t1) AS visible_then,
           c.tx_from <= b.t2 AND (c.tx_to IS NULL OR c.tx_to > b.t2) AS visible_now,
           -- the transaction that made the difference is the one between the two times
           CASE WHEN c.tx_from > least(b.t1, b.t2) AND c.tx_from <= greatest(b.t1, b.t2)
                THEN c.opened_by ELSE c.closed_by END AS changed_by
    FROM main.claim_versions AS c, bounds AS b
)
SELECT CASE WHEN visible_now THEN 'appeared' ELSE 'disappeared' END AS change,
       m.id, m.scope, m.subject, m.predicate, m.value, m.valid_from, m.valid_to, m.tx_from, m.tx_to,
       t.id AS tx, t.tx_time, t.principal, t.reason, t.sources
FROM marked AS m
LEFT JOIN main.transactions AS t ON t.id = m.changed_by
WHERE m.visible_now <> m.visible_then
ORDER BY t.tx_time, m.id
""",
        "changes_between(t1, t2): versions visible as known at t2 and not at t1 ('appeared'), and the "
        "reverse ('disappeared'), each with the transaction that made the change",
        time_args=(0, 1),
    ),
    MacroDef(
        "activity",
        ("claims", "transactions", "predicates"),
        """
CREATE MACRO activity(period_from, period_to) AS TABLE
WITH period AS (
    SELECT * FROM main.transactions
    WHERE tx_time >= CAST(period_from AS TIMESTAMPTZ) AND tx_time < CAST(period_to AS TIMESTAMPTZ)
),
opened AS (SELECT opened_by AS tx, count(*) AS n FROM main.claim_versions GROUP BY opened_by),
closed AS (SELECT closed_by AS tx, count(*) AS n FROM main.claim_versions WHERE closed_by IS NOT NULL GROUP BY closed_by)
SELECT p.principal, any_value(p.principal_kind) AS principal_kind, count(*) AS transactions,
       coalesce(sum(o.n), 0) AS versions_opened, coalesce(sum(x.n), 0) AS versions_closed,
       count(*) FILTER (WHERE x.n IS NOT NULL AND o.n IS NOT NULL) AS changes,
       min(p.tx_time) AS first_tx, max(p.tx_time) AS last_tx
FROM period AS p LEFT JOIN opened AS o ON o.tx = p.id LEFT JOIN closed AS x ON x.tx = p.id
GROUP BY p.principal
ORDER BY transactions DESC, p.principal
""",
        "activity(t1, t2): per principal over [t1, t2): transactions, versions opened and closed, "
        "changes (transactions that closed and opened versions: supersedes and cut retracts)",
        time_args=(0, 1),
    ),
)

TEMPORAL_NAMES = {v.name for v in TEMPORAL_VIEWS}
MACRO_NAMES = {m.name for m in MACROS}


def generic_view_sql(table: str, columns: list[tuple[str, str]]) -> str:
    """A view over raw.<table> typing its text timestamp columns (by name) as TIMESTAMPTZ (UTC), and its
    narrower integers as BIGINT: SQLite's scanner reads every INTEGER as BIGINT, PostgreSQL's `integer`
    arrives as INTEGER, and the views must have one shape on both engines."""
    replaced = []
    for name, kind in columns:
        if kind.upper() == "VARCHAR" and (name.lower().endswith(TIMESTAMP_SUFFIXES) or name.lower() in TIMESTAMP_NAMES):
            replaced.append(f"TRY_CAST({_quote(name)} AS TIMESTAMPTZ) AS {_quote(name)}")
        elif kind.upper() in ("INTEGER", "SMALLINT"):
            replaced.append(f"CAST({_quote(name)} AS BIGINT) AS {_quote(name)}")
    if not replaced:
        return f"SELECT * FROM {RAW}.{_quote(table)}"
    return f"SELECT * REPLACE ({', '.join(replaced)}) FROM {RAW}.{_quote(table)}"


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'

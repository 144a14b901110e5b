"""The conformance table for temporal SQL writes (issue 22): initial rows, one statement, the rows the
slot holds afterwards and the row count the statement reports, as SQL:2011's peers define them.

Written from the peers' published semantics, not from their test files:
- PostgreSQL 19's `UPDATE/DELETE … FOR PORTION OF` (docs, "Updating and Deleting Temporal Data"): only
  rows overlapping the portion are touched; within a touched row only the portion changes, and the
  untouched history is kept as "temporal leftovers"; a gap stays a gap; the command tag counts the rows
  matched; NULL bounds are unbounded, and so are 'infinity' / '-infinity'; bounds are constants
  (functions like now() allowed); an INSERT that overlaps an existing row under a `WITHOUT OVERLAPS`
  key is refused (exclusion constraint).
- MariaDB's application-time periods (`DELETE/UPDATE … FOR PORTION OF p FROM a TO b`): the same
  leftover semantics; REPLACE on a WITHOUT OVERLAPS key is refused.
- XTDB, where a write without a portion runs from now to the end of time (the ledger's default).

Each case runs on a slot of its own (`{slot}` in the statement names it), so one ledger per engine
holds the whole table. A `one` predicate is a key WITHOUT OVERLAPS (one value at any instant); a `many`
predicate is a key (slot, value) WITHOUT OVERLAPS. Rows are (value, valid_from, valid_to): dates as
'YYYY-MM-DD' (midnight UTC), None an open end, "tx" the statement's transaction time, "today" that
time's midnight.

Compared as the ledger stores them: adjacent or overlapping periods of one value are one version (a
peer keeps `ten [2018,2019)` and `ten [2019,2020)` as two rows; the ledger keeps `ten [2018,2020)`).
`expected` is the peer's answer in that form. Where the ledger differs on purpose, `ledger` holds its
answer and `why` the reason (docs/SQL_WRITES.md lists them)."""

from __future__ import annotations

from dataclasses import dataclass

Row = tuple[str, str | None, str | None]


@dataclass(frozen=True)
class Refusal:
    """The statement is refused: `error` (a LedgerError subclass name) and words of its message."""

    error: str
    says: str


@dataclass(frozen=True)
class Case:
    name: str
    peer: str  # whose semantics `expected` follows: PG19, MariaDB, SQL:2011, XTDB, ledger
    cardinality: str  # "one" | "many"
    initial: tuple[Row, ...]
    statement: str
    expected: tuple[Row, ...] | Refusal
    rows: int = 0  # the count reported (the rows matched; for INSERT the rows given)
    ledger: tuple[Row, ...] | Refusal | None = None  # the ledger's answer where it differs on purpose
    ledger_rows: int | None = None
    why: str = ""

    @property
    def want(self) -> tuple[Row, ...] | Refusal:
        return self.expected if self.ledger is None else self.ledger

    @property
    def want_rows(self) -> int:
        return self.rows if self.ledger_rows is None else self.ledger_rows


P = "FOR PORTION OF VALID_TIME"
TEN = (("ten", "2018-01-01", "2020-01-01"),)
TEN_ELEVEN = (("ten", "2018-01-01", "2019-01-01"), ("eleven", "2019-01-01", "2020-01-01"))
MUSIC = (("jazz", "2018-01-01", "2020-01-01"), ("folk", "2018-01-01", "2020-01-01"))

CASES: tuple[Case, ...] = (
    # -- UPDATE … FOR PORTION OF: only what the portion holds ---------------------------------------
    Case("update inside a row leaves leftovers on both sides", "PG19", "one", TEN,
         f"UPDATE claims {P} FROM '2018-06-01' TO '2019-01-01' SET value = 'new' WHERE {{slot}}",
         (("ten", "2018-01-01", "2018-06-01"), ("new", "2018-06-01", "2019-01-01"), ("ten", "2019-01-01", "2020-01-01")), 1),
    Case("update from before the row starts changes only the held part", "PG19", "one", TEN,
         f"UPDATE claims {P} FROM '2015-01-01' TO '2019-01-01' SET value = 'new' WHERE {{slot}}",
         (("new", "2018-01-01", "2019-01-01"), ("ten", "2019-01-01", "2020-01-01")), 1),
    Case("update over more than the row changes the row only", "PG19", "one", TEN,
         f"UPDATE claims {P} FROM '2010-01-01' TO '2030-01-01' SET value = 'new' WHERE {{slot}}",
         (("new", "2018-01-01", "2020-01-01"),), 1),
    Case("update across two rows touches both", "PG19", "one", TEN_ELEVEN,
         f"UPDATE claims {P} FROM '2018-06-01' TO '2019-06-01' SET value = 'new' WHERE {{slot}}",
         (("ten", "2018-01-01", "2018-06-01"), ("new", "2018-06-01", "2019-06-01"), ("eleven", "2019-06-01", "2020-01-01")), 2),
    Case("update over a gap leaves the gap empty", "PG19", "one",
         (("ten", "2018-01-01", "2019-01-01"), ("eleven", "2020-01-01", "2021-01-01")),
         f"UPDATE claims {P} FROM '2018-01-01' TO '2021-01-01' SET value = 'new' WHERE {{slot}}",
         (("new", "2018-01-01", "2019-01-01"), ("new", "2020-01-01", "2021-01-01")), 2),
    Case("update inside an open-ended row", "PG19", "one", (("ten", "2018-01-01", None),),
         f"UPDATE claims {P} FROM '2019-01-01' TO '2020-01-01' SET value = 'new' WHERE {{slot}}",
         (("ten", "2018-01-01", "2019-01-01"), ("new", "2019-01-01", "2020-01-01"), ("ten", "2020-01-01", None)), 1),
    Case("update with an open end (no TO)", "XTDB", "one", TEN,
         f"UPDATE claims {P} FROM '2019-01-01' SET value = 'new' WHERE {{slot}}",
         (("ten", "2018-01-01", "2019-01-01"), ("new", "2019-01-01", "2020-01-01")), 1),
    Case("update with the same value changes nothing", "PG19", "one", TEN,
         f"UPDATE claims {P} FROM '2018-06-01' TO '2019-01-01' SET value = 'ten' WHERE {{slot}}",
         TEN, 1),
    Case("update value = value || '*' reads each row's value", "PG19", "one", TEN_ELEVEN,
         f"UPDATE claims {P} FROM '2018-06-01' TO '2019-06-01' SET value = value || '*' WHERE {{slot}}",
         (("ten", "2018-01-01", "2018-06-01"), ("ten*", "2018-06-01", "2019-01-01"),
          ("eleven*", "2019-01-01", "2019-06-01"), ("eleven", "2019-06-01", "2020-01-01")), 2),
    Case("update of one value in a many slot", "PG19", "many", MUSIC,
         f"UPDATE claims {P} FROM '2019-01-01' TO '2020-01-01' SET value = 'blues' WHERE {{slot}} AND value = 'jazz'",
         (("jazz", "2018-01-01", "2019-01-01"), ("blues", "2019-01-01", "2020-01-01"), ("folk", "2018-01-01", "2020-01-01")), 1),
    Case("update of every value in a many slot", "PG19", "many", MUSIC,
         f"UPDATE claims {P} FROM '2019-01-01' TO '2020-01-01' SET value = 'blues' WHERE {{slot}}",
         (("jazz", "2018-01-01", "2019-01-01"), ("folk", "2018-01-01", "2019-01-01"), ("blues", "2019-01-01", "2020-01-01")), 2),
    Case("update WHERE value IN (…)", "PG19", "many", MUSIC + (("soul", "2018-01-01", "2020-01-01"),),
         f"UPDATE claims {P} FROM '2019-01-01' TO '2020-01-01' SET value = 'blues' WHERE {{slot}} AND value IN ('jazz', 'soul')",
         (("jazz", "2018-01-01", "2019-01-01"), ("soul", "2018-01-01", "2019-01-01"), ("blues", "2019-01-01", "2020-01-01"),
          ("folk", "2018-01-01", "2020-01-01")), 2),
    Case("update WHERE value = a OR value = b", "PG19", "many", MUSIC,
         f"UPDATE claims {P} FROM '2019-01-01' TO '2020-01-01' SET value = 'blues' WHERE {{slot}} AND (value = 'jazz' OR value = 'folk')",
         (("jazz", "2018-01-01", "2019-01-01"), ("folk", "2018-01-01", "2019-01-01"), ("blues", "2019-01-01", "2020-01-01")), 2),
    # -- no-ops report 0 rows ---------------------------------------------------------------------
    Case("update of a portion the slot holds nothing in", "PG19", "one", (("ten", "2018-01-01", "2019-01-01"),),
         f"UPDATE claims {P} FROM '2020-01-01' TO '2021-01-01' SET value = 'new' WHERE {{slot}}",
         (("ten", "2018-01-01", "2019-01-01"),), 0),
    Case("update of a key with no rows", "PG19", "one", (),
         f"UPDATE claims {P} FROM '2020-01-01' TO '2021-01-01' SET value = 'new' WHERE {{slot}}", (), 0),
    Case("update of an empty portion FROM x TO x", "PG19", "one", TEN,
         f"UPDATE claims {P} FROM '2019-01-01' TO '2019-01-01' SET value = 'new' WHERE {{slot}}", TEN, 0),
    Case("update of a value the slot does not hold", "PG19", "many", MUSIC,
         f"UPDATE claims {P} FROM '2019-01-01' TO '2020-01-01' SET value = 'blues' WHERE {{slot}} AND value = 'soul'", MUSIC, 0),
    Case("delete of a portion the slot holds nothing in", "PG19", "one", TEN,
         f"DELETE FROM claims {P} FROM '2021-01-01' TO '2022-01-01' WHERE {{slot}}", TEN, 0),
    Case("delete of a key with no rows", "PG19", "one", (),
         f"DELETE FROM claims {P} FROM '2021-01-01' TO '2022-01-01' WHERE {{slot}}", (), 0),
    Case("delete of an empty portion FROM x TO x", "PG19", "one", TEN,
         f"DELETE FROM claims {P} FROM '2019-01-01' TO '2019-01-01' WHERE {{slot}}", TEN, 0),
    # -- a portion whose end is before its start ---------------------------------------------------
    Case("update FROM later TO earlier is refused", "PG19", "one", TEN,
         f"UPDATE claims {P} FROM '2019-06-01' TO '2019-01-01' SET value = 'new' WHERE {{slot}}",
         Refusal("QueryRefused", "before its start")),
    # -- bounds: NULL, infinity, MINVALUE/MAXVALUE, expressions -----------------------------------
    Case("FROM NULL is unbounded", "PG19", "one", TEN,
         f"UPDATE claims {P} FROM NULL TO '2019-01-01' SET value = 'new' WHERE {{slot}}",
         (("new", "2018-01-01", "2019-01-01"), ("ten", "2019-01-01", "2020-01-01")), 1),
    Case("TO NULL is unbounded", "PG19", "one", TEN,
         f"UPDATE claims {P} FROM '2019-01-01' TO NULL SET value = 'new' WHERE {{slot}}",
         (("ten", "2018-01-01", "2019-01-01"), ("new", "2019-01-01", "2020-01-01")), 1),
    Case("'-infinity' to 'infinity' is all of valid time", "PG19", "one", TEN_ELEVEN,
         f"UPDATE claims {P} FROM '-infinity' TO 'infinity' SET value = 'new' WHERE {{slot}}",
         (("new", "2018-01-01", "2020-01-01"),), 2),
    Case("MINVALUE to MAXVALUE is all of valid time", "PG19", "one", TEN,
         f"DELETE FROM claims {P} FROM MINVALUE TO MAXVALUE WHERE {{slot}}", (), 1),
    Case("DELETE FROM NULL TO a time cuts from the beginning", "PG19", "one", TEN_ELEVEN,
         f"DELETE FROM claims {P} FROM NULL TO '2018-06-01' WHERE {{slot}}",
         (("ten", "2018-06-01", "2019-01-01"), ("eleven", "2019-01-01", "2020-01-01")), 1),
    Case("a key left out of WHERE: every slot of the subject", "PG19", "one", TEN,
         f"DELETE FROM claims {P} FROM '2019-01-01' TO NULL WHERE {{subject_where}}",
         (("ten", "2018-01-01", "2019-01-01"),), 1),
    Case("DELETE FROM NULL TO NULL removes every row", "PG19", "one", TEN_ELEVEN,
         f"DELETE FROM claims {P} FROM NULL TO NULL WHERE {{slot}}", (), 2),
    Case("a bound TIMESTAMP '…' + INTERVAL", "PG19", "one", TEN,
         f"UPDATE claims {P} FROM TIMESTAMP '2018-01-01' + INTERVAL 1 YEAR TO TIMESTAMP '2019-01-01' + INTERVAL '6' MONTH"
         " SET value = 'new' WHERE {slot}",
         (("ten", "2018-01-01", "2019-01-01"), ("new", "2019-01-01", "2019-07-01"), ("ten", "2019-07-01", "2020-01-01")), 1),
    Case("a bound now() - INTERVAL", "PG19", "one", (("ten", "2000-01-01", None),),
         f"DELETE FROM claims {P} FROM now() - INTERVAL 7 DAY TO NULL WHERE {{slot}}",
         (("ten", "2000-01-01", "tx-7d"),), 1),
    Case("FROM current_date is today's midnight", "PG19", "one", (("ten", "2000-01-01", None),),
         f"UPDATE claims {P} FROM current_date SET value = 'new' WHERE {{slot}}",
         (("ten", "2000-01-01", "today"), ("new", "today", None)), 1),
    Case("FROM CURRENT_TIMESTAMP is the transaction time", "PG19", "one", (("ten", "2000-01-01", None),),
         f"DELETE FROM claims {P} FROM CURRENT_TIMESTAMP WHERE {{slot}}", (("ten", "2000-01-01", "tx"),), 1),
    # -- DELETE … FOR PORTION OF -----------------------------------------------------------------
    Case("delete inside a row leaves leftovers", "PG19", "one", TEN,
         f"DELETE FROM claims {P} FROM '2018-06-01' TO '2019-01-01' WHERE {{slot}}",
         (("ten", "2018-01-01", "2018-06-01"), ("ten", "2019-01-01", "2020-01-01")), 1),
    Case("delete from before the row starts", "PG19", "one", TEN,
         f"DELETE FROM claims {P} FROM '2015-01-01' TO '2019-01-01' WHERE {{slot}}",
         (("ten", "2019-01-01", "2020-01-01"),), 1),
    Case("delete across two rows", "MariaDB", "one", TEN_ELEVEN,
         f"DELETE FROM claims {P} FROM '2018-06-01' TO '2019-06-01' WHERE {{slot}}",
         (("ten", "2018-01-01", "2018-06-01"), ("eleven", "2019-06-01", "2020-01-01")), 2),
    Case("delete of one value in a many slot", "PG19", "many", MUSIC,
         f"DELETE FROM claims {P} FROM '2019-01-01' TO '2020-01-01' WHERE {{slot}} AND value = 'jazz'",
         (("jazz", "2018-01-01", "2019-01-01"), ("folk", "2018-01-01", "2020-01-01")), 1),
    Case("delete WHERE value IN (…)", "PG19", "many", MUSIC,
         f"DELETE FROM claims {P} FROM '2019-01-01' TO '2020-01-01' WHERE {{slot}} AND value IN ('jazz', 'folk', 'soul')",
         (("jazz", "2018-01-01", "2019-01-01"), ("folk", "2018-01-01", "2019-01-01")), 2),
    Case("delete FOR ALL VALID_TIME: never true", "SQL:2011", "one", TEN_ELEVEN,
         f"DELETE FROM claims FOR ALL VALID_TIME WHERE {{slot}}", (), 2),
    # -- INSERT ------------------------------------------------------------------------------------
    Case("insert into an empty key", "PG19", "one", (),
         "INSERT INTO claims (scope, subject, predicate, value, valid_from, valid_to) VALUES ({key}, 'ten', '2018-01-01', '2020-01-01')",
         TEN, 1),
    Case("insert of another value overlapping is refused", "PG19", "one", TEN,
         "INSERT INTO claims (scope, subject, predicate, value, valid_from, valid_to) VALUES ({key}, 'new', '2019-01-01', '2021-01-01')",
         Refusal("QueryRefused", "WITHOUT OVERLAPS")),
    Case("insert next to the same value", "PG19", "one", (("ten", "2018-01-01", "2019-01-01"),),
         "INSERT INTO claims (scope, subject, predicate, value, valid_from, valid_to) VALUES ({key}, 'ten', '2019-01-01', '2020-01-01')",
         TEN, 1),
    Case("insert of the same value overlapping is refused", "PG19", "one", TEN,
         "INSERT INTO claims (scope, subject, predicate, value, valid_from, valid_to) VALUES ({key}, 'ten', '2019-01-01', '2021-01-01')",
         Refusal("QueryRefused", "overlaps 'ten' [2018-01-01, 2020-01-01)")),
    Case("insert of a row the slot holds exactly is refused", "PG19", "one", TEN,
         "INSERT INTO claims (scope, subject, predicate, value, valid_from, valid_to) VALUES ({key}, 'ten', '2018-01-01', '2020-01-01')",
         Refusal("QueryRefused", "WITHOUT OVERLAPS")),
    Case("insert of the same value from now into an open-ended row is refused", "PG19", "one", (("ten", "2000-01-01", None),),
         "INSERT INTO claims (scope, subject, predicate, value) VALUES ({key}, 'ten')", Refusal("QueryRefused", "WITHOUT OVERLAPS")),
    Case("insert of two rows of one value that overlap each other is refused", "PG19", "many", (),
         "INSERT INTO claims (scope, subject, predicate, value, valid_from, valid_to) VALUES ({key}, 'jazz', '2018-01-01', '2020-01-01'),"
         " ({key}, 'jazz', '2019-01-01', '2021-01-01')", Refusal("QueryRefused", "row 2 [2019-01-01, 2021-01-01) overlaps row 1's")),
    Case("insert of another value overlapping in a many slot", "PG19", "many", (("jazz", "2018-01-01", "2020-01-01"),),
         "INSERT INTO claims (scope, subject, predicate, value, valid_from, valid_to) VALUES ({key}, 'folk', '2019-01-01', '2021-01-01')",
         (("jazz", "2018-01-01", "2020-01-01"), ("folk", "2019-01-01", "2021-01-01")), 1),
    Case("insert of the same value overlapping in a many slot is refused", "PG19", "many", (("jazz", "2018-01-01", "2020-01-01"),),
         "INSERT INTO claims (scope, subject, predicate, value, valid_from, valid_to) VALUES ({key}, 'JAZZ ', '2019-01-01', '2021-01-01')",
         Refusal("QueryRefused", "WITHOUT OVERLAPS")),
    Case("insert of two rows of one value, one after the other", "PG19", "many", (),
         "INSERT INTO claims (scope, subject, predicate, value, valid_from, valid_to) VALUES ({key}, 'jazz', '2018-01-01', '2019-01-01'),"
         " ({key}, 'jazz', '2019-01-01', '2020-01-01')", (("jazz", "2018-01-01", "2020-01-01"),), 2),
    Case("insert with an end before its start is refused", "PG19", "one", (),
         "INSERT INTO claims (scope, subject, predicate, value, valid_from, valid_to) VALUES ({key}, 'ten', '2020-01-01', '2018-01-01')",
         Refusal("ValidationError", "later than valid_from")),
    # -- without a portion: from now on (XTDB) -----------------------------------------------------
    Case("update without a portion runs from now", "XTDB", "one", (("ten", "2000-01-01", None),),
         "UPDATE claims SET value = 'new' WHERE {slot}", (("ten", "2000-01-01", "tx"), ("new", "tx", None)), 1),
    Case("delete without a portion ends the value now", "XTDB", "one", (("ten", "2000-01-01", None),),
         "DELETE FROM claims WHERE {slot}", (("ten", "2000-01-01", "tx"),), 1),
    # -- the REPLACE meaning, under its own word ----------------------------------------------------
    Case("SUPERSEDE: the slot holds the value over the whole portion", "ledger", "one", TEN,
         f"SUPERSEDE claims {P} FROM '2015-01-01' TO '2019-01-01' SET value = 'new' WHERE {{slot}}",
         (("new", "2015-01-01", "2019-01-01"), ("ten", "2019-01-01", "2020-01-01")), 1),
)

-- factledger digest schema, version 2 (SQLite): journal -> proposals -> claims, with review memory.
-- Timestamps use the ledger's fixed-width UTC text form (see 0001_ledger.sql).

-- One row per eligible conversation turn, appended on the hot path (already sanitised).
CREATE TABLE journal (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,   -- never reused: claims cite 'journal:<id>'
    scope         TEXT NOT NULL CHECK (length(scope) > 0),
    session       TEXT,
    role          TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    text          TEXT NOT NULL CHECK (length(text) > 0),
    said_at       TEXT NOT NULL,
    hash          TEXT NOT NULL UNIQUE,                -- sha256 of (scope, session, role, said_at, text)
    redactions    TEXT NOT NULL DEFAULT '[]',          -- JSON list of the kinds of secret removed
    appended_at   TEXT NOT NULL,
    digested_at   TEXT,                                -- NULL: still in the backlog
    extractor     TEXT,                                -- which extractor digested it
    attempts      INTEGER NOT NULL DEFAULT 0,          -- failed digest attempts so far
    last_error    TEXT NOT NULL DEFAULT '',
    CHECK ((digested_at IS NULL) = (extractor IS NULL))
);
CREATE INDEX journal_backlog ON journal (scope, id) WHERE digested_at IS NULL;
CREATE INDEX journal_session ON journal (scope, session, id);

-- What an extractor (or an explicit write) proposed, and what became of it.
CREATE TABLE proposals (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    scope           TEXT NOT NULL,
    entry_id        INTEGER,                           -- the journal entry digested (NULL: explicit write)
    ordinal         INTEGER NOT NULL DEFAULT 0,        -- position among that entry's proposals
    sources         TEXT NOT NULL DEFAULT '[]',        -- JSON list of refs ('journal:<id>', ...)
    extractor       TEXT NOT NULL,                     -- 'rules', 'llm:<model>', or the explicit writer's principal
    op              TEXT NOT NULL CHECK (op IN ('add', 'supersede', 'retract')),
    subject         TEXT NOT NULL,
    subject_key     TEXT NOT NULL,
    predicate       TEXT NOT NULL,                     -- normalised key
    cardinality     TEXT CHECK (cardinality IS NULL OR cardinality IN ('one', 'many')),
    template        TEXT,
    value           TEXT,                              -- NULL only for a retract of the whole slot
    value_key       TEXT,
    replaces        TEXT,
    valid_from      TEXT,
    valid_to        TEXT,
    all_valid_time  INTEGER NOT NULL DEFAULT 0 CHECK (all_valid_time IN (0, 1)),
    time_phrase     TEXT NOT NULL DEFAULT '',          -- the words the valid time was resolved from
    quote           TEXT NOT NULL DEFAULT '',
    status          TEXT NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'applied', 'rejected', 'rejected_again', 'dropped')),
    decision        TEXT NOT NULL CHECK (decision IN ('apply', 'hold', 'drop', 'reject')),
    policy          TEXT NOT NULL DEFAULT '',          -- 'auto', 'strict', 'explicit'
    reason          TEXT NOT NULL DEFAULT '',
    rejection_id    INTEGER,                           -- the rejection that matched (rejected_again)
    tx              INTEGER REFERENCES transactions(id),
    created_at      TEXT NOT NULL,
    decided_at      TEXT,
    decided_by      TEXT,                              -- the principal who settled it
    review_reason   TEXT NOT NULL DEFAULT '',
    CHECK (op = 'retract' OR value IS NOT NULL)
);
CREATE UNIQUE INDEX proposals_per_entry ON proposals (entry_id, ordinal) WHERE entry_id IS NOT NULL;
CREATE INDEX proposals_status ON proposals (status, id);

-- Rejection memory: a rejected (scope, subject, predicate, value) does not come back until lifted.
CREATE TABLE rejections (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    content_hash  TEXT NOT NULL,                       -- same hash as ledger tombstones
    scope         TEXT NOT NULL,
    subject_key   TEXT NOT NULL,
    predicate     TEXT NOT NULL,
    value_key     TEXT NOT NULL,
    value         TEXT NOT NULL,                       -- display text
    proposal_id   INTEGER REFERENCES proposals(id) ON DELETE SET NULL,
    rejected_by   TEXT NOT NULL CHECK (rejected_by GLOB 'operator:?*'),
    rejected_at   TEXT NOT NULL,
    reason        TEXT NOT NULL DEFAULT '',
    lifted_at     TEXT,
    lifted_by     TEXT CHECK (lifted_by IS NULL OR lifted_by GLOB 'operator:?*'),
    CHECK ((lifted_at IS NULL) = (lifted_by IS NULL))
);
CREATE UNIQUE INDEX rejections_active ON rejections (content_hash) WHERE lifted_at IS NULL;

-- Values an operator confirmed: the digest may not supersede or retract them without review.
CREATE TABLE confirmations (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    content_hash  TEXT NOT NULL,
    scope         TEXT NOT NULL,
    subject_key   TEXT NOT NULL,
    predicate     TEXT NOT NULL,
    value_key     TEXT NOT NULL,
    value         TEXT NOT NULL,
    claim_id      INTEGER,                             -- the version the operator looked at
    confirmed_by  TEXT NOT NULL CHECK (confirmed_by GLOB 'operator:?*'),
    confirmed_at  TEXT NOT NULL,
    reason        TEXT NOT NULL DEFAULT '',
    lifted_at     TEXT,
    lifted_by     TEXT CHECK (lifted_by IS NULL OR lifted_by GLOB 'operator:?*'),
    CHECK ((lifted_at IS NULL) = (lifted_by IS NULL))
);
CREATE UNIQUE INDEX confirmations_active ON confirmations (content_hash) WHERE lifted_at IS NULL;
CREATE INDEX confirmations_slot ON confirmations (scope, subject_key, predicate) WHERE lifted_at IS NULL;

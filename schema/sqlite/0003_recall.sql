-- factledger recall schema (SQLite): the sentence view, the lexical indexes and the vector outbox.
-- Everything here is derived from `claims`; all of it can be rebuilt from the ledger.

-- One sentence per claim version, from its predicate's template (the same substitution as
-- Predicate.render: {predicate} shows the display name with underscores as spaces).
CREATE VIEW recall_claim_text AS
SELECT c.id AS id,
       c.scope AS scope,
       replace(replace(replace(p.template, '{subject}', c.subject),
                       '{predicate}', replace(p.display, '_', ' ')),
               '{value}', c.value) AS text
  FROM claims c JOIN predicates p ON p.name = c.predicate;

-- Free-text memories: the current claims as sentences (valid now, as known now). Readers that need
-- another (valid_at, known_at) use recall_claim_text under the visibility predicate instead.
CREATE VIEW memories AS
SELECT c.id, c.scope, c.subject, c.predicate, c.value, c.valid_from, c.valid_to, c.source, t.text
  FROM claims c JOIN recall_claim_text t ON t.id = c.id
 WHERE c.tx_to IS NULL
   AND c.valid_from <= strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'
   AND (c.valid_to IS NULL OR c.valid_to > strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z');

-- Claims stated for one scope at one valid moment (a conversation session, one document) form a
-- window; each claim's lexical row carries its neighbours' words in a low-weight `context` column.
CREATE INDEX claims_window ON claims (scope, valid_from, id);

-- Lexical lane: rowid = claim version id. Every version is indexed (as-of search needs closed ones);
-- the visibility predicate decides what a search may see.
CREATE VIRTUAL TABLE recall_fts USING fts5(
    body, context, tokenize = 'porter unicode61 remove_diacritics 2'
);
-- Document frequency per indexed term: the lexical lane leaves out terms so common that ranking
-- their postings would cost more than they tell.
CREATE VIRTUAL TABLE recall_fts_terms USING fts5vocab(recall_fts, 'row');
-- Trigram twin for scripts written without spaces (CJK); only rows with non-ASCII text go in.
CREATE VIRTUAL TABLE recall_fts_trigram USING fts5(body, tokenize = 'trigram');

-- Vector lane outbox: written in the claim's own transaction, drained into LanceDB after commit.
CREATE TABLE recall_outbox (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    claim_id  INTEGER NOT NULL,
    change    TEXT NOT NULL CHECK (change IN ('insert', 'close', 'delete', 'retext'))
);

-- The vector companion's health, shared by every process on this ledger file.
CREATE TABLE recall_index_state (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    needs_repair  INTEGER NOT NULL DEFAULT 0,
    reason        TEXT NOT NULL DEFAULT '',
    flagged_at    TEXT
);
INSERT INTO recall_index_state (id) VALUES (1);

CREATE TRIGGER recall_claims_insert
AFTER INSERT ON claims
BEGIN
    INSERT INTO recall_fts (rowid, body, context)
    SELECT NEW.id, t.text,
           COALESCE((SELECT pt.text FROM recall_claim_text pt
                      WHERE pt.id = (SELECT MAX(p.id) FROM claims p
                                      WHERE p.scope = NEW.scope AND p.valid_from = NEW.valid_from
                                        AND p.id < NEW.id)), '')
      FROM recall_claim_text t WHERE t.id = NEW.id;
    UPDATE recall_fts
       SET context = trim(context || ' ' || (SELECT text FROM recall_claim_text WHERE id = NEW.id))
     WHERE rowid = (SELECT MAX(p.id) FROM claims p
                     WHERE p.scope = NEW.scope AND p.valid_from = NEW.valid_from AND p.id < NEW.id);
    INSERT INTO recall_fts_trigram (rowid, body)
    SELECT NEW.id, t.text FROM recall_claim_text t
     WHERE t.id = NEW.id AND t.text GLOB '*[^ -~]*';
    INSERT INTO recall_outbox (claim_id, change) VALUES (NEW.id, 'insert');
END;

CREATE TRIGGER recall_claims_close
AFTER UPDATE OF tx_to ON claims
BEGIN
    INSERT INTO recall_outbox (claim_id, change) VALUES (NEW.id, 'close');
END;

-- Erase: the rows go, and the neighbours' context is recomputed without the erased words.
CREATE TRIGGER recall_claims_delete
AFTER DELETE ON claims
BEGIN
    DELETE FROM recall_fts WHERE rowid = OLD.id;
    DELETE FROM recall_fts_trigram WHERE rowid = OLD.id;
    UPDATE recall_fts
       SET context = trim(
             COALESCE((SELECT text FROM recall_claim_text WHERE id =
                        (SELECT MAX(p.id) FROM claims p, claims me
                          WHERE me.id = recall_fts.rowid AND p.scope = me.scope
                            AND p.valid_from = me.valid_from AND p.id < me.id)), '')
             || ' ' ||
             COALESCE((SELECT text FROM recall_claim_text WHERE id =
                        (SELECT MIN(n.id) FROM claims n, claims me
                          WHERE me.id = recall_fts.rowid AND n.scope = me.scope
                            AND n.valid_from = me.valid_from AND n.id > me.id)), ''))
     WHERE rowid IN (SELECT MAX(p.id) FROM claims p
                      WHERE p.scope = OLD.scope AND p.valid_from = OLD.valid_from AND p.id < OLD.id
                     UNION
                     SELECT MIN(n.id) FROM claims n
                      WHERE n.scope = OLD.scope AND n.valid_from = OLD.valid_from AND n.id > OLD.id);
    INSERT INTO recall_outbox (claim_id, change) VALUES (OLD.id, 'delete');
END;

-- A new template changes the sentence of every claim of the predicate.
CREATE TRIGGER recall_predicate_retext
AFTER UPDATE OF template ON predicates
WHEN NEW.template IS NOT OLD.template
BEGIN
    UPDATE recall_fts SET body = (SELECT text FROM recall_claim_text WHERE id = recall_fts.rowid)
     WHERE rowid IN (SELECT id FROM claims WHERE predicate = NEW.name);
    DELETE FROM recall_fts_trigram WHERE rowid IN (SELECT id FROM claims WHERE predicate = NEW.name);
    INSERT INTO recall_fts_trigram (rowid, body)
    SELECT t.id, t.text FROM recall_claim_text t JOIN claims c ON c.id = t.id
     WHERE c.predicate = NEW.name AND t.text GLOB '*[^ -~]*';
    INSERT INTO recall_outbox (claim_id, change)
    SELECT id, 'retext' FROM claims WHERE predicate = NEW.name;
END;

-- A ledger that already holds claims gets its lexical rows now; the vector companion notices that it
-- is missing and rebuilds itself on first use.
INSERT INTO recall_fts (rowid, body, context)
SELECT t.id, t.text,
       trim(COALESCE((SELECT pt.text FROM recall_claim_text pt WHERE pt.id =
                       (SELECT MAX(p.id) FROM claims p, claims me WHERE me.id = t.id AND p.scope = me.scope
                           AND p.valid_from = me.valid_from AND p.id < me.id)), '')
            || ' ' ||
            COALESCE((SELECT nt.text FROM recall_claim_text nt WHERE nt.id =
                       (SELECT MIN(n.id) FROM claims n, claims me WHERE me.id = t.id AND n.scope = me.scope
                           AND n.valid_from = me.valid_from AND n.id > me.id)), ''))
  FROM recall_claim_text t;
INSERT INTO recall_fts_trigram (rowid, body)
SELECT id, text FROM recall_claim_text WHERE text GLOB '*[^ -~]*';

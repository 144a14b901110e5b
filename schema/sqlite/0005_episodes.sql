-- Episodes: what was said, beside what is true (DESIGN section 7). An episode is one eligible journal
-- turn (already sanitised by the journal): its speaker, role, session, said-at time and scope. It is
-- evidence, never current truth: `claims`, current and as-of reads stay facts only.
--
-- Episodes are the journal's own rows, not claim versions of a reserved predicate (docs/ARCHITECTURE.md,
-- "Episodes", says why). The view below gives them the ledger's time columns so the one visibility
-- predicate (visible.sql, alias c) reads them unchanged: valid from when the turn was said (what was said
-- stays said), known from when the ledger learned it, never closed (erase and retention delete the row).

ALTER TABLE journal ADD COLUMN speaker TEXT;   -- who spoke, when known (a name); NULL: only the role is known

CREATE VIEW episodes AS
SELECT j.id AS id,
       j.scope AS scope,
       j.session AS session,
       j.role AS role,
       COALESCE(j.speaker, j.role) AS speaker,
       j.text AS text,
       j.said_at AS said_at,
       j.said_at AS valid_from,
       NULL AS valid_to,
       j.appended_at AS tx_from,
       NULL AS tx_to
  FROM journal j;

-- What the lexical lane indexes for an episode: the speaker and the words.
CREATE VIEW recall_episode_text AS
SELECT j.id AS id, COALESCE(j.speaker, j.role) || ': ' || j.text AS text FROM journal j;

-- Said-at order within a scope (as-of reads of episodes; `factledger episodes`).
CREATE INDEX journal_said ON journal (scope, said_at);

-- Lexical lane over episodes: rowid = journal id. `context` holds the words of the neighbouring turns of
-- the same session (the one before and the one after), however far apart their said-at times are.
CREATE VIRTUAL TABLE recall_episode_fts USING fts5(
    body, context, tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE recall_episode_fts_terms USING fts5vocab(recall_episode_fts, 'row');
CREATE VIRTUAL TABLE recall_episode_fts_trigram USING fts5(body, tokenize = 'trigram');

-- Vector lane outbox for episodes, written in the turn's own transaction and drained after commit.
CREATE TABLE recall_episode_outbox (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    journal_id  INTEGER NOT NULL,
    change      TEXT NOT NULL CHECK (change IN ('insert', 'delete', 'retext'))
);

-- The words of a turn's neighbours in its session: the one before and the one after.
CREATE VIEW recall_episode_context AS
SELECT me.id AS id,
       trim(COALESCE((SELECT pt.text FROM recall_episode_text pt WHERE pt.id =
                       (SELECT MAX(p.id) FROM journal p
                         WHERE p.scope = me.scope AND p.session IS me.session AND p.id < me.id)), '')
            || ' ' ||
            COALESCE((SELECT nt.text FROM recall_episode_text nt WHERE nt.id =
                       (SELECT MIN(n.id) FROM journal n
                         WHERE n.scope = me.scope AND n.session IS me.session AND n.id > me.id)), '')) AS context
  FROM journal me;

-- A turn's lexical row, and its neighbours' context recomputed (a turn may also come back in the middle of
-- its session: erase re-inserts a redacted turn under its own id).
CREATE TRIGGER recall_journal_insert
AFTER INSERT ON journal
BEGIN
    INSERT INTO recall_episode_fts (rowid, body, context)
    SELECT NEW.id, t.text, c.context
      FROM recall_episode_text t JOIN recall_episode_context c ON c.id = t.id WHERE t.id = NEW.id;
    UPDATE recall_episode_fts
       SET context = (SELECT context FROM recall_episode_context WHERE id = recall_episode_fts.rowid)
     WHERE rowid IN (SELECT MAX(p.id) FROM journal p
                      WHERE p.scope = NEW.scope AND p.session IS NEW.session AND p.id < NEW.id
                     UNION
                     SELECT MIN(n.id) FROM journal n
                      WHERE n.scope = NEW.scope AND n.session IS NEW.session AND n.id > NEW.id);
    INSERT INTO recall_episode_fts_trigram (rowid, body)
    SELECT NEW.id, t.text FROM recall_episode_text t WHERE t.id = NEW.id AND t.text GLOB '*[^ -~]*';
    INSERT INTO recall_episode_outbox (journal_id, change) VALUES (NEW.id, 'insert');
END;

CREATE TRIGGER recall_journal_delete
AFTER DELETE ON journal
BEGIN
    DELETE FROM recall_episode_fts WHERE rowid = OLD.id;
    DELETE FROM recall_episode_fts_trigram WHERE rowid = OLD.id;
    UPDATE recall_episode_fts
       SET context = (SELECT context FROM recall_episode_context WHERE id = recall_episode_fts.rowid)
     WHERE rowid IN (SELECT MAX(p.id) FROM journal p
                      WHERE p.scope = OLD.scope AND p.session IS OLD.session AND p.id < OLD.id
                     UNION
                     SELECT MIN(n.id) FROM journal n
                      WHERE n.scope = OLD.scope AND n.session IS OLD.session AND n.id > OLD.id);
    INSERT INTO recall_episode_outbox (journal_id, change) VALUES (OLD.id, 'delete');
END;

CREATE TRIGGER recall_journal_retext
AFTER UPDATE OF text, speaker ON journal
WHEN NEW.text IS NOT OLD.text OR NEW.speaker IS NOT OLD.speaker
BEGIN
    UPDATE recall_episode_fts SET body = (SELECT text FROM recall_episode_text WHERE id = NEW.id)
     WHERE rowid = NEW.id;
    DELETE FROM recall_episode_fts_trigram WHERE rowid = NEW.id;
    INSERT INTO recall_episode_fts_trigram (rowid, body)
    SELECT NEW.id, t.text FROM recall_episode_text t WHERE t.id = NEW.id AND t.text GLOB '*[^ -~]*';
    UPDATE recall_episode_fts
       SET context = (SELECT context FROM recall_episode_context WHERE id = recall_episode_fts.rowid)
     WHERE rowid IN (SELECT MAX(p.id) FROM journal p
                      WHERE p.scope = NEW.scope AND p.session IS NEW.session AND p.id < NEW.id
                     UNION
                     SELECT MIN(n.id) FROM journal n
                      WHERE n.scope = NEW.scope AND n.session IS NEW.session AND n.id > NEW.id);
    INSERT INTO recall_episode_outbox (journal_id, change) VALUES (NEW.id, 'retext');
END;

-- Turns journaled before this migration become episodes now.
INSERT INTO recall_episode_fts (rowid, body, context)
SELECT t.id, t.text, c.context FROM recall_episode_text t JOIN recall_episode_context c ON c.id = t.id;
INSERT INTO recall_episode_fts_trigram (rowid, body)
SELECT id, text FROM recall_episode_text WHERE text GLOB '*[^ -~]*';

-- Claims: the window is the transaction that wrote them together (a conversation session imported at
-- once, one document), not an equal valid_from: two unrelated facts that happen to hold from the same
-- date are not each other's context. Digest facts come one transaction per proposal; their
-- conversation context is the episodes'.
DROP INDEX claims_window;
CREATE INDEX claims_window ON claims (scope, opened_by, id);

CREATE VIEW recall_claim_context AS
SELECT me.id AS id,
       trim(COALESCE((SELECT pt.text FROM recall_claim_text pt WHERE pt.id =
                       (SELECT MAX(p.id) FROM claims p
                         WHERE p.scope = me.scope AND p.opened_by = me.opened_by AND p.id < me.id)), '')
            || ' ' ||
            COALESCE((SELECT nt.text FROM recall_claim_text nt WHERE nt.id =
                       (SELECT MIN(n.id) FROM claims n
                         WHERE n.scope = me.scope AND n.opened_by = me.opened_by AND n.id > me.id)), '')) AS context
  FROM claims me;

DROP TRIGGER recall_claims_insert;
CREATE TRIGGER recall_claims_insert
AFTER INSERT ON claims
BEGIN
    INSERT INTO recall_fts (rowid, body, context)
    SELECT NEW.id, t.text,
           COALESCE((SELECT pt.text FROM recall_claim_text pt
                      WHERE pt.id = (SELECT MAX(p.id) FROM claims p
                                      WHERE p.scope = NEW.scope AND p.opened_by = NEW.opened_by
                                        AND p.id < NEW.id)), '')
      FROM recall_claim_text t WHERE t.id = NEW.id;
    UPDATE recall_fts
       SET context = trim(context || ' ' || (SELECT text FROM recall_claim_text WHERE id = NEW.id))
     WHERE rowid = (SELECT MAX(p.id) FROM claims p
                     WHERE p.scope = NEW.scope AND p.opened_by = NEW.opened_by AND p.id < NEW.id);
    INSERT INTO recall_fts_trigram (rowid, body)
    SELECT NEW.id, t.text FROM recall_claim_text t
     WHERE t.id = NEW.id AND t.text GLOB '*[^ -~]*';
    INSERT INTO recall_outbox (claim_id, change) VALUES (NEW.id, 'insert');
END;

DROP TRIGGER recall_claims_delete;
CREATE TRIGGER recall_claims_delete
AFTER DELETE ON claims
BEGIN
    DELETE FROM recall_fts WHERE rowid = OLD.id;
    DELETE FROM recall_fts_trigram WHERE rowid = OLD.id;
    UPDATE recall_fts
       SET context = (SELECT context FROM recall_claim_context WHERE id = recall_fts.rowid)
     WHERE rowid IN (SELECT MAX(p.id) FROM claims p
                      WHERE p.scope = OLD.scope AND p.opened_by = OLD.opened_by AND p.id < OLD.id
                     UNION
                     SELECT MIN(n.id) FROM claims n
                      WHERE n.scope = OLD.scope AND n.opened_by = OLD.opened_by AND n.id > OLD.id);
    INSERT INTO recall_outbox (claim_id, change) VALUES (OLD.id, 'delete');
END;

-- Existing claims get their context by the new windows.
UPDATE recall_fts SET context = COALESCE((SELECT context FROM recall_claim_context WHERE id = recall_fts.rowid), '');

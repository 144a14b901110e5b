-- factledger, version 24 (SQLite): recall's episode lanes written once per batch of turns, not once per row.
--
-- `recall_journal_insert` runs for every journal row: it inserts the turn's lexical row with its
-- neighbours' words as context, then rewrites the previous turn's row of the session so its context holds
-- the new words too (an FTS5 update is a delete and a re-insert), and writes the trigram and outbox rows.
-- A turn appended alone needs exactly that. A batch (`Journal.append_many`, `factledger journal add FILE`,
-- the API's turns) would tokenise each turn about three times. SQLite has no statement-level triggers, so
-- a batch says where it starts: the writer inserts the one row of `recall_episode_batch` (the first journal
-- id the batch may take), inserts its turns, which the per-row trigger then leaves alone, and deletes the
-- row; that DELETE writes the batch's lanes as set statements, each lexical row with its final context,
-- and gives the turn before the batch in each of its sessions its new context once.
--
-- The batch row is opened and closed inside the writer's own transaction (a rollback takes both away).
-- A client that inserts turns while leaving the row in place gets no lexical rows for them until it is
-- deleted; `verify` reports such a turn ("no lexical row for this episode"). A client that never opens
-- the row meets the per-row trigger, as before.

CREATE TABLE recall_episode_batch (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    first_id  INTEGER NOT NULL
);

-- The batch starts right after the last turn there is: it cannot claim turns written before it (they
-- are indexed already), nor skip the ones it writes.
CREATE TRIGGER recall_episode_batch_starts_next
BEFORE INSERT ON recall_episode_batch
WHEN NEW.first_id IS NOT (SELECT COALESCE(MAX(id), 0) + 1 FROM journal)
BEGIN
    SELECT RAISE(ABORT, 'factledger: an episode batch starts at the next journal id');
END;

CREATE TRIGGER recall_episode_batch_fixed
BEFORE UPDATE ON recall_episode_batch
BEGIN
    SELECT RAISE(ABORT, 'factledger: an episode batch is opened and closed, never changed');
END;

DROP TRIGGER recall_journal_insert;
CREATE TRIGGER recall_journal_insert
AFTER INSERT ON journal
WHEN NOT EXISTS (SELECT 1 FROM recall_episode_batch)
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

-- The batch's lanes, in id order as the per-row trigger wrote them. Its turns all have ids from first_id
-- on; a turn's neighbours are found as `recall_episode_context` finds them (the turn before may be older
-- than the batch; the one after is in it). Every turn from first_id on is the batch's own: the batch row
-- was inserted when first_id was the next id.
CREATE TRIGGER recall_episode_batch_close
AFTER DELETE ON recall_episode_batch
BEGIN
    INSERT INTO recall_episode_fts (rowid, body, context)
    SELECT t.id, t.text, c.context
      FROM journal j JOIN recall_episode_text t ON t.id = j.id JOIN recall_episode_context c ON c.id = j.id
     WHERE j.id >= OLD.first_id ORDER BY j.id;
    UPDATE recall_episode_fts
       SET context = (SELECT context FROM recall_episode_context WHERE id = recall_episode_fts.rowid)
     WHERE rowid IN (SELECT (SELECT MAX(p.id) FROM journal p
                              WHERE p.scope = j.scope AND p.session IS j.session AND p.id < OLD.first_id)
                       FROM journal j WHERE j.id >= OLD.first_id);
    INSERT INTO recall_episode_fts_trigram (rowid, body)
    SELECT t.id, t.text FROM journal j JOIN recall_episode_text t ON t.id = j.id
     WHERE j.id >= OLD.first_id AND t.text GLOB '*[^ -~]*' ORDER BY j.id;
    INSERT INTO recall_episode_outbox (journal_id, change)
    SELECT j.id, 'insert' FROM journal j WHERE j.id >= OLD.first_id ORDER BY j.id;
END;

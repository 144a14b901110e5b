-- factledger recall (PostgreSQL 15): the lexical indexes over facts (claim versions) and episodes (journal
-- turns), the vector outboxes and the index state: schema/sqlite/0003, 0005 and 0008 for PostgreSQL.
-- Everything here is derived from `claims` and `journal`; all of it can be rebuilt from them.
--
-- The lexical rows are tables beside claims and journal, kept by triggers in the item's own transaction
-- (a row's `context` holds its window neighbours' words, so a neighbour's insert or delete rewrites it:
-- a generated column cannot read other rows). Each row's tsvectors are generated columns over its text.
-- Ranking is BM25 as SQLite's FTS5 computes it (recall/pg_recorder.py), over these tsvectors: the
-- positions give term frequencies and `length` the row's token count (docs/ARCHITECTURE.md, "Storage
-- engines", says where the two engines may still differ).

-- unaccent folds diacritics as FTS5's remove_diacritics does; a trusted extension (the owner may create it).
CREATE EXTENSION IF NOT EXISTS unaccent;

-- English snowball stems without a stop-word list: FTS5's porter tokenizer drops no words either, and a
-- dropped word would change every row's token count (BM25's document length).
CREATE TEXT SEARCH DICTIONARY factledger_stem (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION factledger (PARSER = default);
ALTER TEXT SEARCH CONFIGURATION factledger
    ADD MAPPING FOR asciiword, word, numword, asciihword, hword, numhword, hword_asciipart, hword_part, hword_numpart
    WITH unaccent, factledger_stem;
ALTER TEXT SEARCH CONFIGURATION factledger ADD MAPPING FOR int, uint WITH simple;

-- Words as FTS5's unicode61 splits them: punctuation and symbols separate words. The default parser would
-- otherwise keep "3.11", "a@b.com" or "/usr/bin" as one token, and (in the C locale) read any non-ASCII
-- character as a letter, so the common Unicode punctuation, symbol and emoji blocks become spaces too.
CREATE FUNCTION factledger_words(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN regexp_replace(
    t,
    '[[:punct:]\u00a0-\u00bf\u00d7\u00f7\u2000-\u206f\u20a0-\u2bff\u3000-\u303f\ufe30-\ufe4f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65\U0001f000-\U0001faff]',
    ' ', 'g');

CREATE FUNCTION factledger_terms(t text) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN to_tsvector('factledger'::regconfig, factledger_words(t));

-- Tokens in a tsvector (BM25's document length): every position of every lexeme.
CREATE FUNCTION factledger_token_count(v tsvector) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (SELECT COALESCE(sum(cardinality(u.positions)), 0)::integer FROM unnest(v) u);

-- How often a lexeme occurs in a tsvector (BM25's term frequency).
CREATE FUNCTION factledger_tf(v tsvector, lexeme text) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (SELECT COALESCE(sum(cardinality(u.positions)), 0)::integer FROM unnest(v) u WHERE u.lexeme = factledger_tf.lexeme);

-- The lexemes of query words, stemmed as the index stems them.
CREATE FUNCTION factledger_lexemes(words text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (SELECT COALESCE(array_agg(DISTINCT u.lexeme ORDER BY u.lexeme), '{}')
          FROM unnest(words) w, unnest(factledger_terms(w)) u);

-- A tsquery for one lexeme, or for any of several (quoted: no operator characters are read from words).
CREATE FUNCTION factledger_any(lexemes text[]) RETURNS tsquery
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (SELECT string_agg('''' || replace(l, '''', '''''') || '''', ' | ')::tsquery FROM unnest(lexemes) l);

-- BM25's inverse document frequency as FTS5 computes it (never below a millionth).
CREATE FUNCTION factledger_idf(total bigint, hits bigint) RETURNS double precision
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN greatest(ln((0.5 + total - hits) / (0.5 + hits)), 1e-6);

-- == Facts ========================================================================================

-- One sentence per claim version, from its predicate's template (the same substitution as
-- Predicate.render: {predicate} shows the display name with underscores as spaces).
CREATE VIEW recall_claim_text AS
SELECT c.id AS id,
       c.scope AS scope,
       replace(replace(replace(p.template, '{subject}', c.subject),
                       '{predicate}', replace(p.display, '_', ' ')),
               '{value}', c.value) AS text
  FROM claims c JOIN predicates p ON p.name = c.predicate;

-- A claim's window is the transaction that wrote it, in its scope: the claims before and after it there.
CREATE INDEX claims_window ON claims (scope, opened_by, id);

CREATE VIEW recall_claim_context AS
SELECT me.id AS id,
       trim(COALESCE((SELECT t.text FROM recall_claim_text t WHERE t.id =
                       (SELECT p.id FROM claims p WHERE p.scope = me.scope AND p.opened_by = me.opened_by
                           AND p.id < me.id ORDER BY p.id DESC LIMIT 1)), '')
            || ' ' ||
            COALESCE((SELECT t.text FROM recall_claim_text t WHERE t.id =
                       (SELECT n.id FROM claims n WHERE n.scope = me.scope AND n.opened_by = me.opened_by
                           AND n.id > me.id ORDER BY n.id LIMIT 1)), '')) AS context
  FROM claims me;

-- Lexical lane: id = claim version id. Every version is indexed (as-of search needs closed ones); the
-- visibility predicate decides what a search may see.
CREATE TABLE recall_fts (
    id             bigint PRIMARY KEY,
    body           text NOT NULL,
    context        text NOT NULL DEFAULT '',
    body_terms     tsvector GENERATED ALWAYS AS (factledger_terms(body)) STORED,
    context_terms  tsvector GENERATED ALWAYS AS (factledger_terms(context)) STORED,
    terms          tsvector GENERATED ALWAYS AS (factledger_terms(body || ' ' || context)) STORED,
    length         integer GENERATED ALWAYS AS (factledger_token_count(factledger_terms(body))
                                                + factledger_token_count(factledger_terms(context))) STORED
);
CREATE INDEX recall_fts_terms ON recall_fts USING gin (terms);
CREATE INDEX recall_fts_body_terms ON recall_fts USING gin (body_terms);
-- Rows with non-ASCII text (CJK has no spaces: a word token there is a whole clause), matched by
-- substring and ranked by BM25 over their three-character grams.
CREATE TABLE recall_fts_trigram (
    id    bigint PRIMARY KEY,
    body  text NOT NULL
);

-- Vector lane outbox: written in the claim's own transaction, drained into LanceDB after commit.
CREATE TABLE recall_outbox (
    seq       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    claim_id  bigint NOT NULL,
    change    text NOT NULL CHECK (change IN ('insert', 'close', 'delete', 'retext'))
);
CREATE INDEX recall_outbox_claim ON recall_outbox (claim_id);

-- The vector companion's health and home, shared by every process on this database. `folder`: where the
-- vector folder lives (NULL: the engine's default), so every process (the Hermes provider, the CLI, an
-- erase) uses the same one.
CREATE TABLE recall_index_state (
    id            integer PRIMARY KEY CHECK (id = 1),
    needs_repair  boolean NOT NULL DEFAULT false,
    reason        text NOT NULL DEFAULT '',
    flagged_at    timestamptz CHECK (factledger_time_ok(flagged_at)),
    folder        text CHECK (folder IS NULL OR length(folder) > 0)
);
INSERT INTO recall_index_state (id) VALUES (1);

-- Recompute the context of the claims before and after `pivot` in its window (a neighbour came or went).
CREATE FUNCTION recall_claim_window_refresh(pivot_scope text, pivot_tx bigint, pivot_id bigint) RETURNS void
LANGUAGE sql AS $$
    UPDATE recall_fts f SET context = COALESCE(x.context, '')
      FROM recall_claim_context x
     WHERE x.id = f.id
       AND f.id IN ((SELECT p.id FROM claims p WHERE p.scope = pivot_scope AND p.opened_by = pivot_tx
                        AND p.id < pivot_id ORDER BY p.id DESC LIMIT 1),
                    (SELECT n.id FROM claims n WHERE n.scope = pivot_scope AND n.opened_by = pivot_tx
                        AND n.id > pivot_id ORDER BY n.id LIMIT 1));
$$;

-- Once per INSERT statement, over all its new rows (the ledger writes a transaction's versions in one
-- statement): each new row is indexed with its final context, and only the neighbours that were there
-- before the statement are re-contexted. Per row, a batch of n versions in one window rewrote every
-- predecessor's row and GIN entries again: about 2 ms a version (evals/bench_ledger.py).
CREATE FUNCTION recall_claims_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO recall_fts (id, body, context)
    SELECT n.id, t.text, x.context
      FROM new_rows n JOIN recall_claim_text t ON t.id = n.id JOIN recall_claim_context x ON x.id = n.id;
    UPDATE recall_fts f SET context = COALESCE(x.context, '')
      FROM recall_claim_context x
     WHERE x.id = f.id
       AND f.id IN (SELECT nb.id
                      FROM new_rows n
                     CROSS JOIN LATERAL (
                           (SELECT p.id FROM claims p WHERE p.scope = n.scope AND p.opened_by = n.opened_by
                               AND p.id < n.id ORDER BY p.id DESC LIMIT 1)
                           UNION ALL
                           (SELECT q.id FROM claims q WHERE q.scope = n.scope AND q.opened_by = n.opened_by
                               AND q.id > n.id ORDER BY q.id LIMIT 1)) nb
                     WHERE nb.id NOT IN (SELECT id FROM new_rows));
    INSERT INTO recall_fts_trigram (id, body)
    SELECT n.id, t.text FROM new_rows n JOIN recall_claim_text t ON t.id = n.id WHERE t.text ~ '[^ -~]';
    INSERT INTO recall_outbox (claim_id, change) SELECT id, 'insert' FROM new_rows ORDER BY id;
    RETURN NULL;
END;
$$;
CREATE TRIGGER recall_claims_insert AFTER INSERT ON claims
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall_claims_insert();

CREATE FUNCTION recall_claims_close() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO recall_outbox (claim_id, change) VALUES (NEW.id, 'close');
    RETURN NULL;
END;
$$;
CREATE TRIGGER recall_claims_close AFTER UPDATE OF tx_to ON claims
    FOR EACH ROW EXECUTE FUNCTION recall_claims_close();

-- Erase: the rows go, and the neighbours' context is recomputed without the erased words.
CREATE FUNCTION recall_claims_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM recall_fts WHERE id = OLD.id;
    DELETE FROM recall_fts_trigram WHERE id = OLD.id;
    PERFORM recall_claim_window_refresh(OLD.scope, OLD.opened_by, OLD.id);
    INSERT INTO recall_outbox (claim_id, change) VALUES (OLD.id, 'delete');
    RETURN NULL;
END;
$$;
CREATE TRIGGER recall_claims_delete AFTER DELETE ON claims
    FOR EACH ROW EXECUTE FUNCTION recall_claims_delete();

-- A new template changes the sentence of every claim of the predicate (as SQLite: the body; the
-- neighbours' context keeps the words they were written with until they are rewritten).
CREATE FUNCTION recall_predicate_retext() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE recall_fts f SET body = t.text
      FROM recall_claim_text t JOIN claims c ON c.id = t.id
     WHERE t.id = f.id AND c.predicate = NEW.name;
    DELETE FROM recall_fts_trigram WHERE id IN (SELECT id FROM claims WHERE predicate = NEW.name);
    INSERT INTO recall_fts_trigram (id, body)
    SELECT t.id, t.text FROM recall_claim_text t JOIN claims c ON c.id = t.id
     WHERE c.predicate = NEW.name AND t.text ~ '[^ -~]';
    INSERT INTO recall_outbox (claim_id, change)
    SELECT id, 'retext' FROM claims WHERE predicate = NEW.name ORDER BY id;
    RETURN NULL;
END;
$$;
CREATE TRIGGER recall_predicate_retext AFTER UPDATE OF template ON predicates
    FOR EACH ROW WHEN (NEW.template IS DISTINCT FROM OLD.template) EXECUTE FUNCTION recall_predicate_retext();

-- == Episodes (DESIGN section 7) ==================================================================

-- Journal turns with the ledger's time columns, so the one visibility predicate (alias c) reads them
-- unchanged: valid from when the turn was said (what was said stays said), known from when the ledger
-- learned it, never closed (erase and retention delete the row).
CREATE VIEW episodes AS
SELECT j.id AS id,
       j.scope AS scope,
       j.session AS session,
       j.role AS role,
       COALESCE(j.speaker, j.role) AS speaker,
       j.text AS text,
       j.said_at AS said_at,
       j.said_at AS valid_from,
       NULL::timestamptz AS valid_to,
       j.appended_at AS tx_from,
       NULL::timestamptz AS tx_to
  FROM journal j;

-- What the lexical lane indexes for an episode: the speaker and the words.
CREATE VIEW recall_episode_text AS
SELECT j.id AS id, COALESCE(j.speaker, j.role) || ': ' || j.text AS text FROM journal j;

-- The words of a turn's neighbours in its session (the one before and the one after), however far apart
-- their said-at times are. journal_session (0002) is the index these lookups walk.
CREATE VIEW recall_episode_context AS
SELECT me.id AS id,
       trim(COALESCE((SELECT t.text FROM recall_episode_text t WHERE t.id =
                       (SELECT p.id FROM journal p WHERE p.scope = me.scope
                           AND p.session IS NOT DISTINCT FROM me.session AND p.id < me.id ORDER BY p.id DESC LIMIT 1)), '')
            || ' ' ||
            COALESCE((SELECT t.text FROM recall_episode_text t WHERE t.id =
                       (SELECT n.id FROM journal n WHERE n.scope = me.scope
                           AND n.session IS NOT DISTINCT FROM me.session AND n.id > me.id ORDER BY n.id LIMIT 1)), '')) AS context
  FROM journal me;

CREATE TABLE recall_episode_fts (
    id             bigint PRIMARY KEY,
    body           text NOT NULL,
    context        text NOT NULL DEFAULT '',
    body_terms     tsvector GENERATED ALWAYS AS (factledger_terms(body)) STORED,
    context_terms  tsvector GENERATED ALWAYS AS (factledger_terms(context)) STORED,
    terms          tsvector GENERATED ALWAYS AS (factledger_terms(body || ' ' || context)) STORED,
    length         integer GENERATED ALWAYS AS (factledger_token_count(factledger_terms(body))
                                                + factledger_token_count(factledger_terms(context))) STORED
);
CREATE INDEX recall_episode_fts_terms ON recall_episode_fts USING gin (terms);
CREATE INDEX recall_episode_fts_body_terms ON recall_episode_fts USING gin (body_terms);
CREATE TABLE recall_episode_fts_trigram (
    id    bigint PRIMARY KEY,
    body  text NOT NULL
);

-- Vector lane outbox for episodes, written in the turn's own transaction and drained after commit.
CREATE TABLE recall_episode_outbox (
    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    journal_id  bigint NOT NULL,
    change      text NOT NULL CHECK (change IN ('insert', 'delete', 'retext'))
);
CREATE INDEX recall_episode_outbox_journal ON recall_episode_outbox (journal_id);

-- Recompute the context of the turns before and after `pivot` in its session.
CREATE FUNCTION recall_episode_window_refresh(pivot_scope text, pivot_session text, pivot_id bigint) RETURNS void
LANGUAGE sql AS $$
    UPDATE recall_episode_fts f SET context = COALESCE(x.context, '')
      FROM recall_episode_context x
     WHERE x.id = f.id
       AND f.id IN ((SELECT p.id FROM journal p WHERE p.scope = pivot_scope
                        AND p.session IS NOT DISTINCT FROM pivot_session AND p.id < pivot_id ORDER BY p.id DESC LIMIT 1),
                    (SELECT n.id FROM journal n WHERE n.scope = pivot_scope
                        AND n.session IS NOT DISTINCT FROM pivot_session AND n.id > pivot_id ORDER BY n.id LIMIT 1));
$$;

-- A turn's lexical row, and its neighbours' context recomputed (a turn may also come back in the middle
-- of its session: erase re-inserts a redacted turn under its own id).
CREATE FUNCTION recall_journal_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO recall_episode_fts (id, body, context)
    SELECT NEW.id, t.text, x.context
      FROM recall_episode_text t JOIN recall_episode_context x ON x.id = t.id WHERE t.id = NEW.id;
    PERFORM recall_episode_window_refresh(NEW.scope, NEW.session, NEW.id);
    INSERT INTO recall_episode_fts_trigram (id, body)
    SELECT NEW.id, t.text FROM recall_episode_text t WHERE t.id = NEW.id AND t.text ~ '[^ -~]';
    INSERT INTO recall_episode_outbox (journal_id, change) VALUES (NEW.id, 'insert');
    RETURN NULL;
END;
$$;
CREATE TRIGGER recall_journal_insert AFTER INSERT ON journal
    FOR EACH ROW EXECUTE FUNCTION recall_journal_insert();

CREATE FUNCTION recall_journal_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM recall_episode_fts WHERE id = OLD.id;
    DELETE FROM recall_episode_fts_trigram WHERE id = OLD.id;
    PERFORM recall_episode_window_refresh(OLD.scope, OLD.session, OLD.id);
    INSERT INTO recall_episode_outbox (journal_id, change) VALUES (OLD.id, 'delete');
    RETURN NULL;
END;
$$;
CREATE TRIGGER recall_journal_delete AFTER DELETE ON journal
    FOR EACH ROW EXECUTE FUNCTION recall_journal_delete();

-- The journal's own rules may refuse in-place edits of a turn's words; if one is allowed, recall follows.
CREATE FUNCTION recall_journal_retext() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE recall_episode_fts f SET body = t.text FROM recall_episode_text t WHERE t.id = NEW.id AND f.id = NEW.id;
    DELETE FROM recall_episode_fts_trigram WHERE id = NEW.id;
    INSERT INTO recall_episode_fts_trigram (id, body)
    SELECT NEW.id, t.text FROM recall_episode_text t WHERE t.id = NEW.id AND t.text ~ '[^ -~]';
    PERFORM recall_episode_window_refresh(NEW.scope, NEW.session, NEW.id);
    INSERT INTO recall_episode_outbox (journal_id, change) VALUES (NEW.id, 'retext');
    RETURN NULL;
END;
$$;
CREATE TRIGGER recall_journal_retext AFTER UPDATE OF text, speaker ON journal
    FOR EACH ROW WHEN (NEW.text IS DISTINCT FROM OLD.text OR NEW.speaker IS DISTINCT FROM OLD.speaker)
    EXECUTE FUNCTION recall_journal_retext();

-- A database that already holds claims or turns gets their lexical rows now; the vector companion notices
-- that it is missing and rebuilds itself on first use.
INSERT INTO recall_fts (id, body, context)
SELECT t.id, t.text, x.context FROM recall_claim_text t JOIN recall_claim_context x ON x.id = t.id;
INSERT INTO recall_fts_trigram (id, body) SELECT id, text FROM recall_claim_text WHERE text ~ '[^ -~]';
INSERT INTO recall_episode_fts (id, body, context)
SELECT t.id, t.text, x.context FROM recall_episode_text t JOIN recall_episode_context x ON x.id = t.id;
INSERT INTO recall_episode_fts_trigram (id, body) SELECT id, text FROM recall_episode_text WHERE text ~ '[^ -~]';

-- factledger, version 17 (SQLite; schema/postgres/0010 is its twin): the title a host gives a
-- conversation (Hermes's session title), so an episode and the journal's listings can name the
-- conversation a turn was said in. One row per (scope, session), the latest title: a host may rename a
-- session later. User-controlled text: stored sanitised and on one line (digest/journal.py), redacted
-- by erase like the journal's turns.
CREATE TABLE session_titles (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    scope      TEXT NOT NULL CHECK (length(scope) > 0),
    session    TEXT NOT NULL CHECK (length(session) > 0),
    title      TEXT NOT NULL CHECK (length(title) > 0),
    titled_at  TEXT NOT NULL,
    UNIQUE (scope, session)
);

CREATE TRIGGER session_titles_titled_at_form_insert
BEFORE INSERT ON session_titles
WHEN NEW.titled_at NOT GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
BEGIN
    SELECT RAISE(ABORT, 'factledger: session_titles.titled_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

-- The one visibility predicate. Every read lane (current, as-of, FTS, vector re-read) uses this text.
-- Alias `c` is a claims row. Parameters: :scopes (a JSON array of scope names), :valid_at, :known_at.
c.scope IN (SELECT value FROM json_each(:scopes))
AND c.valid_from <= :valid_at AND (c.valid_to IS NULL OR c.valid_to > :valid_at)
AND c.tx_from <= :known_at AND (c.tx_to IS NULL OR c.tx_to > :known_at)

-- The one visibility predicate on PostgreSQL: the same meaning as schema/sqlite/visible.sql.
-- Alias `c` is a claims row. Parameters: %(scopes)s (a text[] of scope names), %(valid_at)s, %(known_at)s
-- (canonical time text, read as timestamptz).
c.scope = ANY(%(scopes)s::text[])
AND c.valid_from <= %(valid_at)s::timestamptz AND (c.valid_to IS NULL OR c.valid_to > %(valid_at)s::timestamptz)
AND c.tx_from <= %(known_at)s::timestamptz AND (c.tx_to IS NULL OR c.tx_to > %(known_at)s::timestamptz)

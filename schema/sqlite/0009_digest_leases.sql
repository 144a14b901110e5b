-- Which digest run is working on which journal entry. Several processes may share one ledger (a Hermes
-- gateway and CLI sessions): each leases the entries of a window before paying a model for them, so no
-- two runs extract the same entry; the per-entry commit already makes sure only one of them writes it.
-- A lease ends when its run commits the entry, or expires (a crashed run's entries come back).
CREATE TABLE digest_leases (
    entry_id  INTEGER PRIMARY KEY,                 -- a journal entry (erase removes the entry, not the lease)
    holder    TEXT NOT NULL CHECK (length(holder) > 0),
    until     TEXT NOT NULL CHECK (until GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z')
);
CREATE INDEX digest_leases_until ON digest_leases (until);

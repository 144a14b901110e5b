-- Where this ledger's vector companion lives, recorded in the ledger itself, so every process that opens
-- the file (the Hermes provider, the CLI, an erase) uses the same folder: an erase that rewrote one
-- folder while another kept the erased embeddings would break DESIGN section 8. NULL until the first
-- process that builds the index records it; a path relative to the ledger's own folder when inside it.
ALTER TABLE recall_index_state ADD COLUMN folder TEXT CHECK (folder IS NULL OR length(folder) > 0);

-- factledger, version 18 (SQLite): the journal's and the review memory's rules, as PostgreSQL enforces
-- them for any client (schema/postgres/0005_digest.sql: journal_marks_only, review_memory_lifted_once,
-- rejections_no_delete). Until now SQLite left them to the digest's code, so a raw client could delete
-- a rejection (and "I work at Initech", said again, became current) or rewrite what a turn said.
-- Erase keeps working: it deletes a turn and inserts its redacted copy (never edits one in place),
-- redacts a rejection's or confirmation's texts (never its value's hash, scope, predicate or who and
-- when) and clears the proposal a rejection points to (its proposal is deleted); retention, undo and
-- erase delete turns one by one, as on PostgreSQL.

-- == The journal: what was said stays as it was said; the digest only marks a turn ===================

CREATE TRIGGER journal_marks_only
BEFORE UPDATE ON journal
WHEN NEW.id IS NOT OLD.id OR NEW.scope IS NOT OLD.scope OR NEW.session IS NOT OLD.session
  OR NEW.role IS NOT OLD.role OR NEW.speaker IS NOT OLD.speaker OR NEW.text IS NOT OLD.text
  OR NEW.said_at IS NOT OLD.said_at OR NEW.hash IS NOT OLD.hash OR NEW.redactions IS NOT OLD.redactions
  OR NEW.appended_at IS NOT OLD.appended_at
BEGIN
    SELECT RAISE(ABORT, 'factledger: a journal entry is never edited; only the digest''s marks change (erase re-inserts a redacted copy)');
END;

CREATE TRIGGER journal_digested_once
BEFORE UPDATE OF digested_at, extractor ON journal
WHEN OLD.digested_at IS NOT NULL AND (NEW.digested_at IS NOT OLD.digested_at OR NEW.extractor IS NOT OLD.extractor)
BEGIN
    SELECT RAISE(ABORT, 'factledger: a journal entry is digested once');
END;

CREATE TRIGGER journal_attempts_count_up
BEFORE UPDATE OF attempts ON journal
WHEN NEW.attempts < OLD.attempts
BEGIN
    SELECT RAISE(ABORT, 'factledger: a journal entry''s failed attempts only count up');
END;

-- == Rejection memory outlives everything but the value itself =======================================

CREATE TRIGGER rejections_no_delete
BEFORE DELETE ON rejections
BEGIN
    SELECT RAISE(ABORT, 'factledger: rejections are never deleted; an operator lifts them');
END;

CREATE TRIGGER rejections_never_edited
BEFORE UPDATE ON rejections
WHEN NEW.id IS NOT OLD.id OR NEW.content_hash IS NOT OLD.content_hash OR NEW.scope IS NOT OLD.scope
  OR NEW.predicate IS NOT OLD.predicate OR NEW.rejected_by IS NOT OLD.rejected_by
  OR NEW.rejected_at IS NOT OLD.rejected_at
BEGIN
    SELECT RAISE(ABORT, 'factledger: rejections are never edited; they are lifted once');
END;

CREATE TRIGGER rejections_keep_the_proposal
BEFORE UPDATE OF proposal_id ON rejections
WHEN NEW.proposal_id IS NOT OLD.proposal_id AND NEW.proposal_id IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'factledger: a rejection keeps the proposal it rejected (erase may only clear it)');
END;

CREATE TRIGGER rejections_lifted_once
BEFORE UPDATE OF lifted_at, lifted_by ON rejections
WHEN OLD.lifted_at IS NOT NULL AND (NEW.lifted_at IS NOT OLD.lifted_at OR NEW.lifted_by IS NOT OLD.lifted_by)
BEGIN
    SELECT RAISE(ABORT, 'factledger: rejections are lifted once');
END;

-- == Confirmations: withdrawn (lifted) once; erase deletes those of an erased value ====================

CREATE TRIGGER confirmations_never_edited
BEFORE UPDATE ON confirmations
WHEN NEW.id IS NOT OLD.id OR NEW.content_hash IS NOT OLD.content_hash OR NEW.scope IS NOT OLD.scope
  OR NEW.predicate IS NOT OLD.predicate OR NEW.claim_id IS NOT OLD.claim_id
  OR NEW.confirmed_by IS NOT OLD.confirmed_by OR NEW.confirmed_at IS NOT OLD.confirmed_at
BEGIN
    SELECT RAISE(ABORT, 'factledger: confirmations are never edited; they are lifted once');
END;

CREATE TRIGGER confirmations_lifted_once
BEFORE UPDATE OF lifted_at, lifted_by ON confirmations
WHEN OLD.lifted_at IS NOT NULL AND (NEW.lifted_at IS NOT OLD.lifted_at OR NEW.lifted_by IS NOT OLD.lifted_by)
BEGIN
    SELECT RAISE(ABORT, 'factledger: confirmations are lifted once');
END;

-- Reviews: `skillgate review` appends one approval_history row per reviewed skill (decision
-- `approved` or `needs_correction`, the reviewer as approver), never an UPDATE of the escalated
-- row, so the chain keeps both.
--
--   review_id          the GitHub review's id; NULL on rows the gate writes
--   pull_request_head  the pull request's head commit, which reviews are made on; head_sha is the
--                      commit tested (in a pull_request job, the merge of head into base)
--
-- Adding columns does not change the hash of older rows: NULL columns are left out of a row's
-- canonical JSON.

ALTER TABLE approval_history ADD COLUMN review_id TEXT;
ALTER TABLE approval_history ADD COLUMN pull_request_head TEXT;

CREATE INDEX IF NOT EXISTS idx_approval_history_pull_request
    ON approval_history(repository, pull_request);

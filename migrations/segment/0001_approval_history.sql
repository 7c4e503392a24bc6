-- A segment of the audit trail (see ../0005_trail_segments.sql): approval_history's rows from
-- one id to another, as the registry's schema stores them, the same columns in the same order,
-- so `SELECT *` from every segment is one table. Kept lean for git: no foreign key (the skills
-- are in the registry), no UNIQUE index and no secondary index (rows are only ever appended in
-- id order, so a new version of the file differs from the last only at its end, and its history
-- packs as deltas). Idempotency is checked in the working copy, which has the registry's indexes.

CREATE TABLE approval_history (
    id INTEGER PRIMARY KEY,
    skill_id INTEGER NOT NULL,
    version TEXT NOT NULL,
    approval_level TEXT NOT NULL
        CHECK (approval_level IN ('auto', 'escalate', 'human')),
    test_results TEXT,
    approval_criteria_check TEXT,
    approver TEXT,
    decision TEXT NOT NULL
        CHECK (decision IN ('approved', 'rejected', 'escalated', 'needs_correction')),
    reasoning TEXT,
    risk_assessment TEXT,
    escalation_reason TEXT,
    escalated_to TEXT,
    escalation_timestamp TEXT,
    timestamp TEXT NOT NULL DEFAULT (datetime('now')),
    review_duration_minutes INTEGER,
    pass_rate REAL GENERATED ALWAYS AS (json_extract(test_results, '$.pass_rate')) VIRTUAL,
    repository TEXT,
    pull_request INTEGER,
    base_sha TEXT,
    head_sha TEXT,
    run_id TEXT,
    run_attempt INTEGER,
    change_kind TEXT,
    content_hash TEXT,
    escalation_categories TEXT,
    idempotency_key TEXT,
    prev_hash TEXT,
    row_hash TEXT,
    review_id TEXT,
    pull_request_head TEXT
);

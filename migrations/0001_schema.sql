-- skillgate audit trail, version 1: the seed's tables (tdd-skills-database-integration.md,
-- section 2) with the columns its queries read, plus what the gate needs to keep the trail
-- exact: an idempotency key and a hash chain on approval_history.
--
-- The seed's own INSERT and UPDATE statements must keep working, so nothing the seed does not
-- write is NOT NULL without a default. Rows written by hand carry no row_hash: `skillgate audit
-- verify` reports them.

CREATE TABLE IF NOT EXISTS skills (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT UNIQUE NOT NULL,
    category TEXT NOT NULL,
    team TEXT,
    content_path TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    tags TEXT,
    version TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'active',

    -- TDD integration
    test_coverage REAL,
    test_suite_path TEXT,
    required_test_pass_rate REAL DEFAULT 0.95,

    -- Approval integration
    approval_level TEXT NOT NULL DEFAULT 'human'
        CHECK (approval_level IN ('auto', 'escalate', 'human')),
    approval_criteria TEXT,
    last_approved_by TEXT,
    last_approval_date TEXT,

    -- Phase 4 integration
    phase4_pattern_id INTEGER,
    generated_by TEXT,
    is_auto_generated BOOLEAN DEFAULT 0,

    -- Lifecycle
    deprecation_note TEXT,
    replacement_id INTEGER,
    owner TEXT,
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    updated_at TEXT NOT NULL DEFAULT (datetime('now')),

    -- Signals the seed's section 6 queries read
    risk_score REAL,
    cyclomatic_complexity INTEGER,
    external_dependencies INTEGER DEFAULT 0,

    -- Where the gate found it
    skill_dir TEXT,
    test_framework TEXT,

    FOREIGN KEY (replacement_id) REFERENCES skills(id) ON DELETE SET NULL
);

CREATE TABLE IF NOT EXISTS approval_history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    skill_id INTEGER NOT NULL,
    version TEXT NOT NULL,
    approval_level TEXT NOT NULL
        CHECK (approval_level IN ('auto', 'escalate', 'human')),

    -- TDD validation results: the seed's test-results JSON
    test_results TEXT,
    approval_criteria_check TEXT,

    -- Decision metadata
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

    -- The seed's queries read ah.pass_rate: always the stored results' own figure.
    pass_rate REAL GENERATED ALWAYS AS (json_extract(test_results, '$.pass_rate')) VIRTUAL,

    -- Where the decision was made
    repository TEXT,
    pull_request INTEGER,
    base_sha TEXT,
    head_sha TEXT,
    run_id TEXT,
    run_attempt INTEGER,
    change_kind TEXT,
    content_hash TEXT,
    escalation_categories TEXT,

    -- Exactness: one row per (repository, PR, head, skill, content, run, attempt), chained.
    idempotency_key TEXT UNIQUE,
    prev_hash TEXT,
    row_hash TEXT,

    FOREIGN KEY (skill_id) REFERENCES skills(id) ON DELETE CASCADE
);

CREATE INDEX IF NOT EXISTS idx_approval_history_skill ON approval_history(skill_id);
CREATE INDEX IF NOT EXISTS idx_approval_history_timestamp ON approval_history(timestamp);

CREATE TABLE IF NOT EXISTS approval_criteria_templates (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT UNIQUE NOT NULL,
    category TEXT NOT NULL,
    approval_level TEXT NOT NULL
        CHECK (approval_level IN ('auto', 'escalate', 'human')),
    criteria_json TEXT NOT NULL,
    description TEXT,
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    updated_at TEXT NOT NULL DEFAULT (datetime('now'))
);

CREATE TABLE IF NOT EXISTS agent_skill_mappings (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_type TEXT NOT NULL,
    skill_id INTEGER NOT NULL,
    priority INTEGER NOT NULL DEFAULT 5,
    required BOOLEAN NOT NULL DEFAULT 0,
    tdd_condition TEXT,
    conditions TEXT,
    notes TEXT,
    enabled BOOLEAN NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    updated_at TEXT NOT NULL DEFAULT (datetime('now')),
    FOREIGN KEY (skill_id) REFERENCES skills(id) ON DELETE CASCADE,
    UNIQUE (agent_type, skill_id)
);

CREATE TABLE IF NOT EXISTS skill_usage_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id TEXT NOT NULL,
    agent_type TEXT NOT NULL,
    skill_id INTEGER NOT NULL,
    task_id TEXT,
    phase TEXT,
    loaded_at TEXT NOT NULL DEFAULT (datetime('now')),
    execution_time_ms INTEGER,
    confidence_before REAL,
    confidence_after REAL,
    test_execution_result TEXT,
    success_indicator BOOLEAN,
    confidence_delta REAL,
    test_pass_rate_delta REAL,
    feedback TEXT,
    FOREIGN KEY (skill_id) REFERENCES skills(id) ON DELETE CASCADE
);

CREATE INDEX IF NOT EXISTS idx_usage_agent_type ON skill_usage_log(agent_type);
CREATE INDEX IF NOT EXISTS idx_usage_skill ON skill_usage_log(skill_id);
CREATE INDEX IF NOT EXISTS idx_usage_task ON skill_usage_log(task_id);
CREATE INDEX IF NOT EXISTS idx_usage_phase ON skill_usage_log(phase);

CREATE TABLE IF NOT EXISTS bootstrap_skills (
    skill_name TEXT PRIMARY KEY,
    file_path TEXT NOT NULL,
    loaded_priority INTEGER DEFAULT 100,
    required BOOLEAN DEFAULT 1,
    has_test_suite BOOLEAN DEFAULT 0,
    test_path TEXT,
    pre_bootstrap_test BOOLEAN DEFAULT 0,
    description TEXT,
    created_at TEXT NOT NULL DEFAULT (datetime('now'))
);

-- Phase 4 (seed section 8): a pattern that generated a skill, and what became of it.
CREATE TABLE IF NOT EXISTS phase4_skill_generation (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    pattern_id INTEGER NOT NULL,
    skill_id INTEGER,
    pattern_description TEXT,
    generated_at TEXT NOT NULL DEFAULT (datetime('now')),
    test_coverage REAL,
    test_pass_rate REAL,
    status TEXT NOT NULL DEFAULT 'generated'
        CHECK (status IN ('generated', 'approved', 'rejected', 'escalated', 'needs_correction')),
    notes TEXT,
    FOREIGN KEY (skill_id) REFERENCES skills(id) ON DELETE SET NULL
);

CREATE INDEX IF NOT EXISTS idx_phase4_pattern ON phase4_skill_generation(pattern_id);

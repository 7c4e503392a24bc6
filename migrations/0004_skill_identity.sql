-- Identity is the path: a skill is its directory relative to the repository (`skill_dir`), not
-- its `name`. Two plugins may each ship a `setup` skill; they are two skills with two histories.
-- `name` stays, NOT NULL and indexed, for the seed's `(SELECT id FROM skills WHERE name = 'x')`;
-- it is no longer UNIQUE. `skill_dir` is UNIQUE; rows the seed inserts by hand leave it NULL, and
-- any number of NULLs may coexist.
--
-- SQLite cannot drop a column constraint, so `skills` is rebuilt as its documentation says
-- (https://www.sqlite.org/lang_altertable.html#otheralter): the runner turns foreign keys off
-- around this file and runs `PRAGMA foreign_key_check` before it commits. Every row keeps its
-- id, so approval_history.skill_id, agent_skill_mappings, skill_usage_log and
-- phase4_skill_generation still point at the same skills, and no approval_history row changes:
-- the hash chain verifies as before.
--
-- A version 3 trail can hold one directory on several rows (a skill renamed in place got a new
-- row; a skill deleted and another added where it was). The row updated last is the skill that
-- is there now and keeps the directory; the older rows keep their history, name and
-- content_path, with skill_dir NULL.

CREATE TABLE skills_v4 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
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

    -- Where the gate found it: what identifies the skill (UNIQUE, below)
    skill_dir TEXT,
    test_framework TEXT,

    FOREIGN KEY (replacement_id) REFERENCES skills(id) ON DELETE SET NULL
);

INSERT INTO skills_v4 (
    id, name, category, team, content_path, content_hash, tags, version, status,
    test_coverage, test_suite_path, required_test_pass_rate, approval_level, approval_criteria,
    last_approved_by, last_approval_date, phase4_pattern_id, generated_by, is_auto_generated,
    deprecation_note, replacement_id, owner, created_at, updated_at, risk_score,
    cyclomatic_complexity, external_dependencies, skill_dir, test_framework
)
SELECT
    s.id, s.name, s.category, s.team, s.content_path, s.content_hash, s.tags, s.version,
    s.status, s.test_coverage, s.test_suite_path, s.required_test_pass_rate, s.approval_level,
    s.approval_criteria, s.last_approved_by, s.last_approval_date, s.phase4_pattern_id,
    s.generated_by, s.is_auto_generated, s.deprecation_note, s.replacement_id, s.owner,
    s.created_at, s.updated_at, s.risk_score, s.cyclomatic_complexity, s.external_dependencies,
    CASE WHEN NOT EXISTS (
        SELECT 1 FROM skills newer
        WHERE newer.skill_dir = s.skill_dir
          AND (newer.updated_at > s.updated_at
               OR (newer.updated_at = s.updated_at AND newer.id > s.id))
    ) THEN s.skill_dir END,
    s.test_framework
FROM skills s
ORDER BY s.id;

-- AUTOINCREMENT never hands out an id again, even one whose row was deleted: the new table
-- continues from the old one's high-water mark, not from its highest remaining id.
UPDATE sqlite_sequence
SET seq = (SELECT seq FROM sqlite_sequence WHERE name = 'skills')
WHERE name = 'skills_v4'
  AND seq < (SELECT seq FROM sqlite_sequence WHERE name = 'skills');
INSERT INTO sqlite_sequence (name, seq)
SELECT 'skills_v4', seq FROM sqlite_sequence
WHERE name = 'skills'
  AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'skills_v4');

DROP TABLE skills;
ALTER TABLE skills_v4 RENAME TO skills;

CREATE UNIQUE INDEX idx_skills_skill_dir ON skills(skill_dir);
CREATE INDEX idx_skills_name ON skills(name);

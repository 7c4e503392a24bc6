-- Category templates: the seed's two "success criteria templates" (its section 5), shipped as
-- defaults and overridable. `name` is UNIQUE ON CONFLICT REPLACE, so a plain INSERT of a
-- template that already exists (the seed's own statement, unchanged) replaces the shipped one
-- instead of failing: that is how a repository overrides a default. The defaults themselves are
-- inserted with OR IGNORE, which never replaces a template a repository already has.
--
-- criteria_json keys the gate reads (DESIGN.md "Deciding"; others are kept and ignored):
--   unit_test_pass_rate    {"min": 0.95} or 0.95   the required pass rate
--   coverage               {"min": 0.90} or 0.90   auto's least coverage
--   risk_score             {"max": 0.30} or 0.30   auto's highest risk
--   cyclomatic_complexity  {"max": 10}, 10, or "low" / "medium" / "high" (≤5 / ≤15 / up to
--                          the human threshold)   auto's highest complexity
--   external_dependencies  {"max": 0} or 0         auto's most external dependencies
-- approval_level is the best tier a skill of the category can get.

CREATE TABLE approval_criteria_templates_v2 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE ON CONFLICT REPLACE,
    category TEXT NOT NULL,
    approval_level TEXT NOT NULL
        CHECK (approval_level IN ('auto', 'escalate', 'human')),
    criteria_json TEXT NOT NULL,
    description TEXT,
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    updated_at TEXT NOT NULL DEFAULT (datetime('now'))
);

INSERT INTO approval_criteria_templates_v2
    (id, name, category, approval_level, criteria_json, description, created_at, updated_at)
SELECT id, name, category, approval_level, criteria_json, description, created_at, updated_at
FROM approval_criteria_templates;

DROP TABLE approval_criteria_templates;
ALTER TABLE approval_criteria_templates_v2 RENAME TO approval_criteria_templates;

CREATE INDEX IF NOT EXISTS idx_approval_criteria_templates_category
    ON approval_criteria_templates (category);

INSERT OR IGNORE INTO approval_criteria_templates
    (name, category, approval_level, criteria_json, description)
VALUES
(
    'Backend API Service - Auto Approval',
    'backend',
    'auto',
    '{"unit_test_pass_rate": {"min": 0.95, "framework": "jest"}, "coverage": {"min": 0.90, "type": "statement"}, "risk_score": {"max": 0.30}, "cyclomatic_complexity": {"max": 10}, "security_review_required": false, "integration_tests": {"min": 0.85}}',
    'The seed''s backend template: 95% pass rate, 90% coverage, risk ≤ 0.30, complexity ≤ 10, integration tests ≥ 85%, no security review, no secrets, no external API dependencies.'
),
(
    'Frontend Component - Escalated Review',
    'frontend',
    'escalate',
    '{"unit_test_pass_rate": {"min": 0.80}, "component_tests": {"min": 0.85, "framework": "jest"}, "coverage": {"min": 0.80, "type": "statement"}, "e2e_tests": {"min": 0.75, "framework": "playwright"}, "accessibility": "WCAG 2.1 AA", "performance": {"fcp_max_s": 2.5, "lcp_max_s": 4}, "visual_regression": {"min": 0.90}}',
    'The seed''s frontend template: an expert reviews every component; unit tests ≥ 80%, component tests ≥ 85%, coverage ≥ 80%, E2E ≥ 75%, WCAG 2.1 AA, FCP < 2.5 s, LCP < 4 s, visual regression ≥ 90%.'
);

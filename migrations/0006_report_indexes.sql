-- Indexes for `skillgate report` and the seed's analytics (section 7): each time window and each
-- per-skill history is a range search, not a scan, on a single file of a million rows.
--
--   approval_history(skill_id, timestamp)  seed query 1 (`WHERE skill_id = ? ORDER BY timestamp
--                                          DESC LIMIT 20`), a skill's runs in a window
--   skill_usage_log(loaded_at)             the window of seed query 3
--   skill_usage_log(skill_id, agent_type, task_id, confidence_before, confidence_after,
--                   success_indicator, test_execution_result)
--                                          seed query 3 unchanged (`query effectiveness`): it
--                                          reads every use, grouped by skill and agent; this
--                                          index holds all it reads, in its group order
--   skills(created_at)                     the window of the seed's "recently generated skills"
--   approval_history(repository, pull_request) WHERE decision = 'escalated' AND review_id IS NULL
--                                          the pull requests where a skill may wait (partial)
--   approval_history(repository, pull_request, skill_id, timestamp)
--                                          a change's first decision (a skill at a pull
--                                          request): time to approval
--
-- approval_history(timestamp) (version 1) serves the window of seed queries 2 and 5, and
-- approval_history(repository, pull_request) (version 3) a pull request's rows. A segmented
-- trail's segment files carry no index: its registry does, and reads of many segments copy them.

CREATE INDEX IF NOT EXISTS idx_approval_history_skill_timestamp
    ON approval_history(skill_id, timestamp);
CREATE INDEX IF NOT EXISTS idx_usage_loaded_at ON skill_usage_log(loaded_at);
CREATE INDEX IF NOT EXISTS idx_skills_created_at ON skills(created_at);
CREATE INDEX IF NOT EXISTS idx_approval_history_escalated
    ON approval_history(repository, pull_request)
    WHERE decision = 'escalated' AND review_id IS NULL;
CREATE INDEX IF NOT EXISTS idx_approval_history_change
    ON approval_history(repository, pull_request, skill_id, timestamp);
CREATE INDEX IF NOT EXISTS idx_usage_effectiveness
    ON skill_usage_log(skill_id, agent_type, task_id, confidence_before, confidence_after,
                       success_indicator, test_execution_result);

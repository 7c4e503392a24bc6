//! A scheduled report on GitHub, against the fake GitHub: the one tracking issue (created once,
//! updated, left alone, found across pages, never duplicated by a race) and the review
//! reminders (once per wait, carried over a re-rendered comment, skipped where they do not
//! belong); and `skillgate report --issue … --remind-after 48h` as a scheduled job runs it.

mod common;
mod support;

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use skillgate::github::publish::sticky_comment;
use skillgate::github::{
    ApiError, Client, REPORT_LABEL, Repo, Retry, Token, Wait, remind, upsert_issue,
};
use skillgate::render::COMMENT_MARKER;
use skillgate::routing::Reviewers;
use support::github::FakeGitHub;

const OWNER: &str = "Codertocat";
const NAME: &str = "Hello-World";
const TITLE: &str = "Weekly skillgate report";
const HEAD: &str = "0123456789abcdef0123456789abcdef01234567";
const NEWER: &str = "fedcba9876543210fedcba9876543210fedcba98";
const BASE: &str = "1111111111111111111111111111111111111111";
const BOT: &str = "github-actions[bot]";
const NOW: &str = "2026-12-01 09:00:00";

fn fake() -> FakeGitHub {
    let fake = FakeGitHub::start();
    fake.set_repo(OWNER, NAME);
    fake
}

fn client(fake: &FakeGitHub) -> Client {
    let retry = Retry {
        retries: 1,
        base: Duration::from_millis(10),
        max_wait: Duration::from_secs(1),
    };
    Client::new(&fake.url(), Token::new(fake.token()).expect("token"), retry).expect("client")
}

fn repo() -> Repo {
    Repo::parse(&format!("{OWNER}/{NAME}")).expect("repo")
}

fn count(fake: &FakeGitHub, operation: &str) -> usize {
    fake.requests_for(operation).len()
}

// ---- the tracking issue -----------------------------------------------------------------------

#[tokio::test]
async fn the_issue_is_created_once_then_updated_then_left_alone() {
    let fake = fake();
    let (client, repo) = (client(&fake), repo());
    // Lookalikes that are not the tracking issue: another title, no label, closed, a pull
    // request (the issues list shows those too).
    fake.add_issue("Weekly skillgate report (old)", "x", &[REPORT_LABEL], BOT);
    fake.add_issue(TITLE, "x", &["bug"], BOT);
    fake.add_issue(TITLE, "x", &[REPORT_LABEL], BOT);
    let closed = fake.issues().last().expect("issue").number;
    fake.set_pull(
        9,
        HEAD,
        BASE,
        "octocat",
        "Codertocat/Hello-World",
        "Codertocat/Hello-World",
    );
    fake.update_pull(9, |pull| {
        pull["title"] = json!(TITLE);
        pull["labels"] = json!([{ "id": 1, "node_id": "LA_1", "url": "https://api.github.com/repos/Codertocat/Hello-World/labels/skillgate-report", "name": REPORT_LABEL, "description": null, "color": "ededed", "default": false }]);
    });
    // Closing one through the API the way a person would.
    client
        .patch(
            &format!("/repos/{OWNER}/{NAME}/issues/{closed}"),
            &json!({ "state": "closed" }),
        )
        .await
        .expect("close");

    let first = upsert_issue(&client, &repo, TITLE, "report one")
        .await
        .expect("first run");
    assert!(first.created && !first.updated, "{first:?}");
    assert!(first.closed.is_empty());
    assert!(
        first.number > 9,
        "issues and pull requests share numbers: {first:?}"
    );
    assert_eq!(
        first.url,
        format!("https://github.com/{OWNER}/{NAME}/issues/{}", first.number)
    );
    let issue = fake
        .issues()
        .into_iter()
        .find(|i| i.number == first.number)
        .expect("created");
    assert_eq!(issue.title, TITLE);
    assert_eq!(issue.body.as_deref(), Some("report one"));
    assert_eq!(issue.labels, vec![REPORT_LABEL.to_owned()]);
    assert!(fake.labels().iter().any(|l| l == REPORT_LABEL));
    assert_eq!(count(&fake, "issues/create"), 1);

    let second = upsert_issue(&client, &repo, TITLE, "report two")
        .await
        .expect("second run");
    assert_eq!(second.number, first.number);
    assert!(!second.created && second.updated, "{second:?}");
    assert_eq!(count(&fake, "issues/create"), 1);
    // One PATCH was the test's own close.
    assert_eq!(count(&fake, "issues/update"), 2);
    let issue = fake
        .issues()
        .into_iter()
        .find(|i| i.number == first.number)
        .expect("kept");
    assert_eq!(issue.body.as_deref(), Some("report two"));

    let third = upsert_issue(&client, &repo, TITLE, "report two")
        .await
        .expect("third run");
    assert_eq!(third.number, first.number);
    assert!(!third.created && !third.updated, "{third:?}");
    assert_eq!(count(&fake, "issues/create"), 1);
    assert_eq!(
        count(&fake, "issues/update"),
        2,
        "the same body is not sent again"
    );
    // The lookalikes are untouched.
    let open: Vec<_> = fake
        .issues()
        .into_iter()
        .filter(|i| i.state == "open")
        .collect();
    assert_eq!(open.len(), 3, "{open:?}");
    fake.assert_no_violations();
}

#[tokio::test]
async fn the_issue_is_found_across_pages() {
    let fake = fake();
    let (client, repo) = (client(&fake), repo());
    let tracking = fake.add_issue(TITLE, "last week", &[REPORT_LABEL], BOT);
    for i in 0..150 {
        fake.add_issue(&format!("Other report {i}"), "x", &[REPORT_LABEL], BOT);
    }
    let tracked = upsert_issue(&client, &repo, TITLE, "this week")
        .await
        .expect("run");
    assert_eq!(tracked.number, tracking);
    assert!(!tracked.created && tracked.updated, "{tracked:?}");
    assert_eq!(count(&fake, "issues/create"), 0);
    let lists = fake.requests_for("issues/list-for-repo");
    // Newest first: the oldest issue is on the second page of 100.
    assert_eq!(lists.len(), 2, "{lists:?}");
    assert_eq!(lists[1].query.get("page").map(String::as_str), Some("2"));
    assert_eq!(
        lists[0].query.get("labels").map(String::as_str),
        Some(REPORT_LABEL)
    );
    assert_eq!(
        lists[0].query.get("state").map(String::as_str),
        Some("open")
    );
    let issue = fake
        .issues()
        .into_iter()
        .find(|i| i.number == tracking)
        .expect("issue");
    assert_eq!(issue.body.as_deref(), Some("this week"));
    fake.assert_no_violations();
}

#[tokio::test]
async fn two_runs_at_once_leave_one_open_issue() {
    let fake = fake();
    let (client, repo) = (client(&fake), repo());
    // Both first looks are answered before either run creates: the race happens.
    fake.delay_next("issues/list-for-repo", 2, Duration::from_millis(300));
    let (a, b) = tokio::join!(
        upsert_issue(&client, &repo, TITLE, "report a"),
        upsert_issue(&client, &repo, TITLE, "report b"),
    );
    let (a, b) = (a.expect("run a"), b.expect("run b"));
    assert_eq!(count(&fake, "issues/create"), 2, "both runs created one");
    assert_eq!(a.number, b.number, "{a:?} {b:?}");
    let issues = fake.issues();
    assert_eq!(issues.len(), 2);
    let open: Vec<_> = issues.iter().filter(|i| i.state == "open").collect();
    assert_eq!(open.len(), 1, "{issues:?}");
    assert_eq!(open[0].number, a.number);
    assert_eq!(a.number, issues[0].number, "the lowest number is kept");
    let duplicate = &issues[1];
    assert_eq!(duplicate.state, "closed");
    assert_eq!(duplicate.state_reason.as_deref(), Some("not_planned"));
    assert!(
        a.closed.contains(&duplicate.number) || b.closed.contains(&duplicate.number),
        "{a:?} {b:?}"
    );
    assert!(
        a.created ^ b.created,
        "exactly one run created the kept issue: {a:?} {b:?}"
    );
    fake.assert_no_violations();

    // The next run finds the one.
    let next = upsert_issue(&client, &repo, TITLE, "report c")
        .await
        .expect("next");
    assert_eq!(next.number, a.number);
    assert!(!next.created && next.updated && next.closed.is_empty());
}

#[tokio::test]
async fn a_body_over_githubs_limit_is_refused_before_asking() {
    let fake = fake();
    let (client, repo) = (client(&fake), repo());
    let body = "x".repeat(65_537);
    let err = upsert_issue(&client, &repo, TITLE, &body)
        .await
        .expect_err("too long");
    assert!(matches!(err, ApiError::Refused { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("65537 characters") && text.contains(TITLE),
        "{text}"
    );
    let err = upsert_issue(&client, &repo, "  ", "x")
        .await
        .expect_err("no title");
    assert!(err.to_string().contains("title is empty"), "{err}");
    assert!(fake.requests().is_empty());
    // At the limit it goes through.
    let body = "é".repeat(65_536);
    let tracked = upsert_issue(&client, &repo, TITLE, &body)
        .await
        .expect("at the limit");
    assert!(tracked.created);
    fake.assert_no_violations();
}

// ---- reminders --------------------------------------------------------------------------------

fn wait(pull: u64, head: &str, skill: &str, since: &str, hours: u64) -> Wait {
    Wait {
        pull_request: pull,
        head_sha: head.to_owned(),
        skill: skill.to_owned(),
        since: since.to_owned(),
        waited_hours: hours,
        reviewers: Reviewers {
            users: vec!["alice".to_owned(), "octocat".to_owned()],
            teams: vec!["infra".to_owned()],
        },
    }
}

/// Pull request `number` by `octocat` at `head`, with a sticky comment; returns its id.
fn pull_with_comment(fake: &FakeGitHub, number: u64, head: &str) -> u64 {
    fake.set_pull(
        number,
        head,
        BASE,
        "octocat",
        "Codertocat/Hello-World",
        "Codertocat/Hello-World",
    );
    fake.add_issue_comment(
        number,
        &format!("{COMMENT_MARKER}\n> a note\n\n## skillgate\n\nthe report\n"),
        BOT,
    )
}

fn body(fake: &FakeGitHub, id: u64) -> String {
    fake.comments()
        .into_iter()
        .find(|c| c.id == id)
        .expect("comment")
        .body
}

#[tokio::test]
async fn a_wait_is_reminded_once_and_survives_a_new_comment_on_the_same_head() {
    let fake = fake();
    let (client, repo) = (client(&fake), repo());
    let comment = pull_with_comment(&fake, 42, HEAD);
    let waits = vec![
        wait(42, HEAD, "deploy-helper", "2026-11-28 09:00:00", 72),
        wait(42, HEAD, "@evil <b>", "2026-11-30 09:00:00", 24),
    ];

    let first = remind(&client, &repo, &waits, 48, NOW)
        .await
        .expect("first");
    assert_eq!(first.reminded, vec![42]);
    assert!(
        first.skipped.is_empty() && first.notes.is_empty(),
        "{first:?}"
    );
    let requests = fake.reviewer_requests();
    assert_eq!(requests.len(), 2, "users and teams apart: {requests:?}");
    // The author is never asked; the skill under the threshold is not named.
    assert_eq!(requests[0].reviewers, vec!["alice".to_owned()]);
    assert_eq!(requests[1].team_reviewers, vec!["infra".to_owned()]);
    assert!(requests.iter().all(|r| r.status == 201));
    let text = body(&fake, comment);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], COMMENT_MARKER);
    assert!(
        lines[1].starts_with(
            "> **Reminder** (2026-12-01 09:00 UTC): deploy-helper has waited 72 h for a review; asked again: `alice`, team `infra`. <!-- skillgate:reminder head=0123456789abcdef0123456789abcdef01234567 wait="
        ),
        "{text}"
    );
    assert!(!text.contains("@alice") && !text.contains("evil"), "{text}");
    assert!(
        text.ends_with("\n> a note\n\n## skillgate\n\nthe report\n"),
        "{text}"
    );

    // The next scheduled run, a day later: the same wait, nothing done.
    let later: Vec<Wait> = waits
        .iter()
        .map(|w| Wait {
            waited_hours: w.waited_hours + 24,
            ..w.clone()
        })
        .collect();
    let writes = fake.writes().len();
    let second = remind(&client, &repo, &later[..1], 48, "2026-12-02 09:00:00")
        .await
        .expect("second");
    assert!(second.reminded.is_empty(), "{second:?}");
    assert_eq!(
        second.skipped,
        vec![(42, "already reminded for this wait".to_owned())]
    );
    assert_eq!(fake.writes().len(), writes, "no request, no edit");
    assert_eq!(fake.reviewer_requests().len(), 2);

    // A new check run on the same head re-renders the comment: the reminder stays, and the
    // run after it still does nothing.
    sticky_comment(
        &client,
        &repo,
        42,
        HEAD,
        &format!("{COMMENT_MARKER}\n## skillgate\n\nthe report, re-rendered\n"),
    )
    .await
    .expect("re-render");
    let text = body(&fake, comment);
    assert!(
        text.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("> **Reminder**")),
        "{text}"
    );
    assert!(
        text.ends_with("\n\n## skillgate\n\nthe report, re-rendered\n"),
        "{text}"
    );
    let third = remind(&client, &repo, &later[..1], 48, "2026-12-02 09:00:00")
        .await
        .expect("third");
    assert!(third.reminded.is_empty(), "{third:?}");
    assert_eq!(fake.reviewer_requests().len(), 2);

    // The second skill crosses the threshold: its wait alone is reminded (the first one's
    // reviewers are not asked twice); one line, replaced, whose tag keeps both.
    let fourth = remind(&client, &repo, &later, 48, "2026-12-02 09:00:00")
        .await
        .expect("fourth");
    assert_eq!(fourth.reminded, vec![42]);
    assert_eq!(fake.reviewer_requests().len(), 4);
    let text = body(&fake, comment);
    assert_eq!(text.matches("skillgate:reminder").count(), 1, "{text}");
    assert!(
        text.contains(
            "(2026-12-02 09:00 UTC): @\u{200d}evil &lt;b&gt; has waited 48 h for a review"
        ),
        "{text}"
    );
    // The first skill is approved and leaves: the second's wait was reminded already.
    let fifth = remind(&client, &repo, &later[1..], 48, "2026-12-03 09:00:00")
        .await
        .expect("fifth");
    assert!(fifth.reminded.is_empty(), "{fifth:?}");
    assert_eq!(fake.reviewer_requests().len(), 4);
    fake.assert_no_violations();
}

#[tokio::test]
async fn a_new_head_drops_the_reminder_from_the_comment() {
    let fake = fake();
    let (client, repo) = (client(&fake), repo());
    let comment = pull_with_comment(&fake, 42, HEAD);
    let waits = vec![wait(42, HEAD, "deploy-helper", "2026-11-28 09:00:00", 72)];
    remind(&client, &repo, &waits, 48, NOW)
        .await
        .expect("remind");
    assert!(body(&fake, comment).contains("skillgate:reminder"));
    let fresh = format!("{COMMENT_MARKER}\nthe newer head's report\n");
    sticky_comment(&client, &repo, 42, NEWER, &fresh)
        .await
        .expect("publish");
    assert_eq!(body(&fake, comment), fresh);
    fake.assert_no_violations();
}

#[tokio::test]
async fn closed_moved_young_and_uncommented_pull_requests_are_skipped() {
    let fake = fake();
    let (client, repo) = (client(&fake), repo());
    let closed = pull_with_comment(&fake, 10, HEAD);
    fake.update_pull(10, |pull| pull["state"] = json!("closed"));
    let moved = pull_with_comment(&fake, 11, NEWER);
    let young = pull_with_comment(&fake, 12, HEAD);
    fake.set_pull(
        13,
        HEAD,
        BASE,
        "octocat",
        "Codertocat/Hello-World",
        "Codertocat/Hello-World",
    );
    // A person's comment that starts with the marker is not the sticky one.
    fake.add_issue_comment(13, &format!("{COMMENT_MARKER}\nmine"), "mallory");
    let waits = vec![
        wait(10, HEAD, "a", "2026-11-28 09:00:00", 72),
        wait(11, HEAD, "b", "2026-11-28 09:00:00", 72),
        wait(12, HEAD, "c", "2026-11-30 09:00:00", 47),
        wait(13, HEAD, "d", "2026-11-28 09:00:00", 72),
        wait(14, HEAD, "e", "2026-11-28 09:00:00", 72),
    ];
    let before: Vec<String> = [closed, moved, young]
        .iter()
        .map(|id| body(&fake, *id))
        .collect();
    let out = remind(&client, &repo, &waits, 48, NOW)
        .await
        .expect("remind");
    assert!(out.reminded.is_empty(), "{out:?}");
    assert_eq!(
        out.skipped,
        vec![
            (10, "the pull request is closed".to_owned()),
            (
                11,
                format!("its head moved to {NEWER}: a newer run decides")
            ),
            (12, "waited 47 h, under the 48 h threshold".to_owned()),
            (13, "no skillgate comment to remind in".to_owned()),
            (14, "no such pull request".to_owned()),
        ]
    );
    assert_eq!(
        out.notes,
        vec!["no skillgate comment on #13 to remind in".to_owned()]
    );
    assert!(fake.reviewer_requests().is_empty());
    assert!(fake.writes().is_empty(), "{:?}", fake.writes());
    let after: Vec<String> = [closed, moved, young]
        .iter()
        .map(|id| body(&fake, *id))
        .collect();
    assert_eq!(before, after);
    // The young wait is not even looked up.
    assert!(
        fake.requests_for("pulls/get").iter().all(|r| r
            .path_params
            .get("pull_number")
            .map(String::as_str)
            != Some("12"))
    );
    fake.assert_no_violations();
}

#[tokio::test]
async fn a_refused_team_is_a_note_and_nobody_asked_leaves_the_wait_open() {
    let fake = fake();
    let (client, repo) = (client(&fake), repo());
    fake.set_reject_team_reviewers(true);
    let comment = pull_with_comment(&fake, 42, HEAD);
    let mut only_team = wait(42, HEAD, "deploy-helper", "2026-11-28 09:00:00", 72);
    only_team.reviewers.users.clear();
    let out = remind(&client, &repo, &[only_team.clone()], 48, NOW)
        .await
        .expect("remind");
    assert!(out.reminded.is_empty());
    assert_eq!(
        out.skipped,
        vec![(42, "no reviewer could be asked again".to_owned())]
    );
    assert_eq!(out.notes.len(), 1, "{out:?}");
    assert!(out.notes[0].contains("could not request the team infra: GitHub answered 422"));
    assert!(!body(&fake, comment).contains("skillgate:reminder"));

    // With a user as well, the user is asked and the line says who.
    let both = wait(42, HEAD, "deploy-helper", "2026-11-28 09:00:00", 72);
    let out = remind(&client, &repo, &[both], 48, NOW)
        .await
        .expect("remind");
    assert_eq!(out.reminded, vec![42]);
    assert_eq!(out.notes.len(), 1);
    let text = body(&fake, comment);
    assert!(text.contains("; asked again: `alice`. <!--"), "{text}");
    fake.assert_no_violations();
}

// ---- the binary, as a scheduled job ------------------------------------------------------------

/// 2026-12-01 00:00:00 UTC, and a week later.
const MONDAY: &str = "1796083200";
const NEXT_MONDAY: &str = "1796688000";

/// A trail where `deploy-helper` waits at #20 of this repository since 2026-11-28 09:15 (62 h
/// by MONDAY), and a skill of another repository waits as well.
fn history(db: &Path) {
    std::fs::create_dir_all(db.parent().expect("parent")).expect("mkdir");
    let store = skillgate::store::Store::open(db).expect("a new trail");
    store
        .connection()
        .execute_batch(&format!(
            r#"
        INSERT INTO skills (id, name, category, content_path, content_hash, version, test_coverage,
                            test_suite_path, skill_dir, created_at, status, generated_by,
                            is_auto_generated, phase4_pattern_id, required_test_pass_rate)
        VALUES
          (1, 'deploy-helper', 'infrastructure', '.claude/skills/deploy-helper/SKILL.md', 'h1',
           '1.0.0', 0.91, '.claude/skills/deploy-helper/test.sh', '.claude/skills/deploy-helper',
           '2026-06-01 00:00:00', 'active', NULL, 0, NULL, 0.95),
          (2, 'elsewhere', 'testing', '.claude/skills/elsewhere/SKILL.md', 'h2', '1.0.0', 0.9,
           '.claude/skills/elsewhere/test.sh', '.claude/skills/elsewhere', '2026-06-01 00:00:00',
           'active', NULL, 0, NULL, 0.95);
        INSERT INTO approval_history (skill_id, version, approval_level, decision, timestamp,
            escalation_timestamp, test_results, repository, pull_request, head_sha,
            pull_request_head, approver, review_id, review_duration_minutes, escalation_reason,
            escalated_to, escalation_categories, idempotency_key)
        VALUES
          (1, '1.0.0', 'human', 'escalated', '2026-11-28 09:15:00', '2026-11-28 09:15:00',
           '{{"pass_count":10,"fail_count":0,"pass_rate":1.0}}', '{OWNER}/{NAME}', 20, 'm20',
           '{HEAD}', NULL, NULL, NULL, 'infrastructure change', '{{"users":["alice"],"teams":["infra"]}}',
           NULL, 'k1'),
          (2, '1.0.0', 'human', 'escalated', '2026-11-27 09:15:00', '2026-11-27 09:15:00',
           NULL, 'acme/other', 21, 'm21', '{HEAD}', NULL, NULL, NULL, 'no tests',
           '{{"users":["bob"],"teams":[]}}', NULL, 'k2');
        "#
        ))
        .expect("the history inserts");
}

/// `skillgate report --issue TITLE --remind-after 48h` in a scheduled job at `epoch`.
fn scheduled_report(
    fake: &FakeGitHub,
    repo: &common::Repo,
    summary: &Path,
    epoch: &str,
) -> (i32, String, String) {
    let db = format!("--db={}", repo.path().join("trail.db").display());
    let mut cmd = repo.skillgate(&["report", "--issue", TITLE, "--remind-after", "48h", &db]);
    cmd.env("SOURCE_DATE_EPOCH", epoch)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "schedule")
        .env("GITHUB_REPOSITORY", format!("{OWNER}/{NAME}"))
        .env("GITHUB_API_URL", fake.url())
        .env("GITHUB_TOKEN", fake.token())
        .env("GITHUB_STEP_SUMMARY", summary);
    common::run(cmd)
}

#[test]
fn a_scheduled_report_keeps_one_issue_and_reminds_once() {
    let fake = fake();
    let repo = common::Repo::plain();
    history(&repo.path().join("trail.db"));
    let comment = pull_with_comment(&fake, 20, HEAD);
    let summary = repo.path().join("summary.md");

    let (code, stdout, stderr) = scheduled_report(&fake, &repo, &summary, MONDAY);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("deploy-helper"), "{stdout}");
    let issues = fake.issues();
    assert_eq!(issues.len(), 1, "{issues:?}");
    let issue = &issues[0];
    assert_eq!(
        (issue.title.as_str(), issue.state.as_str()),
        (TITLE, "open")
    );
    assert_eq!(issue.labels, vec![REPORT_LABEL.to_owned()]);
    let first_body = issue.body.clone().expect("a body");
    assert!(first_body.contains("deploy-helper"), "{first_body}");
    assert!(
        stderr.contains(&format!("tracking issue #{} created", issue.number)),
        "{stderr}"
    );
    assert!(stderr.contains("reminded the reviewers of #20"), "{stderr}");
    let written = std::fs::read_to_string(&summary).expect("the step summary");
    assert_eq!(
        written.trim_end(),
        first_body.trim_end(),
        "the summary is the issue's report"
    );
    let requests = fake.reviewer_requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(requests[0].reviewers, vec!["alice".to_owned()]);
    assert_eq!(requests[1].team_reviewers, vec!["infra".to_owned()]);
    let text = body(&fake, comment);
    assert!(
        text.contains("(2026-12-01 00:00 UTC): deploy-helper has waited 62 h for a review; asked again: `alice`, team `infra`."),
        "{text}"
    );
    // The other repository's wait is not looked up here.
    assert!(
        fake.requests_for("pulls/get").iter().all(|r| r
            .path_params
            .get("pull_number")
            .map(String::as_str)
            == Some("20"))
    );

    // A week later: the same issue, updated; the same wait, not reminded again.
    let (code, _, stderr) = scheduled_report(&fake, &repo, &summary, NEXT_MONDAY);
    assert_eq!(code, 0, "{stderr}");
    let issues = fake.issues();
    assert_eq!(issues.len(), 1, "{issues:?}");
    let second_body = issues[0].body.clone().expect("a body");
    assert_ne!(second_body, first_body);
    assert!(
        stderr.contains(&format!("tracking issue #{} updated", issues[0].number)),
        "{stderr}"
    );
    assert!(
        stderr.contains("no reminder on #20: already reminded for this wait"),
        "{stderr}"
    );
    assert_eq!(fake.reviewer_requests().len(), 2);
    assert_eq!(count(&fake, "issues/create"), 1);
    assert_eq!(count(&fake, "issues/update"), 1);
    assert_eq!(count(&fake, "issues/update-comment"), 1);
    let written = std::fs::read_to_string(&summary).expect("the step summary");
    assert!(
        written.ends_with(&second_body) || written.trim_end().ends_with(second_body.trim_end())
    );
    fake.assert_no_violations();
}

/// In a GitHub job without `--db`, the report reads the audit branch (every segment); a wait
/// recorded before `escalated_to` existed is asked of its route in the default branch's config.
#[test]
fn a_scheduled_report_reads_the_audit_branch_and_asks_an_unrecorded_wait_of_its_route() {
    let fake = fake();
    let repo = common::Repo::plain();
    let db = repo.path().join("made/trail.db");
    history(&db);
    skillgate::store::Store::open(&db)
        .expect("open")
        .connection()
        .execute_batch(&format!(
            "UPDATE approval_history SET escalated_to = NULL WHERE id = 1;
             INSERT INTO approval_history (skill_id, version, approval_level, decision,
                 timestamp, escalation_timestamp, repository, pull_request, head_sha,
                 pull_request_head, idempotency_key)
             VALUES (2, '1.0.0', 'human', 'escalated', '2026-11-26 09:15:00',
                 '2026-11-26 09:15:00', '{OWNER}/{NAME}', 22, 'm22', '{NEWER}', 'k3');"
        ))
        .expect("no escalated_to, and a wait at a pull request GitHub no longer has open");
    // The branch holds the registry and one segment, as a gate run writes them.
    let split = skillgate::store::Store::open(&db)
        .expect("open")
        .split(
            &repo.path().join("split"),
            skillgate::store::MIN_SEGMENT_SIZE,
        )
        .expect("split");
    let registry = std::fs::read(&split.registry).expect("registry");
    let (segment, segment_path) = &split.segments[0];
    let segment_bytes = std::fs::read(segment_path).expect("segment");
    let segment_name = format!(".skillgate/trail/{}", segment.file_name());
    fake.commit_files(
        "skillgate/audit",
        &[
            (common::TRAIL_REGISTRY, &registry),
            (&segment_name, &segment_bytes),
        ],
        "a gate run's trail",
    );
    repo.write(
        ".skillgate.toml",
        "[routing]\nhuman = { users = [\"carol\"], teams = [\"Codertocat/ops\"] }\n",
    );
    let comment = pull_with_comment(&fake, 20, HEAD);
    let mut cmd = repo.skillgate(&["report", "--format", "json", "--remind-after", "48h"]);
    cmd.env("SOURCE_DATE_EPOCH", MONDAY)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "schedule")
        .env("GITHUB_REPOSITORY", format!("{OWNER}/{NAME}"))
        .env("GITHUB_API_URL", fake.url())
        .env("GITHUB_TOKEN", fake.token());
    let (code, stdout, stderr) = common::run(cmd);
    assert_eq!(code, 0, "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(doc["decisions_total"], 3, "read from the branch: {stdout}");
    // #22 is not open on GitHub: its recorded wait is left out of the report.
    let waiting: Vec<u64> = doc["sections"]
        .as_array()
        .expect("sections")
        .iter()
        .find(|s| s["section"] == "waiting")
        .and_then(|s| s["data"].as_array())
        .expect("waiting")
        .iter()
        .filter(|w| w["repository"] == format!("{OWNER}/{NAME}"))
        .map(|w| w["pull_request"].as_u64().expect("number"))
        .collect();
    assert_eq!(waiting, [20]);
    assert!(stderr.contains("1 recorded wait left out"), "{stderr}");
    let requests = fake.reviewer_requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(requests[0].reviewers, vec!["carol".to_owned()]);
    assert_eq!(requests[1].team_reviewers, vec!["ops".to_owned()]);
    assert!(
        body(&fake, comment).contains("asked again: `carol`, team `ops`."),
        "{}",
        body(&fake, comment)
    );
    fake.assert_no_violations();
}

/// A token that cannot read pull requests (`pull-requests: read` not granted) still makes the
/// report: every recorded wait is listed, and the log says why.
#[test]
fn a_report_whose_token_cannot_read_pull_requests_lists_every_wait() {
    let fake = fake();
    let repo = common::Repo::plain();
    history(&repo.path().join("trail.db"));
    fake.fail_next(
        "pulls/get",
        5,
        403,
        &[],
        r#"{"message":"Resource not accessible by integration"}"#,
    );
    let db = format!("--db={}", repo.path().join("trail.db").display());
    let mut cmd = repo.skillgate(&["report", "--format", "json", "--section", "waiting", &db]);
    cmd.env("SOURCE_DATE_EPOCH", MONDAY)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "schedule")
        .env("GITHUB_REPOSITORY", format!("{OWNER}/{NAME}"))
        .env("GITHUB_API_URL", fake.url())
        .env("GITHUB_TOKEN", fake.token());
    let (code, stdout, stderr) = common::run(cmd);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("could not tell which pull requests are open"),
        "{stderr}"
    );
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let waits = doc["sections"][0]["data"].as_array().expect("waits");
    assert_eq!(waits.len(), 2, "both recorded waits listed: {waits:?}");
}

//! Self-tests of the fake GitHub API in `tests/support/github`: the validator, routing,
//! pagination, faults, state, and a real client (octocrab) talking to it over plain http.

mod support;

use serde_json::{Value, json};
use support::github::client::{request, send};
use support::github::schema::validate;
use support::github::util::{base64_decode, base64_encode, git_object_id, rfc3339, sha1_hex};
use support::github::{FakeGitHub, PullFile};

const HEAD: &str = "0123456789abcdef0123456789abcdef01234567";
const BASE: &str = "89abcdef0123456789abcdef0123456789abcdef";

fn strict_schema(operation_id: &str) -> Value {
    let spec: Value = serde_json::from_str(include_str!(
        "support/github/spec/openapi-subset.strict.json"
    ))
    .expect("strict spec");
    spec["operations"][operation_id]["requestBody"]["schema"].clone()
}

fn fake_with_pull() -> FakeGitHub {
    let fake = FakeGitHub::start();
    fake.set_pull(7, HEAD, BASE, "octocat", "octo/hello", "octo/hello");
    fake
}

fn valid_check_run() -> Value {
    json!({
        "name": "skillgate",
        "head_sha": HEAD,
        "status": "completed",
        "conclusion": "success",
        "output": {
            "title": "2 skills pass",
            "summary": "all good",
            "annotations": [{
                "path": "skills/a/SKILL.md",
                "start_line": 1,
                "end_line": 1,
                "annotation_level": "warning",
                "message": "consider a description",
            }],
        },
    })
}

fn annotations(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            json!({
                "path": "skills/a/tests/test_a.py",
                "start_line": i + 1,
                "end_line": i + 1,
                "annotation_level": "failure",
                "message": format!("test {i} failed"),
            })
        })
        .collect()
}

// ---- the validator ------------------------------------------------------------------------

#[test]
fn validator_accepts_a_valid_check_run() {
    let errors = validate(&strict_schema("checks/create"), &valid_check_run());
    assert_eq!(errors, vec![]);
}

#[test]
fn validator_rejects_a_misspelled_field() {
    let mut body = valid_check_run();
    body["output"]["sumary"] = json!("typo");
    let errors = validate(&strict_schema("checks/create"), &body);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].pointer, "/output/sumary");
    assert!(errors[0].message.contains("unknown property"), "{errors:?}");
}

#[test]
fn validator_rejects_a_wrong_type_and_a_bad_enum() {
    let mut body = valid_check_run();
    body["output"]["annotations"][0]["start_line"] = json!("1");
    body["conclusion"] = json!("passed");
    let errors = validate(&strict_schema("checks/create"), &body);
    let pointers: Vec<&str> = errors.iter().map(|e| e.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        vec!["/conclusion", "/output/annotations/0/start_line"],
        "{errors:?}"
    );
    assert_eq!(errors[1].message, "expected integer, found string");
}

#[test]
fn validator_knows_integer_from_number_null_max_items_and_one_of() {
    let schema = strict_schema("checks/create");
    let mut body = valid_check_run();
    body["output"]["annotations"][0]["end_line"] = json!(1.5);
    body["output"]["annotations"] = Value::Array(annotations(51));
    let errors = validate(&schema, &body);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].pointer, "/output/annotations");
    assert_eq!(errors[0].message, "51 items, at most 50 allowed");

    let tree = strict_schema("git/create-tree");
    let delete = json!({"tree": [{"path": "a", "mode": "100644", "type": "blob", "sha": null}]});
    assert_eq!(validate(&tree, &delete), vec![]);

    let issue = strict_schema("issues/create");
    assert_eq!(validate(&issue, &json!({"title": 12})), vec![]);
    let errors = validate(&issue, &json!({"title": true}));
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].message.contains("none of the oneOf"),
        "{errors:?}"
    );
}

#[test]
fn validator_counts_characters_for_max_length() {
    let schema = json!({"type": "string", "maxLength": 3});
    assert_eq!(validate(&schema, &json!("ééé")), vec![]);
    assert_eq!(validate(&schema, &json!("abcd")).len(), 1);
}

#[test]
fn validator_checks_update_requires_a_conclusion_when_completed() {
    let schema = strict_schema("checks/update");
    assert_eq!(
        validate(
            &schema,
            &json!({"status": "completed", "conclusion": "failure"})
        ),
        vec![]
    );
    let errors = validate(&schema, &json!({"status": "completed"}));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].message.contains("anyOf"));
}

// ---- routing, headers, query --------------------------------------------------------------

#[test]
fn a_valid_request_leaves_no_violation_and_is_recorded() {
    let fake = fake_with_pull();
    let res = request(
        &fake,
        "POST",
        "/repos/octo/hello/check-runs",
        Some(&valid_check_run()),
    );
    assert_eq!(res.status, 201, "{}", String::from_utf8_lossy(&res.body));
    assert_eq!(res.json()["name"], "skillgate");
    fake.assert_no_violations();
    let recorded = fake.requests();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].operation_id.as_deref(), Some("checks/create"));
    assert_eq!(recorded[0].body["head_sha"], HEAD);
    assert_eq!(recorded[0].header("user-agent"), Some("skillgate-tests"));
    assert_eq!(recorded[0].status, 201);
}

#[test]
fn an_invalid_body_is_a_violation_and_answers_422() {
    let fake = fake_with_pull();
    let mut body = valid_check_run();
    body["ouput"] = body["output"].take();
    body.as_object_mut().expect("object").remove("output");
    body["head_sha"] = json!(42);
    let res = request(&fake, "POST", "/repos/octo/hello/check-runs", Some(&body));
    assert_eq!(res.status, 422);
    assert!(res.json()["documentation_url"].is_string());
    let pointers: Vec<String> = fake.violations().into_iter().map(|v| v.pointer).collect();
    assert_eq!(pointers, vec!["/head_sha", "/ouput"]);
    assert!(
        fake.check_runs().is_empty(),
        "an invalid request changes nothing"
    );
    let err =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| fake.assert_no_violations()))
            .expect_err("must panic");
    let text = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(text.contains("2 contract violation(s)"), "{text}");
    assert!(
        text.contains("[checks/create] POST /repos/octo/hello/check-runs at /ouput"),
        "{text}"
    );
}

#[test]
fn an_unknown_path_is_recorded_and_answers_404() {
    let fake = FakeGitHub::start();
    let res = request(&fake, "GET", "/repos/octo/hello/nothing-here", None);
    assert_eq!(res.status, 404);
    let violations = fake.violations();
    assert_eq!(violations.len(), 1);
    assert_eq!(violations[0].operation_id, None);
    assert_eq!(violations[0].path, "/repos/octo/hello/nothing-here");
    let recorded = fake.requests();
    assert_eq!(recorded[0].operation_id, None);
    assert_eq!(recorded[0].status, 404);
}

#[test]
fn a_known_path_under_the_wrong_method_names_the_right_one() {
    // octocrab's update_comment sends POST; the spec only has PATCH.
    let fake = FakeGitHub::start();
    let res = request(
        &fake,
        "POST",
        "/repos/octo/hello/issues/comments/1",
        Some(&json!({"body": "x"})),
    );
    assert_eq!(res.status, 404);
    let message = &fake.violations()[0].message;
    assert!(message.contains("PATCH issues/update-comment"), "{message}");
}

#[test]
fn authorization_and_user_agent_are_required() {
    let fake = fake_with_pull();
    let url = fake.url();
    let res = send(
        &url,
        "GET",
        "/repos/octo/hello/pulls/7",
        &[("user-agent", "t")],
        None,
    );
    assert_eq!(res.status, 401);
    assert_eq!(res.json()["message"], "Bad credentials");
    let res = send(
        &url,
        "GET",
        "/repos/octo/hello/pulls/7",
        &[("user-agent", "t"), ("authorization", "token wrong")],
        None,
    );
    assert_eq!(res.status, 401);
    let auth = format!("token {}", fake.token());
    let res = send(
        &url,
        "GET",
        "/repos/octo/hello/pulls/7",
        &[("authorization", &auth)],
        None,
    );
    assert_eq!(res.status, 403);
    let res = send(
        &url,
        "GET",
        "/repos/octo/hello/pulls/7",
        &[("authorization", &auth), ("user-agent", "t")],
        None,
    );
    assert_eq!(res.status, 200);
    let pointers: Vec<String> = fake.violations().into_iter().map(|v| v.pointer).collect();
    assert_eq!(
        pointers,
        vec![
            "header:authorization",
            "header:authorization",
            "header:user-agent"
        ]
    );
}

#[test]
fn unknown_query_parameters_and_large_pages_are_violations() {
    let fake = fake_with_pull();
    let res = request(
        &fake,
        "GET",
        "/repos/octo/hello/issues/7/comments?per_page=101&sort=created",
        None,
    );
    assert_eq!(res.status, 200);
    let violations = fake.violations();
    let pointers: Vec<&str> = violations.iter().map(|v| v.pointer.as_str()).collect();
    assert_eq!(pointers, vec!["?per_page", "?sort"], "{violations:?}");
    assert!(violations[1].message.contains("since, per_page, page"));
}

#[test]
fn a_repo_pinned_with_set_repo_rejects_others() {
    let fake = fake_with_pull();
    fake.set_repo("octo", "hello");
    assert_eq!(
        request(&fake, "GET", "/repos/Octo/Hello/pulls/7", None).status,
        200
    );
    assert_eq!(
        request(&fake, "GET", "/repos/other/hello/pulls/7", None).status,
        404
    );
    assert_eq!(fake.violations().len(), 1);
}

// ---- comments and pagination --------------------------------------------------------------

#[test]
fn comments_paginate_with_link_headers() {
    let fake = fake_with_pull();
    for i in 0..65 {
        fake.add_comment(&format!("comment {i}"), "someone");
    }
    let first = request(&fake, "GET", "/repos/octo/hello/issues/7/comments", None);
    assert_eq!(first.json().as_array().map(Vec::len), Some(30));
    let link = first.header("link").expect("a Link header").to_string();
    let url = fake.url();
    assert_eq!(
        link,
        format!(
            "<{url}/repos/octo/hello/issues/7/comments?page=2>; rel=\"next\", <{url}/repos/octo/hello/issues/7/comments?page=3>; rel=\"last\""
        )
    );

    let last = request(
        &fake,
        "GET",
        "/repos/octo/hello/issues/7/comments?per_page=30&page=3",
        None,
    );
    let bodies: Vec<String> = last
        .json()
        .as_array()
        .expect("array")
        .iter()
        .map(|c| c["body"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        bodies,
        (60..65).map(|i| format!("comment {i}")).collect::<Vec<_>>()
    );
    let link = last.header("link").expect("a Link header");
    assert!(!link.contains("rel=\"next\""), "{link}");
    assert!(link.contains("page=2&per_page=30>; rel=\"prev\""), "{link}");
    assert!(
        link.contains("page=1&per_page=30>; rel=\"first\""),
        "{link}"
    );

    let all = request(
        &fake,
        "GET",
        "/repos/octo/hello/issues/7/comments?per_page=100",
        None,
    );
    assert_eq!(all.json().as_array().map(Vec::len), Some(65));
    assert_eq!(all.header("link"), None);
    fake.assert_no_violations();
}

#[test]
fn comments_are_created_updated_and_deleted() {
    let fake = fake_with_pull();
    let seeded = fake.add_comment("<!-- skillgate:summary --> old", "github-actions[bot]");
    let created = request(
        &fake,
        "POST",
        "/repos/octo/hello/issues/7/comments",
        Some(&json!({"body": "second"})),
    );
    assert_eq!(created.status, 201);
    let created = created.json();
    assert_eq!(created["user"]["login"], "github-actions[bot]");
    assert_eq!(created["user"]["type"], "Bot");
    let new_id = created["id"].as_u64().expect("id");
    assert!(new_id > seeded);

    let path = format!("/repos/octo/hello/issues/comments/{seeded}");
    let updated = request(&fake, "PATCH", &path, Some(&json!({"body": "new"})));
    assert_eq!(updated.status, 200);
    assert_eq!(updated.json()["body"], "new");
    assert_ne!(updated.json()["updated_at"], updated.json()["created_at"]);

    let deleted = request(
        &fake,
        "DELETE",
        &format!("/repos/octo/hello/issues/comments/{new_id}"),
        None,
    );
    assert_eq!(deleted.status, 204);
    assert!(deleted.body.is_empty());
    let again = request(
        &fake,
        "DELETE",
        &format!("/repos/octo/hello/issues/comments/{new_id}"),
        None,
    );
    assert_eq!(again.status, 404);

    let comments = fake.comments();
    assert_eq!(comments.len(), 1);
    assert_eq!(comments[0].body, "new");
    fake.assert_no_violations();
}

#[test]
fn a_comment_longer_than_github_allows_is_refused() {
    let fake = fake_with_pull();
    let body = json!({"body": "é".repeat(65_537)});
    let res = request(
        &fake,
        "POST",
        "/repos/octo/hello/issues/7/comments",
        Some(&body),
    );
    assert_eq!(res.status, 422);
    assert_eq!(res.json()["errors"][0]["field"], "body");
    assert_eq!(fake.violations()[0].pointer, "/body");
    assert!(fake.comments().is_empty());
}

// ---- faults -------------------------------------------------------------------------------

#[test]
fn faults_are_consumed_in_order_then_the_operation_answers() {
    let fake = fake_with_pull();
    fake.fail_next("pulls/get", 2, 502, &[], "<html>Bad Gateway</html>");
    fake.fail_next(
        "pulls/get",
        1,
        503,
        &[("retry-after", "0")],
        r#"{"message":"busy"}"#,
    );
    assert_eq!(fake.pending_faults(), 3);
    let statuses: Vec<u16> = (0..4)
        .map(|_| request(&fake, "GET", "/repos/octo/hello/pulls/7", None).status)
        .collect();
    assert_eq!(statuses, vec![502, 502, 503, 200]);
    assert_eq!(fake.pending_faults(), 0);
    let injected: Vec<bool> = fake.requests().iter().map(|r| r.injected_fault).collect();
    assert_eq!(injected, vec![true, true, true, false]);
    fake.assert_no_violations();
}

#[test]
fn rate_limits_carry_their_headers() {
    let fake = fake_with_pull();
    fake.secondary_rate_limit_next("pulls/get", 1, 1);
    fake.primary_rate_limit_next("pulls/get", 1, 1_900_000_000);
    let secondary = request(&fake, "GET", "/repos/octo/hello/pulls/7", None);
    assert_eq!(secondary.status, 403);
    assert_eq!(secondary.header("retry-after"), Some("1"));
    assert!(
        secondary.json()["message"]
            .as_str()
            .is_some_and(|m| m.contains("secondary rate limit"))
    );
    let primary = request(&fake, "GET", "/repos/octo/hello/pulls/7", None);
    assert_eq!(primary.status, 429);
    assert_eq!(primary.header("x-ratelimit-remaining"), Some("0"));
    assert_eq!(primary.header("x-ratelimit-reset"), Some("1900000000"));
    let ok = request(&fake, "GET", "/repos/octo/hello/pulls/7", None);
    assert_eq!(ok.status, 200);
    assert_eq!(ok.header("x-ratelimit-remaining"), Some("4999"));
}

#[test]
fn a_lost_answer_still_takes_effect() {
    let fake = fake_with_pull();
    fake.fail_next_after_effect("issues/create-comment", 1, 502);
    let res = request(
        &fake,
        "POST",
        "/repos/octo/hello/issues/7/comments",
        Some(&json!({"body": "hello"})),
    );
    assert_eq!(res.status, 502);
    assert_eq!(
        fake.comments().len(),
        1,
        "the write happened, the answer was lost"
    );
}

#[test]
fn delays_hold_the_answer_back() {
    let fake = fake_with_pull();
    fake.delay_next("pulls/get", 1, std::time::Duration::from_millis(300));
    let started = std::time::Instant::now();
    assert_eq!(
        request(&fake, "GET", "/repos/octo/hello/pulls/7", None).status,
        200
    );
    assert!(started.elapsed() >= std::time::Duration::from_millis(300));
}

#[test]
#[should_panic(expected = "is not an operation")]
fn a_fault_for_an_unknown_operation_is_a_test_bug() {
    FakeGitHub::start().fail_next("pulls/gett", 1, 502, &[], "");
}

// ---- check runs ---------------------------------------------------------------------------

#[test]
fn check_runs_update_appends_annotations_and_lists_by_name() {
    let fake = fake_with_pull();
    let create = json!({"name": "skillgate", "head_sha": HEAD, "status": "in_progress"});
    let res = request(&fake, "POST", "/repos/octo/hello/check-runs", Some(&create));
    assert_eq!(res.status, 201);
    let id = res.json()["id"].as_u64().expect("id");
    fake.add_check_run("other", HEAD, "completed", Some("success"));

    let all = annotations(120);
    for (i, chunk) in all.chunks(50).enumerate() {
        let mut body = json!({"output": {"title": "t", "summary": "s", "annotations": chunk}});
        if i == 2 {
            body["conclusion"] = json!("failure");
            body["output"]["text"] = json!("details");
        }
        let res = request(
            &fake,
            "PATCH",
            &format!("/repos/octo/hello/check-runs/{id}"),
            Some(&body),
        );
        assert_eq!(res.status, 200, "{}", String::from_utf8_lossy(&res.body));
    }
    let run = fake.check_run(id).expect("stored");
    assert_eq!(run.annotations.len(), 120);
    assert_eq!(run.annotations[119]["message"], "test 119 failed");
    assert_eq!(run.status, "completed");
    assert_eq!(run.conclusion.as_deref(), Some("failure"));
    assert_eq!(run.text.as_deref(), Some("details"));
    assert!(run.completed_at.is_some());

    let listed = request(
        &fake,
        "GET",
        &format!("/repos/octo/hello/commits/{HEAD}/check-runs?check_name=skillgate&filter=latest"),
        None,
    )
    .json();
    assert_eq!(listed["total_count"], 1);
    assert_eq!(listed["check_runs"][0]["id"], id);
    assert_eq!(listed["check_runs"][0]["output"]["annotations_count"], 120);
    let everything = request(
        &fake,
        "GET",
        &format!("/repos/octo/hello/commits/{HEAD}/check-runs"),
        None,
    )
    .json();
    assert_eq!(everything["total_count"], 2);
    let get = request(
        &fake,
        "GET",
        &format!("/repos/octo/hello/check-runs/{id}"),
        None,
    )
    .json();
    assert_eq!(get["conclusion"], "failure");
    fake.assert_no_violations();
}

#[test]
fn more_than_50_annotations_or_a_summary_over_65535_bytes_is_refused() {
    let fake = fake_with_pull();
    let mut body = valid_check_run();
    body["output"]["annotations"] = Value::Array(annotations(51));
    let res = request(&fake, "POST", "/repos/octo/hello/check-runs", Some(&body));
    assert_eq!(res.status, 422);
    // 65,535 characters but 131,070 bytes: the schema passes it, GitHub does not.
    let mut body = valid_check_run();
    body["output"]["summary"] = json!("é".repeat(65_535));
    let res = request(&fake, "POST", "/repos/octo/hello/check-runs", Some(&body));
    assert_eq!(res.status, 422);
    let pointers: Vec<String> = fake.violations().into_iter().map(|v| v.pointer).collect();
    assert_eq!(pointers, vec!["/output/annotations", "/output/summary"]);
    assert!(fake.check_runs().is_empty());
}

// ---- pull requests and reviewers ----------------------------------------------------------

#[test]
fn pulls_get_answers_from_set_pull() {
    let fake = FakeGitHub::start();
    fake.set_pull(
        9,
        HEAD,
        BASE,
        "contributor",
        "contributor/hello",
        "octo/hello",
    );
    let pull = request(&fake, "GET", "/repos/octo/hello/pulls/9", None).json();
    assert_eq!(pull["number"], 9);
    assert_eq!(pull["head"]["sha"], HEAD);
    assert_eq!(pull["base"]["sha"], BASE);
    assert_eq!(pull["user"]["login"], "contributor");
    assert_eq!(pull["head"]["repo"]["full_name"], "contributor/hello");
    assert_eq!(pull["head"]["repo"]["fork"], true);
    assert_eq!(pull["base"]["repo"]["full_name"], "octo/hello");
    assert_eq!(
        request(&fake, "GET", "/repos/octo/hello/pulls/10", None).status,
        404
    );
}

#[test]
fn pull_files_stop_at_3000() {
    let fake = fake_with_pull();
    let files: Vec<PullFile> = (0..3_500)
        .map(|i| PullFile::new(&format!("skills/s{i}/SKILL.md"), "modified"))
        .collect();
    fake.set_pull_files(7, files);
    let page = |n: usize| {
        request(
            &fake,
            "GET",
            &format!("/repos/octo/hello/pulls/7/files?per_page=100&page={n}"),
            None,
        )
    };
    let first = page(1);
    assert!(
        first
            .header("link")
            .is_some_and(|l| l.contains("page=30&per_page=100>; rel=\"last\""))
    );
    assert_eq!(page(30).json()[99]["filename"], "skills/s2999/SKILL.md");
    assert_eq!(page(31).json(), json!([]));
    fake.assert_no_violations();
}

#[test]
fn reviewers_users_accepted_teams_refused_when_switched_on() {
    let fake = fake_with_pull();
    fake.set_reject_team_reviewers(true);
    let path = "/repos/octo/hello/pulls/7/requested_reviewers";
    let users = request(&fake, "POST", path, Some(&json!({"reviewers": ["alice"]})));
    assert_eq!(users.status, 201);
    assert_eq!(users.json()["requested_reviewers"][0]["login"], "alice");
    let teams = request(
        &fake,
        "POST",
        path,
        Some(&json!({"team_reviewers": ["security"]})),
    );
    assert_eq!(teams.status, 422);
    let body = teams.json();
    assert!(
        body["message"]
            .as_str()
            .is_some_and(|m| m.contains("collaborators"))
    );
    assert!(body["documentation_url"].is_string());
    let requests = fake.reviewer_requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].team_reviewers, vec!["security"]);
    assert_eq!(requests[1].status, 422);
    assert_eq!(
        fake.requested_reviewers(7),
        (vec!["alice".to_string()], vec![])
    );
    fake.assert_no_violations();

    let author = request(
        &fake,
        "POST",
        path,
        Some(&json!({"reviewers": ["octocat"]})),
    );
    assert_eq!(author.status, 422);
    assert_eq!(fake.violations()[0].pointer, "/reviewers");
}

#[test]
fn a_read_only_token_cannot_write() {
    let fake = fake_with_pull();
    fake.set_read_only(true);
    let res = request(
        &fake,
        "POST",
        "/repos/octo/hello/check-runs",
        Some(&valid_check_run()),
    );
    assert_eq!(res.status, 403);
    assert_eq!(
        res.json()["message"],
        "Resource not accessible by integration"
    );
    assert_eq!(fake.writes().len(), 1);
    assert!(fake.check_runs().is_empty());
}

// ---- git data -----------------------------------------------------------------------------

#[test]
fn git_objects_refs_and_fast_forwards() {
    let fake = FakeGitHub::start();
    let base = fake.commit_files("main", &[("README.md", b"hi\n")], "init");
    let repo = "/repos/octo/hello";

    let blob = request(
        &fake,
        "POST",
        &format!("{repo}/git/blobs"),
        Some(&json!({"content": "hello", "encoding": "utf-8"})),
    );
    assert_eq!(blob.status, 201);
    assert_eq!(
        blob.json()["sha"],
        "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0"
    );
    let b64 = request(
        &fake,
        "POST",
        &format!("{repo}/git/blobs"),
        Some(&json!({"content": base64_encode(b"hello"), "encoding": "base64"})),
    );
    assert_eq!(
        b64.json()["sha"],
        "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0"
    );

    let base_tree = fake.git_commit(&base).expect("base commit").tree;
    let tree = request(
        &fake,
        "POST",
        &format!("{repo}/git/trees"),
        Some(&json!({
            "base_tree": base_tree,
            "tree": [{"path": "audit/skills.db", "mode": "100644", "type": "blob", "sha": "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0"}],
        })),
    );
    assert_eq!(tree.status, 201);
    let tree_sha = tree.json()["sha"].as_str().expect("sha").to_string();
    let paths: Vec<String> = tree.json()["tree"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            format!(
                "{} {}",
                e["type"].as_str().unwrap_or(""),
                e["path"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(paths, vec!["blob README.md", "tree audit"]);

    let commit = request(
        &fake,
        "POST",
        &format!("{repo}/git/commits"),
        Some(&json!({"message": "audit", "tree": tree_sha, "parents": [base]})),
    );
    assert_eq!(commit.status, 201);
    let next = commit.json()["sha"].as_str().expect("sha").to_string();
    assert_eq!(commit.json()["parents"][0]["sha"], base);

    let missing = request(
        &fake,
        "GET",
        &format!("{repo}/git/ref/heads/skillgate/audit"),
        None,
    );
    assert_eq!(missing.status, 404);
    let created = request(
        &fake,
        "POST",
        &format!("{repo}/git/refs"),
        Some(&json!({"ref": "refs/heads/skillgate/audit", "sha": base})),
    );
    assert_eq!(created.status, 201);
    let got = request(
        &fake,
        "GET",
        &format!("{repo}/git/ref/heads/skillgate/audit"),
        None,
    );
    assert_eq!(got.json()["object"]["sha"], base);

    let ff = request(
        &fake,
        "PATCH",
        &format!("{repo}/git/refs/heads/skillgate/audit"),
        Some(&json!({"sha": next, "force": false})),
    );
    assert_eq!(ff.status, 200);
    let back = request(
        &fake,
        "PATCH",
        &format!("{repo}/git/refs/heads/skillgate/audit"),
        Some(&json!({"sha": base, "force": false})),
    );
    assert_eq!(back.status, 422);
    assert_eq!(back.json()["message"], "Update is not a fast forward");
    assert_eq!(
        fake.ref_sha("refs/heads/skillgate/audit").as_deref(),
        Some(next.as_str())
    );
    let forced = request(
        &fake,
        "PATCH",
        &format!("{repo}/git/refs/heads%2Fskillgate%2Faudit"),
        Some(&json!({"sha": base, "force": true})),
    );
    assert_eq!(forced.status, 200);

    assert_eq!(
        fake.file_at(&next, "audit/skills.db").as_deref(),
        Some(&b"hello"[..])
    );
    let got_tree = request(
        &fake,
        "GET",
        &format!("{repo}/git/trees/{tree_sha}?recursive=1"),
        None,
    )
    .json();
    assert_eq!(got_tree["tree"].as_array().map(Vec::len), Some(3));
    fake.assert_no_violations();
}

#[test]
fn contents_answer_json_or_raw_bytes() {
    let fake = FakeGitHub::start();
    let sha = fake.commit_files(
        "skillgate/audit",
        &[("audit/skills.db", b"\x00SQLite\xff")],
        "db",
    );
    let path = "/repos/octo/hello/contents/audit/skills.db?ref=skillgate/audit";
    let json_answer = request(&fake, "GET", path, None).json();
    assert_eq!(json_answer["type"], "file");
    assert_eq!(json_answer["size"], 8);
    let decoded = base64_decode(json_answer["content"].as_str().expect("content"));
    assert_eq!(decoded.as_deref(), Some(&b"\x00SQLite\xff"[..]));

    let raw = send(
        &fake.url(),
        "GET",
        &format!("/repos/octo/hello/contents/audit/skills.db?ref={sha}"),
        &[
            ("authorization", &format!("token {}", fake.token())),
            ("user-agent", "t"),
            ("accept", "application/vnd.github.raw"),
        ],
        None,
    );
    assert_eq!(raw.status, 200);
    assert_eq!(raw.body, b"\x00SQLite\xff");
    assert_eq!(
        request(
            &fake,
            "GET",
            "/repos/octo/hello/contents/nope?ref=skillgate/audit",
            None
        )
        .status,
        404
    );

    let put = request(
        &fake,
        "PUT",
        "/repos/octo/hello/contents/audit/skills.db",
        Some(
            &json!({"message": "update", "content": base64_encode(b"v2"), "branch": "skillgate/audit"}),
        ),
    );
    assert_eq!(put.status, 422, "an update without the current sha");
    fake.assert_no_violations();
}

// ---- helpers ------------------------------------------------------------------------------

#[test]
fn sha1_base64_and_timestamps() {
    // `printf hello | git hash-object --stdin`
    assert_eq!(
        git_object_id("blob", b"hello"),
        "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0"
    );
    assert_eq!(sha1_hex(b""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    for data in [&b""[..], b"f", b"fo", b"foo", b"foob", b"fooba", b"foobar"] {
        assert_eq!(base64_decode(&base64_encode(data)).as_deref(), Some(data));
    }
    assert_eq!(base64_encode(b"foobar"), "Zm9vYmFy");
    assert_eq!(rfc3339(1_714_564_800), "2024-05-01T12:00:00Z");
}

#[test]
fn a_client_in_another_process_is_served_and_recorded() {
    // git is already required by the integration tests; its smart-HTTP probe is a plain GET.
    let fake = FakeGitHub::start();
    let output = std::process::Command::new("git")
        .args(["ls-remote", &format!("{}/repos/octo/hello", fake.url())])
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .expect("run git");
    assert!(!output.status.success(), "the fake is not a git server");
    let recorded = fake.requests();
    assert_eq!(recorded[0].path, "/repos/octo/hello/info/refs");
    assert_eq!(
        recorded[0].query.get("service").map(String::as_str),
        Some("git-upload-pack")
    );
    assert!(
        recorded[0]
            .header("user-agent")
            .is_some_and(|ua| ua.starts_with("git/"))
    );
    assert_eq!(fake.violations().len(), 1);
}

#[test]
fn dropping_the_fake_stops_the_server() {
    let fake = FakeGitHub::start();
    let addr = fake.url().trim_start_matches("http://").to_string();
    drop(fake);
    assert!(std::net::TcpStream::connect(addr).is_err());
}

// ---- a real client ------------------------------------------------------------------------

#[tokio::test]
async fn octocrab_talks_to_the_fake_over_plain_http() {
    let fake = fake_with_pull();
    let octo = octocrab::Octocrab::builder()
        .base_uri(fake.url())
        .expect("base uri")
        .personal_token(fake.token())
        .build()
        .expect("octocrab");
    let pull = octo
        .pulls("octo", "hello")
        .get(7)
        .await
        .expect("get the pull");
    assert_eq!(pull.number, 7);
    assert_eq!(pull.head.sha, HEAD);
    let comment = octo
        .issues("octo", "hello")
        .create_comment(7, "from octocrab")
        .await
        .expect("create a comment");
    assert_eq!(comment.body.as_deref(), Some("from octocrab"));
    assert_eq!(fake.comments()[0].body, "from octocrab");
    let recorded = fake.requests();
    assert!(
        recorded[0]
            .header("authorization")
            .is_some_and(|a| a.ends_with(&fake.token()))
    );
    fake.assert_no_violations();
}

fn octocrab_for(fake: &FakeGitHub) -> octocrab::Octocrab {
    octocrab::Octocrab::builder()
        .base_uri(fake.url())
        .expect("base uri")
        .personal_token(fake.token())
        .build()
        .expect("octocrab")
}

/// octocrab is built without its `retry` feature (Cargo.toml pins the features), so it has no
/// retry layer at all: a 502, even on a GET, reaches the caller, and a lost POST answer is never
/// re-sent behind the gate's back. Retries are the client's own job.
#[tokio::test]
async fn octocrab_as_built_here_never_retries() {
    let fake = fake_with_pull();
    fake.fail_next("pulls/get", 1, 502, &[], "<html>Bad Gateway</html>");
    fake.fail_next_after_effect("issues/create-comment", 1, 502);
    let octo = octocrab_for(&fake);
    let err = octo
        .pulls("octo", "hello")
        .get(7)
        .await
        .expect_err("the 502 reaches the caller");
    // Even an HTML body becomes `Error::GitHub`, with the status and the answer's headers (where
    // `retry-after` and `x-ratelimit-reset` are found).
    let octocrab::Error::GitHub { source, .. } = err else {
        panic!("expected Error::GitHub, got {err:?}");
    };
    assert_eq!(source.status_code.as_u16(), 502);
    assert_eq!(source.message, "<html>Bad Gateway</html>");
    assert_eq!(fake.requests_for("pulls/get").len(), 1);
    octo.issues("octo", "hello")
        .create_comment(7, "once")
        .await
        .expect_err("the lost answer reaches the caller");
    assert_eq!(fake.requests_for("issues/create-comment").len(), 1);
    assert_eq!(fake.comments().len(), 1, "written once, answer lost");
    fake.assert_no_violations();
}

/// The typed `update_comment` (POST) and `update_check_run` (echoes `check_run_id`) break the
/// spec; raw `patch` calls do not.
#[tokio::test]
async fn octocrab_typed_updates_break_the_contract_raw_patches_do_not() {
    use octocrab::models::{CheckRunId, CommentId};
    use octocrab::params::checks::CheckRunStatus;
    let fake = fake_with_pull();
    let comment = fake.add_comment("<!-- skillgate:summary -->", "github-actions[bot]");
    let run = fake.add_check_run("skillgate", HEAD, "queued", None);
    let octo = octocrab_for(&fake);

    let typed_comment = octo
        .issues("octo", "hello")
        .update_comment(CommentId(comment), "edited")
        .await;
    assert!(typed_comment.is_err());
    let typed_run = octo
        .checks("octo", "hello")
        .update_check_run(CheckRunId(run))
        .status(CheckRunStatus::InProgress)
        .send()
        .await;
    assert!(typed_run.is_err());
    let pointers: Vec<String> = fake.violations().into_iter().map(|v| v.pointer).collect();
    assert_eq!(pointers, vec!["path", "/check_run_id"]);

    let edited: Value = octo
        .patch(
            format!("/repos/octo/hello/issues/comments/{comment}"),
            Some(&json!({"body": "edited"})),
        )
        .await
        .expect("raw PATCH of a comment");
    assert_eq!(edited["body"], "edited");
    let updated: Value = octo
        .patch(
            format!("/repos/octo/hello/check-runs/{run}"),
            Some(&json!({"status": "in_progress"})),
        )
        .await
        .expect("raw PATCH of a check run");
    assert_eq!(updated["status"], "in_progress");
    assert_eq!(fake.violations().len(), 2, "the raw calls added none");
}

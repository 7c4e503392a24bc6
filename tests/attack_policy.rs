//! Issue #14, "policy from the pull request": what a pull request says about a skill (its own
//! `required-test-pass-rate`, the `category` a new skill declares, a changed `category`) can
//! raise the skill's bar and never lower it. The built binary on repositories made with git.

mod common;

use common::{Repo, run_json};

/// A skill whose `SKILL.md` carries `fields` (frontmatter lines, `category: backend`), whose
/// suite passes 20 TAP tests and fails `failed`, exits with `exit`, and writes an lcov report
/// covering `covered` of 100 lines.
fn skill(repo: &Repo, name: &str, fields: &str, failed: usize, covered: u32, exit: i32) {
    let dir = format!(".claude/skills/{name}");
    repo.write(
        &format!("{dir}/SKILL.md"),
        &format!(
            "---\nname: {name}\ndescription: The {name} skill, for tests.\nmetadata:\n  \
             version: \"1.0.0\"\n{fields}---\n# {name}\n"
        ),
    );
    let mut lcov = String::from("SF:lib.sh\\n");
    for line in 1..=100 {
        lcov.push_str(&format!("DA:{line},{}\\n", u32::from(line <= covered)));
    }
    lcov.push_str("end_of_record\\n");
    let mut script = format!(
        "printf '{lcov}' > \"$SKILLGATE_REPORT_DIR/lcov.info\"\necho '1..{}'\n",
        20 + failed
    );
    for i in 1..=20 {
        script.push_str(&format!("echo 'ok {i} - passes {i}'\n"));
    }
    for i in 1..=failed {
        script.push_str(&format!("echo 'not ok {} - fails {i}'\n", 20 + i));
    }
    script.push_str(&format!("exit {exit}\n"));
    repo.write(&format!("{dir}/test.sh"), &script);
}

/// `check` between two commits, as a pull request's job runs it.
fn check(repo: &Repo, base: &str, head: &str) -> serde_json::Value {
    run_json(repo, &["check", "--base", base, "--head", head]).1
}

#[test]
fn a_skill_cannot_lower_its_own_required_pass_rate() {
    let repo = Repo::git();
    skill(&repo, "lax", "  category: testing\n", 0, 100, 0);
    let base = repo.commit("lax passes everything");
    // 20 of 25 pass (0.80), the suite exits 1, and the skill asks for no more than that.
    skill(
        &repo,
        "lax",
        "  category: testing\n  required-test-pass-rate: 0.8\n",
        5,
        100,
        1,
    );
    let head = repo.commit("lax lowers its own bar");

    let doc = check(&repo, &base, &head);
    let lax = common::skill(&doc, "lax");
    assert_eq!(lax["tests"]["pass_count"], 20, "{lax}");
    assert_eq!(lax["tests"]["fail_count"], 5, "{lax}");
    assert_ne!(lax["decision"]["tier"], "auto", "{lax}");
    assert_eq!(
        lax["decision"]["criteria"]["test_pass_rate"],
        serde_json::json!({"required": 0.95, "actual": 0.8, "passed": false}),
        "{lax}"
    );
    assert!(
        lax["decision"]["reasons"]
            .to_string()
            .contains("pass rate 0.80 (20/25) < 0.95"),
        "{lax}"
    );
    // What is recorded as the skill's bar is the one it was held to.
    assert_eq!(lax["signals"]["required_pass_rate"], 0.95, "{lax}");
}

#[test]
fn a_skill_may_raise_its_own_required_pass_rate() {
    let repo = Repo::git();
    let base = repo.commit("empty");
    // 20 of 21 (0.952) meets the policy's 0.95, not the 0.99 the skill asks of itself.
    skill(
        &repo,
        "strict",
        "  category: testing\n  required-test-pass-rate: 0.99\n",
        1,
        100,
        1,
    );
    let head = repo.commit("strict asks for more");
    let doc = check(&repo, &base, &head);
    let strict = common::skill(&doc, "strict");
    assert_eq!(strict["decision"]["tier"], "escalate", "{strict}");
    assert_eq!(
        strict["decision"]["criteria"]["test_pass_rate"]["required"],
        0.99
    );
}

#[test]
fn a_new_skill_cannot_pick_a_looser_category_template() {
    let repo = Repo::git();
    let base = repo.commit("no skills yet");
    // 92% coverage: enough for the seed's `backend` template (90%), not for the default (95%).
    skill(&repo, "api", "  category: backend\n", 0, 92, 0);
    let head = repo.commit("a new skill calls itself backend");

    let doc = check(&repo, &base, &head);
    let api = common::skill(&doc, "api");
    assert_eq!(api["change"]["kind"], "added", "{api}");
    assert_eq!(api["decision"]["tier"], "escalate", "{api}");
    assert_eq!(
        api["decision"]["criteria"]["test_coverage"]["required"], 0.95,
        "the default policy's, not the template's 0.90: {api}"
    );
    assert_eq!(
        api["decision"]["escalation_categories"],
        serde_json::json!(["coverage"])
    );
}

#[test]
fn a_new_skill_cannot_pick_a_looser_configured_category() {
    let repo = Repo::git();
    // The repository trusts its `docs` skills with a warning.
    repo.write(
        ".skillgate.toml",
        "[policy.categories.docs]\nmode = \"warn\"\n",
    );
    // An existing `docs` skill keeps its category's policy: 20 of 26 passes with a warning.
    skill(&repo, "guide", "  category: docs\n", 0, 100, 0);
    let base = repo.commit("a docs skill");
    skill(&repo, "guide", "  category: docs\n", 6, 100, 1);
    skill(&repo, "payload", "  category: docs\n", 6, 100, 1);
    let head = repo.commit("guide regresses; a new skill calls itself docs");

    let doc = check(&repo, &base, &head);
    let guide = common::skill(&doc, "guide");
    assert_eq!(guide["change"]["kind"], "modified", "{guide}");
    assert_eq!(guide["decision"]["tier"], "auto", "{guide}");
    // The new one is held to the default policy's enforcement: 0.77 needs a maintainer.
    let payload = common::skill(&doc, "payload");
    assert_eq!(payload["change"]["kind"], "added", "{payload}");
    assert_eq!(payload["decision"]["tier"], "human", "{payload}");
    let reasons = payload["decision"]["reasons"].to_string();
    assert!(
        reasons.contains("pass rate 0.77 (20/26) < 0.80"),
        "{reasons}"
    );
    assert!(!reasons.contains("policy mode warn"), "{reasons}");
}

#[test]
fn a_new_skill_declaring_a_tighter_category_gets_it() {
    let repo = Repo::git();
    let base = repo.commit("no skills yet");
    skill(&repo, "widget", "  category: frontend\n", 0, 100, 0);
    let head = repo.commit("a new frontend skill");
    let doc = check(&repo, &base, &head);
    // The seed's frontend template allows an expert's review at best, new skill or not.
    let widget = common::skill(&doc, "widget");
    assert_eq!(widget["decision"]["tier"], "escalate", "{widget}");
    assert_eq!(
        widget["decision"]["escalation_categories"],
        serde_json::json!(["category-level"])
    );
}

#[test]
fn a_category_change_to_a_stricter_category_takes_its_policy() {
    let repo = Repo::git();
    repo.write(
        ".skillgate.toml",
        "[policy.categories.testing]\nmode = \"warn\"\n\n\
         [policy.categories.backend]\nmode = \"enforce\"\n",
    );
    skill(&repo, "climber", "  category: testing\n", 6, 100, 1);
    let base = repo.commit("a testing skill, approved with warnings");
    skill(&repo, "climber", "  category: backend\n", 6, 100, 1);
    let head = repo.commit("it calls itself backend now");

    let doc = check(&repo, &base, &head);
    let climber = common::skill(&doc, "climber");
    // Enforced as backend is, though it was only warned about as testing.
    assert_eq!(climber["decision"]["tier"], "human", "{climber}");
    let reasons = climber["decision"]["reasons"].to_string();
    assert!(
        reasons.contains("pass rate 0.77 (20/26) < 0.80"),
        "{reasons}"
    );
    assert!(!reasons.contains("policy mode warn"), "{reasons}");
}

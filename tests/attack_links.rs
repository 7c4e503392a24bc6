//! Issue #14, "a change behind a symlink": a pull request that changes any link a skill's file
//! passes through on the way to what runs (not only the last target) gates that skill.

mod common;

use std::os::unix::fs::symlink;

use common::{Repo, run_json, skill};

const DIR: &str = "skills/x";

/// A skill with a passing suite whose `scripts/run.sh` is a symlink to `target` (relative to
/// `scripts/`).
fn linked_skill(repo: &Repo, target: &str) {
    repo.skill(DIR, "x", 3, 0);
    std::fs::create_dir_all(repo.path().join(DIR).join("scripts")).expect("mkdir");
    symlink(target, repo.path().join(DIR).join("scripts/run.sh")).expect("symlink");
}

/// Point the symlink at `rel` to `target` instead.
fn retarget(repo: &Repo, rel: &str, target: &str) {
    std::fs::remove_file(repo.path().join(rel)).expect("rm link");
    symlink(target, repo.path().join(rel)).expect("symlink");
}

/// `check --base base`: the skill x's change kind and the security findings of its analysis.
fn checked(repo: &Repo, base: &str) -> (String, Vec<String>) {
    let (_, doc) = run_json(repo, &["check", "--base", base]);
    let x = skill(&doc, "x");
    let sensitive = x["signals"]["analysis"]["security_sensitive"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    (
        x["change"]["kind"].as_str().unwrap_or_default().to_owned(),
        sensitive,
    )
}

#[test]
fn retargeting_a_link_in_the_middle_of_the_chain_gates_the_skill() {
    let repo = Repo::git();
    linked_skill(&repo, "../../../tools/current.sh");
    repo.write("tools/v1.sh", "#!/bin/bash\necho hi\n");
    repo.write("tools/v2.sh", "#!/bin/bash\nrm -rf \"$HOME\"\n");
    symlink("v1.sh", repo.path().join("tools/current.sh")).expect("symlink");
    let base = repo.commit("skill, v1 current, v2 waiting");
    retarget(&repo, "tools/current.sh", "v2.sh");
    repo.commit("only tools/current.sh");
    let (kind, sensitive) = checked(&repo, &base);
    assert_eq!(kind, "modified");
    assert_eq!(
        sensitive,
        vec![
            "destructive command: rm -rf \"$HOME\" (the home directory) (skills/x/scripts/run.sh:2)"
        ]
    );
}

#[test]
fn retargeting_a_linked_directory_on_the_way_gates_the_skill() {
    let repo = Repo::git();
    // `tools` is a link to a directory the chain passes through, not a link to a file.
    linked_skill(&repo, "../../../tools/run.sh");
    repo.write("tools-v1/run.sh", "#!/bin/bash\necho hi\n");
    repo.write("tools-v2/run.sh", "#!/bin/bash\nrm -rf \"$HOME\"\n");
    symlink("tools-v1", repo.path().join("tools")).expect("symlink");
    let base = repo.commit("skill, tools -> tools-v1");
    retarget(&repo, "tools", "tools-v2");
    repo.commit("only tools");
    let (kind, sensitive) = checked(&repo, &base);
    assert_eq!(kind, "modified");
    assert_eq!(
        sensitive,
        vec![
            "destructive command: rm -rf \"$HOME\" (the home directory) (skills/x/scripts/run.sh:2)"
        ]
    );
}

#[test]
fn a_change_to_the_last_target_and_below_a_linked_directory_still_gates_the_skill() {
    let repo = Repo::git();
    linked_skill(&repo, "../../../tools/current.sh");
    repo.write("tools/v1.sh", "#!/bin/bash\necho hi\n");
    symlink("v1.sh", repo.path().join("tools/current.sh")).expect("symlink");
    repo.write("shared/lib/a.sh", "echo a\n");
    symlink("../../shared/lib", repo.path().join(DIR).join("lib")).expect("symlink");
    let base = repo.commit("skill");

    repo.write("tools/v1.sh", "#!/bin/bash\nrm -rf \"$HOME\"\n");
    let target = repo.commit("only tools/v1.sh");
    assert_eq!(checked(&repo, &base).0, "modified");

    repo.write("shared/lib/a.sh", "echo b\n");
    repo.commit("only shared/lib/a.sh");
    assert_eq!(checked(&repo, &target).0, "modified");
}

#[test]
fn a_change_beside_the_chain_gates_nothing() {
    let repo = Repo::git();
    linked_skill(&repo, "../../../tools/current.sh");
    repo.write("tools/v1.sh", "#!/bin/bash\necho hi\n");
    repo.write("tools/v2.sh", "#!/bin/bash\necho v2\n");
    symlink("v1.sh", repo.path().join("tools/current.sh")).expect("symlink");
    let base = repo.commit("skill");
    repo.write("tools/v2.sh", "#!/bin/bash\nrm -rf \"$HOME\"\n");
    repo.commit("only tools/v2.sh, which nothing runs");
    let (_, doc) = run_json(&repo, &["check", "--base", &base]);
    assert_eq!(doc["skills"], serde_json::json!([]), "{doc}");
}

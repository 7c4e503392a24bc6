//! Lint precision on skills shaped like real ones (issue #15, points 3 and 9): what prose names
//! is not a file the skill must ship, and only what runs a script directly asks it to be
//! executable. Fixtures: `tests/fixtures/lint/precision/` (see its README).

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::{Repo, run};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/lint/precision");

/// Copy `from` into `to`, every file `0644`: what is executable is set by each test.
fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644))
                .expect("chmod");
        }
    }
}

fn fixture_repo() -> Repo {
    let repo = Repo::plain();
    copy_tree(
        &Path::new(FIXTURE).join("skills"),
        &repo.path().join("skills"),
    );
    repo
}

fn chmod(repo: &Repo, rel: &str, mode: u32) {
    std::fs::set_permissions(repo.path().join(rel), std::fs::Permissions::from_mode(mode))
        .expect("chmod");
}

/// The finding lines `skillgate lint` prints for the skill under `skills/<skill>/`.
fn lint_lines(repo: &Repo, skill: &str) -> Vec<String> {
    let (_, stdout, stderr) = run(repo.skillgate(&["lint"]));
    assert!(!stdout.is_empty(), "{stderr}");
    let prefix = format!("skills/{skill}/");
    stdout
        .lines()
        .filter(|l| l.starts_with(&prefix))
        .map(str::to_owned)
        .collect()
}

#[test]
fn prose_about_folders_other_skills_and_the_users_project_is_not_a_missing_file() {
    let repo = fixture_repo();
    assert_eq!(
        lint_lines(&repo, "report-builder"),
        vec![
            "skills/report-builder/SKILL.md:19:26: error[reference-missing]: `references/style.md` is not in the skill: add it, or fix the reference",
            "skills/report-builder/SKILL.md:19:66: warning[reference-mention-missing]: `references/layout.md` is not in the skill: add it or fix the name; if it is a file of the user's project, this is no error (a link or a command in a shell block would make it one)",
            "skills/report-builder/SKILL.md:23:5: error[reference-missing]: `references/api.md` is not in the skill, and this command reads it: add it, or fix the command",
            "skills/report-builder/SKILL.md:27:14: warning[reference-mention-missing]: `assets/logo.png` is not in the skill: add it or fix the name; if it is a file of the user's project, this is no error (a link or a command in a shell block would make it one)",
        ],
        "not `assets/visuals/`, the child's `scripts/`, `uv run`/`npm run` paths, the user's \
         table, nor the output `--out assets/visuals/summary.png`"
    );
}

#[test]
fn paths_under_the_skill_directory_variable_or_its_installed_place_are_the_skills() {
    let repo = fixture_repo();
    assert_eq!(
        lint_lines(&repo, "installed"),
        vec![
            "skills/installed/SKILL.md:8:9: error[reference-missing]: `${CLAUDE_SKILL_DIR}/scripts/run.py` names `scripts/run.py`, which is not in the skill, and this command runs it: add it, or fix the command",
            "skills/installed/SKILL.md:10:9: error[reference-missing]: `~/.claude/skills/installed/scripts/other.py` names `scripts/other.py`, which is not in the skill, and this command runs it: add it, or fix the command",
        ],
        "`{{baseDir}}/references/guide.md` is there"
    );
}

#[test]
fn only_scripts_run_directly_must_be_executable_with_a_shebang() {
    let repo = fixture_repo();
    assert_eq!(
        lint_lines(&repo, "deployer"),
        vec![
            "skills/deployer/scripts/deploy.sh: warning[script-not-executable]: SKILL.md:9 runs it directly, and the script is not executable: `chmod +x` it (and `git update-index --chmod=+x` it, so that the repository keeps the bit)",
            "skills/deployer/scripts/deploy.sh:1:1: warning[script-shebang]: SKILL.md:9 runs it directly, and the script does not start with a `#!` line naming its interpreter (like `#!/usr/bin/env bash`)",
            "skills/deployer/scripts/rollback.sh: warning[script-not-executable]: tests/deploy.bats:4 runs it directly, and the script is not executable: `chmod +x` it (and `git update-index --chmod=+x` it, so that the repository keeps the bit)",
            "skills/deployer/scripts/status.sh: warning[script-not-executable]: `allowed-tools` in SKILL.md runs it directly, and the script is not executable: `chmod +x` it (and `git update-index --chmod=+x` it, so that the repository keeps the bit)",
        ],
        "`python3 scripts/main.py` and the imported `scripts/lib/helpers.py` need neither"
    );

    for script in ["deploy.sh", "rollback.sh", "status.sh"] {
        chmod(&repo, &format!("skills/deployer/scripts/{script}"), 0o755);
    }
    assert_eq!(
        lint_lines(&repo, "deployer"),
        vec![
            "skills/deployer/scripts/deploy.sh:1:1: warning[script-shebang]: SKILL.md:9 runs it directly, and the script does not start with a `#!` line naming its interpreter (like `#!/usr/bin/env bash`)",
        ]
    );
}

#[test]
fn the_whole_tree_counts_and_exits_as_errors_say() {
    let repo = fixture_repo();
    let (code, stdout, _) = run(repo.skillgate(&["lint"]));
    assert_eq!(code, 4, "{stdout}");
    assert!(
        stdout.ends_with("3 skills: 4 errors, 6 warnings\n"),
        "{stdout}"
    );
}

#[test]
fn check_needs_correction_for_a_missing_file_a_command_runs_not_for_one_prose_names() {
    let repo = Repo::plain();
    repo.skill("skills/prose", "prose", 2, 0);
    repo.write(
        "skills/prose/SKILL.md",
        "---\nname: prose\ndescription: Names a file in prose.\n---\nThe output goes to `assets/chart.png`.\n",
    );
    repo.skill("skills/fence", "fence", 2, 0);
    repo.write(
        "skills/fence/SKILL.md",
        "---\nname: fence\ndescription: Runs a file it lacks.\n---\n```bash\npython3 scripts/gone.py\n```\n",
    );
    let (_, stdout, _) = run(repo.skillgate(&["check", "--all", "--format", "json"]));
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let skill = |name: &str| {
        doc["skills"]
            .as_array()
            .expect("skills")
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {stdout}"))
            .clone()
    };
    let prose = skill("prose");
    assert_ne!(prose["decision"]["decision"], "needs_correction", "{prose}");
    assert_eq!(prose["lint"][0]["rule"], "reference-mention-missing");
    assert_eq!(prose["lint"][0]["severity"], "warning");
    assert_eq!(
        (
            prose["lint"][0]["line"].as_u64(),
            prose["lint"][0]["column"].as_u64()
        ),
        (Some(5), Some(21))
    );
    let fence = skill("fence");
    assert_eq!(fence["decision"]["decision"], "needs_correction", "{fence}");
    assert_eq!(fence["lint"][0]["rule"], "reference-missing");
    assert_eq!(
        (
            fence["lint"][0]["line"].as_u64(),
            fence["lint"][0]["column"].as_u64()
        ),
        (Some(6), Some(9))
    );
}

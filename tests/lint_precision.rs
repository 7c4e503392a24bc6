//! Lint precision on skills shaped like real ones (issue #15, points 3 and 9): what prose names
//! is not a file the skill must ship, and only what runs a script directly asks it to be
//! executable; what the commands of `SKILL.md` run is checked wherever they stand (a block in no
//! language, past interpreter options, after `cd`), and what they write is not required.
//! Fixtures: `tests/fixtures/lint/precision/` and `tests/fixtures/lint/commands/` (see their
//! READMEs).

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::{Repo, run};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/lint/precision");
const COMMANDS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/lint/commands");

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
    repo_of(FIXTURE)
}

/// A repository holding the `skills/` tree of the fixture at `fixture`.
fn repo_of(fixture: &str) -> Repo {
    let repo = Repo::plain();
    copy_tree(
        &Path::new(fixture).join("skills"),
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

#[test]
fn a_command_in_a_block_in_no_language_is_checked_but_sample_output_is_not() {
    let repo = repo_of(COMMANDS);
    assert_eq!(
        lint_lines(&repo, "blocks"),
        vec![
            "skills/blocks/SKILL.md:10:9: error[reference-missing]: `scripts/build_report.py` is not in the skill, and this command runs it: add it, or fix the command",
            "skills/blocks/SKILL.md:16:11: error[reference-missing]: `scripts/summarize.py` is not in the skill, and this command runs it: add it, or fix the command",
            "skills/blocks/SKILL.md:22:14: error[reference-missing]: `scripts/render.sh` is not in the skill, and this command runs it: add it, or fix the command",
        ],
        "an unlabelled fence, a `text` fence behind a `$ ` prompt and an indented block in a \
         list; in the sample output, not `cat: references/notes.md: …`, `./scripts/not-run.sh`, \
         `uv run scripts/users-own.py` nor `python3 app.py`"
    );
}

#[test]
fn interpreter_option_values_are_not_the_script() {
    let repo = repo_of(COMMANDS);
    assert_eq!(
        lint_lines(&repo, "options"),
        vec![
            "skills/options/SKILL.md:8:19: error[reference-missing]: `scripts/build_report.py` is not in the skill, and this command runs it: add it, or fix the command",
            "skills/options/SKILL.md:9:17: error[reference-missing]: `scripts/present.py` is not in the skill, and this command runs it: add it, or fix the command",
            "skills/options/SKILL.md:14:20: error[reference-missing]: `scripts/publish.sh` is not in the skill, and this command runs it: add it, or fix the command",
        ],
        "past `-W ignore`, `-X utf8` and `-euo pipefail`; `node --require ./scripts/setup.js` \
         loads a module, it does not run a script; `python3 -c` runs no file"
    );
}

#[test]
fn cd_into_the_skill_directory_is_followed_to_the_files_it_runs() {
    let repo = repo_of(COMMANDS);
    assert_eq!(
        lint_lines(&repo, "cdthen"),
        vec![
            "skills/cdthen/SKILL.md:9:9: error[reference-missing]: `build_report.py` (after `cd ${CLAUDE_SKILL_DIR}/scripts`) names `scripts/build_report.py`, which is not in the skill, and this command runs it: add it, or fix the command",
            "skills/cdthen/SKILL.md:14:58: error[reference-missing]: `report.py` (after `cd $SKILL_DIR`) is not in the skill, and this command runs it: add it, or fix the command",
            "skills/cdthen/scripts/generate.sh: warning[script-not-executable]: SKILL.md:10 runs it directly, and the script is not executable: `chmod +x` it (and `git update-index --chmod=+x` it, so that the repository keeps the bit)",
        ],
        "`cd {{baseDir}}/scripts && bash render.sh` finds it; after `cd /tmp/work`, \
         `scripts/users-own.py` is not the skill's; the next block starts afresh"
    );
    chmod(&repo, "skills/cdthen/scripts/generate.sh", 0o755);
    repo.write("skills/cdthen/scripts/build_report.py", "print('report')\n");
    repo.write("skills/cdthen/report.py", "print('report')\n");
    assert_eq!(lint_lines(&repo, "cdthen"), Vec::<String>::new());
}

#[test]
fn files_the_skill_writes_before_it_reads_them_are_not_missing() {
    let repo = repo_of(COMMANDS);
    assert_eq!(
        lint_lines(&repo, "generated"),
        vec![
            "skills/generated/SKILL.md:18:5: error[reference-missing]: `references/before.md` is not in the skill, and this command reads it: add it, or fix the command",
        ],
        "written by `>`, `tee`, `mkdir` + `--out-dir`, `cp` and `-o`, then read: not required, \
         nor named by the link and the mention of the summary; read before it is written: required"
    );
}

#[test]
fn the_commands_tree_counts_and_exits_as_errors_say() {
    let repo = repo_of(COMMANDS);
    let (code, stdout, _) = run(repo.skillgate(&["lint"]));
    assert_eq!(code, 4, "{stdout}");
    assert!(
        stdout.ends_with("4 skills: 9 errors, 1 warning\n"),
        "{stdout}"
    );
}

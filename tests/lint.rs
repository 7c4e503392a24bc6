//! `skillgate lint` end to end: the built binary on skill trees made in a temp dir.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use common::{Repo, run, skillgate};

/// A skill with nothing to say against it.
fn clean_skill(repo: &Repo, dir: &str) {
    let name = dir.rsplit('/').next().expect("name");
    repo.write(
        &format!("{dir}/SKILL.md"),
        &format!(
            "---\nname: {name}\ndescription: The {name} skill.\nmetadata:\n  version: \"1.0.0\"\n---\n# {name}\n\nRun [it](scripts/run.sh).\n"
        ),
    );
    repo.write(&format!("{dir}/scripts/run.sh"), "#!/bin/sh\necho ok\n");
    let script = repo.path().join(dir).join("scripts/run.sh");
    std::fs::set_permissions(script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// A skill with one error of each kind the lint finds in SKILL.md, and a warning.
fn broken_skill(repo: &Repo, dir: &str) {
    repo.write(
        &format!("{dir}/SKILL.md"),
        "---\nname: Broken_Skill\ndescription: Broken on purpose.\nargument-hint: \"[file]\"\n---\n# broken\n\nSee [the guide](references/guide.md) and run `./scripts/tool.py`.\n\n```bash\nbash scripts/missing.py\n```\n",
    );
    repo.write(&format!("{dir}/scripts/tool.py"), "print('no shebang')\n");
    repo.write(&format!("{dir}/scripts/imported.py"), "x = 1\n");
}

#[test]
fn text_output_names_file_line_column_severity_and_rule_and_exits_4() {
    let repo = Repo::plain();
    clean_skill(&repo, ".claude/skills/good");
    broken_skill(&repo, ".claude/skills/broken");
    let (code, stdout, stderr) = run(repo.skillgate(&["lint"]));
    assert_eq!(code, 4, "an error needs correction: {stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        vec![
            ".claude/skills/broken/SKILL.md:2:7: error[name-invalid]: `name: Broken_Skill` may only hold a-z, 0-9 and `-`, not 'B'",
            ".claude/skills/broken/SKILL.md:8:17: error[reference-missing]: `references/guide.md` is not in the skill: add it, or fix the reference",
            ".claude/skills/broken/SKILL.md:11:6: error[reference-missing]: `scripts/missing.py` is not in the skill, and this command runs it: add it, or fix the command",
            ".claude/skills/broken/scripts/tool.py: warning[script-not-executable]: SKILL.md:8 runs it directly, and the script is not executable: `chmod +x` it (and `git update-index --chmod=+x` it, so that the repository keeps the bit)",
            ".claude/skills/broken/scripts/tool.py:1:1: warning[script-shebang]: SKILL.md:8 runs it directly, and the script does not start with a `#!` line naming its interpreter (like `#!/usr/bin/env bash`)",
            "",
            "2 skills: 3 errors, 2 warnings",
        ]
    );
}

#[test]
fn json_output_carries_every_finding_and_a_summary() {
    let repo = Repo::plain();
    clean_skill(&repo, "skills/good");
    broken_skill(&repo, "skills/broken");
    let (code, stdout, _) = run(repo.skillgate(&["lint", "--format", "json"]));
    assert_eq!(code, 4);
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(doc["schema"], "skillgate.lint/1");
    assert_eq!(doc["strict"], false);
    assert_eq!(
        doc["summary"],
        serde_json::json!({"skills": 2, "errors": 3, "warnings": 2})
    );
    assert_eq!(
        doc["skills"],
        serde_json::json!([
            {"file": "skills/broken/SKILL.md", "name": "Broken_Skill", "errors": 3, "warnings": 2},
            {"file": "skills/good/SKILL.md", "name": "good", "errors": 0, "warnings": 0},
        ])
    );
    let first = &doc["findings"][0];
    assert_eq!(first["rule"], "name-invalid");
    assert_eq!(first["severity"], "error");
    assert_eq!(first["file"], "skills/broken/SKILL.md");
    assert_eq!(
        (first["line"].as_u64(), first["column"].as_u64()),
        (Some(2), Some(7))
    );
    let not_executable = &doc["findings"][3];
    assert_eq!(not_executable["rule"], "script-not-executable");
    assert!(not_executable.get("line").is_none(), "{not_executable}");
}

#[test]
fn warnings_alone_exit_0_and_a_clean_tree_says_so() {
    let repo = Repo::plain();
    clean_skill(&repo, "skills/good");
    let (code, stdout, _) = run(repo.skillgate(&["lint"]));
    assert_eq!((code, stdout.as_str()), (0, "1 skill: no findings\n"));

    repo.write(
        "skills/good/scripts/extra.sh",
        "echo no shebang, not executable\n",
    );
    let (code, stdout, _) = run(repo.skillgate(&["lint"]));
    assert_eq!(
        (code, stdout.as_str()),
        (0, "1 skill: no findings\n"),
        "nothing runs it directly: no rule for it"
    );
    repo.write(
        "skills/good/SKILL.md",
        "---\nname: good\ndescription: The good skill.\n---\n```bash\n./scripts/extra.sh\n```\n",
    );
    let (code, stdout, _) = run(repo.skillgate(&["lint"]));
    assert_eq!(code, 0, "warnings only: {stdout}");
    assert!(
        stdout.ends_with("1 skill: 0 errors, 2 warnings\n"),
        "{stdout}"
    );

    let empty = Repo::plain();
    let (code, stdout, _) = run(empty.skillgate(&["lint"]));
    assert_eq!((code, stdout.as_str()), (0, "no skills found\n"));
}

#[test]
fn strict_config_makes_unknown_top_level_fields_errors() {
    let repo = Repo::plain();
    repo.write(
        "skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: Read PDFs.\nargument-hint: \"[file]\"\nversion: 1.0.0\n---\n",
    );
    let (code, stdout, _) = run(repo.skillgate(&["lint"]));
    assert_eq!((code, stdout.as_str()), (0, "1 skill: no findings\n"));

    repo.write(".skillgate.toml", "[lint]\nstrict = true\n");
    let (code, stdout, _) = run(repo.skillgate(&["lint"]));
    assert_eq!(code, 4, "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with("skills/pdf/SKILL.md:4:1: error[field-unknown]: `argument-hint` is not an Agent Skills field"),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("skills/pdf/SKILL.md:5:1: error[field-unknown]: `version`"),
        "{stdout}"
    );
    assert!(lines[1].ends_with("move it under `metadata:` (skillgate reads `version` there too)"));

    // `check` reads the same config: the skill needs correction there too.
    let (code, stdout, _) = run(repo.skillgate(&["check", "--all", "--format", "json"]));
    assert_eq!(code, 4);
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(doc["skills"][0]["decision"]["decision"], "needs_correction");
    assert_eq!(doc["skills"][0]["lint"][0]["rule"], "field-unknown");
}

#[test]
fn paths_name_a_skill_its_skill_md_or_a_directory_to_search() {
    let repo = Repo::plain();
    clean_skill(&repo, "work/good");
    broken_skill(&repo, "work/nested/broken");
    clean_skill(&repo, "elsewhere/other");
    let json = |paths: &[&str]| {
        let mut args = vec!["lint", "--format", "json"];
        args.extend(paths);
        let (code, stdout, stderr) = run(repo.skillgate(&args));
        let doc: serde_json::Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
        let files: Vec<String> = doc["skills"]
            .as_array()
            .expect("skills")
            .iter()
            .map(|s| s["file"].as_str().expect("file").to_owned())
            .collect();
        (code, files)
    };
    let at = |rel: &str| repo.path().join(rel).to_string_lossy().into_owned();
    assert_eq!(
        json(&[&at("work")]),
        (
            4,
            vec![
                "work/good/SKILL.md".into(),
                "work/nested/broken/SKILL.md".into()
            ]
        ),
        "a directory is searched, skill roots or not"
    );
    assert_eq!(
        json(&[&at("work/good")]),
        (0, vec!["work/good/SKILL.md".into()])
    );
    assert_eq!(
        json(&[&at("work/good/SKILL.md"), &at("work/good")]),
        (0, vec!["work/good/SKILL.md".into()]),
        "a skill named twice is linted once"
    );
    assert_eq!(
        json(&[]),
        (0, Vec::<String>::new()),
        "no skill roots in this tree"
    );
}

#[test]
fn a_skill_outside_the_repository_or_at_its_top_is_named_by_its_directory() {
    let outside = tempfile::tempdir().expect("tempdir");
    let skill = outside.path().join("pdf");
    std::fs::create_dir_all(&skill).expect("mkdir");
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: pdf\ndescription: d\n---\n",
    )
    .expect("write");
    let repo = Repo::plain();
    let mut cmd = skillgate();
    cmd.current_dir(outside.path())
        .args(["lint", "pdf", "--repo"])
        .arg(repo.path());
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(
        (code, stdout.as_str()),
        (0, "1 skill: no findings\n"),
        "{stderr}"
    );

    // A one-skill repository: the skill is the repository's top, `name` is checked against
    // the directory's own name, and files are named relative to the repository.
    let mut cmd = skillgate();
    cmd.current_dir(&skill)
        .args(["lint", ".", "--format", "json"]);
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(doc["skills"][0]["file"], "SKILL.md");

    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: other\ndescription: d\n---\n",
    )
    .expect("write");
    let mut cmd = skillgate();
    cmd.current_dir(&skill).args(["lint", "."]);
    let (code, stdout, _) = run(cmd);
    assert_eq!(code, 4);
    assert!(
        stdout.starts_with(
            "SKILL.md:2:7: error[name-mismatch]: `name: other` does not match its directory `pdf`"
        ),
        "{stdout}"
    );
}

#[test]
fn usage_and_config_errors_exit_2() {
    let repo = Repo::plain();
    clean_skill(&repo, "skills/good");
    let (code, _, stderr) = run(repo.skillgate(&["lint", "/nonexistent/skill"]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("error: /nonexistent/skill does not exist"),
        "{stderr}"
    );

    let readme = repo.path().join("skills/good/scripts/run.sh");
    let (code, _, stderr) = run(repo.skillgate(&["lint", &readme.to_string_lossy()]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("is neither a SKILL.md nor a directory"),
        "{stderr}"
    );

    let empty = repo.path().join("skills/good/scripts");
    let (code, _, stderr) = run(repo.skillgate(&["lint", &empty.to_string_lossy()]));
    assert_eq!(code, 2);
    assert!(stderr.contains("no SKILL.md in"), "{stderr}");

    repo.write(".skillgate.toml", "[lint]\nstrictly = true\n");
    let (code, _, stderr) = run(repo.skillgate(&["lint"]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains(".skillgate.toml:2: unknown field `strictly`"),
        "{stderr}"
    );
}

#[test]
fn alias_bombs_deep_nesting_and_binary_skill_files_stay_bounded() {
    let repo = Repo::plain();
    let mut bomb = String::from("---\nname: bomb\ndescription: d\na0: &a0 [\"lol\",\"lol\"]\n");
    for level in 1..30 {
        let refs = vec![format!("*a{}", level - 1); 10].join(",");
        bomb.push_str(&format!("a{level}: &a{level} [{refs}]\n"));
    }
    bomb.push_str("---\n");
    repo.write("skills/bomb/SKILL.md", &bomb);
    repo.write(
        "skills/deep/SKILL.md",
        &format!(
            "---\nname: deep\ndescription: d\nx:\n{}y\n---\n",
            "- ".repeat(300_000)
        ),
    );
    let mut binary: Vec<u8> = b"\x7fELF\x02\x01\x01\0".to_vec();
    binary.extend((0..900_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8));
    std::fs::create_dir_all(repo.path().join("skills/binary")).expect("mkdir");
    std::fs::write(repo.path().join("skills/binary/SKILL.md"), &binary).expect("write");
    std::fs::create_dir_all(repo.path().join("skills/huge")).expect("mkdir");
    std::fs::write(
        repo.path().join("skills/huge/SKILL.md"),
        vec![b'#'; 3 << 20],
    )
    .expect("write");

    let started = Instant::now();
    let (code, stdout, stderr) = run(repo.skillgate(&["lint"]));
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(code, 4, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 6, "{stdout}");
    assert!(
        lines[0].starts_with(
            "skills/binary/SKILL.md:1:10: error[skill-file-unreadable]: SKILL.md is not UTF-8"
        ),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("skills/bomb/SKILL.md:4:9: error[frontmatter-invalid]: anchors (`&name`) are not allowed"),
        "{stdout}"
    );
    assert!(
        lines[2].starts_with(
            "skills/deep/SKILL.md:5:129: error[frontmatter-invalid]: frontmatter nests too deeply"
        ),
        "{stdout}"
    );
    assert!(
        lines[3].starts_with("skills/huge/SKILL.md: error[skill-file-unreadable]: cannot use this SKILL.md: it is 3145728 bytes, over the 1048576 byte limit"),
        "{stdout}"
    );
    assert_eq!(lines[5], "4 skills: 4 errors, 0 warnings");
}

#[test]
fn check_gates_on_the_new_rules_too() {
    let repo = Repo::plain();
    repo.skill("skills/refs", "refs", 2, 0);
    repo.write(
        "skills/refs/SKILL.md",
        "---\nname: refs\ndescription: Refers to a file it lacks.\n---\nRun [it](scripts/gone.sh).\n",
    );
    let (code, stdout, _) = run(repo.skillgate(&["check", "--all", "--format", "json"]));
    assert_eq!(code, 4, "{stdout}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let skill = &doc["skills"][0];
    assert_eq!(skill["decision"]["decision"], "needs_correction");
    assert_eq!(skill["lint"][0]["rule"], "reference-missing");
    assert_eq!(
        (
            skill["lint"][0]["line"].as_u64(),
            skill["lint"][0]["column"].as_u64()
        ),
        (Some(5), Some(10))
    );
}

//! The skill lint: every rule a skill is held to, run by `skillgate lint` alone and by `check`
//! (where an error makes the skill need correction). Frontmatter rules live with the fields
//! they read (`skill.rs`); the rules that read the body or other files, one per file here.
//!
//! Parity with the Agent Skills reference validator (`skills-ref validate`) and `skilo lint`,
//! rule by rule, is in [`RULES`].

pub mod body;
pub mod commands;
pub mod references;
pub mod scripts;

use std::path::Path;

use crate::config::LintConfig;
use crate::discover::SkillDir;
use crate::gate::Redacted;
use crate::skill::lint_report::Linted;
use crate::skill::{self, Finding, Severity, SkillMeta};

/// A rule: its id (what findings carry), its severity, and what it asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub id: &'static str,
    pub severity: Severity,
    pub summary: &'static str,
}

const fn rule(id: &'static str, severity: Severity, summary: &'static str) -> Rule {
    Rule {
        id,
        severity,
        summary,
    }
}

/// Every rule of the skill lint. Errors are what `skills-ref` or `skilo` reject too; warnings
/// are `skilo`'s warnings (or ours: `reference-mention-missing`, `reference-outside-skill`,
/// `script-unreadable`, `field-name`).
pub const RULES: &[Rule] = &[
    rule(
        "skill-file-unreadable",
        Severity::Error,
        "SKILL.md can be read: a regular file in the repository, at most 1 MiB, UTF-8",
    ),
    rule(
        "frontmatter-missing",
        Severity::Error,
        "SKILL.md starts with a `---` line",
    ),
    rule(
        "frontmatter-unclosed",
        Severity::Error,
        "the frontmatter ends with a `---` line",
    ),
    rule(
        "frontmatter-invalid",
        Severity::Error,
        "the frontmatter is a YAML mapping, without anchors, aliases or duplicate keys",
    ),
    rule(
        "name-missing",
        Severity::Error,
        "`name` is set (skills-ref: missing required field; skilo: E001)",
    ),
    rule(
        "name-invalid",
        Severity::Error,
        "`name` is 1-64 characters of a-z, 0-9 and `-`, without leading, trailing or double `-` \
         (skilo: E001, E002)",
    ),
    rule(
        "name-mismatch",
        Severity::Error,
        "`name` equals the skill's directory name (skilo: E003)",
    ),
    rule(
        "name-duplicate",
        Severity::Warning,
        "no other skill under the same root has the same `name` (skills under different roots, \
         like two plugins' `setup`, are different skills)",
    ),
    rule(
        crate::discover::UNCOVERED_RULE,
        Severity::Warning,
        "every `SKILL.md` is under a skill root, or `[skills] ignore` names it",
    ),
    rule(
        "description-missing",
        Severity::Error,
        "`description` is set (skilo: E004)",
    ),
    rule(
        "description-length",
        Severity::Error,
        "`description` is 1-1024 characters (skilo: E005)",
    ),
    rule(
        "compatibility-length",
        Severity::Error,
        "`compatibility` is at most 500 characters (skilo: E006)",
    ),
    rule(
        "field-type",
        Severity::Error,
        "a field holds the kind of value it is read as (text, a list of text, a fraction, …)",
    ),
    rule(
        "field-unknown",
        Severity::Error,
        "with `[lint] strict = true`: only the spec's top-level fields (skills-ref: unexpected \
         fields)",
    ),
    rule(
        "field-name",
        Severity::Warning,
        "frontmatter keys hold no control characters",
    ),
    rule(
        "body-length",
        Severity::Warning,
        "the body is at most 500 lines (skilo: W001)",
    ),
    rule(
        "reference-missing",
        Severity::Error,
        "files the body links to, and files its shell blocks run or read (`python3 \
         scripts/x.py`, `cat references/x.md`, `${CLAUDE_SKILL_DIR}/…`), exist in the skill \
         (skilo: E009)",
    ),
    rule(
        "reference-mention-missing",
        Severity::Warning,
        "files inline code in prose names in `scripts/`, `references/`, `assets/` exist in the \
         skill; not directories, globs, paths another tool runs (`uv run`, `npx`, `make`) nor a \
         table of files the skill has none of",
    ),
    rule(
        "reference-outside-skill",
        Severity::Warning,
        "files the body refers to are inside the skill",
    ),
    rule(
        "script-not-executable",
        Severity::Warning,
        "files SKILL.md, `allowed-tools` or the skill's code run directly (`./scripts/x.sh`) \
         are executable (skilo: W002)",
    ),
    rule(
        "script-shebang",
        Severity::Warning,
        "files run directly start with a `#!` line (skilo: W003)",
    ),
    rule(
        "script-unreadable",
        Severity::Warning,
        "files run directly can be read: regular files in the repository, at most 8 MiB",
    ),
];

/// The rule with this id.
pub fn rule_by_id(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// Lint one skill. `skill.dir` is relative to `base` and names the skill's files in findings;
/// `files` are the skill's own files (from [`crate::discover::skill_files`]); nothing outside
/// `repo` (canonical) is read.
pub fn lint_skill(
    repo: &Path,
    base: &Path,
    skill: &SkillDir,
    files: &[String],
    config: &LintConfig,
) -> Linted {
    let file = skill.skill_file_path();
    let dir = base.join(&skill.dir);
    let text = match read_skill_file(repo, &dir.join(&skill.skill_file), &file) {
        Ok(text) => text,
        Err(finding) => {
            return Linted {
                meta: SkillMeta::default(),
                findings: vec![finding],
            };
        }
    };
    let md = skill::read_skill_md(&text, &file, skill.dir_name(), config.strict);
    let mut findings = md.findings;
    let body = md.body_line.map(|line| (body_of(&text, line), line));
    if let Some((body, body_line)) = body {
        findings.extend(body::check(body, body_line, &file));
        findings.extend(references::check(
            &text,
            body,
            body_line,
            &file,
            &dir,
            skill.dir_name(),
        ));
    }
    let instructions = scripts::Instructions {
        text: &text,
        body,
        allowed_tools: &md.meta.allowed_tools,
        file_name: &skill.skill_file,
    };
    let executed = scripts::executed(repo, &dir, skill.dir_name(), &instructions, files);
    findings.extend(scripts::check(repo, &dir, &skill.dir, &executed));
    // A message can quote the skill (a name, a link): never a secret in it. The results
    // document redacts its findings itself; `lint`'s report is made of these.
    for finding in &mut findings {
        finding.message = Redacted::new(&finding.message).into_string();
    }
    // By file, then where in it; a file's findings without a line first.
    findings.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
    Linted {
        meta: md.meta,
        findings,
    }
}

/// A skill as the rules across skills see it: where it is, its root, its `name`.
#[derive(Debug, Clone, Copy)]
pub struct Placed<'a> {
    pub skill: &'a SkillDir,
    /// The root it is under (`discover::Layout::place`); `None` for a `SKILL.md` no root covers.
    pub root: Option<&'a str>,
    /// Its `name`, when its frontmatter has one.
    pub name: Option<&'a str>,
}

/// `name-duplicate`: skills under one root that share a `name`. An agent loads a root's skills
/// by name, so one hides the other. Skills are identified by their directory: one name under
/// two roots (`plugins/a/skills/setup`, `plugins/b/skills/setup`) is two skills and no finding.
/// Each skill of a group gets a warning naming the others, so `lint` (every skill) and `check`
/// (the changed ones) say the same of a skill.
pub fn duplicate_names(skills: &[Placed<'_>]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (i, this) in skills.iter().enumerate() {
        let (Some(root), Some(name)) = (this.root, this.name) else {
            continue;
        };
        let others: Vec<&str> = skills
            .iter()
            .enumerate()
            .filter(|(j, other)| {
                *j != i
                    && other.root == Some(root)
                    && other.name == Some(name)
                    && other.skill.dir != this.skill.dir
            })
            .map(|(_, other)| other.skill.dir.as_str())
            .collect();
        if others.is_empty() {
            continue;
        }
        findings.push(Finding::warning(
            "name-duplicate",
            &this.skill.skill_file_path(),
            None,
            format!(
                "`{}` under the skill root `{root}` is also the name of {}: an agent that loads \
                 skills by name finds one of them; rename one (its `name` and its directory)",
                Redacted::new(name),
                others.join(", ")
            ),
        ));
    }
    findings
}

/// The text from line `line` (1-based) on.
fn body_of(text: &str, line: usize) -> &str {
    let offset: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    &text[offset.min(text.len())..]
}

/// The text of a `SKILL.md`, or the finding that says why it cannot be used.
pub fn read_skill_file(repo: &Path, path: &Path, file: &str) -> Result<String, Finding> {
    let bytes =
        crate::untrusted::read_file(repo, path, skill::MAX_SKILL_FILE_BYTES).map_err(|reason| {
            Finding::error(
                "skill-file-unreadable",
                file,
                None,
                format!("cannot use this SKILL.md: {reason}"),
            )
        })?;
    String::from_utf8(bytes).map_err(|err| {
        let valid = err.utf8_error().valid_up_to();
        let bytes = err.as_bytes();
        let line = bytes[..valid].iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = bytes[..valid]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        // Characters before the bad byte, plus one.
        let column = String::from_utf8_lossy(&bytes[line_start..valid])
            .chars()
            .count()
            + 1;
        Finding::error(
            "skill-file-unreadable",
            file,
            Some(line),
            format!("SKILL.md is not UTF-8: invalid byte at column {column}"),
        )
        .at_column(column)
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn skill(dir: &str) -> SkillDir {
        SkillDir {
            dir: dir.to_owned(),
            skill_file: "SKILL.md".to_owned(),
        }
    }

    struct Fixture {
        _dir: tempfile::TempDir,
        repo: std::path::PathBuf,
    }

    impl Fixture {
        fn new() -> Self {
            let dir = tempfile::tempdir().expect("tempdir");
            let repo = dir.path().canonicalize().expect("canon");
            Self { _dir: dir, repo }
        }

        fn write(&self, rel: &str, bytes: &[u8]) {
            let path = self.repo.join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, bytes).expect("write");
        }

        fn lint(&self, dir: &str, strict: bool) -> Linted {
            let s = skill(dir);
            let files = crate::discover::skill_files(&self.repo, &s, std::slice::from_ref(&s))
                .expect("files");
            lint_skill(&self.repo, &self.repo, &s, &files, &LintConfig { strict })
        }
    }

    /// `(rule, line, column)` of each finding.
    fn places(linted: &Linted) -> Vec<(&str, Option<usize>, Option<usize>)> {
        linted
            .findings
            .iter()
            .map(|f| (f.rule.as_str(), f.line, f.column))
            .collect()
    }

    #[test]
    fn a_clean_skill_has_no_findings() {
        let fx = Fixture::new();
        fx.write(
            "skills/pdf/SKILL.md",
            b"---\nname: pdf\ndescription: Read PDFs.\nlicense: MIT\ncompatibility: Python 3.11\nallowed-tools: Read Bash\nmetadata:\n  version: \"1\"\n---\n# pdf\n\nRun [the script](scripts/run.sh) or `python3 scripts/run.py`.\n",
        );
        fx.write("skills/pdf/scripts/run.sh", b"#!/bin/sh\n");
        fx.write("skills/pdf/scripts/run.py", b"#!/usr/bin/env python3\n");
        for f in ["scripts/run.sh", "scripts/run.py"] {
            std::fs::set_permissions(
                fx.repo.join("skills/pdf").join(f),
                std::fs::Permissions::from_mode(0o755),
            )
            .expect("chmod");
        }
        let linted = fx.lint("skills/pdf", true);
        assert!(linted.findings.is_empty(), "{:?}", linted.findings);
        assert_eq!(linted.meta.name.as_deref(), Some("pdf"));
    }

    #[test]
    fn every_rule_in_one_broken_skill_with_its_place() {
        let fx = Fixture::new();
        let mut text = String::from("---\nname: Bad_Name\ndescription: \"\"\ncompatibility: ");
        text.push_str(&"c".repeat(501));
        text.push_str("\nargument-hint: \"[file]\"\nversion: 1.0.0\nallowed_tools: Read\n---\n");
        text.push_str(
            "See [missing](references/missing.md) and [up](../other/SKILL.md), run `./scripts/run.sh`.\n",
        );
        text.push_str(&"line\n".repeat(500));
        fx.write("skills/pdf/SKILL.md", text.as_bytes());
        fx.write("skills/pdf/scripts/run.sh", b"echo no shebang\n");

        let lenient = fx.lint("skills/pdf", false);
        assert_eq!(
            places(&lenient),
            vec![
                ("name-invalid", Some(2), Some(7)),
                ("description-length", Some(3), Some(14)),
                ("compatibility-length", Some(4), Some(16)),
                ("reference-missing", Some(9), Some(15)),
                ("reference-outside-skill", Some(9), Some(47)),
                ("body-length", Some(509), None),
                ("script-not-executable", None, None),
                ("script-shebang", Some(1), Some(1)),
            ]
        );
        let strict = fx.lint("skills/pdf", true);
        let unknown: Vec<_> = places(&strict)
            .into_iter()
            .filter(|(rule, ..)| *rule == "field-unknown")
            .collect();
        assert_eq!(
            unknown,
            vec![
                ("field-unknown", Some(5), Some(1)),
                ("field-unknown", Some(6), Some(1)),
                ("field-unknown", Some(7), Some(1)),
            ]
        );
        let messages: Vec<&str> = strict
            .findings
            .iter()
            .filter(|f| f.rule == "field-unknown")
            .map(|f| f.message.as_str())
            .collect();
        assert!(
            messages[0].ends_with("move it under `metadata:` or remove it"),
            "{}",
            messages[0]
        );
        assert!(
            messages[1].contains("skillgate reads `version` there too"),
            "{}",
            messages[1]
        );
        assert!(
            messages[2].ends_with("the spec spells it `allowed-tools`"),
            "{}",
            messages[2]
        );
        assert_eq!(
            lenient.meta.extra.get("argument-hint"),
            Some(&serde_json::json!("[file]")),
            "unknown fields are kept"
        );
        for finding in strict.findings.iter().chain(&lenient.findings) {
            let rule = rule_by_id(&finding.rule)
                .unwrap_or_else(|| panic!("{} is not in RULES", finding.rule));
            assert_eq!(rule.severity, finding.severity, "{}", finding.rule);
        }
    }

    #[test]
    fn empty_name_and_description_are_missing_where_they_stand() {
        let fx = Fixture::new();
        fx.write("skills/pdf/SKILL.md", b"---\nname:\ndescription: ~\n---\n");
        assert_eq!(
            places(&fx.lint("skills/pdf", false)),
            vec![
                ("name-missing", Some(2), Some(1)),
                ("description-missing", Some(3), Some(14)),
            ]
        );
        fx.write("skills/pdf/SKILL.md", b"---\nlicense: MIT\n---\n");
        assert_eq!(
            places(&fx.lint("skills/pdf", false)),
            vec![
                ("name-missing", Some(1), None),
                ("description-missing", Some(1), None)
            ]
        );
    }

    #[test]
    fn name_rules() {
        let fx = Fixture::new();
        for (name, rule) in [
            ("pdf", None),
            ("a".repeat(65).as_str(), Some("name-invalid")),
            ("-pdf", Some("name-invalid")),
            ("pdf-", Some("name-invalid")),
            ("p--df", Some("name-invalid")),
            ("PDF", Some("name-invalid")),
            ("pdf_x", Some("name-invalid")),
            ("pdfx", Some("name-mismatch")),
        ] {
            fx.write(
                "skills/pdf/SKILL.md",
                format!("---\nname: {name}\ndescription: d\n---\n").as_bytes(),
            );
            let linted = fx.lint("skills/pdf", false);
            let got: Vec<_> = places(&linted);
            match rule {
                None => assert!(got.is_empty(), "{name}: {got:?}"),
                Some(rule) => assert_eq!(got, vec![(rule, Some(2), Some(7))], "{name}"),
            }
        }
        let sixty_four = "a".repeat(64);
        fx.write(
            &format!("skills/{sixty_four}/SKILL.md"),
            format!("---\nname: {sixty_four}\ndescription: d\n---\n").as_bytes(),
        );
        assert!(
            fx.lint(&format!("skills/{sixty_four}"), false)
                .findings
                .is_empty()
        );
    }

    #[test]
    fn length_boundaries() {
        let fx = Fixture::new();
        let write = |description: usize, compatibility: usize| {
            fx.write(
                "skills/pdf/SKILL.md",
                format!(
                    "---\nname: pdf\ndescription: {}\ncompatibility: {}\n---\n",
                    "é".repeat(description),
                    "c".repeat(compatibility)
                )
                .as_bytes(),
            );
        };
        write(1024, 500);
        assert!(
            fx.lint("skills/pdf", false).findings.is_empty(),
            "characters, not bytes"
        );
        write(1025, 501);
        assert_eq!(
            places(&fx.lint("skills/pdf", false)),
            vec![
                ("description-length", Some(3), Some(14)),
                ("compatibility-length", Some(4), Some(16))
            ]
        );
    }

    #[test]
    fn broken_frontmatter_has_a_line_and_a_column() {
        let fx = Fixture::new();
        fx.write(
            "skills/pdf/SKILL.md",
            b"---\nname: pdf\ndescription: [unclosed\nlicense: MIT\n---\nbody\n",
        );
        let linted = fx.lint("skills/pdf", false);
        assert_eq!(
            places(&linted),
            vec![("frontmatter-invalid", Some(4), Some(8))]
        );
        fx.write("skills/pdf/SKILL.md", b"# no frontmatter\n");
        assert_eq!(
            places(&fx.lint("skills/pdf", false)),
            vec![("frontmatter-missing", Some(1), Some(1))]
        );
    }

    #[test]
    fn binary_and_oversized_skill_files_are_one_finding() {
        let fx = Fixture::new();
        fx.write("skills/pdf/SKILL.md", b"---\nname: pdf\xff\xfe\n---\n");
        assert_eq!(
            places(&fx.lint("skills/pdf", false)),
            vec![("skill-file-unreadable", Some(2), Some(10))]
        );
        let mut elf = b"\x7fELF\x02\x01\x01\0".to_vec();
        elf.extend(std::iter::repeat_n(0xffu8, 4096));
        fx.write("skills/pdf/SKILL.md", &elf);
        assert_eq!(
            places(&fx.lint("skills/pdf", false)),
            vec![("skill-file-unreadable", Some(1), Some(9))]
        );
        fx.write("skills/pdf/SKILL.md", &vec![b'a'; 2 << 20]);
        let linted = fx.lint("skills/pdf", false);
        assert_eq!(places(&linted), vec![("skill-file-unreadable", None, None)]);
        assert!(linted.findings[0].message.contains("byte limit"));
    }

    #[test]
    fn one_name_twice_is_a_warning_only_under_one_root() {
        let dirs = [
            skill(".claude/skills/setup"),
            skill(".claude/skills/group/setup"),
            skill("plugins/a/skills/setup"),
            skill("plugins/b/skills/setup"),
            skill("tools/setup"),
        ];
        let roots = [
            Some(".claude/skills"),
            Some(".claude/skills"),
            Some("plugins/a/skills"),
            Some("plugins/b/skills"),
            None,
        ];
        let placed: Vec<Placed<'_>> = dirs
            .iter()
            .zip(roots)
            .map(|(skill, root)| Placed {
                skill,
                root,
                name: Some("setup"),
            })
            .collect();
        let found = duplicate_names(&placed);
        let at: Vec<(&str, Severity, &str)> = found
            .iter()
            .map(|f| (f.rule.as_str(), f.severity, f.file.as_str()))
            .collect();
        assert_eq!(
            at,
            vec![
                (
                    "name-duplicate",
                    Severity::Warning,
                    ".claude/skills/setup/SKILL.md"
                ),
                (
                    "name-duplicate",
                    Severity::Warning,
                    ".claude/skills/group/setup/SKILL.md"
                ),
            ]
        );
        assert!(
            found[0]
                .message
                .starts_with("`setup` under the skill root `.claude/skills` is also the name of .claude/skills/group/setup:"),
            "{}",
            found[0].message
        );
        assert_eq!(
            rule_by_id("name-duplicate").map(|r| r.severity),
            Some(Severity::Warning)
        );
        // No name, no duplicate.
        let unnamed: Vec<Placed<'_>> = placed.iter().map(|p| Placed { name: None, ..*p }).collect();
        assert!(duplicate_names(&unnamed).is_empty());
    }

    #[test]
    fn body_of_skips_the_frontmatter_lines() {
        assert_eq!(body_of("---\na: 1\n---\nbody\n", 4), "body\n");
        assert_eq!(body_of("---\r\n---\r\n", 3), "");
        assert_eq!(body_of("x", 9), "");
    }
}

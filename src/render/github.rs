//! What GitHub shows: the check run's output and annotations, and the sticky PR comment. Pure
//! functions; GitHub's size limits are applied here, so what is posted always fits.

use serde::Serialize;

use super::escape::markdown_text as esc;
use super::markdown;
use crate::gate::{GateRun, Redacted, SkillResult};
use crate::skill::Severity;
use crate::untrusted::inert::is_bidi;

/// The marker that finds the sticky comment again.
pub const COMMENT_MARKER: &str = "<!-- skillgate:summary -->";
/// `output.summary` and `output.text` of a check run, in bytes.
pub const CHECK_TEXT_MAX_BYTES: usize = 65_535;
/// An issue or PR comment body, in characters.
pub const COMMENT_MAX_CHARS: usize = 65_536;
/// An annotation's title, in characters.
const TITLE_MAX_CHARS: usize = 255;
/// An annotation's message: GitHub allows 64 KB; a screenful is what helps.
const MESSAGE_MAX_CHARS: usize = 4_000;

/// A check run's `output`, without annotations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckOutput {
    pub title: String,
    pub summary: String,
    pub text: String,
}

/// One annotation, in the shape `checks/create` and `checks/update` take.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Annotation {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub annotation_level: &'static str,
    pub title: String,
    pub message: String,
}

/// Title, summary (headline, notes and the skills table) and text (failures and findings).
pub fn check_output(run: &GateRun, notes: &[String]) -> CheckOutput {
    // Notes first: a long table is cut at its end, never the notes.
    let mut summary = String::new();
    for note in notes {
        summary.push_str(&format!("> {}\n\n", esc(note)));
    }
    summary.push_str(&markdown::table(run));
    let details = markdown::details(run);
    let text = if details.trim().is_empty() {
        "Nothing failed and nothing was found.".to_owned()
    } else {
        details
    };
    CheckOutput {
        title: super::cells::headline(run),
        summary: trim_bytes(&summary, CHECK_TEXT_MAX_BYTES, "the job summary"),
        text: trim_bytes(&text, CHECK_TEXT_MAX_BYTES, "the job summary"),
    }
}

/// The sticky comment: the marker, the report, the notes; at most 65,536 characters.
pub fn comment(run: &GateRun, notes: &[String]) -> String {
    let mut body = format!("{COMMENT_MARKER}\n");
    for note in notes {
        body.push_str(&format!("> {}\n\n", esc(note)));
    }
    body.push_str(&markdown::markdown(run));
    trim_chars(
        &body,
        COMMENT_MAX_CHARS,
        "the check run and the job summary",
    )
}

/// Every failed test, lint finding and secret, at a file and line of the repository.
pub fn annotations(run: &GateRun) -> Vec<Annotation> {
    let mut out = Vec::new();
    for finding in &run.findings {
        // A place outside the repository is no place to annotate; the finding is in the text.
        if !safe_path(&finding.file) {
            continue;
        }
        out.push(annotation(
            finding.file.clone(),
            finding.line,
            level(finding.severity),
            format!("skillgate: {}", finding.rule),
            &finding.message,
        ));
    }
    for skill in &run.skills {
        if !safe_path(&skill_md(skill)) {
            continue;
        }
        let name = super::cells::display_name(run, skill);
        for finding in &skill.lint {
            let (path, line) = if safe_path(&finding.file) {
                (finding.file.clone(), finding.line)
            } else {
                (skill_md(skill), None)
            };
            out.push(annotation(
                path,
                line,
                level(finding.severity),
                format!("{name}: {}", finding.rule),
                &finding.message,
            ));
        }
        if let Some(analysis) = &skill.signals.analysis {
            for secret in &analysis.secrets {
                let (path, line, what) = located(secret, skill);
                out.push(annotation(
                    path,
                    line,
                    "failure",
                    format!("{name}: hardcoded secret"),
                    &format!(
                        "A hardcoded secret: {what}. Move it to a secret store and rotate it."
                    ),
                ));
            }
        }
        if let Some(tests) = &skill.tests {
            for case in &tests.failed_tests {
                let path = test_path(case.file.as_deref(), skill);
                let line = if path == skill_md(skill) {
                    None
                } else {
                    case.line.map(|l| l as usize)
                };
                let message = case.error.as_deref().unwrap_or("failed (no message)");
                out.push(annotation(
                    path,
                    line,
                    "failure",
                    format!("{name}: {} failed", case.name),
                    message,
                ));
            }
        }
    }
    out
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "failure",
        Severity::Warning => "warning",
    }
}

fn annotation(
    path: String,
    line: Option<usize>,
    level: &'static str,
    title: String,
    message: &str,
) -> Annotation {
    let line = line
        .and_then(|l| u32::try_from(l).ok())
        .filter(|&l| l > 0)
        .unwrap_or(1);
    // Each piece is redacted already; whole, a key and its value joined from two pieces are too.
    let message: String = Redacted::new(message)
        .chars()
        .filter(|&c| !is_bidi(c))
        .collect();
    Annotation {
        path,
        start_line: line,
        end_line: line,
        annotation_level: level,
        title: cut_chars(&printable(&Redacted::new(&title)), TITLE_MAX_CHARS),
        message: cut_chars(
            if message.trim().is_empty() {
                "(no message)"
            } else {
                &message
            },
            MESSAGE_MAX_CHARS,
        ),
    }
}

/// Control characters out of a one-line title, bidirectional controls (which would show it
/// reordered) dropped.
fn printable(text: &str) -> String {
    text.chars()
        .filter(|&c| !is_bidi(c))
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The skill's `SKILL.md`, relative to the repository.
fn skill_md(skill: &SkillResult) -> String {
    if skill.dir.is_empty() || skill.skill_file.contains('/') {
        skill.skill_file.clone()
    } else {
        format!("{}/{}", skill.dir.trim_end_matches('/'), skill.skill_file)
    }
}

/// `dir/file:12 rule redacted` → (`dir/file`, 12, `rule redacted`).
fn located(entry: &str, skill: &SkillResult) -> (String, Option<usize>, String) {
    if let Some((place, what)) = entry.split_once(' ')
        && let Some((path, line)) = place.rsplit_once(':')
        && let Ok(line) = line.parse::<usize>()
        && safe_path(path)
    {
        return (path.to_owned(), Some(line), what.to_owned());
    }
    (skill_md(skill), None, entry.to_owned())
}

/// Where a failed test lives, relative to the repository; the skill's `SKILL.md` when the
/// report did not say, or said something outside the skill.
fn test_path(file: Option<&str>, skill: &SkillResult) -> String {
    let Some(file) = file.map(|f| f.replace('\\', "/")) else {
        return skill_md(skill);
    };
    let dir = skill.dir.trim_end_matches('/');
    let file = file.trim_start_matches("./");
    let candidate = if file.starts_with('/') {
        // An absolute path from the runner: keep what follows the skill's directory.
        match file.find(&format!("/{dir}/")) {
            Some(at) => file[at + 1..].to_owned(),
            None => return skill_md(skill),
        }
    } else if dir.is_empty() || file.starts_with(&format!("{dir}/")) {
        file.to_owned()
    } else {
        format!("{dir}/{file}")
    };
    if safe_path(&candidate) {
        candidate
    } else {
        skill_md(skill)
    }
}

fn safe_path(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && path
            .split('/')
            .all(|part| !part.is_empty() && part != ".." && part != ".")
}

fn cut_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Keep whole lines while they fit in `max` bytes, then say what was cut and where the rest is.
pub fn trim_bytes(text: &str, max: usize, rest_in: &str) -> String {
    trim(text, max, str::len, rest_in)
}

/// Like [`trim_bytes`], counting characters.
pub fn trim_chars(text: &str, max: usize, rest_in: &str) -> String {
    trim(text, max, |s| s.chars().count(), rest_in)
}

fn trim(text: &str, max: usize, size: impl Fn(&str) -> usize, rest_in: &str) -> String {
    if size(text) <= max {
        return text.to_owned();
    }
    let total_lines = text.lines().count();
    // Room for the closing tag and the note, whatever the numbers in it.
    let reserve = 200 + size(rest_in);
    let budget = max.saturating_sub(reserve);
    let mut kept = String::new();
    let mut used = 0;
    let mut lines = 0;
    for line in text.split_inclusive('\n') {
        let n = size(line);
        if used + n > budget {
            if lines == 0 {
                // One enormous first line: keep what fits of it.
                let mut part = String::new();
                for c in line.chars() {
                    if size(&part) + c.len_utf8() > budget {
                        break;
                    }
                    part.push(c);
                }
                kept.push_str(&part);
                kept.push('\n');
            }
            break;
        }
        kept.push_str(line);
        used += n;
        lines += 1;
    }
    let open = kept.matches("<details>").count();
    let closed = kept.matches("</details>").count();
    if open > closed {
        kept.push_str("\n</details>\n");
    }
    let cut_lines = total_lines.saturating_sub(lines);
    let cut_bytes = text.len().saturating_sub(kept.len());
    kept.push_str(&format!(
        "\n**Cut here:** {cut_lines} more lines ({} KB) did not fit GitHub's limit; see {rest_in}.\n",
        cut_bytes.div_ceil(1024)
    ));
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept_as_is() {
        assert_eq!(trim_bytes("a\nb\n", 100, "x"), "a\nb\n");
    }

    #[test]
    fn long_text_is_cut_on_a_line_and_says_so() {
        let text: String = (0..10_000).map(|i| format!("| row {i} | é |\n")).collect();
        let cut = trim_bytes(&text, CHECK_TEXT_MAX_BYTES, "the job summary");
        assert!(cut.len() <= CHECK_TEXT_MAX_BYTES, "{}", cut.len());
        assert!(cut.contains("| row 0 | é |\n"));
        assert!(cut.contains("more lines ("));
        assert!(cut.ends_with("see the job summary.\n"));
        // Every kept row is whole.
        for line in cut.lines().filter(|l| l.starts_with("| row")) {
            assert!(line.ends_with("| é |"), "{line}");
        }
    }

    #[test]
    fn a_single_huge_line_is_cut_on_a_character_boundary() {
        let text = "é".repeat(100_000);
        let cut = trim_bytes(&text, 1000, "x");
        assert!(cut.len() <= 1000);
        assert!(cut.starts_with("éé"));
    }

    #[test]
    fn an_open_details_block_is_closed() {
        let text = format!("<details><summary>x</summary>\n{}", "- line\n".repeat(5000));
        let cut = trim_chars(&text, 2000, "x");
        assert!(cut.chars().count() <= 2000);
        assert!(cut.contains("</details>"));
    }

    /// Random mixes of ASCII, multi-byte characters, newlines and `<details>` tags, cut at
    /// random limits: never over the limit, never a panic, and every kept line whole.
    #[test]
    fn random_text_is_cut_within_the_limit() {
        let pieces = [
            "a",
            "é",
            "日本",
            "🦀",
            "\n",
            "| x |",
            "<details>",
            "</details>",
            "\n\n",
            " ",
        ];
        let mut seed: u64 = 7;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize % n
        };
        for _ in 0..2_000 {
            let text: String = (0..next(400)).map(|_| pieces[next(pieces.len())]).collect();
            let max = 250 + next(600);
            let bytes = trim_bytes(&text, max, "x");
            assert!(bytes.len() <= max, "{} > {max}", bytes.len());
            let chars = trim_chars(&text, max, "x");
            assert!(chars.chars().count() <= max);
            if text.len() > max {
                assert!(bytes.contains("**Cut here:**"));
                // What was kept before the note is a prefix of the text, line by line.
                let kept = bytes.split("\n**Cut here:**").next().unwrap_or_default();
                let kept = kept.trim_end_matches("\n</details>\n");
                for line in kept.lines().filter(|l| !l.is_empty()) {
                    assert!(text.contains(line), "{line:?} is not from the text");
                }
            } else {
                assert_eq!(bytes, text);
            }
        }
    }

    #[test]
    fn titles_are_cut_to_255_characters() {
        let long = "ü".repeat(400);
        assert_eq!(cut_chars(&long, 255).chars().count(), 255);
        assert_eq!(cut_chars("short", 255), "short");
    }

    #[test]
    fn safe_paths_stay_in_the_repository() {
        assert!(safe_path("skills/a/test.py"));
        for bad in ["", "/etc/passwd", "a/../b", "a//b", "./a"] {
            assert!(!safe_path(bad), "{bad}");
        }
    }
}

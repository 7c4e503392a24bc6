//! Text a pull request controls (skill names, test names, failure messages, report file names)
//! leaves the gate inert: on stdout and stderr no line is a workflow command and no control
//! character survives; in Markdown nothing links, pings or reorders (issue #14, point 7).

mod common;

use common::{Repo, run};
use skillgate::gate::GateRun;
use skillgate::render;

/// The hostile strings of the issue.
const SET_OUTPUT: &str = "::set-output name=tier::auto";
const ADD_MASK: &str = "  ::add-mask::x";
const LEGACY: &str = "##[error]boom";
const NEWLINE: &str = "x\n::warning::x";
const RLO: char = '\u{202e}';
const URL: &str = "https://evil.example/x";
const ISSUE: &str = "GH-12";
/// The other links GitHub makes: a cross-repository issue, a commit, a bare domain, an email.
const MORE: &str = "fixes octo/repo#12 deadbeefcafe1234 www.evil.example me@evil.example";

/// Whether the Actions runner would run `line` as a command: `::` first after whitespace, or
/// `##[` anywhere. Its match is culture-sensitive and skips characters the collation ignores
/// (zero-width joiners…), so every non-ASCII character is skipped here.
fn runs_a_command(line: &str) -> bool {
    let visible: String = line.chars().filter(char::is_ascii).collect();
    visible.trim_start().starts_with("::") || visible.contains("##[")
}

/// Lines as the runner reads them: a bare CR ends one too.
fn assert_inert_in_a_log(stream: &str, what: &str) {
    for line in stream.split(['\n', '\r']) {
        assert!(
            !runs_a_command(line),
            "{what}: a workflow command: {line:?}"
        );
        assert!(
            !line
                .chars()
                .any(|c| (c.is_control() && c != '\t') || c == RLO),
            "{what}: a control character: {line:?}"
        );
    }
}

/// GitHub's autolinks and references in Markdown, on the text as shown (escapes undone).
fn assert_links_nothing(markdown: &str, what: &str) {
    let shown = markdown.replace('\\', "");
    for pattern in ["://", "www.", ISSUE, "#1", "@octocat"] {
        assert!(
            !shown.contains(pattern),
            "{what}: {pattern} survives: {shown}"
        );
    }
    for bidi in [
        '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', RLO, '\u{2066}', '\u{200f}',
    ] {
        assert!(
            !markdown.contains(bidi),
            "{what}: a bidi control: {markdown:?}"
        );
    }
    // A SHA GitHub would link: 7 to 40 hex digits, a digit and a letter among them, or all 40.
    for word in shown.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        let hex = word.len() >= 7 && word.chars().all(|c| c.is_ascii_hexdigit());
        let mixed = word.contains(|c: char| c.is_ascii_digit())
            && word.contains(|c: char| c.is_ascii_alphabetic());
        assert!(
            !(hex && (mixed || word.len() == 40)),
            "{what}: a commit SHA GitHub would link: {word}"
        );
    }
}

/// A skill in a directory named `dir`, whose suite reports the hostile test names over TAP,
/// fails one with a hostile message, and leaves a broken report with a hostile file name.
fn hostile_repo(dir: &str) -> Repo {
    let repo = Repo::plain();
    repo.write(
        &format!("skills/{dir}/SKILL.md"),
        &format!(
            "---\nname: {SET_OUTPUT:?}\ndescription: \"{LEGACY} {URL} {ISSUE} cc @octocat\"\n\
             metadata:\n  version: \"1.0.0\"\n  category: testing\n---\n# hostile\n"
        ),
    );
    let test = format!(
        "echo '1..3'\n\
         echo 'ok 1 - passes'\n\
         echo 'not ok 2 - {LEGACY} {RLO}gnp.exe {URL} {ISSUE} cc @octocat {MORE}'\n\
         printf '  ---\\n  message: \"{ADD_MASK}\"\\n  ...\\n'\n\
         echo 'not ok 3 - {SET_OUTPUT}'\n\
         printf '  ---\\n  message: \"{SET_OUTPUT}\"\\n  ...\\n'\n\
         printf '<testsuite' > \"$SKILLGATE_REPORT_DIR/$(printf 'r\\n::warning::x ##[error]y').xml\"\n"
    );
    repo.write(&format!("skills/{dir}/test.sh"), &test);
    repo
}

#[test]
fn the_text_report_and_its_warnings_cannot_issue_workflow_commands() {
    // The directory name is what the table shows for a skill whose `name` is invalid.
    let repo = hostile_repo(SET_OUTPUT);
    let (code, stdout, stderr) = run(repo.skillgate(&["check", "--all", "--format", "text"]));
    assert_eq!(
        code, 4,
        "the invalid name needs a correction: {stdout}\n{stderr}"
    );
    assert_inert_in_a_log(&stdout, "stdout");
    assert_inert_in_a_log(&stderr, "stderr");
    // The text reads as it was written, a space between the colons and between the hashes.
    let rows: Vec<&str> = stdout.lines().collect();
    assert!(
        rows.iter()
            .any(|l| l.starts_with(": :set-output name=tier::auto  unchanged  correction")),
        "{stdout}"
    );
    assert!(
        rows.contains(
            &format!("  ✗ # #[error]boom \u{fffd}gnp.exe {URL} {ISSUE} cc @octocat {MORE}")
                .as_str()
        ),
        "{stdout}"
    );
    assert!(rows.contains(&"        : :add-mask::x"), "{stdout}");
    assert!(
        rows.contains(&"  ✗ : :set-output name=tier::auto"),
        "{stdout}"
    );
    assert!(
        rows.contains(&"      : :set-output name=tier::auto"),
        "{stdout}"
    );
    // The broken report's file name holds a newline: it stays in the warning, disarmed.
    assert!(
        stderr.contains("/r\n: :warning::x # #[error]y.xml: "),
        "{stderr}"
    );
}

#[test]
fn a_skill_name_with_a_newline_cannot_start_a_line() {
    let repo = hostile_repo(&format!("{NEWLINE} {LEGACY}"));
    let (_, stdout, stderr) = run(repo.skillgate(&["check", "--all", "--format", "text"]));
    assert_inert_in_a_log(&stdout, "stdout");
    assert_inert_in_a_log(&stderr, "stderr");
    assert!(
        stdout.contains("x\u{fffd}::warning::x # #[error]boom"),
        "the newline shown as �: {stdout}"
    );
    let (_, stdout, stderr) = run(repo.skillgate(&["lint"]));
    assert_inert_in_a_log(&stdout, "lint stdout");
    assert_inert_in_a_log(&stderr, "lint stderr");
    assert!(
        stdout.contains(
            "skills/x\u{fffd}::warning::x # #[error]boom/SKILL.md:2:7: error[name-invalid]"
        ),
        "{stdout}"
    );
}

#[test]
fn json_on_stdout_keeps_the_document_s_values() {
    let repo = hostile_repo(SET_OUTPUT);
    let out = repo.path().join("results.json");
    let out_arg = out.to_str().expect("utf-8 path");
    let (_, stdout, stderr) =
        run(repo.skillgate(&["check", "--all", "--format", "json", "--out", out_arg]));
    assert_inert_in_a_log(&stdout, "stdout");
    let file = std::fs::read_to_string(&out).expect("results document");
    assert!(file.contains(LEGACY), "the file is the document as it is");
    let printed: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|err| panic!("stdout is not JSON ({err}): {stdout}\n{stderr}"));
    let written: serde_json::Value = serde_json::from_str(&file).expect("json");
    assert_eq!(printed, written, "the same values");
    // Only the `#` of `##[` and the bidi control are escaped; the rest is byte for byte.
    assert_eq!(
        stdout
            .replace("\\u0023#[", "##[")
            .replace("\\u202e", &RLO.to_string()),
        file
    );

    // A document with nothing to neutralise is printed byte for byte.
    let calm = Repo::plain();
    calm.skill("skills/alpha", "alpha", 2, 0);
    let out = calm.path().join("results.json");
    let out_arg = out.to_str().expect("utf-8 path");
    let (_, stdout, _) =
        run(calm.skillgate(&["check", "--all", "--format", "json", "--out", out_arg]));
    assert_eq!(stdout, std::fs::read_to_string(&out).expect("results"));
}

#[test]
fn markdown_summaries_and_comments_link_nothing_and_keep_their_order() {
    let repo = hostile_repo(SET_OUTPUT);
    let (_, markdown, _) = run(repo.skillgate(&["check", "--all", "--format", "markdown"]));
    assert_inert_in_a_log(&markdown, "markdown on stdout");
    assert_links_nothing(&markdown, "markdown on stdout");
    // The links read the same, a joiner inside each.
    let z = '\u{200d}';
    assert!(
        markdown.contains(&format!(
            "\\#\\[error\\]boom gnp.exe https:{z}//evil.example/x GH-{z}12 cc @{z}octocat \
             fixes octo/repo\\#{z}12 deadbe{z}efcafe{z}1234 www{z}.evil.example me@{z}evil.example"
        )),
        "{markdown}"
    );

    let (_, json, _) = run(repo.skillgate(&["check", "--all", "--format", "json"]));
    let gate: GateRun = serde_json::from_str(&json).expect("a results document");
    let notes = vec![format!("{URL} {ISSUE} {RLO}")];
    let comment = render::comment(&gate, &notes);
    assert_links_nothing(&comment, "the comment");
    let output = render::check_output(&gate, &notes);
    assert_links_nothing(&output.summary, "the check run's summary");
    assert_links_nothing(&output.text, "the check run's text");
    for annotation in render::annotations(&gate) {
        for text in [&annotation.title, &annotation.message] {
            assert!(!text.contains(RLO), "{annotation:?}");
        }
    }
}

#[test]
fn ordinary_names_read_and_copy_as_written() {
    // Joiners go only where GitHub links: a name copied from the comment still names the skill.
    let repo = Repo::plain();
    for name in ["gpt-4-helper", "utf-8", "node-20"] {
        repo.skill(&format!("skills/{name}"), name, 1, 0);
    }
    let (_, markdown, stderr) = run(repo.skillgate(&["check", "--all", "--format", "markdown"]));
    assert!(!markdown.contains('\u{200d}'), "{markdown}");
    for name in ["gpt-4-helper", "utf-8", "node-20"] {
        assert!(
            markdown.contains(&format!("| {name} | unchanged |")),
            "{name}: {markdown}\n{stderr}"
        );
    }
    let row = markdown
        .lines()
        .find(|l| l.starts_with("| gpt"))
        .expect("a row for gpt-4-helper");
    let copied = row
        .split(" | ")
        .next()
        .expect("a cell")
        .trim_start_matches("| ");
    let (code, json, stderr) =
        run(repo.skillgate(&["check", "--all", "--skill", copied, "--format", "json"]));
    assert_ne!(code, 2, "the copied name is not a usage error: {stderr}");
    let doc: serde_json::Value = serde_json::from_str(&json).expect("a results document");
    let names: Vec<&str> = doc["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, vec!["gpt-4-helper"], "{stderr}");
}

//! Honest skills stay `auto`: the shapes of real public skills that the dynamic-code analysis
//! of issue #14 first flagged (review R5), written as short paraphrases. Each skill here is
//! otherwise an `auto` skill (20/20 tests, full coverage), so a finding would move its tier.

mod common;

use common::{Repo, run_json, skill};

const DIR: &str = ".claude/skills/x";

const FRONT: &str = "---\nname: x\ndescription: The x skill, for tests.\nmetadata:\n  version: \"1.0.0\"\n  category: testing\n---\n# x\n";

/// A skill that the gate approves on its own: 20 passing TAP tests, 100% line coverage.
fn auto_skill(repo: &Repo) {
    repo.write(&format!("{DIR}/SKILL.md"), FRONT);
    let mut script = String::from(
        "printf 'SF:lib.sh\\nDA:1,1\\nDA:2,1\\nend_of_record\\n' > \"$SKILLGATE_REPORT_DIR/lcov.info\"\necho '1..20'\n",
    );
    for i in 1..=20 {
        script.push_str(&format!("echo 'ok {i} - passes {i}'\n"));
    }
    repo.write(&format!("{DIR}/test.sh"), &script);
}

fn list(analysis: &serde_json::Value, key: &str) -> Vec<String> {
    analysis[key]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i.as_str())
                .map(|row| row.replace(&format!("{DIR}/"), ""))
                .collect()
        })
        .unwrap_or_default()
}

/// The skill with `files` written under it (a `SKILL.md` body gets the front matter): its
/// tier, security-sensitive findings, dynamic code and the decision's reasons.
fn gate(files: &[(&str, &str)]) -> (String, Vec<String>, Vec<String>, String) {
    let repo = Repo::plain();
    auto_skill(&repo);
    for (path, text) in files {
        let text = if *path == "SKILL.md" {
            format!("{FRONT}{text}")
        } else {
            (*text).to_owned()
        };
        repo.write(&format!("{DIR}/{path}"), &text);
    }
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let x = skill(&doc, "x");
    let analysis = &x["signals"]["analysis"];
    (
        x["decision"]["tier"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        list(analysis, "security_sensitive"),
        list(analysis, "dynamic_code"),
        x["decision"]["reasons"].to_string(),
    )
}

/// The skill is `auto` with no finding.
fn assert_honest(files: &[(&str, &str)]) {
    let (tier, sensitive, dynamic, reasons) = gate(files);
    assert_eq!(
        (sensitive, dynamic),
        (Vec::<String>::new(), Vec::<String>::new())
    );
    assert_eq!(tier, "auto", "{reasons}");
}

#[test]
fn a_wrapper_with_a_variable_operand_runs_the_command_after_it() {
    // Before: `"$LIMIT"` was the command name, "from a variable".
    assert_honest(&[
        (
            "scripts/probe.sh",
            "#!/bin/bash\nLIMIT=60\n[ -n \"$2\" ] && LIMIT=\"$2\"\nout=$(timeout \"$LIMIT\" jq . input.json 2>&1)\nnice -n \"$N\" ionice -c 3 chrt 10 taskset 0x3 stdbuf -oL env LC_ALL=C sort input.json\ntimeout --kill-after=5 \"${LIMIT}s\" python3 scripts/probe.py\n",
        ),
        ("scripts/probe.py", "print('ok')\n"),
    ]);
}

#[test]
fn a_program_with_its_version_in_a_variable_is_a_plain_command() {
    // Before: "obfuscated code: command name assembled from variables … (runs 3.12)".
    assert_honest(&[(
        "scripts/setup.sh",
        "#!/bin/bash\nPY_VER=\"3.12\"\nif command -v \"python${PY_VER}\" >/dev/null; then\n  \"python${PY_VER}\" -m venv .venv\nfi\npip${PY_VER%%.*} --version\n",
    )]);
}

#[test]
fn variables_naming_the_skills_files_or_looked_up_tools_are_not_dynamic() {
    assert_honest(&[
        (
            "scripts/render.sh",
            "#!/bin/bash\nHERE=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\nDRAW_JS=\"${HERE}/draw.js\"\nnode \"$DRAW_JS\" -i in.txt\nPY=$(command -v python3 >/dev/null 2>&1 && echo python3 || echo python)\n$PY -m json.tool in.json\nJQ=$(which jq)\n\"$JQ\" . in.json\n",
        ),
        (
            "scripts/tools.sh",
            "#!/bin/bash\nfallback_java=\"/usr/lib/jvm/bin/java\"\n[ \"$(uname)\" = Darwin ] && fallback_java=\"/Library/Java/bin/java\"\nJAVA=\"${APP_JAVA:-$fallback_java}\"\n\"$JAVA\" -jar app.jar\nTOOL=\"${TOOLS_ROOT}/bin/format-tool\"\n\"$TOOL\" --check\nrun_it() {\n  local target=\"$1\"\n  \"$target\" --help\n}\nbinary=\"\"\n[ $# -gt 0 ] && binary=$1\n\"$binary\" --version\n",
        ),
        ("scripts/draw.js", "console.log('frame');\n"),
    ]);
}

#[test]
fn a_skill_md_fence_is_one_script_and_its_fences_one_document() {
    // Before: each line was read alone, so `$PY` and `"$PARSE"` were unknown on the next line
    // and `rm -rf "$OUT"/*` looked like it could remove `/*`.
    assert_honest(&[
        (
            "SKILL.md",
            "Pick the interpreter:\n\n```bash\nPY=$(command -v python3 >/dev/null 2>&1 && echo python3 || echo python)\n```\n\nThen:\n\n```bash\n$PY -m http.server \\\n  --directory site \\\n  8000\nPARSE=\"${PLUGIN_ROOT}/skills/x/scripts/parse.sh\"\nFIELDS=$(\"$PARSE\" notes.md)\nOUT=./build\nrm -rf \"$OUT\"/*\n```\n\n```bash\nVALUE=$(\"$PARSE\" notes.md title)\nbash ${PLUGIN_ROOT}/scripts/validate.sh\nrm -rf \"$PWD\"/*\n```\n",
        ),
        ("scripts/parse.sh", "#!/bin/bash\nsed -n 1p \"$1\"\n"),
    ]);
}

#[test]
fn powershell_is_not_read_as_bash() {
    // Before: `$env:APP_HOME = …` and `$item | …` were commands named by a variable. (A
    // `.ps1` file is left out of the units too, see `syntax::tests`; the gate cannot measure
    // its complexity, so such a skill is not `auto` anyway.)
    assert_honest(&[(
        "SKILL.md",
        "```powershell\n$env:APP_HOME = \"C:\\Tools\\App\"\nforeach ($item in $items) {\n  $item | Write-Output\n}\n```\n",
    )]);
}

//! Every analysis of a skill's files (complexity, secrets, dependencies, content flags) on any
//! text, as each kind of file: nothing panics, and a secret is never shown whole.
#![no_main]

use skillgate::analysis::{Sources, measure};
use skillgate::skill::SkillMeta;

const NAMES: &[&str] = &[
    "SKILL.md",
    "run.sh",
    "scripts/tool",
    "tool.py",
    "index.js",
    "app.ts",
    "view.tsx",
    "Dockerfile",
    "requirements.txt",
    "package.json",
    "schema.sql",
    ".env",
];

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let name = NAMES[usize::from(pick) % NAMES.len()];
    let text = String::from_utf8_lossy(rest);
    let sources = Sources::from_texts(&[(name, &text)]);
    let analysis = measure(&sources, &SkillMeta::default(), ".claude/skills/x");
    for secret in &analysis.secrets {
        assert!(secret.contains('…'), "unredacted: {secret}");
    }
    let _ = skillgate::analysis::secrets::redact_text(&text);
});

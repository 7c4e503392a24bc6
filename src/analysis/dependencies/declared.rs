//! The dependencies a skill declares: the frontmatter's `dependencies` (a list, a
//! comma-separated string or a mapping of names), at the top level or in `metadata`.

use std::collections::HashSet;

use super::normalise;
use crate::analysis::Sources;
use crate::analysis::evidence::Evidence;
use crate::analysis::{code_lines, paths};
use crate::skill::SkillMeta;

/// The frontmatter's `dependencies`, top level first, then `metadata`, each at the line of
/// its key in `SKILL.md`.
pub(super) fn declared(sources: &Sources, meta: &SkillMeta) -> Vec<Evidence> {
    let mut names = Vec::new();
    match meta.extra.get("dependencies") {
        Some(serde_json::Value::Array(items)) => {
            for item in items {
                match item {
                    serde_json::Value::String(s) => names.push(s.clone()),
                    serde_json::Value::Number(n) => names.push(n.to_string()),
                    serde_json::Value::Object(map) => names.extend(map.keys().cloned()),
                    _ => {}
                }
            }
        }
        Some(serde_json::Value::Object(map)) => names.extend(map.keys().cloned()),
        Some(serde_json::Value::String(s)) => names.extend(split_list(s)),
        _ => {}
    }
    if let Some(s) = meta.metadata.get("dependencies") {
        names.extend(split_list(s));
    }
    let skill = sources.files.iter().find(|s| paths::is_skill_file(&s.path));
    let (file, line) = match skill {
        Some(skill) => (
            skill.path.as_str(),
            code_lines::frontmatter_line(&skill.text, &["dependencies"]).unwrap_or(1),
        ),
        None => ("SKILL.md", 1),
    };
    let mut seen = HashSet::new();
    names
        .into_iter()
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty() && seen.insert(normalise(n)))
        .map(|n| Evidence::new(n, file, line))
        .collect()
}

/// `a, b c` → `a`, `b`, `c`: the way `SkillMeta` reads lists written as one string.
fn split_list(s: &str) -> Vec<String> {
    s.split([',', ' '])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::dependencies::{test_inputs::*, *};

    #[test]
    fn a_declared_tool_counts_once_as_declared() {
        let deps = Dependencies {
            tools: vec![ev("curl", "run.sh", 2)],
            declared: vec![ev("curl", "SKILL.md", 4)],
            ..Dependencies::default()
        };
        assert_eq!(deps.counted(), ["declared: curl (SKILL.md:4)"]);
        assert_eq!(deps.count(), 1);
        let undeclared = Dependencies {
            declared: Vec::new(),
            ..deps
        };
        assert_eq!(
            undeclared.counted(),
            ["endpoint not named: curl (run.sh:2)"]
        );
    }

    #[test]
    fn declared_dependencies_count_unless_already_found() {
        let skill = "---\nname: x\ndescription: y\ndependencies: [requests, slack-api, Slack_API, api.stripe.com, notion-client]\n---\n";
        let (meta, findings) = crate::skill::read_meta(skill, "skills/x/SKILL.md", "x");
        assert!(findings.is_empty(), "{findings:?}");
        let sources = Sources::from_texts(&[
            ("SKILL.md", skill),
            ("requirements.txt", "requests==2.32\n"),
            (
                "pay.py",
                "import requests\nfrom notion_client import Client\nrequests.post('https://api.stripe.com/v1/x')\n",
            ),
        ]);
        let deps = analyze(&sources, &meta);
        let names: Vec<&str> = deps.declared.iter().map(|d| d.what.as_str()).collect();
        assert_eq!(
            names,
            ["requests", "slack-api", "api.stripe.com", "notion-client"]
        );
        assert_eq!(
            deps.counted(),
            [
                "notion (notion_client, pay.py:2)",
                "stripe (api.stripe.com, pay.py:3)",
                "packages: requests (requirements.txt:1)",
                "declared: slack-api (SKILL.md:4)",
            ]
        );
        let mut meta = SkillMeta::default();
        meta.metadata
            .insert("dependencies".to_owned(), "jq, yq".to_owned());
        let none = Sources::default();
        let names = |meta: &SkillMeta| -> Vec<String> {
            declared(&none, meta).into_iter().map(|d| d.what).collect()
        };
        assert_eq!(names(&meta), ["jq", "yq"]);
        meta.extra.insert(
            "dependencies".to_owned(),
            serde_json::json!({"redis": ">=7", "postgres": "16"}),
        );
        assert_eq!(names(&meta), ["postgres", "redis", "jq", "yq"]);
    }
}

//! Every analysis of one skill, gathered into the [`Analysis`] signal the policy reads: each
//! finding as `what (file:line)`, with paths relative to the repository.

use super::dynamic::{self, Kind};
use super::secrets::redact_text;
use super::sensitive::{Concern, Flag};
use super::{
    Sources, complexity, database, dependencies, generated, infrastructure, secrets, sensitive,
};
use crate::signals::{Analysis, ComplexitySignal};
use crate::skill::SkillMeta;

/// Measure the skill whose files are `sources`; `dir` is the skill directory relative to the
/// repository, prefixed to every path shown.
pub fn measure(sources: &Sources, meta: &SkillMeta, dir: &str) -> Analysis {
    // Relative to the repository; a file above the skill (the repository's `.gitmodules`) is
    // written `../../.gitmodules` relative to it and shown at its own place.
    let at = |file: &str, line: u32| {
        let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
        for part in file.split('/') {
            if part == ".." {
                parts.pop();
            } else {
                parts.push(part);
            }
        }
        format!("{}:{line}", parts.join("/"))
    };
    let deps = dependencies::analyze(sources, meta);
    let mut listed = deps.counted_at(&at);
    let mut sensitive = sensitive::analyze(sources);
    let dynamic = dynamic::analyze(sources);
    // Hidden, downloaded or destructive code is security-sensitive; the rest is dynamic code.
    for finding in &dynamic.found {
        let concern = match finding.kind {
            Kind::Dynamic => continue,
            Kind::Obfuscated => Concern::Obfuscation,
            Kind::RemoteCode => Concern::RemoteCode,
            Kind::Destructive => Concern::Destructive,
        };
        let flag = Flag {
            concern,
            evidence: finding.evidence.clone(),
        };
        if !sensitive.found.contains(&flag) {
            sensitive.found.push(flag);
        }
    }
    sensitive.found.sort_by(|a, b| {
        (&a.evidence.file, a.evidence.line).cmp(&(&b.evidence.file, b.evidence.line))
    });
    // A submodule is code from elsewhere: an external dependency, counted with its URL.
    let submodules: Vec<String> = sources
        .submodules
        .iter()
        .map(|e| format!("{} ({})", e.what, at(&e.file, e.line)))
        .collect();
    listed.extend(submodules.iter().cloned());
    let generated = generated::analyze(sources, meta);
    let found_secrets = secrets::scan(sources);
    let measured = complexity::measure(sources);
    let mut skipped = sources.skipped.clone();
    skipped.extend(measured.skipped.iter().cloned());
    // Code in a language no parser here reads: its complexity is unknown, and a reviewer
    // should know that rather than see "simple".
    for source in &sources.files {
        let code = super::sources::is_code_path(&source.path) || source.shebang().is_some();
        let parsed = complexity::Language::detect(source).is_some();
        if code && !parsed && source.extension() != "sql" {
            skipped.push(format!(
                "{}: complexity not measured (no parser for this language)",
                source.path
            ));
        }
    }
    redacted(Analysis {
        // Not measured when the skill has no code in a language the gate parses.
        complexity: (measured.function_count > 0).then(|| ComplexitySignal {
            max: measured.max,
            total: measured.total,
            at: measured
                .functions
                .first()
                .map(|f| format!("{} {}", at(&f.file, f.line), f.name)),
        }),
        dependency_count: u32::try_from(listed.len()).unwrap_or(u32::MAX),
        dependencies: listed,
        secrets: found_secrets
            .iter()
            .filter(|f| f.example.is_none())
            .map(|f| format!("{} {} {}", at(&f.file, f.line), f.rule, f.redacted))
            .collect(),
        secret_warnings: found_secrets
            .iter()
            .filter_map(|f| {
                let why = f.example?;
                Some(format!(
                    "{} {} {} ({why})",
                    at(&f.file, f.line),
                    f.rule,
                    f.redacted
                ))
            })
            .collect(),
        security_sensitive: sensitive
            .found
            .iter()
            .map(|f| {
                format!(
                    "{}: {} ({})",
                    f.concern.as_str(),
                    f.evidence.what,
                    at(&f.evidence.file, f.evidence.line)
                )
            })
            .collect(),
        infrastructure: infrastructure::analyze(sources, meta)
            .found
            .iter()
            .map(|e| format!("{} ({})", e.what, at(&e.file, e.line)))
            .collect(),
        database_writes: database::analyze(sources)
            .found
            .iter()
            .map(|e| format!("{} ({})", e.what, at(&e.file, e.line)))
            .collect(),
        dynamic_code: dynamic
            .of(Kind::Dynamic)
            .map(|e| format!("{} ({})", e.what, at(&e.file, e.line)))
            .collect(),
        submodules,
        generated: generated.reason(),
        // Each note is `path: why`, the path relative to the skill.
        skipped: skipped
            .into_iter()
            .map(|note| {
                if dir.is_empty() {
                    note
                } else {
                    format!("{dir}/{note}")
                }
            })
            .collect(),
    })
}

/// Every piece of evidence with the secrets in it redacted: evidence quotes the skill
/// (`allowed-tools grants Bash(curl -H "Authorization: Bearer …")`).
fn redacted(mut analysis: Analysis) -> Analysis {
    for list in [
        &mut analysis.dependencies,
        &mut analysis.security_sensitive,
        &mut analysis.infrastructure,
        &mut analysis.database_writes,
        &mut analysis.dynamic_code,
        &mut analysis.submodules,
        &mut analysis.skipped,
    ] {
        for item in list.iter_mut() {
            *item = redact_text(item);
        }
    }
    if let Some(complexity) = &mut analysis.complexity {
        complexity.at = complexity.at.as_deref().map(redact_text);
    }
    analysis.generated = analysis.generated.as_deref().map(redact_text);
    analysis
}

#[cfg(test)]
mod tests {
    #[test]
    fn random_text_in_every_kind_of_file_never_panics() {
        use crate::analysis::{
            Sources, database, dependencies, generated, infrastructure, sensitive,
        };
        let pieces = [
            "curl",
            " ",
            "|",
            "sh",
            "$(",
            ")",
            "\"",
            "'",
            "`",
            "https://",
            "é",
            "«",
            "://",
            "@",
            ":",
            "/",
            ".",
            "io",
            "{",
            "}",
            "<",
            ">",
            "%",
            "*",
            "#",
            "//",
            "--",
            "/*",
            "*/",
            "\n",
            "INSERT",
            "INTO",
            "UPDATE",
            "SET",
            "CREATE",
            "TABLE",
            "sudo",
            "chmod",
            "777",
            "eval",
            "-c",
            "run: |",
            "  ",
            "- ",
            "```bash",
            "```",
            "---",
            "import ",
            "from ",
            "require(",
            "exec(",
            "subprocess.run([",
            "$GITHUB_TOKEN",
            "${{ secrets.",
            "apiVersion:",
            "kind:",
            "\u{fffd}",
            "日本",
            "\t",
            "=",
            ";",
            "&&",
            "\\",
        ];
        let mut seed: u64 = 0x5eed;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            usize::try_from(seed >> 33).unwrap_or(0) % n
        };
        let names = [
            "SKILL.md",
            "a.sh",
            "b.py",
            "c.js",
            "d.sql",
            "e.yaml",
            "f.go",
            "g.rb",
            "h.rs",
            "Dockerfile",
            "package.json",
            "requirements.txt",
            "go.mod",
            "x.tf",
            ".github/workflows/w.yml",
        ];
        for _ in 0..60 {
            let texts: Vec<String> = names
                .iter()
                .map(|_| (0..400).map(|_| pieces[next(pieces.len())]).collect())
                .collect();
            let files: Vec<(&str, &str)> = names
                .iter()
                .copied()
                .zip(texts.iter().map(String::as_str))
                .collect();
            let sources = Sources::from_texts(&files);
            let meta = crate::skill::SkillMeta {
                allowed_tools: vec![texts[0].chars().take(20).collect()],
                ..Default::default()
            };
            let deps = dependencies::analyze(&sources, &meta);
            let _ = (deps.count(), deps.reason());
            let _ = sensitive::analyze(&sources).reason();
            let _ = infrastructure::analyze(&sources, &meta).reason();
            let _ = database::analyze(&sources).reason();
            let _ = generated::analyze(&sources, &meta).reason();
        }
    }
}

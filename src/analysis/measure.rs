//! Every analysis of one skill, gathered into the [`Analysis`] signal the policy reads: each
//! finding as `what (file:line)`, with paths relative to the repository.

use super::{
    Sources, complexity, database, dependencies, generated, infrastructure, secrets, sensitive,
};
use crate::signals::Analysis;
use crate::signals::ComplexitySignal;
use crate::skill::SkillMeta;

/// Measure the skill whose files are `sources`; `dir` is the skill directory relative to the
/// repository, prefixed to every path shown.
pub fn measure(sources: &Sources, meta: &SkillMeta, dir: &str) -> Analysis {
    let at = |file: &str, line: u32| {
        if dir.is_empty() {
            format!("{file}:{line}")
        } else {
            format!("{dir}/{file}:{line}")
        }
    };
    let deps = dependencies::analyze(sources, meta);
    let mut listed: Vec<String> = deps.endpoints.iter().map(|e| e.what.clone()).collect();
    for tool in &deps.tools {
        if !listed.contains(&tool.what) {
            listed.push(tool.what.clone());
        }
    }
    for manifest in &deps.manifests {
        listed.push(format!(
            "{} ({})",
            manifest.file,
            manifest.packages.join(", ")
        ));
    }
    for name in &deps.declared {
        if !listed.contains(name) {
            listed.push(name.clone());
        }
    }
    let sensitive = sensitive::analyze(sources);
    let generated = generated::analyze(sources, meta);
    let measured = complexity::measure(sources);
    let mut skipped = sources.skipped.clone();
    skipped.extend(measured.skipped.iter().cloned());
    Analysis {
        // Not measured when the skill has no code in a language the gate parses.
        complexity: (measured.function_count > 0).then(|| ComplexitySignal {
            max: measured.max,
            total: measured.total,
            at: measured
                .functions
                .first()
                .map(|f| format!("{} {}", at(&f.file, f.line), f.name)),
        }),
        dependency_count: u32::try_from(deps.count()).unwrap_or(u32::MAX),
        dependencies: listed,
        secrets: secrets::scan(sources)
            .iter()
            .map(|f| format!("{} {} {}", at(&f.file, f.line), f.rule, f.redacted))
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
        generated: generated.reason(),
        skipped,
    }
}

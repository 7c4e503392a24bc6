//! Fixture skills under `tests/fixtures/analysis/`, read as the gate reads them.

use std::path::{Path, PathBuf};

use crate::analysis::Sources;
use crate::skill::{SkillMeta, read_meta};

/// The sources and frontmatter of fixture skill `name`.
pub(crate) fn skill(name: &str) -> (Sources, SkillMeta) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/analysis")
        .join(name)
        .canonicalize()
        .expect("fixture");
    let mut files = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for entry in std::fs::read_dir(dir.join(&rel)).expect("read_dir") {
            let entry = entry.expect("entry");
            let child = rel.join(entry.file_name());
            if entry.file_type().expect("type").is_dir() {
                stack.push(child);
            } else {
                files.push(child.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    files.sort();
    let sources = Sources::read(&dir, &dir, &files);
    assert_eq!(sources.skipped, Vec::<String>::new());
    let text = std::fs::read_to_string(dir.join("SKILL.md")).expect("SKILL.md");
    let (meta, findings) = read_meta(&text, "SKILL.md", name);
    assert!(findings.is_empty(), "{findings:?}");
    (sources, meta)
}

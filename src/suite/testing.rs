//! What the suite tests share: a skill in a temporary directory, a fake machine, and the
//! checks on what resolution returned.

use std::path::Path;

use super::host::{Host, PYTHON_MODULES};
use super::resolve::{Resolution, Suite, resolve_on};
use crate::skill::SkillMeta;

pub(super) fn setup(files: &[(&str, &str)]) -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().expect("tempdir");
    for (path, body) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, body).expect("write");
    }
    let names = files.iter().map(|(p, _)| (*p).to_owned()).collect();
    (dir, names)
}

/// An executable stand-in for an installed binary (`node_modules/.bin/jest`).
pub(super) fn fake_bin(root: &Path, rel: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(&path, "#!/bin/sh\n").expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

pub(super) fn found(res: Resolution) -> Suite {
    match res {
        Resolution::Found(suite) => suite,
        other => panic!("expected a suite, got {other:?}"),
    }
}

pub(super) fn unavailable_reason(res: Resolution) -> (Suite, String) {
    match res {
        Resolution::Unavailable {
            suite: Some(suite),
            reason,
            ..
        } => (suite, reason),
        other => panic!("expected an unavailable suite, got {other:?}"),
    }
}

/// A machine that has what the test says, whatever this one has.
pub(super) struct Fake {
    pub(super) tools: Vec<&'static str>,
    pub(super) modules: Vec<&'static str>,
    pub(super) node: Option<(u32, u32)>,
}

impl Fake {
    pub(super) fn all() -> Self {
        Self {
            tools: vec!["bash", "node", "npm", "python3", "go", "cargo"],
            modules: vec!["pytest"],
            node: Some((20, 20)),
        }
    }
    pub(super) fn with_tool(mut self, tool: &'static str) -> Self {
        self.tools.push(tool);
        self
    }
    pub(super) fn without_tool(mut self, tool: &str) -> Self {
        self.tools.retain(|t| *t != tool);
        self
    }
}

impl Host for Fake {
    fn has_tool(&self, tool: &str) -> bool {
        self.tools.contains(&tool)
    }
    fn has_python_module(&self, module: &str) -> bool {
        assert!(PYTHON_MODULES.contains(&module), "{module} is not probed");
        self.modules.contains(&module)
    }
    fn node_version(&self) -> Option<(u32, u32)> {
        self.node
    }
}

/// Resolve the skill at the root of `dir` (also the repository) on `host`.
pub(super) fn detect(host: &Fake, dir: &tempfile::TempDir, files: &[String]) -> Resolution {
    let root = dir.path().canonicalize().expect("canon");
    resolve_on(host, &root, &root, &SkillMeta::default(), files)
}

pub(super) fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|&w| w.to_owned()).collect()
}

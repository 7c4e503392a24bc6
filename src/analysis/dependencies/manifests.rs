//! Package manifests that declare runtime packages: `package.json`, `requirements*.txt`/`.in`,
//! `pyproject.toml`, `Pipfile`, `setup.py`, `go.mod`, `Cargo.toml`, `Gemfile`, `composer.json`.
//! Development and test packages (`devDependencies`, `requirements-dev.txt`, manifests under a
//! `test`/`tests` directory) are the suite's tooling; lock files follow their manifest and do
//! not count again. The commands a `package.json` runs (its `scripts`, `postinstall` included)
//! are read as shell.

use super::Manifest;
use crate::analysis::paths::base_name;

/// Lock files: they follow a manifest and do not count again.
const LOCK_FILES: &[&str] = &[
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
    "poetry.lock",
    "pipfile.lock",
    "uv.lock",
    "pdm.lock",
    "go.sum",
    "cargo.lock",
    "gemfile.lock",
    "composer.lock",
];

pub(super) fn is_lock_file(path: &str) -> bool {
    LOCK_FILES.contains(&base_name(path).to_ascii_lowercase().as_str())
}

/// Whether the path lies under a test directory: its manifests are the suite's tooling.
fn under_tests(path: &str) -> bool {
    path.split('/')
        .rev()
        .skip(1)
        .any(|dir| matches!(dir, "test" | "tests" | "__tests__" | "spec" | "testdata"))
}

/// `None` when `path` is no manifest; `Some(None)` for a manifest without runtime packages (or a
/// test one); `Some(Some(m))` for one that declares runtime packages.
pub(super) fn manifest(path: &str, text: &str) -> Option<Option<Manifest>> {
    let name = base_name(path).to_ascii_lowercase();
    let read: fn(&str) -> Read = match name.as_str() {
        "package.json" => package_json,
        "pyproject.toml" => pyproject,
        "pipfile" => pipfile,
        "setup.py" => setup_py,
        "go.mod" => go_mod,
        "cargo.toml" => cargo_toml,
        "gemfile" => gemfile,
        "composer.json" => composer_json,
        _ if is_requirements(&name) => requirements,
        _ => return None,
    };
    if under_tests(path) || is_dev_requirements(&name) {
        return Some(None);
    }
    let read = read(text);
    if read.packages.is_empty() && !read.unreadable {
        return Some(None);
    }
    let line = read.line.unwrap_or(1);
    Some(Some(Manifest {
        file: path.to_owned(),
        line,
        packages: read.packages,
    }))
}

fn is_requirements(name: &str) -> bool {
    name.contains("requirements") && (name.ends_with(".txt") || name.ends_with(".in"))
}

fn is_dev_requirements(name: &str) -> bool {
    is_requirements(name)
        && ["dev", "test", "lint", "doc", "ci"]
            .iter()
            .any(|w| name.split(['-', '_', '.']).any(|part| part == *w))
}

/// What a manifest reader found: its runtime packages, the line where they start, and whether
/// the file could not be read.
#[derive(Debug, Default)]
struct Read {
    packages: Vec<String>,
    line: Option<u32>,
    unreadable: bool,
}

impl Read {
    fn unreadable() -> Self {
        Self {
            unreadable: true,
            ..Self::default()
        }
    }
}

/// The 1-based number of the first line that holds `marker` (a quoted JSON key) or, trimmed,
/// starts with it.
fn line_of(text: &str, marker: &str) -> Option<u32> {
    let quoted = marker.starts_with('"');
    text.lines()
        .position(|l| {
            if quoted {
                l.contains(marker)
            } else {
                l.trim_start().starts_with(marker)
            }
        })
        .and_then(|i| u32::try_from(i + 1).ok())
}

fn json_keys(value: Option<&serde_json::Value>) -> Vec<String> {
    value
        .and_then(serde_json::Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

fn package_json(text: &str) -> Read {
    let Ok(json) = serde_json::from_str::<serde_json::Value>(text) else {
        return Read::unreadable();
    };
    let mut packages = Vec::new();
    let mut line = None;
    for (key, quoted) in [
        ("dependencies", "\"dependencies\""),
        ("peerDependencies", "\"peerDependencies\""),
        ("optionalDependencies", "\"optionalDependencies\""),
    ] {
        let keys = json_keys(json.get(key));
        if !keys.is_empty() && line.is_none() {
            line = line_of(text, quoted);
        }
        packages.extend(keys);
    }
    Read {
        packages,
        line,
        unreadable: false,
    }
}

fn composer_json(text: &str) -> Read {
    let Ok(json) = serde_json::from_str::<serde_json::Value>(text) else {
        return Read::unreadable();
    };
    let packages: Vec<String> = json_keys(json.get("require"))
        .into_iter()
        .filter(|p| p != "php" && !p.starts_with("ext-") && !p.starts_with("lib-"))
        .collect();
    Read {
        packages,
        line: line_of(text, "\"require\""),
        unreadable: false,
    }
}

/// The name of a PEP 508 requirement: `requests[socks]>=2; python_version>"3"` → `requests`.
fn pep508_name(spec: &str) -> Option<String> {
    let spec = spec.trim();
    let end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        .unwrap_or(spec.len());
    (end > 0).then(|| spec[..end].to_owned())
}

fn requirements(text: &str) -> Read {
    let mut packages = Vec::new();
    let mut line_number = None;
    for (i, line) in text.lines().enumerate() {
        let line = line.split(" #").next().unwrap_or(line).trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let spec = match line
            .strip_prefix("-e ")
            .or_else(|| line.strip_prefix("--editable "))
        {
            Some(target) => target.trim(),
            // `-r other.txt`, `--index-url …`: options, not packages.
            None if line.starts_with('-') => continue,
            None => line,
        };
        let name = match spec.split_once("#egg=") {
            Some((_, egg)) => pep508_name(egg),
            None if spec.contains("://") || spec.starts_with('.') || spec.starts_with('/') => {
                Some(spec.to_owned())
            }
            None => pep508_name(spec),
        };
        if let Some(name) = name {
            line_number = line_number.or(u32::try_from(i + 1).ok());
            packages.push(name);
        }
    }
    Read {
        packages,
        line: line_number,
        unreadable: false,
    }
}

fn toml_table(text: &str) -> Option<toml::Table> {
    text.parse::<toml::Table>().ok()
}

fn table_keys(value: Option<&toml::Value>) -> Vec<String> {
    value
        .and_then(toml::Value::as_table)
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default()
}

fn pyproject(text: &str) -> Read {
    let Some(doc) = toml_table(text) else {
        return Read::unreadable();
    };
    let project: Vec<String> = doc
        .get("project")
        .and_then(|p| p.get("dependencies"))
        .and_then(toml::Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(toml::Value::as_str)
                .filter_map(pep508_name)
                .collect()
        })
        .unwrap_or_default();
    if !project.is_empty() {
        return Read {
            packages: project,
            line: line_of(text, "dependencies"),
            unreadable: false,
        };
    }
    let poetry: Vec<String> = table_keys(
        doc.get("tool")
            .and_then(|t| t.get("poetry"))
            .and_then(|p| p.get("dependencies")),
    )
    .into_iter()
    .filter(|p| p != "python")
    .collect();
    Read {
        packages: poetry,
        line: line_of(text, "[tool.poetry.dependencies]"),
        unreadable: false,
    }
}

fn pipfile(text: &str) -> Read {
    let Some(doc) = toml_table(text) else {
        return Read::unreadable();
    };
    Read {
        packages: table_keys(doc.get("packages")),
        line: line_of(text, "[packages]"),
        unreadable: false,
    }
}

fn cargo_toml(text: &str) -> Read {
    let Some(doc) = toml_table(text) else {
        return Read::unreadable();
    };
    let mut packages = table_keys(doc.get("dependencies"));
    if let Some(targets) = doc.get("target").and_then(toml::Value::as_table) {
        for target in targets.values() {
            packages.extend(table_keys(target.get("dependencies")));
        }
    }
    Read {
        packages,
        line: line_of(text, "[dependencies]"),
        unreadable: false,
    }
}

fn setup_py(text: &str) -> Read {
    let Some(at) = text.find("install_requires") else {
        return Read::default();
    };
    let line = line_of(text, "install_requires");
    // `install_requires=[…]` or `"install_requires": […]`.
    let value = text[at + "install_requires".len()..]
        .trim_start_matches(['"', '\''])
        .trim_start()
        .strip_prefix(['=', ':'])
        .map(str::trim_start);
    let list = value
        .and_then(|v| v.strip_prefix('['))
        .and_then(|v| v.find(']').map(|close| &v[..close]));
    let Some(list) = list else {
        // `install_requires=read_requirements()`: packages we cannot see, still a manifest.
        return Read {
            line,
            ..Read::unreadable()
        };
    };
    let packages = list
        .split(',')
        .filter_map(|part| pep508_name(part.trim().trim_matches(['"', '\''])))
        .collect();
    Read {
        packages,
        line,
        unreadable: false,
    }
}

fn go_mod(text: &str) -> Read {
    let mut packages = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        let indirect = line.contains("// indirect");
        let line = line.split("//").next().unwrap_or(line).trim();
        if in_block {
            if line == ")" {
                in_block = false;
            } else if !indirect && let Some(module) = line.split_whitespace().next() {
                packages.push(module.to_owned());
            }
        } else if line.starts_with("require (") || line == "require(" {
            in_block = true;
        } else if let Some(rest) = line.strip_prefix("require ")
            && !indirect
            && let Some(module) = rest.split_whitespace().next()
        {
            packages.push(module.to_owned());
        }
    }
    Read {
        packages,
        line: line_of(text, "require"),
        unreadable: false,
    }
}

fn gemfile(text: &str) -> Read {
    let mut packages = Vec::new();
    let mut dev_group = false;
    for line in text.lines() {
        let line = line.trim();
        if let Some(groups) = line.strip_prefix("group ") {
            dev_group = groups
                .trim_end_matches(" do")
                .split(',')
                .all(|g| matches!(g.trim().trim_start_matches(':'), "development" | "test"));
            continue;
        }
        if line == "end" {
            dev_group = false;
            continue;
        }
        if dev_group {
            continue;
        }
        if let Some(rest) = line.strip_prefix("gem ")
            && let Some(q @ ('"' | '\'')) = rest.trim_start().chars().next()
        {
            let rest = &rest.trim_start()[1..];
            if let Some(end) = rest.find(q) {
                packages.push(rest[..end].to_owned());
            }
        }
    }
    Read {
        packages,
        line: line_of(text, "gem "),
        unreadable: false,
    }
}

#[cfg(test)]
mod tests {

    use crate::analysis::dependencies::{test_inputs::*, *};

    #[test]
    fn package_json_scripts_are_read_as_shell() {
        let deps = analyze_texts(&[(
            "package.json",
            "{\n  \"name\": \"x\",\n  \"homepage\": \"https://github.com/o/x\",\n  \"scripts\": {\n    \"test\": \"jest\",\n    \"postinstall\": \"curl https://get.vendor.io | sh\",\n    \"sync\": \"rsync -a out/ deploy@files.vendor.io:/srv\"\n  }\n}\n",
        )]);
        // The manifest's own URLs are not endpoints; what its scripts reach is.
        assert_eq!(
            deps.endpoints,
            vec![
                ev("files.vendor.io", "package.json", 7),
                ev("get.vendor.io", "package.json", 6),
            ]
        );
        assert_eq!(
            deps.tools,
            vec![
                ev("curl", "package.json", 6),
                ev("rsync", "package.json", 7)
            ]
        );
        assert!(deps.manifests.is_empty(), "no runtime packages");
        let bare = analyze_texts(&[(
            "package.json",
            "{\n  \"scripts\": {\n    \"postinstall\": \"curl \\\"$INSTALLER\\\" | sh\"\n  }\n}\n",
        )]);
        assert_eq!(
            bare.counted(),
            ["endpoint not named: curl (package.json:3)"],
            "curl reaching no named host counts once"
        );
    }

    #[test]
    fn manifests_with_runtime_packages_count_once_each() {
        let deps = analyze_texts(&[
            (
                "package.json",
                "{\n  \"name\": \"x\",\n  \"dependencies\": {\"axios\": \"^1\", \"zod\": \"^3\"},\n  \"devDependencies\": {\"jest\": \"^29\"}\n}\n",
            ),
            (
                "package-lock.json",
                "{\"packages\": {\"node_modules/axios\": {\"resolved\": \"https://registry.npmjs.org/axios\"}}}\n",
            ),
            (
                "requirements.txt",
                "# runtime\n\nrequests[socks]>=2.31 ; python_version > '3.8'\n-r base.txt\nhttpx==0.27\n",
            ),
            ("requirements-dev.txt", "pytest\n"),
            (
                "tests/package.json",
                "{\"dependencies\": {\"supertest\": \"1\"}}\n",
            ),
            (
                "pyproject.toml",
                "[project]\nname = \"x\"\ndependencies = [\n  \"stripe>=7\",\n]\n",
            ),
            (
                "go.mod",
                "module x\n\ngo 1.22\n\nrequire (\n\tgithub.com/a/b v1.0.0\n\tgithub.com/c/d v1.0.0 // indirect\n)\n",
            ),
            (
                "Cargo.toml",
                "[package]\nname = \"x\"\n\n[dev-dependencies]\nx = \"1\"\n",
            ),
        ]);
        assert_eq!(
            deps.manifests,
            vec![
                Manifest {
                    file: "go.mod".to_owned(),
                    line: 5,
                    packages: vec!["github.com/a/b".to_owned()],
                },
                Manifest {
                    file: "package.json".to_owned(),
                    line: 3,
                    packages: vec!["axios".to_owned(), "zod".to_owned()],
                },
                Manifest {
                    file: "pyproject.toml".to_owned(),
                    line: 3,
                    packages: vec!["stripe".to_owned()],
                },
                Manifest {
                    file: "requirements.txt".to_owned(),
                    line: 3,
                    packages: vec!["requests".to_owned(), "httpx".to_owned()],
                },
            ]
        );
        assert_eq!(deps.endpoints, vec![], "lock files are not scanned");
        assert_eq!(
            deps.counted(),
            [
                "packages: github.com/a/b (go.mod:5)",
                "packages: axios, zod (package.json:3)",
                "packages: stripe (pyproject.toml:3)",
                "packages: requests, httpx (requirements.txt:3)",
            ]
        );
    }

    #[test]
    fn manifests_that_cannot_be_read_still_count() {
        let deps = analyze_texts(&[
            ("package.json", "{ not json"),
            (
                "setup.py",
                "setup(name='x', install_requires=read_reqs(), extras_require={'a': ['b']})\n",
            ),
            (
                "lib/setup.py",
                "setup(\n    install_requires = [\"click>=8\", 'rich'],\n)\n",
            ),
            (
                "Gemfile",
                "source 'https://rubygems.org'\ngem 'faraday'\ngroup :test do\n  gem 'rspec'\nend\n",
            ),
        ]);
        let manifests: Vec<(&str, u32, Vec<String>)> = deps
            .manifests
            .iter()
            .map(|m| (m.file.as_str(), m.line, m.packages.clone()))
            .collect();
        assert_eq!(
            manifests,
            vec![
                ("Gemfile", 2, vec!["faraday".to_owned()]),
                (
                    "lib/setup.py",
                    2,
                    vec!["click".to_owned(), "rich".to_owned()]
                ),
                ("package.json", 1, vec![]),
                ("setup.py", 1, vec![]),
            ]
        );
        assert_eq!(
            deps.counted(),
            [
                "packages: faraday (Gemfile:2)",
                "packages: click, rich (lib/setup.py:2)",
                "packages: not read (package.json:1)",
                "packages: not read (setup.py:1)",
            ]
        );
    }
}

//! Which language a skill file is written in: by extension, or by shebang when it has none.

use crate::analysis::Source;
use crate::analysis::code_lines::Lang;

/// A language whose functions are measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    /// bash and POSIX sh (parsed with the bash grammar).
    Bash,
    Python,
    /// JavaScript, with JSX.
    JavaScript,
    TypeScript,
    /// TypeScript with JSX.
    Tsx,
}

impl Language {
    /// The language of `source`, or `None` when it is not code this signal measures: its own
    /// (extension, shebang), else the first another file runs it as (`bash assets/notes.txt`).
    pub fn detect(source: &Source) -> Option<Self> {
        Self::own(source).or_else(|| source.run_as.iter().find_map(|l| Self::of_lang(*l)))
    }

    /// Every language `source` is read as: its own, then each another file runs it as that
    /// differs (`bash run.sh` and `python3 run.sh` make it shell and Python).
    pub fn all(source: &Source) -> Vec<Self> {
        let own = Self::own(source);
        let mut all: Vec<Self> = own.into_iter().collect();
        for language in source.run_as.iter().filter_map(|l| Self::of_lang(*l)) {
            let same = own.is_some_and(|o| o.family() == language.family());
            if !same && !all.contains(&language) {
                all.push(language);
            }
        }
        all
    }

    /// The parsed language of a code line's language.
    fn of_lang(lang: Lang) -> Option<Self> {
        match lang {
            Lang::Shell => Some(Self::Bash),
            Lang::Python => Some(Self::Python),
            Lang::JavaScript => Some(Self::JavaScript),
            _ => None,
        }
    }

    /// The code line language it is (TypeScript is JavaScript).
    pub fn family(self) -> Lang {
        match self {
            Self::Bash => Lang::Shell,
            Self::Python => Lang::Python,
            _ => Lang::JavaScript,
        }
    }

    /// The language of its extension or shebang alone.
    pub fn own(source: &Source) -> Option<Self> {
        let extension = source.extension();
        if extension.is_empty() {
            return source.shebang().and_then(Self::from_shebang);
        }
        Self::from_extension(&extension)
    }

    fn from_extension(extension: &str) -> Option<Self> {
        Some(match extension {
            "sh" | "bash" => Self::Bash,
            "py" | "pyw" => Self::Python,
            "js" | "mjs" | "cjs" | "jsx" => Self::JavaScript,
            "ts" | "mts" | "cts" => Self::TypeScript,
            "tsx" => Self::Tsx,
            _ => return None,
        })
    }

    /// `#!/bin/sh`, `#!/usr/bin/env bash`, `#!/usr/bin/env -S python3 -u`, `#!/usr/local/bin/node`…
    fn from_shebang(line: &str) -> Option<Self> {
        let mut words = line.trim_start_matches("#!").split_whitespace();
        let mut program = basename(words.next()?);
        if program == "env" {
            program = basename(words.find(|w| !w.starts_with('-') && !w.contains('='))?);
        }
        let stem = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        Some(match stem {
            "sh" | "bash" | "dash" | "ash" => Self::Bash,
            "python" | "pypy" => Self::Python,
            "node" | "nodejs" => Self::JavaScript,
            "deno" | "bun" | "ts-node" | "tsx" => Self::TypeScript,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Bash => "bash",
            Self::Python => "python",
            Self::JavaScript => "javascript",
            Self::TypeScript => "typescript",
            Self::Tsx => "tsx",
        }
    }
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect(path: &str, text: &str) -> Option<Language> {
        Language::detect(&Source::new(path, text))
    }

    #[test]
    fn extensions_decide_and_shebangs_name_extensionless_scripts() {
        assert_eq!(detect("scripts/run.sh", ""), Some(Language::Bash));
        assert_eq!(detect("a/b.PY", ""), Some(Language::Python));
        assert_eq!(detect("x.cjs", ""), Some(Language::JavaScript));
        assert_eq!(detect("x.jsx", ""), Some(Language::JavaScript));
        assert_eq!(detect("x.mts", ""), Some(Language::TypeScript));
        assert_eq!(detect("x.tsx", ""), Some(Language::Tsx));
        assert_eq!(detect("SKILL.md", "#!/bin/sh\n"), None);
        assert_eq!(detect("data.json", ""), None);
        assert_eq!(detect("bin/run", "#!/bin/bash -eu\n"), Some(Language::Bash));
        assert_eq!(
            detect("bin/run", "#!/usr/bin/env bash\n"),
            Some(Language::Bash)
        );
        assert_eq!(
            detect("bin/run", "#!/usr/bin/env -S python3.12 -u\n"),
            Some(Language::Python)
        );
        assert_eq!(
            detect("bin/run", "#!/usr/bin/env LC_ALL=C node\n"),
            Some(Language::JavaScript)
        );
        assert_eq!(
            detect("bin/run", "#!/usr/bin/env -S deno run\n"),
            Some(Language::TypeScript)
        );
        assert_eq!(detect("bin/run", "#!/usr/bin/perl\n"), None);
        assert_eq!(detect("bin/run", "echo no shebang\n"), None);
        assert_eq!(detect(".hidden", "#!/bin/sh\n"), Some(Language::Bash));
    }
}

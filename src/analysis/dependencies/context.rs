//! How the text of a file is meant: as code that runs (scripts, code, configuration), or as an
//! example in `SKILL.md` a person reads and adapts. In `SKILL.md`, only the shell blocks are
//! read: a block in another language (a Python MCP server, a `ts` client) is code for the
//! user's project, not a command the agent runs.

use crate::analysis::Source;
use crate::analysis::paths::is_skill_file;

/// How the text of a file is meant: as code that runs, or as an example a person reads and
/// adapts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Context {
    /// Scripts, code, configuration, `package.json` scripts: every host is the one called.
    /// Only what cannot be anyone's host is no endpoint: templates (`<host>`, `{host}`,
    /// `${HOST}`, `YOUR_HOST`), loopback and the names reserved by RFC 2606/6761.
    Code,
    /// The fenced blocks of `SKILL.md`: a host written as a placeholder (`your-api.com`,
    /// `api.mycompany.com`) stands for the reader's own, which is reached but not named: the
    /// tool counts, the placeholder is no host. Reserved names (`example.com`) reach nothing.
    Example,
}

impl Context {
    pub(super) fn of(source: &Source) -> Self {
        if is_skill_file(&source.path) {
            Self::Example
        } else {
            Self::Code
        }
    }
}

#[cfg(test)]
mod tests {

    use crate::analysis::dependencies::test_inputs::*;

    #[test]
    fn skill_md_fenced_commands_count_its_prose_does_not() {
        let deps = analyze_texts(&[(
            "SKILL.md",
            "---\nname: x\ndescription: https://front.io\n---\nGet a token at https://github.com/settings/tokens.\n<a href=\"https://github.com/o/r\">repo</a>\n\n```bash\ngh api repos/o/r\nwget -qO- https://raw.githubusercontent.com/o/r/main/x.sh\necho \"Docs: https://docs.vendor.io\"\n```\n",
        )]);
        assert_eq!(
            deps.endpoints,
            vec![ev("raw.githubusercontent.com", "SKILL.md", 10)]
        );
        assert_eq!(
            deps.tools,
            vec![ev("gh", "SKILL.md", 9), ev("wget", "SKILL.md", 10)]
        );
        // `gh` calls GitHub's API: the service, named by the program.
        assert_eq!(
            deps.counted(),
            ["github (gh, SKILL.md:9; raw.githubusercontent.com, SKILL.md:10)"]
        );
    }

    #[test]
    fn skill_md_blocks_in_other_languages_are_code_for_the_users_project() {
        let example = "```python\nimport httpx\nfrom notion_client import Client\nAPI_BASE_URL = \"https://api.github.com\"\nhttpx.get(API_BASE_URL)\n```\n\n```js\nconst r = await fetch('https://api.vendor.io/v1');\n```\n";
        let deps = analyze_texts(&[(
            "SKILL.md",
            &format!("---\nname: x\ndescription: y\n---\n{example}"),
        )]);
        assert_eq!(deps.count(), 0, "{:?}", deps.counted());
        // The same code in a file of the skill runs; a shell block of SKILL.md runs.
        let deps = analyze_texts(&[
            (
                "SKILL.md",
                &format!(
                    "---\nname: x\ndescription: y\n---\n{example}\n```bash\ncurl -s https://files.vendor.io/a.csv\n```\n"
                ),
            ),
            (
                "scripts/server.py",
                "import httpx\nAPI_BASE_URL = \"https://api.github.com\"\nhttpx.get(API_BASE_URL)\n",
            ),
        ]);
        assert_eq!(
            deps.counted(),
            [
                "files.vendor.io (SKILL.md:17)",
                "github (api.github.com, scripts/server.py:2)",
            ]
        );
    }
}

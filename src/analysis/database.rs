//! Database writes in a skill: SQL that changes data or schema, in `.sql` files and in SQL
//! strings inside scripts. Any of it is escalated to a DBA.
//!
//! The rules, over the code lines of [`super::code_lines`] (never Markdown prose, so "update the
//! docs" is not SQL; `SKILL.md` blocks tagged `sql`, `bash`, `python`, … are code):
//! - a write is a statement shape, not a word: `INSERT [OR …] INTO t`, `REPLACE INTO t`,
//!   `UPDATE t … SET`, `DELETE FROM t`, `MERGE INTO t`, `CREATE [OR REPLACE] [TEMP|UNIQUE|…]
//!   TABLE|INDEX|VIEW|DATABASE|SCHEMA|TRIGGER|SEQUENCE|FUNCTION|PROCEDURE|TYPE|EXTENSION|ROLE|
//!   USER|… t`, `ALTER TABLE|… t`, `DROP TABLE|… [IF EXISTS] t`, `TRUNCATE [TABLE] t`,
//!   `GRANT … TO`, `REVOKE … FROM`. `SELECT`, `WITH … SELECT`, `PRAGMA`, `BEGIN`, `EXPLAIN` are
//!   reads;
//! - in `.sql` files (and `sql` blocks) statements may span lines and any case counts;
//! - in scripts, UPPERCASE statements count anywhere (`"INSERT INTO orders …"`); lower- or
//!   mixed-case ones only on a line that runs SQL, or within five lines after one: a line that
//!   mentions `sql` (`sqlite3`, `psql`, `mysql`, `SQL = …`) or calls `execute`, `executemany`,
//!   `executescript`, `exec`, `query`, `prepare`, `raw`, `cursor` (`cursor.execute("update t
//!   set …")`). A log message like `"Delete from cache failed"` is not SQL;
//! - files of the skill's test suite (`tests/`, `test_*.py`, `*.test.ts`, …) set up their own
//!   databases: they do not count.

use std::collections::HashSet;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use super::Sources;
use super::code_lines::{CodeLine, Lang, code_lines};
use super::evidence;
use super::evidence::Evidence;
use super::paths::is_test_path;
use super::patterns::Needles;

/// The database writes of a skill.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatabaseWrites {
    /// In file and line order; one per (statement, file): `INSERT INTO orders`.
    pub found: Vec<Evidence>,
}

const SHOWN: usize = 5;

impl DatabaseWrites {
    pub fn is_write(&self) -> bool {
        !self.found.is_empty()
    }

    /// `database writes: INSERT INTO orders (sync.py:12), DROP TABLE users (001.sql:3)`.
    pub fn reason(&self) -> Option<String> {
        (!self.found.is_empty())
            .then(|| format!("database writes: {}", evidence::located(&self.found, SHOWN)))
    }
}

/// How many lines after a line that runs SQL still read lowercase SQL as SQL.
const CONTEXT_LINES: u32 = 5;

/// Find the database writes in a skill.
pub fn analyze(sources: &Sources) -> DatabaseWrites {
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    for source in &sources.files {
        if is_test_path(&source.path) && !source.run_by_skill {
            continue;
        }
        let mut sql_tokens: Vec<Token<'_>> = Vec::new();
        let mut context_until: Option<u32> = None;
        for line in code_lines(source) {
            if line.lang == Lang::Sql {
                sql_tokens.extend(tokens(&line));
                continue;
            }
            if runs_sql(line.text) {
                context_until = Some(line.number.saturating_add(CONTEXT_LINES));
            }
            let in_context = context_until.is_some_and(|until| line.number <= until);
            let line_tokens: Vec<Token<'_>> = tokens(&line).collect();
            for (what, number) in writes(&line_tokens, in_context) {
                evidence::push_once(
                    &mut found,
                    &mut seen,
                    Evidence::new(what, &source.path, number),
                );
            }
        }
        for (what, number) in writes(&sql_tokens, true) {
            evidence::push_once(
                &mut found,
                &mut seen,
                Evidence::new(what, &source.path, number),
            );
        }
    }
    found.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    DatabaseWrites { found }
}

/// Calls that run SQL (whole words); `sql` anywhere in a line also does.
const RUNS_SQL: &[&str] = &[
    "execute",
    "executemany",
    "executescript",
    "exec",
    "query",
    "prepare",
    "raw",
    "cursor",
    "sql",
];

static RUNS_SQL_NEEDLES: LazyLock<Needles> =
    LazyLock::new(|| Needles::new(RUNS_SQL.iter().copied()));

/// Whether a line runs SQL, so that lowercase SQL near it is SQL.
fn runs_sql(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let needles = &*RUNS_SQL_NEEDLES;
    RUNS_SQL.iter().enumerate().any(|(i, word)| {
        if *word == "sql" {
            needles.find(i, &lower).is_some()
        } else {
            needles.find_word(i, &lower).is_some()
        }
    })
}

/// A word of SQL and the line it is on.
#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    text: &'a str,
    line: u32,
}

/// The words of a line: split at whitespace, quotes, parentheses, commas, semicolons and
/// operators; `{table}`, `${T}`, `%s`, `schema.table`, `[t]` stay whole.
fn tokens<'a>(line: &CodeLine<'a>) -> impl Iterator<Item = Token<'a>> {
    let number = line.number;
    line.text
        .split(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '(' | ')'
                        | ','
                        | ';'
                        | '\''
                        | '"'
                        | '`'
                        | '='
                        | '+'
                        | '*'
                        | '<'
                        | '>'
                        | '!'
                        | '|'
                        | '&'
                        | '\\'
                        | ':'
                )
        })
        .filter(|t| !t.is_empty())
        .map(move |text| Token { text, line: number })
}

/// Objects that `CREATE`, `ALTER` and `DROP` make, change or remove.
const OBJECTS: &[&str] = &[
    "TABLE",
    "INDEX",
    "VIEW",
    "DATABASE",
    "SCHEMA",
    "TRIGGER",
    "SEQUENCE",
    "FUNCTION",
    "PROCEDURE",
    "TYPE",
    "EXTENSION",
    "ROLE",
    "USER",
    "DOMAIN",
    "POLICY",
    "TABLESPACE",
    "COLLATION",
];

/// Words between `CREATE` and its object.
const CREATE_MODIFIERS: &[&str] = &[
    "OR",
    "REPLACE",
    "TEMP",
    "TEMPORARY",
    "UNIQUE",
    "VIRTUAL",
    "MATERIALIZED",
    "GLOBAL",
    "LOCAL",
    "UNLOGGED",
    "CLUSTERED",
    "NONCLUSTERED",
    "RECURSIVE",
];

/// The statement shapes that write, over a run of tokens; each as (`KEYWORDS name`, line).
/// `any_case` accepts lowercase keywords; otherwise they must be UPPERCASE.
fn writes(tokens: &[Token<'_>], any_case: bool) -> Vec<(String, u32)> {
    let mut found = Vec::new();
    let keyword = |i: usize, word: &str| -> bool {
        tokens.get(i).is_some_and(|t| {
            if any_case {
                t.text.eq_ignore_ascii_case(word)
            } else {
                t.text == word
            }
        })
    };
    let keyword_in = |i: usize, words: &[&'static str]| -> Option<&'static str> {
        words.iter().find(|w| keyword(i, w)).copied()
    };
    for i in 0..tokens.len() {
        let line = tokens[i].line;
        let statement = if keyword(i, "INSERT") {
            let mut j = i + 1;
            if keyword(j, "OR") {
                j += 2;
            }
            keyword(j, "INTO")
                .then(|| name(tokens, j + 1))
                .flatten()
                .map(|n| format!("INSERT INTO {n}"))
        } else if keyword(i, "REPLACE") && keyword(i + 1, "INTO") {
            name(tokens, i + 2).map(|n| format!("REPLACE INTO {n}"))
        } else if keyword(i, "UPDATE") {
            let mut j = i + 1;
            if keyword(j, "ONLY") {
                j += 1;
            }
            let table = name(tokens, j);
            let set = (j + 1..(j + 4).min(tokens.len())).any(|k| keyword(k, "SET"));
            table.filter(|_| set).map(|n| format!("UPDATE {n}"))
        } else if keyword(i, "DELETE") && keyword(i + 1, "FROM") {
            name(tokens, i + 2).map(|n| format!("DELETE FROM {n}"))
        } else if keyword(i, "MERGE") && keyword(i + 1, "INTO") {
            name(tokens, i + 2).map(|n| format!("MERGE INTO {n}"))
        } else if keyword(i, "CREATE") {
            let mut j = i + 1;
            while j < tokens.len() && j < i + 5 && keyword_in(j, CREATE_MODIFIERS).is_some() {
                j += 1;
            }
            keyword_in(j, OBJECTS).and_then(|object| {
                let mut k = j + 1;
                if keyword(k, "IF") && keyword(k + 1, "NOT") && keyword(k + 2, "EXISTS") {
                    k += 3;
                }
                name(tokens, k).map(|n| format!("CREATE {object} {n}"))
            })
        } else if let Some(verb) = keyword_in(i, &["ALTER", "DROP"]) {
            keyword_in(i + 1, OBJECTS).and_then(|object| {
                let mut k = i + 2;
                if keyword(k, "IF") && keyword(k + 1, "EXISTS") {
                    k += 2;
                }
                name(tokens, k).map(|n| format!("{verb} {object} {n}"))
            })
        } else if keyword(i, "TRUNCATE") {
            let k = if keyword(i + 1, "TABLE") {
                i + 2
            } else {
                i + 1
            };
            name(tokens, k).map(|n| format!("TRUNCATE {n}"))
        } else if keyword(i, "GRANT") {
            ((i + 1)..(i + 12).min(tokens.len()))
                .any(|k| keyword(k, "TO"))
                .then(|| "GRANT".to_owned())
        } else if keyword(i, "REVOKE") {
            ((i + 1)..(i + 12).min(tokens.len()))
                .any(|k| keyword(k, "FROM"))
                .then(|| "REVOKE".to_owned())
        } else {
            None
        };
        if let Some(statement) = statement {
            found.push((statement, line));
        }
    }
    found
}

/// The name at token `i` when it can be a table or object name (`orders`, `public.users`,
/// `[dbo].[t]`, `{table}`, `${T}`, `%s`); `None` for options and punctuation (`-s`).
fn name(tokens: &[Token<'_>], i: usize) -> Option<String> {
    let text = tokens.get(i)?.text;
    let first = text.chars().next()?;
    let is_name =
        first.is_alphanumeric() || matches!(first, '_' | '[' | '{' | '$' | '%' | '@' | '#');
    is_name.then(|| text.replace(['[', ']'], ""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(files: &[(&str, &str)]) -> Vec<(String, String, u32)> {
        analyze(&Sources::from_texts(files))
            .found
            .into_iter()
            .map(|e| (e.what, e.file, e.line))
            .collect()
    }

    fn w(what: &str, file: &str, line: u32) -> (String, String, u32) {
        (what.to_owned(), file.to_owned(), line)
    }

    #[test]
    fn statements_in_sql_files_across_lines_and_cases() {
        let got = found(&[(
            "migrations/001_init.sql",
            "-- DROP TABLE old;\n/* DELETE FROM x; */\ncreate table if not exists\n  users (id integer);\nSELECT * FROM users WHERE updated_at > 0;\nALTER TABLE users ADD COLUMN email text;\nINSERT OR IGNORE INTO users VALUES (1);\nupdate users\n   set email = 'a'\n where id = 1;\nDROP INDEX IF EXISTS idx_users;\nGRANT SELECT ON users TO app;\nWITH x AS (SELECT 1) DELETE FROM audit;\n",
        )]);
        let f = "migrations/001_init.sql";
        assert_eq!(
            got,
            vec![
                w("CREATE TABLE users", f, 3),
                w("ALTER TABLE users", f, 6),
                w("INSERT INTO users", f, 7),
                w("UPDATE users", f, 8),
                w("DROP INDEX idx_users", f, 11),
                w("GRANT", f, 12),
                w("DELETE FROM audit", f, 13),
            ]
        );
    }

    #[test]
    fn sql_strings_in_scripts() {
        let got = found(&[
            (
                "scripts/sync.sh",
                "sqlite3 data.db \"insert into runs(id) values (1)\"\npsql -c 'TRUNCATE TABLE staging.events'\nsqlite3 data.db 'select count(*) from runs'\n",
            ),
            (
                "lib/store.py",
                "cur = conn.cursor()\ncur.execute(\"UPDATE orders SET paid = 1 WHERE id = ?\", (i,))\ncur.execute(\"\"\"\n    delete from sessions\n    where expired = 1\n\"\"\")\n",
            ),
            (
                "db.js",
                "db.prepare('REPLACE INTO cache (k, v) VALUES (?, ?)').run(k, v);\n",
            ),
        ]);
        assert_eq!(
            got,
            vec![
                w("REPLACE INTO cache", "db.js", 1),
                w("UPDATE orders", "lib/store.py", 2),
                w("DELETE FROM sessions", "lib/store.py", 4),
                w("INSERT INTO runs", "scripts/sync.sh", 1),
                w("TRUNCATE staging.events", "scripts/sync.sh", 2),
            ]
        );
    }

    #[test]
    fn prose_reads_logs_and_tests_are_not_writes() {
        let got = found(&[
            (
                "SKILL.md",
                "---\nname: x\ndescription: y\n---\nUpdate the docs, then delete from the list and create table of contents.\n```sql\nSELECT * FROM orders;\n```\n",
            ),
            ("README.md", "```sql\nDROP TABLE users;\n```\n"),
            (
                "run.py",
                "log.info(\"Delete from cache failed\")\nprint(\"create table of contents\")\nrows = db.execute(\"SELECT * FROM t FOR UPDATE\")\n# DELETE FROM users\n",
            ),
            ("clean.sh", "truncate -s 0 out.log\nrm -rf build\n"),
            (
                "tests/test_store.py",
                "cur.execute(\"CREATE TABLE t (x)\")\n",
            ),
            ("store.test.ts", "db.exec('DROP TABLE t')\n"),
        ]);
        assert_eq!(got, vec![]);
    }

    #[test]
    fn skill_md_sql_blocks_and_the_reason() {
        let files = [(
            "SKILL.md",
            "---\nname: x\ndescription: y\n---\nRecord the run:\n```sql\nINSERT INTO approval_history (skill_id) VALUES (?);\n```\n```bash\nsqlite3 skills.db \"DROP TABLE tmp\"\n```\n",
        )];
        let writes = analyze(&Sources::from_texts(&files));
        assert_eq!(
            writes.reason().as_deref(),
            Some(
                "database writes: INSERT INTO approval_history (SKILL.md:7), DROP TABLE tmp (SKILL.md:10)"
            )
        );
        assert!(writes.is_write());
        assert_eq!(analyze(&Sources::default()).reason(), None);
    }

    #[test]
    fn the_release_notifier_fixture() {
        let (sources, _) = crate::analysis::fixtures::skill("release-notifier");
        assert_eq!(
            analyze(&sources).reason().as_deref(),
            Some(
                "database writes: INSERT INTO releases (scripts/notify.sh:7), UPDATE releases (scripts/store.py:9)"
            )
        );
    }
}

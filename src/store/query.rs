//! One read-only statement run on the trail for `skillgate query`, guarded beyond the read-only
//! connection: one statement at a time, an allowlist of statement kinds, an authorizer that denies
//! every write, ATTACH, DETACH and setting pragma while the statement is prepared, SQLite's own
//! `sqlite3_stmt_readonly`, and a time and size limit on what it returns.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, Statement};

/// Pragmas that only read, run with no value or with a table, index or schema as their argument.
const PRAGMAS_WITH_ARGUMENT: &[&str] = &[
    "foreign_key_check",
    "foreign_key_list",
    "index_info",
    "index_list",
    "index_xinfo",
    "integrity_check",
    "quick_check",
    "table_info",
    "table_list",
    "table_xinfo",
];

/// Pragmas that read a setting when given no value, and change it when given one: allowed bare.
const PRAGMAS_BARE: &[&str] = &[
    "application_id",
    "collation_list",
    "compile_options",
    "data_version",
    "database_list",
    "encoding",
    "freelist_count",
    "function_list",
    "module_list",
    "page_count",
    "page_size",
    "pragma_list",
    "schema_version",
    "user_version",
];

/// How long a statement may run, and how much it may return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub time: Duration,
    /// The bytes the rows may hold in memory, about: each cell's size and its text or blob.
    pub bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            time: Duration::from_secs(60),
            bytes: 256 << 20,
        }
    }
}

/// One value of a result, as SQLite returned it.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Integer(i64),
    /// A REAL and the text SQLite makes of it (`CAST(x AS TEXT)`): `1.0`, `0.957`, `1.0e+20`.
    Real {
        value: f64,
        text: String,
    },
    Text(String),
    Blob(Vec<u8>),
}

/// What a statement returned: its column names, and its rows in order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Rows {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

/// A value for a named parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum Bind {
    Integer(i64),
    Real(f64),
    Text(String),
}

/// Why a statement is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// It would change the trail (a row, a table, an index …), and how when that says more.
    Write(Option<String>),
    Attach,
    Detach,
    /// A pragma that is not on the read-only list, or is given a value to set.
    Pragma {
        name: String,
        value: Option<String>,
    },
    Transaction,
    Function(String),
    /// Neither a query nor a read-only pragma: its first word.
    NotAQuery(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Write(None) => f.write_str("would write to the audit trail"),
            Self::Write(Some(what)) => write!(f, "would write to the audit trail ({what})"),
            Self::Attach => f.write_str("would attach another database file"),
            Self::Detach => f.write_str("would detach one of the trail's databases"),
            Self::Pragma {
                name,
                value: Some(value),
            } => {
                write!(f, "would set pragma {name} to {value}")
            }
            Self::Pragma { name, value: None } => {
                write!(f, "runs pragma {name}, which is not a read-only pragma")
            }
            Self::Transaction => f.write_str("controls a transaction"),
            Self::Function(name) => write!(f, "calls {name}(), which is refused"),
            Self::NotAQuery(word) => write!(f, "is a {word} statement, not a query"),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error("the statement is empty")]
    Empty,
    #[error("refused: `{statement}` {reason}; query opens it read-only")]
    Refused { statement: String, reason: Refusal },
    #[error("refused: one statement at a time: `{statement}` is followed by `{rest}`")]
    Multiple { statement: String, rest: String },
    #[error("`{statement}` is not a statement SQLite can run: {source}")]
    Invalid {
        statement: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error(
        "`{statement}` has a positional parameter ({parameter}); name it (`$NAME`) to bind it \
         with --param"
    )]
    Positional {
        statement: String,
        parameter: String,
    },
    #[error("`{statement}` ran past the time limit of {}", humantime::format_duration(*limit))]
    TimedOut { statement: String, limit: Duration },
    #[error("`{statement}` returned more than {limit} bytes")]
    TooLarge { statement: String, limit: usize },
    #[error("`{statement}` failed: {source}")]
    Failed {
        statement: String,
        #[source]
        source: rusqlite::Error,
    },
}

/// A connection guarded for `query`: an authorizer and a progress handler installed on it.
pub struct Guard<'c> {
    conn: &'c Connection,
    refusal: Arc<Mutex<Option<Refusal>>>,
    deadline: Arc<Mutex<Option<Instant>>>,
}

impl<'c> Guard<'c> {
    /// Install the guard on `conn`. It stays installed for the connection's life: open a
    /// connection for `query` alone.
    pub fn install(conn: &'c mut Connection) -> rusqlite::Result<Self> {
        let refusal = Arc::new(Mutex::new(None));
        let deadline: Arc<Mutex<Option<Instant>>> = Arc::new(Mutex::new(None));
        let seen = Arc::clone(&refusal);
        conn.authorizer(Some(move |context: AuthContext<'_>| {
            match refused(&context.action) {
                None => Authorization::Allow,
                Some(reason) => {
                    let mut seen = seen.lock().unwrap_or_else(PoisonError::into_inner);
                    seen.get_or_insert(reason);
                    Authorization::Deny
                }
            }
        }))?;
        let until = Arc::clone(&deadline);
        conn.progress_handler(
            10_000,
            Some(move || {
                let until = until.lock().unwrap_or_else(PoisonError::into_inner);
                until.is_some_and(|t| Instant::now() >= t)
            }),
        )?;
        Ok(Self {
            conn,
            refusal,
            deadline,
        })
    }

    /// Prepare `sql`, one read-only statement; refused with the reason when it is not.
    pub fn prepare(&self, sql: &str) -> Result<Prepared<'c>, QueryError> {
        let (first, rest) = split_first(sql);
        let statement = excerpt(first);
        if statement.is_empty() {
            return Err(QueryError::Empty);
        }
        if !is_blank(rest) {
            return Err(QueryError::Multiple {
                statement,
                rest: excerpt(rest),
            });
        }
        if let Some(reason) = first_word(first).and_then(|w| refused_kind(&w)) {
            return Err(QueryError::Refused { statement, reason });
        }
        self.take_refusal();
        let prepared = self.conn.prepare(first);
        if let Some(reason) = self.take_refusal() {
            return Err(QueryError::Refused { statement, reason });
        }
        let stmt = match prepared {
            Ok(stmt) => stmt,
            Err(rusqlite::Error::MultipleStatement) => {
                return Err(QueryError::Multiple {
                    statement,
                    rest: String::new(),
                });
            }
            Err(source) => return Err(QueryError::Invalid { statement, source }),
        };
        if !stmt.readonly() {
            return Err(QueryError::Refused {
                statement,
                reason: Refusal::Write(Some("SQLite says it is not read-only".to_owned())),
            });
        }
        let mut parameters = Vec::new();
        for index in 1..=stmt.parameter_count() {
            // `?` has no name, `?NNN` is named by its number: neither can be given by name.
            match stmt.parameter_name(index) {
                Some(name) if !name.starts_with('?') => parameters.push(name.to_owned()),
                named => {
                    return Err(QueryError::Positional {
                        statement,
                        parameter: named.map_or_else(|| format!("?{index}"), str::to_owned),
                    });
                }
            }
        }
        Ok(Prepared {
            stmt,
            statement,
            parameters,
        })
    }

    /// Run a prepared statement with `binds` (by parameter name, `$SKILL_ID`) within `limits`.
    pub fn run(
        &self,
        prepared: Prepared<'c>,
        binds: &[(String, Bind)],
        limits: Limits,
    ) -> Result<Rows, QueryError> {
        let Prepared {
            mut stmt,
            statement,
            ..
        } = prepared;
        let failed = |source| QueryError::Failed {
            statement: statement.clone(),
            source,
        };
        for (name, value) in binds {
            let Some(index) = stmt.parameter_index(name).map_err(failed)? else {
                continue;
            };
            let bound = match value {
                Bind::Integer(n) => stmt.raw_bind_parameter(index, n),
                Bind::Real(x) => stmt.raw_bind_parameter(index, x),
                Bind::Text(s) => stmt.raw_bind_parameter(index, s),
            };
            bound.map_err(failed)?;
        }
        let columns: Vec<String> = stmt.column_names().map(str::to_owned).collect();
        self.set_deadline(Some(Instant::now() + limits.time));
        let result = self.collect(&mut stmt, columns.len(), limits.bytes);
        self.set_deadline(None);
        match result {
            Ok(rows) => Ok(Rows { columns, rows }),
            Err(Collect::TooLarge) => Err(QueryError::TooLarge {
                statement,
                limit: limits.bytes,
            }),
            Err(Collect::Sqlite(err)) if is_interrupt(&err) => Err(QueryError::TimedOut {
                statement,
                limit: limits.time,
            }),
            Err(Collect::Sqlite(source)) => Err(QueryError::Failed { statement, source }),
        }
    }

    /// The skills whose name, or directory, is `name`: `(id, name, skill_dir)`, by id.
    pub fn skills_named(&self, name: &str) -> rusqlite::Result<Vec<(i64, String, Option<String>)>> {
        let mut stmt = self.conn.prepare(
            "SELECT id, name, skill_dir FROM main.skills WHERE name = ?1 OR skill_dir = ?1 \
             ORDER BY id",
        )?;
        let rows = stmt.query_map([name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        rows.collect()
    }

    /// Every skill name the trail records, each once, sorted.
    pub fn skill_names(&self) -> rusqlite::Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare("SELECT DISTINCT name FROM main.skills ORDER BY name")?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        rows.collect()
    }

    fn collect(
        &self,
        stmt: &mut Statement<'_>,
        width: usize,
        budget: usize,
    ) -> Result<Vec<Vec<Cell>>, Collect> {
        let mut texts: HashMap<u64, String> = HashMap::new();
        let mut used = 0usize;
        let mut out = Vec::new();
        let mut rows = stmt.raw_query();
        while let Some(row) = rows.next()? {
            let mut cells = Vec::with_capacity(width);
            for i in 0..width {
                let cell = match row.get_ref(i)? {
                    ValueRef::Null => Cell::Null,
                    ValueRef::Integer(n) => Cell::Integer(n),
                    ValueRef::Real(value) => {
                        let text = match texts.get(&value.to_bits()) {
                            Some(text) => text.clone(),
                            None => {
                                let text = self.real_text(value)?;
                                texts.insert(value.to_bits(), text.clone());
                                text
                            }
                        };
                        Cell::Real { value, text }
                    }
                    ValueRef::Text(bytes) => {
                        Cell::Text(String::from_utf8_lossy(bytes).into_owned())
                    }
                    ValueRef::Blob(bytes) => Cell::Blob(bytes.to_vec()),
                };
                used = used.saturating_add(
                    std::mem::size_of::<Cell>()
                        + match &cell {
                            Cell::Text(s) => s.len(),
                            Cell::Blob(b) => b.len(),
                            Cell::Real { text, .. } => text.len(),
                            Cell::Null | Cell::Integer(_) => 0,
                        },
                );
                if used > budget {
                    return Err(Collect::TooLarge);
                }
                cells.push(cell);
            }
            out.push(cells);
        }
        Ok(out)
    }

    /// The text SQLite makes of a REAL, so a table shows what `sqlite3` would.
    fn real_text(&self, value: f64) -> rusqlite::Result<String> {
        self.conn
            .prepare_cached("SELECT CAST(?1 AS TEXT)")?
            .query_row([value], |r| r.get(0))
    }

    fn take_refusal(&self) -> Option<Refusal> {
        self.refusal
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    fn set_deadline(&self, deadline: Option<Instant>) {
        *self.deadline.lock().unwrap_or_else(PoisonError::into_inner) = deadline;
    }
}

/// A statement that passed the guard, ready to be bound and run.
pub struct Prepared<'c> {
    stmt: Statement<'c>,
    statement: String,
    parameters: Vec<String>,
}

impl Prepared<'_> {
    /// Its named parameters as written (`$SKILL_ID`, `:since`), in order.
    pub fn parameters(&self) -> &[String] {
        &self.parameters
    }

    /// The statement on one line, cut to about 80 characters, as errors name it.
    pub fn statement(&self) -> &str {
        &self.statement
    }
}

enum Collect {
    TooLarge,
    Sqlite(rusqlite::Error),
}

impl From<rusqlite::Error> for Collect {
    fn from(err: rusqlite::Error) -> Self {
        Self::Sqlite(err)
    }
}

fn is_interrupt(err: &rusqlite::Error) -> bool {
    err.sqlite_error_code() == Some(rusqlite::ErrorCode::OperationInterrupted)
}

/// What the authorizer refuses: anything but reading, selecting, recursing, calling a function
/// other than `load_extension`, and the read-only pragmas.
fn refused(action: &AuthAction<'_>) -> Option<Refusal> {
    let write = |what: String| Some(Refusal::Write(Some(what)));
    match *action {
        AuthAction::Select | AuthAction::Read { .. } | AuthAction::Recursive => None,
        AuthAction::Function { function_name } => {
            let name = function_name.to_ascii_lowercase();
            (name == "load_extension").then_some(Refusal::Function(name))
        }
        AuthAction::Pragma {
            pragma_name,
            pragma_value,
        } => {
            let name = pragma_name.to_ascii_lowercase();
            let allowed = PRAGMAS_WITH_ARGUMENT.contains(&name.as_str())
                || (PRAGMAS_BARE.contains(&name.as_str()) && pragma_value.is_none());
            (!allowed).then(|| Refusal::Pragma {
                name,
                value: pragma_value.map(str::to_owned),
            })
        }
        AuthAction::Attach { .. } => Some(Refusal::Attach),
        AuthAction::Detach { .. } => Some(Refusal::Detach),
        AuthAction::Transaction { .. } | AuthAction::Savepoint { .. } => Some(Refusal::Transaction),
        AuthAction::Insert { table_name } => write(format!("insert into {table_name}")),
        AuthAction::Update { table_name, .. } => write(format!("update {table_name}")),
        AuthAction::Delete { table_name } => write(format!("delete from {table_name}")),
        AuthAction::CreateTable { table_name } | AuthAction::CreateTempTable { table_name } => {
            write(format!("create table {table_name}"))
        }
        AuthAction::DropTable { table_name } | AuthAction::DropTempTable { table_name } => {
            write(format!("drop table {table_name}"))
        }
        AuthAction::AlterTable { table_name, .. } => write(format!("alter table {table_name}")),
        _ => write("change the schema".to_owned()),
    }
}

/// A refusal from a statement's first word, before SQLite prepares it: what could not be a
/// query. `VACUUM` in particular has no authorizer code, and `VACUUM INTO` writes a file.
fn refused_kind(word: &str) -> Option<Refusal> {
    let write = |what: Option<&str>| Some(Refusal::Write(what.map(str::to_owned)));
    match word {
        "SELECT" | "WITH" | "VALUES" | "EXPLAIN" | "PRAGMA" => None,
        "INSERT" | "REPLACE" | "UPDATE" | "DELETE" | "CREATE" | "DROP" | "ALTER" => write(None),
        "REINDEX" | "ANALYZE" => write(Some("it rebuilds indexes or statistics")),
        "VACUUM" => write(Some(
            "VACUUM rewrites the database, VACUUM INTO writes a new file",
        )),
        "ATTACH" => Some(Refusal::Attach),
        "DETACH" => Some(Refusal::Detach),
        "BEGIN" | "COMMIT" | "END" | "ROLLBACK" | "SAVEPOINT" | "RELEASE" => {
            Some(Refusal::Transaction)
        }
        other => Some(Refusal::NotAQuery(other.to_owned())),
    }
}

/// The statement's first keyword, upper-cased, after whitespace and comments.
fn first_word(sql: &str) -> Option<String> {
    let start = skip_blank(sql);
    let word: String = sql[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphabetic() || *c == '_')
        .collect();
    (!word.is_empty()).then(|| word.to_ascii_uppercase())
}

/// `sql` split after its first statement's `;` (outside strings, quoted names and comments):
/// the statement (with its `;`) and what follows. A `;` inside a trigger's body splits it too;
/// a trigger is refused all the same.
fn split_first(sql: &str) -> (&str, &str) {
    let bytes = sql.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\'' | b'"' | b'`' => i = quoted_end(bytes, i, bytes[i]),
            b'[' => {
                i = bytes[i..]
                    .iter()
                    .position(|&b| b == b']')
                    .map_or(bytes.len(), |p| i + p + 1)
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => i = line_comment_end(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => i = block_comment_end(bytes, i),
            b';' => return (&sql[..=i], &sql[i + 1..]),
            _ => i += 1,
        }
    }
    (sql, "")
}

/// Whether `sql` holds nothing but whitespace, comments and `;`.
fn is_blank(sql: &str) -> bool {
    let mut rest = sql;
    loop {
        let start = skip_blank(rest);
        rest = &rest[start..];
        match rest.strip_prefix(';') {
            Some(after) => rest = after,
            None => return rest.is_empty(),
        }
    }
}

/// The length of whitespace and comments at the start of `sql`.
fn skip_blank(sql: &str) -> usize {
    let bytes = sql.as_bytes();
    let mut i = 0;
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if bytes[i..].starts_with(b"--") {
            i = line_comment_end(bytes, i);
        } else if bytes[i..].starts_with(b"/*") {
            i = block_comment_end(bytes, i);
        } else {
            return i;
        }
    }
}

/// Past the closing quote of the string or name opened at `start`; a doubled quote is one.
fn quoted_end(bytes: &[u8], start: usize, quote: u8) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        if bytes[i] == quote {
            if bytes.get(i + 1) == Some(&quote) {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    bytes.len()
}

fn line_comment_end(bytes: &[u8], start: usize) -> usize {
    bytes[start..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| start + p + 1)
}

fn block_comment_end(bytes: &[u8], start: usize) -> usize {
    bytes[start + 2..]
        .windows(2)
        .position(|w| w == b"*/")
        .map_or(bytes.len(), |p| start + 2 + p + 2)
}

/// `sql` on one line, comments kept, whitespace runs made one space, cut to 80 characters.
pub fn excerpt(sql: &str) -> String {
    const MAX: usize = 80;
    let start = skip_blank(sql);
    let one_line = sql[start..]
        .trim()
        .trim_end_matches(';')
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let mut out: String = one_line
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .take(MAX)
        .collect();
    if one_line.chars().count() > MAX {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory() -> Connection {
        let conn = Connection::open_in_memory().expect("open");
        conn.execute_batch(
            "CREATE TABLE skills (id INTEGER PRIMARY KEY, name TEXT, skill_dir TEXT);
             INSERT INTO skills (name, skill_dir) VALUES ('a', 'x/a'), ('b', NULL), ('a', 'y/a');",
        )
        .expect("schema");
        conn
    }

    fn run(guard: &Guard<'_>, sql: &str) -> Result<Rows, QueryError> {
        let prepared = guard.prepare(sql)?;
        guard.run(prepared, &[], Limits::default())
    }

    #[test]
    fn the_first_statement_ends_at_a_semicolon_outside_quotes_and_comments() {
        assert_eq!(split_first("SELECT 1; DELETE"), ("SELECT 1;", " DELETE"));
        assert_eq!(
            split_first("SELECT ';', \"a;\", `b;`, [c;] -- ;\n/* ; */; x"),
            ("SELECT ';', \"a;\", `b;`, [c;] -- ;\n/* ; */;", " x")
        );
        assert_eq!(split_first("SELECT 'it''s;'"), ("SELECT 'it''s;'", ""));
        assert!(is_blank(" ; -- done\n /* c */ ;"));
        assert!(!is_blank(" ; -- done\n x"));
        assert_eq!(first_word("-- c\n /* d */ with x"), Some("WITH".to_owned()));
        assert_eq!(first_word("  "), None);
    }

    #[test]
    fn an_excerpt_is_one_line_of_at_most_80_characters() {
        assert_eq!(
            excerpt("\n  DELETE\n  FROM\tskills ;\n"),
            "DELETE FROM skills"
        );
        let long = format!("SELECT {}", "x, ".repeat(40));
        let cut = excerpt(&long);
        assert_eq!(cut.chars().count(), 81);
        assert!(cut.ends_with('…'), "{cut}");
    }

    #[test]
    fn the_authorizer_refuses_writes_even_when_the_first_word_is_a_query() {
        let mut conn = memory();
        let guard = Guard::install(&mut conn).expect("guard");
        let err = run(
            &guard,
            "WITH doomed AS (SELECT id FROM skills) DELETE FROM skills WHERE id IN doomed",
        )
        .expect_err("refused");
        assert_eq!(
            err.to_string(),
            "refused: `WITH doomed AS (SELECT id FROM skills) DELETE FROM skills WHERE id IN \
             doomed` would write to the audit trail (delete from skills); query opens it read-only"
        );
        // The keyword check is a first layer only: prepared directly, the authorizer refuses.
        let direct = guard.conn.prepare("INSERT INTO skills (name) VALUES ('z')");
        assert!(direct.is_err());
        assert_eq!(
            guard.take_refusal(),
            Some(Refusal::Write(Some("insert into skills".to_owned())))
        );
        // VACUUM has no authorizer code: the first-word check refuses it, and `readonly` would.
        let direct = guard
            .conn
            .prepare("VACUUM INTO '/nonexistent/x.db'")
            .expect("prepares");
        assert!(!direct.readonly());
        drop(direct);
        let count: i64 = conn_count(&guard);
        assert_eq!(count, 3);
    }

    fn conn_count(guard: &Guard<'_>) -> i64 {
        guard
            .conn
            .query_row("SELECT count(*) FROM skills", [], |r| r.get(0))
            .expect("count")
    }

    #[test]
    fn read_only_pragmas_run_and_the_others_are_refused() {
        let mut conn = memory();
        let guard = Guard::install(&mut conn).expect("guard");
        let info = run(&guard, "PRAGMA table_info(skills)").expect("table_info");
        assert_eq!(info.rows.len(), 3);
        let version = run(&guard, "PRAGMA user_version").expect("user_version");
        assert_eq!(version.rows, vec![vec![Cell::Integer(0)]]);
        for (sql, reason) in [
            (
                "PRAGMA user_version = 9",
                Refusal::Pragma {
                    name: "user_version".to_owned(),
                    value: Some("9".to_owned()),
                },
            ),
            (
                "PRAGMA query_only = 0",
                Refusal::Pragma {
                    name: "query_only".to_owned(),
                    value: Some("0".to_owned()),
                },
            ),
            (
                "PRAGMA writable_schema",
                Refusal::Pragma {
                    name: "writable_schema".to_owned(),
                    value: None,
                },
            ),
        ] {
            match run(&guard, sql) {
                Err(QueryError::Refused { reason: got, .. }) => assert_eq!(got, reason, "{sql}"),
                other => panic!("{sql}: {other:?}"),
            }
        }
        let version: i64 = guard
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .expect("version");
        assert_eq!(version, 0);
    }

    #[test]
    fn load_extension_is_refused() {
        let mut conn = memory();
        let guard = Guard::install(&mut conn).expect("guard");
        match run(&guard, "SELECT load_extension('/tmp/evil.so')") {
            Err(QueryError::Refused { reason, .. }) => {
                assert_eq!(reason, Refusal::Function("load_extension".to_owned()));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reals_read_as_sqlite_writes_them_and_values_keep_their_types() {
        let mut conn = memory();
        let guard = Guard::install(&mut conn).expect("guard");
        let rows = run(
            &guard,
            "SELECT 1, 1.0, 0.957, 0.1 + 0.2, 1e20, NULL, 'x', x'00ff', 1e999",
        )
        .expect("rows");
        let text = |v: &Cell| match v {
            Cell::Real { text, .. } => text.clone(),
            other => format!("{other:?}"),
        };
        let expected_sum: String = guard
            .conn
            .query_row("SELECT CAST(0.1 + 0.2 AS TEXT)", [], |r| r.get(0))
            .expect("sum");
        let row = &rows.rows[0];
        assert_eq!(row[0], Cell::Integer(1));
        assert_eq!(text(&row[1]), "1.0");
        assert_eq!(text(&row[2]), "0.957");
        assert_eq!(text(&row[3]), expected_sum);
        assert_eq!(text(&row[4]), "1.0e+20");
        assert_eq!(row[5], Cell::Null);
        assert_eq!(row[6], Cell::Text("x".to_owned()));
        assert_eq!(row[7], Cell::Blob(vec![0, 255]));
        assert_eq!(text(&row[8]), "Inf");
        assert_eq!(rows.columns[2], "0.957");
    }

    #[test]
    fn parameters_are_named_and_bound_by_name() {
        let mut conn = memory();
        let guard = Guard::install(&mut conn).expect("guard");
        let prepared = guard
            .prepare("SELECT name FROM skills WHERE id = $SKILL_ID OR name = :name")
            .expect("prepare");
        assert_eq!(prepared.parameters(), ["$SKILL_ID", ":name"]);
        let rows = guard
            .run(
                prepared,
                &[
                    ("$SKILL_ID".to_owned(), Bind::Integer(2)),
                    (":name".to_owned(), Bind::Text("zzz".to_owned())),
                ],
                Limits::default(),
            )
            .expect("run");
        assert_eq!(rows.rows, vec![vec![Cell::Text("b".to_owned())]]);
        match guard.prepare("SELECT ?") {
            Err(QueryError::Positional { parameter, .. }) => assert_eq!(parameter, "?1"),
            Err(err) => panic!("{err}"),
            Ok(_) => panic!("positional accepted"),
        }
        assert_eq!(
            guard.skills_named("a").expect("named"),
            vec![
                (1, "a".to_owned(), Some("x/a".to_owned())),
                (3, "a".to_owned(), Some("y/a".to_owned()))
            ]
        );
        assert_eq!(guard.skills_named("y/a").expect("dir")[0].0, 3);
        assert_eq!(guard.skill_names().expect("names"), ["a", "b"]);
    }

    #[test]
    fn a_statement_that_never_ends_is_interrupted_at_the_time_limit() {
        let mut conn = memory();
        let guard = Guard::install(&mut conn).expect("guard");
        let prepared = guard
            .prepare("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
            .expect("prepare");
        let started = Instant::now();
        let limits = Limits {
            time: Duration::from_millis(200),
            ..Limits::default()
        };
        let err = guard.run(prepared, &[], limits).expect_err("interrupted");
        assert!(matches!(err, QueryError::TimedOut { .. }), "{err}");
        assert!(
            err.to_string()
                .ends_with("ran past the time limit of 200ms"),
            "{err}"
        );
        assert!(started.elapsed() < Duration::from_secs(10));
        // The deadline is cleared: the next statement runs.
        assert_eq!(
            run(&guard, "SELECT 2").expect("next").rows,
            vec![vec![Cell::Integer(2)]]
        );
    }

    #[test]
    fn rows_past_the_size_limit_are_refused() {
        let mut conn = memory();
        let guard = Guard::install(&mut conn).expect("guard");
        let prepared = guard
            .prepare("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT printf('%100d', x) FROM c")
            .expect("prepare");
        let limits = Limits {
            bytes: 10_000,
            ..Limits::default()
        };
        let err = guard.run(prepared, &[], limits).expect_err("too large");
        assert!(
            matches!(err, QueryError::TooLarge { limit: 10_000, .. }),
            "{err}"
        );
    }
}

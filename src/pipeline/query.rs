//! `query`: one of the seed's named queries, or one read-only statement, run on the audit trail
//! (single file or segmented, opened read-only and guarded: see [`crate::store::query`]); and
//! its rows as an aligned table, JSON or CSV.

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::store::named::{self, CATALOG, NamedQuery};
use crate::store::query::{Bind, Cell, Guard, Limits, QueryError, Rows};
use crate::store::{StoreError, TrailView};
use crate::untrusted::inert::is_bidi;

/// The widest a table cell is shown, in characters; longer ones end in `…`.
pub const CELL_WIDTH: usize = 60;
/// The bytes of a blob a table cell shows as hex.
const BLOB_BYTES: usize = 24;

/// What `query` is asked to run.
#[derive(Debug, Clone)]
pub struct QueryRequest {
    /// `--repo`: where the config names the database.
    pub repo: PathBuf,
    /// `--db`: the database itself (a single file, or a segmented trail's registry).
    pub db: Option<PathBuf>,
    pub what: What,
    /// `--param NAME=VALUE`, as given.
    pub params: Vec<String>,
    pub limits: Limits,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum What {
    /// A query of the catalog, by name.
    Named(String),
    /// `--sql`: any read-only statement.
    Sql(String),
}

/// Run the query `request` names on its trail.
pub fn run(request: &QueryRequest) -> Result<Rows, Error> {
    let params = parse_params(&request.params)?;
    let sql = match &request.what {
        What::Named(name) => find(name)?.sql,
        What::Sql(sql) => sql.as_str(),
    };
    let path = super::audit::trail_path(&request.repo, request.db.as_deref())?;
    let mut view = TrailView::open(&path)?;
    let read = |source| {
        Error::from(StoreError::Read {
            path: path.clone(),
            source,
        })
    };
    let guard = Guard::install(view.connection_mut()).map_err(read)?;
    let prepared = guard.prepare(sql).map_err(|err| query_error(err, &path))?;
    let wanted: Vec<(String, String)> = prepared
        .parameters()
        .iter()
        .map(|p| (p.clone(), p.get(1..).unwrap_or_default().to_owned()))
        .collect();
    let mut binds = Vec::new();
    for (full, key) in &wanted {
        let Some((_, value)) = params.iter().find(|(k, _)| k == key) else {
            return Err(Error::Usage {
                message: format!(
                    "missing parameter {key}: `{}` uses {full}",
                    prepared.statement()
                ),
                help: Some(format!("pass --param {key}={}", value_hint(key))),
            });
        };
        let bind = if key == "SKILL_ID" && value.parse::<i64>().is_err() {
            Bind::Integer(skill_id(&guard, value, &path)?)
        } else {
            bind(value)
        };
        binds.push((full.clone(), bind));
    }
    if let Some((key, _)) = params
        .iter()
        .find(|(k, _)| !wanted.iter().any(|(_, w)| w == k))
    {
        let takes = match wanted.len() {
            0 => "takes no parameters".to_owned(),
            _ => format!(
                "takes {}",
                wanted
                    .iter()
                    .map(|(_, k)| k.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        return Err(Error::usage(
            format!(
                "unknown parameter {key}: `{}` {takes}",
                prepared.statement()
            ),
            None,
        ));
    }
    guard
        .run(prepared, &binds, request.limits)
        .map_err(|err| query_error(err, &path))
}

/// The catalog, one aligned line a query: its name, what it shows, its parameters.
pub fn list() -> String {
    let width = CATALOG.iter().map(|q| q.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for query in CATALOG {
        let params: String = query
            .params
            .iter()
            .map(|p| format!(" (--param {p}={})", value_hint(p)))
            .collect();
        out.push_str(&format!(
            "{:width$}  {}{params}\n",
            query.name, query.summary
        ));
    }
    out
}

/// The named query `name`, or a usage error suggesting the closest.
fn find(name: &str) -> Result<&'static NamedQuery, Error> {
    named::find(name).ok_or_else(|| {
        let help = match closest(name, CATALOG.iter().map(|q| q.name)).first() {
            Some(near) => format!("did you mean `{near}`? `skillgate query --list` names them all"),
            None => "`skillgate query --list` names them all".to_owned(),
        };
        Error::Usage {
            message: format!("no named query `{name}`"),
            help: Some(help),
        }
    })
}

fn value_hint(key: &str) -> &'static str {
    if key == "SKILL_ID" {
        "ID|NAME"
    } else {
        "VALUE"
    }
}

/// `--param NAME=VALUE`s as (name, value), each name once.
fn parse_params(params: &[String]) -> Result<Vec<(String, String)>, Error> {
    let mut out: Vec<(String, String)> = Vec::new();
    for param in params {
        let Some((key, value)) = param.split_once('=') else {
            return Err(Error::usage(
                format!("--param {param:?} is not NAME=VALUE"),
                Some("for `$SKILL_ID` in the SQL: --param SKILL_ID=3"),
            ));
        };
        let is_name = key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !is_name {
            return Err(Error::usage(
                format!("--param {param:?}: {key:?} is not a parameter name"),
                Some("name it as the SQL does, without its `$`, `:` or `@`: --param SKILL_ID=3"),
            ));
        }
        if out.iter().any(|(k, _)| k == key) {
            return Err(Error::usage(format!("--param {key} is given twice"), None));
        }
        out.push((key.to_owned(), value.to_owned()));
    }
    Ok(out)
}

/// A parameter's value: an integer or a plain number as one (SQLite compares a number and a
/// text as different), anything else as text.
fn bind(value: &str) -> Bind {
    if let Ok(n) = value.parse::<i64>() {
        return Bind::Integer(n);
    }
    match value.parse::<f64>() {
        Ok(x) if x.is_finite() && is_plain_number(value) => Bind::Real(x),
        _ => Bind::Text(value.to_owned()),
    }
}

/// The id of the one skill named (or found in the directory) `name`.
fn skill_id(guard: &Guard<'_>, name: &str, path: &Path) -> Result<i64, Error> {
    let read = |source| {
        Error::from(StoreError::Read {
            path: path.to_path_buf(),
            source,
        })
    };
    let found = guard.skills_named(name).map_err(read)?;
    match found.as_slice() {
        [(id, _, _)] => Ok(*id),
        [] => {
            let names = guard.skill_names().map_err(read)?;
            let near = closest(name, names.iter().map(String::as_str));
            let help = if names.is_empty() {
                "the trail records no skill yet".to_owned()
            } else if !near.is_empty() {
                format!("did you mean {}?", quoted_names(&near))
            } else if names.len() <= 10 {
                format!("the trail's skills: {}", quoted_names(&names))
            } else {
                format!(
                    "the trail records {} skills; `skillgate query --sql \"SELECT id, name, \
                     skill_dir FROM skills\"` lists them",
                    names.len()
                )
            };
            Err(Error::Usage {
                message: format!("--param SKILL_ID={name}: no skill has that name or directory"),
                help: Some(help),
            })
        }
        many => {
            let candidates: Vec<String> = many
                .iter()
                .map(|(id, _, dir)| match dir {
                    Some(dir) => format!("{id} ({})", crate::untrusted::printable(dir, 80)),
                    None => format!("{id} (no directory: an older row)"),
                })
                .collect();
            Err(Error::Usage {
                message: format!(
                    "--param SKILL_ID={name}: {} skills have that name: ids {}",
                    many.len(),
                    candidates.join(", ")
                ),
                help: Some(
                    "pass the id (--param SKILL_ID=ID), or the skill's directory".to_owned(),
                ),
            })
        }
    }
}

fn quoted_names<S: AsRef<str>>(names: &[S]) -> String {
    names
        .iter()
        .map(|n| format!("`{}`", crate::untrusted::printable(n.as_ref(), 80)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The names nearest `name` (by edit distance, at most a third of its length, at least 2),
/// nearest first, at most five.
fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let limit = (name.chars().count() / 3).max(2);
    let mut near: Vec<(usize, &str)> = candidates
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .collect();
    near.sort();
    near.into_iter().take(5).map(|(_, c)| c).collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

fn query_error(err: QueryError, path: &Path) -> Error {
    let help = match &err {
        QueryError::Refused { .. } | QueryError::Multiple { .. } => Some(
            "query runs one SELECT (or WITH, VALUES, EXPLAIN, a read-only PRAGMA) at a time; \
             the trail is changed only by `skillgate check` and `review`",
        ),
        QueryError::Invalid { .. } => Some(
            "the tables are the seed's (skills, approval_history, skill_usage_log, …); \
             `skillgate query --list` names the seed's queries",
        ),
        QueryError::TimedOut { .. } | QueryError::TooLarge { .. } => {
            Some("narrow it with WHERE or LIMIT")
        }
        _ => None,
    };
    match err {
        QueryError::Failed { source, .. } => Error::from(StoreError::Read {
            path: path.to_path_buf(),
            source,
        }),
        err => Error::usage(err.to_string(), help),
    }
}

/// The rows as an aligned table: a header, a line of dashes, one line a row, then `(N rows)`.
/// Numbers are right-aligned and reals are shown as SQLite writes them; NULL is `NULL`; blobs
/// are `x'…'` hex, their first bytes only; a cell is at most [`CELL_WIDTH`] characters, cut
/// with `…`; newlines, tabs and other control or bidirectional characters are shown escaped
/// (`\n`, `\u{1b}`), so no cell can start a line of its own.
pub fn table(rows: &Rows) -> String {
    let count = match rows.rows.len() {
        1 => "(1 row)\n".to_owned(),
        n => format!("({n} rows)\n"),
    };
    if rows.columns.is_empty() {
        return count;
    }
    let header: Vec<String> = rows.columns.iter().map(|c| shown(c)).collect();
    // A column of numbers (NULLs aside) is right-aligned, its NULLs and header too.
    let numeric: Vec<bool> = (0..header.len())
        .map(|i| {
            let cells = rows.rows.iter().filter_map(|r| r.get(i));
            let mut values = cells.filter(|c| !matches!(c, Cell::Null)).peekable();
            values.peek().is_some() && values.all(is_number)
        })
        .collect();
    let body: Vec<Vec<(String, bool)>> = rows
        .rows
        .iter()
        .map(|row| {
            row.iter()
                .zip(&numeric)
                .map(|(cell, numeric)| {
                    let right = is_number(cell) || (*numeric && matches!(cell, Cell::Null));
                    (table_cell(cell), right)
                })
                .collect()
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            body.iter()
                .filter_map(|r| r.get(i))
                .map(|(s, _)| s.chars().count())
                .chain([header[i].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<(&str, bool)>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|((text, right), width)| {
                if *right {
                    format!("{text:>width$}")
                } else {
                    format!("{text:<width$}")
                }
            })
            .collect();
        format!("{}\n", padded.join("  ").trim_end())
    };
    let mut out = line(
        header
            .iter()
            .map(String::as_str)
            .zip(numeric.iter().copied())
            .collect(),
    );
    let dashes: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    out.push_str(&line(dashes.iter().map(|d| (d.as_str(), false)).collect()));
    for row in &body {
        out.push_str(&line(row.iter().map(|(s, r)| (s.as_str(), *r)).collect()));
    }
    out.push_str(&count);
    out
}

fn is_number(cell: &Cell) -> bool {
    matches!(cell, Cell::Integer(_) | Cell::Real { .. })
}

fn table_cell(cell: &Cell) -> String {
    match cell {
        Cell::Null => "NULL".to_owned(),
        Cell::Integer(n) => n.to_string(),
        Cell::Real { text, .. } => text.clone(),
        Cell::Text(text) => shown(text),
        Cell::Blob(bytes) => {
            let more = if bytes.len() > BLOB_BYTES { "…" } else { "" };
            let head = bytes.get(..BLOB_BYTES).unwrap_or(bytes);
            cut(&format!("x'{}{more}'", hex(head)))
        }
    }
}

/// Text for one cell of a table: escapes made visible, cut to [`CELL_WIDTH`].
fn shown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || is_bidi(c) => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    cut(&out)
}

fn cut(text: &str) -> String {
    if text.chars().count() <= CELL_WIDTH {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(CELL_WIDTH - 1).collect();
    out.push('…');
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The rows as a JSON array of objects, one a row, keyed by column name in column order (a
/// repeated name gets `_2`, `_3` …). Integers and reals are JSON numbers (a real that JSON cannot
/// hold, `Inf`, is its SQLite text), text a string, NULL `null`, a blob its hex in a string.
pub fn json(rows: &Rows) -> String {
    let mut keys: Vec<String> = Vec::new();
    for column in &rows.columns {
        let mut key = column.clone();
        let mut n = 2;
        while keys.contains(&key) {
            key = format!("{column}_{n}");
            n += 1;
        }
        keys.push(key);
    }
    let keys: Vec<String> = keys.iter().map(|k| json_string(k)).collect();
    if rows.rows.is_empty() {
        return "[]\n".to_owned();
    }
    let objects: Vec<String> = rows
        .rows
        .iter()
        .map(|row| {
            let fields: Vec<String> = keys
                .iter()
                .zip(row)
                .map(|(key, cell)| format!("{key}: {}", json_value(cell)))
                .collect();
            format!("  {{{}}}", fields.join(", "))
        })
        .collect();
    format!("[\n{}\n]\n", objects.join(",\n"))
}

fn json_value(cell: &Cell) -> String {
    match cell {
        Cell::Null => "null".to_owned(),
        Cell::Integer(n) => n.to_string(),
        Cell::Real { value, text } => serde_json::Number::from_f64(*value)
            .map_or_else(|| json_string(text), |n| n.to_string()),
        Cell::Text(text) => json_string(text),
        Cell::Blob(bytes) => json_string(&hex(bytes)),
    }
}

fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// The rows as CSV: a header line, then one record a row, each field through [`crate::report::csv::field`].
/// Records end with `\n` (not RFC 4180's CRLF: a carriage return would be a control character
/// on the way out). NULL is an empty field, a real SQLite's text, a blob its hex.
pub fn csv(rows: &Rows) -> String {
    let record = |fields: Vec<String>| {
        let quoted: Vec<String> = fields
            .iter()
            .map(|f| crate::report::csv::field(f))
            .collect();
        format!("{}\n", quoted.join(","))
    };
    let mut out = record(rows.columns.clone());
    for row in &rows.rows {
        out.push_str(&record(
            row.iter()
                .map(|cell| match cell {
                    Cell::Null => String::new(),
                    Cell::Integer(n) => n.to_string(),
                    Cell::Real { text, .. } => text.clone(),
                    Cell::Text(text) => text.clone(),
                    Cell::Blob(bytes) => hex(bytes),
                })
                .collect(),
        ));
    }
    out
}

/// `-1`, `+2.5`, `.5`, `1e-3`, `1.0e+20`: a sign, digits with at most one point, an exponent.
fn is_plain_number(text: &str) -> bool {
    let body = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (mantissa, exponent) = match body.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (body, None),
    };
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some((whole, fraction)) => {
            (digits(whole) || whole.is_empty())
                && (digits(fraction) || fraction.is_empty())
                && !(whole.is_empty() && fraction.is_empty())
        }
        None => digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)));
    mantissa_ok && exponent_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn real(value: f64, text: &str) -> Cell {
        Cell::Real {
            value,
            text: text.to_owned(),
        }
    }

    fn sample() -> Rows {
        Rows {
            columns: vec![
                "id".into(),
                "name".into(),
                "pass_rate".into(),
                "note".into(),
            ],
            rows: vec![
                vec![
                    Cell::Integer(1),
                    Cell::Text("steady".into()),
                    real(1.0, "1.0"),
                    Cell::Null,
                ],
                vec![
                    Cell::Integer(12),
                    Cell::Text("line\nforged\t\u{1b}[2J".into()),
                    real(0.6, "0.6"),
                    Cell::Blob(vec![0xde, 0xad]),
                ],
            ],
        }
    }

    #[test]
    fn a_table_aligns_numbers_right_and_escapes_what_could_forge_a_line() {
        assert_eq!(
            table(&sample()),
            "id  name                     pass_rate  note\n\
             --  -----------------------  ---------  -------\n\
             \x201  steady                         1.0  NULL\n\
             12  line\\nforged\\t\\u{1b}[2J        0.6  x'dead'\n\
             (2 rows)\n"
        );
        let empty = Rows {
            columns: vec!["a".into()],
            rows: vec![],
        };
        assert_eq!(table(&empty), "a\n-\n(0 rows)\n");
        let with_null = Rows {
            columns: vec!["n".into()],
            rows: vec![vec![Cell::Integer(10)], vec![Cell::Null]],
        };
        assert_eq!(table(&with_null), "   n\n----\n  10\nNULL\n(2 rows)\n");
        assert_eq!(table(&Rows::default()), "(0 rows)\n");
    }

    #[test]
    fn a_long_cell_and_a_long_blob_are_cut() {
        let rows = Rows {
            columns: vec!["t".into(), "b".into()],
            rows: vec![vec![
                Cell::Text("x".repeat(100)),
                Cell::Blob(vec![0xab; 100]),
            ]],
        };
        let text = table(&rows);
        let line = text.lines().nth(2).expect("row");
        let (t, b) = line.split_once("  ").expect("two cells");
        assert_eq!(t, format!("{}…", "x".repeat(59)));
        assert_eq!(b, format!("x'{}…'", "ab".repeat(24)));
        assert_eq!(text.lines().count(), 4);
        assert_eq!(
            table(&Rows {
                columns: vec!["x".into()],
                rows: vec![vec![Cell::Null]]
            })
            .lines()
            .last(),
            Some("(1 row)")
        );
    }

    #[test]
    fn json_keeps_types_and_column_order() {
        assert_eq!(
            json(&sample()),
            "[\n  {\"id\": 1, \"name\": \"steady\", \"pass_rate\": 1.0, \"note\": null},\n  \
             {\"id\": 12, \"name\": \"line\\nforged\\t\\u001b[2J\", \"pass_rate\": 0.6, \"note\": \"dead\"}\n]\n"
        );
        let twice = Rows {
            columns: vec!["a".into(), "a".into(), "z".into()],
            rows: vec![vec![
                Cell::Integer(1),
                real(f64::INFINITY, "Inf"),
                Cell::Text("x".into()),
            ]],
        };
        let doc: serde_json::Value = serde_json::from_str(&json(&twice)).expect("valid");
        assert_eq!(doc, serde_json::json!([{"a": 1, "a_2": "Inf", "z": "x"}]));
        assert_eq!(json(&Rows::default()), "[]\n");
    }

    #[test]
    fn csv_quotes_per_rfc_4180_and_neutralises_formulas() {
        assert_eq!(
            csv(&sample()),
            "id,name,pass_rate,note\n1,steady,1.0,\n12,\"line\nforged\t\u{fffd}[2J\",0.6,dead\n"
        );
        assert_eq!(crate::report::csv::field("plain"), "plain");
        assert_eq!(crate::report::csv::field("a,b"), "\"a,b\"");
        assert_eq!(
            crate::report::csv::field("say \"hi\""),
            "\"say \"\"hi\"\"\""
        );
        assert_eq!(
            crate::report::csv::field("=HYPERLINK(\"x\")"),
            "\"'=HYPERLINK(\"\"x\"\")\""
        );
        assert_eq!(
            crate::report::csv::field("+1+cmd|' /C calc'!A0"),
            "'+1+cmd|' /C calc'!A0"
        );
        assert_eq!(crate::report::csv::field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(crate::report::csv::field("\tx"), "'\tx");
        assert_eq!(crate::report::csv::field("\rx"), "\u{fffd}x");
        assert_eq!(crate::report::csv::field("-2.5"), "-2.5");
        assert_eq!(crate::report::csv::field("+3"), "+3");
        assert_eq!(crate::report::csv::field("-1.0e+20"), "-1.0e+20");
        assert_eq!(crate::report::csv::field("-"), "'-");
        assert_eq!(crate::report::csv::field("-Inf"), "'-Inf");
        assert_eq!(crate::report::csv::field(""), "");
    }

    #[test]
    fn plain_numbers_are_told_from_text() {
        for yes in ["0", "-1", "+2.5", ".5", "5.", "1e3", "1.0e+20", "-0.957"] {
            assert!(is_plain_number(yes), "{yes}");
        }
        for no in [
            "", "-", ".", "e3", "1e", "1-2", "0x10", "1,5", "--1", "1 ", "Inf",
        ] {
            assert!(!is_plain_number(no), "{no}");
        }
        assert_eq!(bind("3"), Bind::Integer(3));
        assert_eq!(bind("0.9"), Bind::Real(0.9));
        assert_eq!(bind("api-tester"), Bind::Text("api-tester".into()));
        assert_eq!(bind("inf"), Bind::Text("inf".into()));
    }

    #[test]
    fn params_are_name_equals_value_each_once() {
        assert_eq!(
            parse_params(&["SKILL_ID=a=b".into(), "x=".into()]).expect("ok"),
            vec![
                ("SKILL_ID".into(), "a=b".into()),
                ("x".into(), String::new())
            ]
        );
        for bad in [
            vec!["SKILL_ID"],
            vec!["$SKILL_ID=3"],
            vec!["=3"],
            vec!["a=1", "a=2"],
        ] {
            let params: Vec<String> = bad.iter().map(|s| (*s).to_owned()).collect();
            let err = parse_params(&params).expect_err("refused");
            assert_eq!(err.exit_code(), crate::exit_codes::USAGE, "{bad:?}");
        }
    }

    #[test]
    fn an_unknown_name_suggests_the_closest() {
        let err = find("gate-preformance").expect_err("unknown");
        assert_eq!(err.to_string(), "no named query `gate-preformance`");
        assert_eq!(
            err.help(),
            Some("did you mean `gate-performance`? `skillgate query --list` names them all")
        );
        let err = find("zzz").expect_err("unknown");
        assert_eq!(err.help(), Some("`skillgate query --list` names them all"));
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(
            closest("steddy", ["steady", "shaky", "untested"].into_iter()),
            ["steady"]
        );
    }

    #[test]
    fn the_list_has_a_line_each_aligned() {
        let text = list();
        assert_eq!(text.lines().count(), CATALOG.len());
        let column = text.lines().map(|l| {
            l.find("  ")
                .map(|i| i + l[i..].len() - l[i..].trim_start().len())
        });
        let starts: Vec<_> = column.collect();
        assert!(starts.windows(2).all(|w| w[0] == w[1]), "{text}");
        assert!(
            text.lines()
                .next()
                .is_some_and(|l| l.starts_with("pass-rate-trend ")
                    && l.ends_with(" (--param SKILL_ID=ID|NAME)")),
            "{text}"
        );
    }
}

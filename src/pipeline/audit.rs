//! The audit trail checked, read-only (`verify`): its schema, its category templates, its
//! segment files, its hash chain; written out as one file (`export`); and its branch's history
//! squashed (`compact`).

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::store::{
    ChainBreak, ChainReport, Exported, SchemaProblem, SegmentProblem, SegmentStatus, Store,
    TemplateProblem,
};

/// What `audit verify` is asked to check.
#[derive(Debug)]
pub struct VerifyRequest {
    /// `--repo`: where the config names the database.
    pub repo: PathBuf,
    /// `--db`: the database itself.
    pub db: Option<PathBuf>,
}

/// The schema of `verify --format json`.
pub const SCHEMA: &str = "skillgate.audit-verify/1";

/// Everything `verify` found, the schema first: a planted trigger explains the rows after it;
/// then the segment files, whose loss or exchange explains the breaks after them.
#[derive(Debug)]
pub struct Verified {
    /// The database checked: a single file, or a segmented trail's registry.
    pub db: PathBuf,
    pub schema: Vec<SchemaProblem>,
    pub templates: Vec<TemplateProblem>,
    /// The segments the registry records, in order; none for a single file.
    pub segments: Vec<SegmentStatus>,
    /// What is wrong with the segment files (missing, replaced, re-ordered, unlisted …).
    pub segment_problems: Vec<SegmentProblem>,
    /// The chain over the file's rows, or over every segment's rows for a segmented trail.
    pub chain: ChainReport,
    /// The segment file each of `chain.breaks` is in (by index); empty for a single file.
    pub break_segments: Vec<Option<String>>,
}

impl Verified {
    pub fn is_intact(&self) -> bool {
        self.schema.is_empty()
            && self.templates.is_empty()
            && self.segment_problems.is_empty()
            && self.chain.is_intact()
    }

    /// The segment file of break `index`, if the trail is segmented.
    fn break_segment(&self, index: usize) -> Option<&str> {
        self.break_segments.get(index).and_then(Option::as_deref)
    }

    /// Break `index`, named by its segment in a segmented trail.
    fn break_message(&self, index: usize, chain_break: &ChainBreak) -> String {
        match self.break_segment(index) {
            Some(file) => format!("segment {file}: {chain_break}"),
            None => chain_break.to_string(),
        }
    }

    pub fn messages(&self) -> Vec<String> {
        let breaks = (self.chain.breaks.iter().enumerate()).map(|(i, b)| self.break_message(i, b));
        self.schema
            .iter()
            .map(ToString::to_string)
            .chain(self.templates.iter().map(ToString::to_string))
            .chain(self.segment_problems.iter().map(ToString::to_string))
            .chain(breaks)
            .collect()
    }

    /// `in 4 segments` after the row count, for a segmented trail.
    fn across(&self) -> String {
        match self.segments.len() {
            0 => String::new(),
            1 => " in 1 segment".to_owned(),
            n => format!(" in {n} segments"),
        }
    }

    /// One line a segment: its file, rows, ids, whether sealed, and its problem.
    fn segment_lines(&self) -> String {
        let mut out = String::new();
        for status in &self.segments {
            let s = &status.segment;
            let rows = match s.rows {
                1 => "1 row".to_owned(),
                n => format!("{n} rows"),
            };
            let ids = match (s.first_id, s.last_id) {
                (Some(a), Some(b)) => format!(" (ids {a} to {b})"),
                _ => String::new(),
            };
            let state = match &s.sha256 {
                Some(sha) if s.is_sealed() => {
                    format!("sealed, sha256 {}", sha.get(..12).unwrap_or(sha))
                }
                _ if s.is_sealed() => "sealed".to_owned(),
                _ => "open".to_owned(),
            };
            let file = s.file_name();
            let breaks = (self.break_segments.iter())
                .filter(|b| b.as_deref() == Some(file.as_str()))
                .count();
            let verdict = match (&status.problem, breaks) {
                (Some(problem), _) => problem.label().to_owned(),
                (None, 0) => "ok".to_owned(),
                (None, 1) => "1 row does not chain".to_owned(),
                (None, n) => format!("{n} rows do not chain"),
            };
            out.push_str(&format!(
                "  segment {file}: {rows}{ids}, {state}: {verdict}\n"
            ));
        }
        out
    }

    /// What `verify` prints: the first problem, the others, the totals.
    pub fn text(&self) -> String {
        let findings = self;
        let report = &findings.chain;
        let rows = match report.rows {
            1 => "1 row".to_owned(),
            n => format!("{n} rows"),
        };
        let head = match report.head_id {
            Some(id) => format!("head {} (row {id})", report.head),
            None => format!("head {} (empty)", report.head),
        };
        let across = findings.across();
        let messages = findings.messages();
        let Some((first, rest)) = messages.split_first() else {
            return format!(
                "audit trail intact: {rows} checked{across}, {head}\n{}",
                findings.segment_lines()
            );
        };
        let mut out = format!("audit trail broken: {first}\n");
        for other in rest {
            out.push_str(&format!("also: {other}\n"));
        }
        let problems = match messages.len() {
            1 => "1 problem".to_owned(),
            n => format!("{n} problems"),
        };
        out.push_str(&format!("{problems} in {rows} checked{across}, {head}\n"));
        out.push_str(&findings.segment_lines());
        out
    }

    /// `verify --format json`: the same, with each problem's fields (schema [`SCHEMA`]).
    pub fn json(&self) -> String {
        let findings = self;
        let db = self.db.display().to_string();
        let report = &findings.chain;
        let with_message = |value: serde_json::Value, message: String| {
            let mut value = value;
            value["message"] = message.into();
            value
        };
        let breaks: Vec<serde_json::Value> = report
            .breaks
            .iter()
            .enumerate()
            .map(|(index, b)| {
                let mut value = with_message(
                    serde_json::to_value(b).unwrap_or_default(),
                    findings.break_message(index, b),
                );
                value["segment"] = findings.break_segment(index).into();
                value
            })
            .collect();
        let segments: Vec<serde_json::Value> = findings
            .segments
            .iter()
            .map(|status| {
                let s = &status.segment;
                serde_json::json!({
                    "seq": s.seq,
                    "file": s.file_name(),
                    "rows": s.rows,
                    "first_id": s.first_id,
                    "last_id": s.last_id,
                    "sealed": s.is_sealed(),
                    "sha256": s.sha256,
                    "problem": status.problem.as_ref().map(ToString::to_string),
                })
            })
            .collect();
        let segment_problems: Vec<serde_json::Value> = findings
            .segment_problems
            .iter()
            .map(|p| with_message(serde_json::to_value(p).unwrap_or_default(), p.to_string()))
            .collect();
        let schema: Vec<serde_json::Value> = findings
            .schema
            .iter()
            .map(|p| with_message(serde_json::to_value(p).unwrap_or_default(), p.to_string()))
            .collect();
        let templates: Vec<serde_json::Value> = findings
        .templates
        .iter()
        .map(|p| serde_json::json!({ "template": p.name, "problem": p.message, "message": p.to_string() }))
        .collect();
        let doc = serde_json::json!({
            "schema": SCHEMA,
            "db": db,
            "intact": findings.is_intact(),
            "rows": report.rows,
            "head": report.head,
            "head_id": report.head_id,
            "breaks": breaks,
            "schema_problems": schema,
            "template_problems": templates,
            "segments": segments,
            "segment_problems": segment_problems,
        });
        let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// The database `--db` names, else the trail under `--repo`: `registry.db` beside `[audit] db`
/// when the trail there is segmented, else `[audit] db` itself.
pub(crate) fn trail_path(repo: &Path, db: Option<&Path>) -> Result<PathBuf, Error> {
    let path = match db {
        Some(db) => db.to_path_buf(),
        None => {
            let config = crate::config::Config::load(repo, None)?;
            let db = repo.join(&config.audit.db);
            let registry = db
                .parent()
                .map_or_else(|| PathBuf::from("registry.db"), |d| d.join("registry.db"));
            if registry.is_file() { registry } else { db }
        }
    };
    if !path.is_file() {
        return Err(Error::usage(
            format!("no audit database at {}", path.display()),
            Some("pass --db FILE, or --repo DIR of a repository where `skillgate check` ran"),
        ));
    }
    Ok(path)
}

/// Check the trail `request` names. A registry that records segments is walked segment by
/// segment: each file there and as recorded, then the chain over all their rows.
pub fn verify(request: &VerifyRequest) -> Result<Verified, Error> {
    let path = trail_path(&request.repo, request.db.as_deref())?;
    let store = Store::open_read_only(&path)?;
    let schema = store.schema_problems()?;
    // Templates are read only from skillgate's own table: in a foreign schema they may be a
    // view or missing, and the schema problem is already the finding.
    let templates = if schema.is_empty() {
        store.template_problems()?
    } else {
        Vec::new()
    };
    if store.segments()?.is_empty() {
        let chain = store.verify_chain()?;
        // Segment files beside a database that records none: rows it does not account for.
        let segment_problems = crate::store::stray_files(&path)?;
        return Ok(Verified {
            db: path,
            schema,
            templates,
            segments: Vec::new(),
            segment_problems,
            chain,
            break_segments: Vec::new(),
        });
    }
    let trail = store.verify_trail()?;
    Ok(Verified {
        db: path,
        schema,
        templates,
        segments: trail.segments,
        segment_problems: trail.problems,
        chain: trail.chain,
        break_segments: trail.break_segments,
    })
}

/// What `audit export` is asked to write.
#[derive(Debug)]
pub struct ExportRequest {
    /// `--repo`: where the config names the trail.
    pub repo: PathBuf,
    /// `--db`: the registry or single file itself.
    pub db: Option<PathBuf>,
    /// `--out`: the file to write; it must not exist.
    pub out: PathBuf,
}

/// Write the trail `request` names as one ordinary database at `--out`.
pub fn export(request: &ExportRequest) -> Result<Exported, Error> {
    let out = &request.out;
    if std::fs::symlink_metadata(out).is_ok() {
        return Err(Error::usage(
            format!(
                "{} exists already; audit export writes a new file",
                out.display()
            ),
            Some("name a file that does not exist, or move the old one away first"),
        ));
    }
    let path = trail_path(&request.repo, request.db.as_deref())?;
    Ok(crate::store::export(&path, out)?)
}

/// What `audit compact` is asked to do.
#[derive(Debug)]
pub struct CompactRequest {
    pub repo: PathBuf,
    pub config: Option<PathBuf>,
    /// `--remote`: the remote the branch is pushed to.
    pub remote: String,
    /// `--tag`: where the history before is kept.
    pub tag: Option<String>,
}

/// Squash the audit branch's history into one commit.
pub fn compact(request: &CompactRequest) -> Result<crate::audit::Compaction, Error> {
    let remote = &request.remote;
    let remote_ok = !remote.is_empty()
        && !remote.starts_with('-')
        && !remote.chars().any(|c| c.is_whitespace() || c.is_control());
    if !remote_ok {
        return Err(Error::usage(
            format!("--remote {remote:?} is not a remote name"),
            Some("name a remote of the checkout, as `git remote` lists them"),
        ));
    }
    if let Some(tag) = &request.tag
        && !crate::git::is_valid_tag_name(tag)
    {
        return Err(Error::usage(
            format!("--tag {tag:?} is not a valid tag name"),
            Some("see `git check-ref-format`: no spaces, `..`, `~`, `^`, `:` or trailing `.lock`"),
        ));
    }
    let config = crate::config::Config::load(&request.repo, request.config.as_deref())?;
    Ok(crate::audit::compact(
        &config.audit,
        &request.repo,
        remote,
        request.tag.as_deref(),
    )?)
}

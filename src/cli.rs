//! The command line: one `Command` enum, argument groups flattened into it.

use std::path::PathBuf;

use clap::builder::PossibleValue;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::config::FailOn;

#[derive(Debug, Parser)]
#[command(
    name = "skillgate",
    version,
    about = "A test-driven gate for agent skills: run each changed skill's tests, decide auto / escalate / human, record it.",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Gate the skills that changed (or all of them): run their suites, decide, record, report.
    Check(CheckArgs),
    /// Read test reports (and coverage) and print what the gate reads from them, as JSON in the
    /// seed's test-results schema: the way to see why a suite was counted as it was.
    Parse(ParseArgs),
    /// Check skills against the Agent Skills spec (and the gate's own fields) without running
    /// anything: the lint `check` runs first. Exit 4 when a finding is an error.
    Lint(LintArgs),
    /// Post and record finished runs: the second stage after matrix shards or a fork's
    /// read-only job, from the results documents `check --out` wrote.
    Publish(PublishArgs),
    /// On a `pull_request_review` event: record an eligible reviewer's approval (or change
    /// request) for the skills waiting at the pull request's head, and pass the check once
    /// every one has the approvals it needs.
    Review(ReviewArgs),
    /// The audit trail: `verify` walks the database's hash chain, `compact` squashes the audit
    /// branch's git history.
    #[command(subcommand)]
    Audit(AuditCommand),
    /// Read the audit trail back as a report for the week: pass-rate trends, skills waiting for
    /// a human, agent effectiveness, coverage by category, gate performance, Phase-4 skills,
    /// flaky tests, time to approval and the migration assessment. In a scheduled job it writes
    /// the job summary, and can keep one tracking issue and remind reviewers.
    Report(ReportArgs),
    /// Run one of the seed's named queries (`--list` shows them), or any read-only SQL
    /// statement, on the audit trail opened read-only.
    Query(QueryArgs),
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The repository whose trail is read (its `[audit]` config, or its audit branch in a
    /// GitHub job).
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub repo: PathBuf,

    /// The config file [default: .skillgate.toml in the repository, if present].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// The audit database: a single file, or a segmented trail's registry.db [default: the
    /// audit branch in a GitHub job; else .skillgate/registry.db in the repository when it
    /// exists, else `[audit] db`].
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,

    /// The window's start: a duration back from --until (`30d`, `12h`, `2w`) or a date
    /// (`2026-11-01`, `2026-11-01T09:00:00Z`).
    #[arg(long, default_value = "30d", value_name = "WHEN")]
    pub since: String,

    /// The window's end (included): a date, or a duration back from now [default: now].
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,

    /// `markdown` (GitHub: job summary, issue), `html` (one self-contained page), `json`
    /// (schema skillgate.report/1) or `csv` (one file per section; needs --out DIR).
    #[arg(long, value_enum, default_value_t = ReportFormat::Markdown)]
    pub format: ReportFormat,

    /// Write the report here instead of stdout; for `csv`, a directory (made if missing).
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,

    /// Only this section (repeatable): pass-rates, waiting, effectiveness, coverage,
    /// gate-performance, phase4, flaky-tests, time-to-approval, migration.
    #[arg(long = "section", value_name = "NAME", value_parser = parse_section)]
    pub sections: Vec<crate::report::SectionName>,

    /// Create or update the one open issue with this title and the `skillgate-report` label,
    /// its body the Markdown report (needs a GitHub job with `issues: write`).
    #[arg(long, value_name = "TITLE")]
    pub issue: Option<String>,

    /// Re-request the routed reviewers of every open pull request whose skills have waited
    /// longer than this (`48h`), with one reminder line in its sticky comment, once per wait.
    #[arg(long, value_name = "DURATION")]
    pub remind_after: Option<String>,

    /// The GitHub token [default: $GITHUB_TOKEN]. Prefer the environment: a command line is
    /// visible to other processes.
    #[arg(long, value_name = "TOKEN", value_parser = parse_token, hide_default_value = true)]
    pub token: Option<crate::github::Token>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Markdown,
    Html,
    Json,
    Csv,
}

fn parse_section(text: &str) -> Result<crate::report::SectionName, String> {
    crate::report::SectionName::parse(text).ok_or_else(|| {
        format!(
            "no section `{text}`: one of {}",
            crate::report::SectionName::ALL
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("what").required(true).args(["name", "list", "sql"]))]
pub struct QueryArgs {
    /// A named query (see --list).
    #[arg(value_name = "NAME")]
    pub name: Option<String>,

    /// List the named queries, one line each.
    #[arg(long)]
    pub list: bool,

    /// Run this one SQL statement instead: a SELECT (WITH, VALUES, EXPLAIN) or a read-only
    /// PRAGMA. Anything that would write, attach or set a pragma is refused (exit 2), and so is
    /// a statement still running after 60 s or returning more than 256 MiB.
    #[arg(long, value_name = "SQL")]
    pub sql: Option<String>,

    /// A value for a named parameter of the query, `$NAME`, `:NAME` or `@NAME` in the SQL
    /// (`--param SKILL_ID=3`); repeatable. SKILL_ID also takes a skill's name or directory
    /// (`--param SKILL_ID=api-tester`). A number binds as a number, anything else as text.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,

    /// The repository whose trail is read.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub repo: PathBuf,

    /// The audit database: a single file, or a segmented trail's registry.db [default:
    /// .skillgate/registry.db in the repository when it exists, else .skillgate/skills.db].
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,

    /// `table` (aligned columns; NULL shown as `NULL`, control characters escaped, cells cut
    /// at 60 characters), `json` (an array of objects, one a row, with JSON types) or `csv`
    /// (RFC 4180, NULL empty, spreadsheet formulas neutralised with a leading `'`).
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum QueryFormat {
    Table,
    Json,
    Csv,
}

#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Check approval_history's hash chain: exit 0 when every row chains, 4 naming the first
    /// row that does not (edited, deleted, re-ordered or inserted by hand), 1 when the database
    /// cannot be read. A segmented trail is walked segment by segment: a missing, replaced,
    /// re-ordered or unlisted segment file is named too (exit 4).
    Verify(AuditVerifyArgs),
    /// Write the audit trail, segmented or not, as one ordinary SQLite database holding every
    /// row, on which the seed's SQL runs unchanged. Exit 2 when --out exists already.
    Export(AuditExportArgs),
    /// Squash the audit branch's git history into one commit holding its head's database,
    /// after verifying the chain there and tagging the old head (which keeps it reachable).
    /// Pushes with the checkout's git credentials and a lease on the head it read, so a run
    /// landing meanwhile is never dropped. Exit 4 when the chain is broken (nothing changes).
    Compact(AuditCompactArgs),
}

#[derive(Debug, Args)]
pub struct AuditCompactArgs {
    /// The checkout whose remote holds the audit branch.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub repo: PathBuf,

    /// The config file, for `[audit] branch` and `db` [default: .skillgate.toml in the
    /// repository, if present].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// The git remote to compact the branch on.
    #[arg(long, default_value = "origin", value_name = "NAME")]
    pub remote: String,

    /// The tag that keeps the old history [default: skillgate-audit-<first 12 digits of the head>].
    #[arg(long, value_name = "NAME")]
    pub tag: Option<String>,
}

#[derive(Debug, Args)]
pub struct AuditVerifyArgs {
    /// The repository whose audit database is checked.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub repo: PathBuf,

    /// The audit database: a single file, or a segmented trail's registry.db (its segments
    /// are read from trail/ beside it) [default: .skillgate/registry.db in the repository when
    /// it exists, else .skillgate/skills.db].
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,

    /// `text`, or `json` (schema skillgate.audit-verify/1).
    #[arg(long, value_enum, default_value_t = AuditFormat::Text)]
    pub format: AuditFormat,
}

#[derive(Debug, Args)]
pub struct AuditExportArgs {
    /// The file to write: a new one, never overwritten.
    #[arg(long, value_name = "FILE.db")]
    pub out: PathBuf,

    /// The repository whose audit trail is exported.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub repo: PathBuf,

    /// The audit database: a segmented trail's registry.db or a single file [default:
    /// .skillgate/registry.db in the repository when it exists, else .skillgate/skills.db].
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AuditFormat {
    Text,
    Json,
}

#[derive(Debug, Args)]
pub struct PublishArgs {
    /// Results documents (schema skillgate.results/1) of one pull request; several are merged
    /// (matrix shards).
    #[arg(long = "results", value_name = "FILE", num_args = 1.., required = true)]
    pub results: Vec<PathBuf>,

    /// The repository whose config (routing) applies.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub repo: PathBuf,

    /// The config file [default: .skillgate.toml in the repository, if present].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// The audit database [default: .skillgate/skills.db in the repository].
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,

    #[command(flatten)]
    pub github: GithubArgs,

    /// How to print the merged verdict on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,

    /// Which outcomes make the process fail (as for `check`).
    #[arg(long, value_enum, default_value_t = FailOn::Never)]
    pub fail_on: FailOn,
}

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// The repository whose config (routing) applies.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub repo: PathBuf,

    /// The config file [default: .skillgate.toml in the repository, if present].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// The audit database, when not published [default: `[audit] db` in the repository].
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,

    #[command(flatten)]
    pub github: GithubArgs,
}

/// How the verdict reaches GitHub.
#[derive(Debug, Args)]
pub struct GithubArgs {
    /// `github`: check run, sticky comment and reviewers; `none`: nothing written to GitHub;
    /// `auto`: `github` in a GitHub Actions job with a token, else `none`. A pull request from a
    /// fork is never written to by `check`.
    #[arg(long, value_enum, default_value_t = PublishMode::Auto)]
    pub publish: PublishMode,

    /// The GitHub token [default: $GITHUB_TOKEN]. Prefer the environment: a command line is
    /// visible to other processes.
    #[arg(long, value_name = "TOKEN", value_parser = parse_token, hide_default_value = true)]
    pub token: Option<crate::github::Token>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PublishMode {
    Auto,
    Github,
    None,
}

fn parse_token(text: &str) -> Result<crate::github::Token, String> {
    crate::github::Token::new(text).ok_or_else(|| "the token is empty".to_owned())
}

#[derive(Debug, Args)]
pub struct LintArgs {
    /// Skill directories, SKILL.md files, or directories to search for every SKILL.md below
    /// them [default: the repository's skills, found as `check --all` finds them].
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// The repository: its config is read, and findings name files relative to it.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub repo: PathBuf,

    /// The config file [default: .skillgate.toml in the repository, if present].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// `text`: one `file:line:column: severity[rule]: message` line per finding; `json`: a
    /// document (schema skillgate.lint/1).
    #[arg(long, value_enum, default_value_t = LintFormat::Text)]
    pub format: LintFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LintFormat {
    Text,
    Json,
}

#[derive(Debug, Args)]
pub struct ParseArgs {
    /// Test reports or captured output; several are read as one run.
    #[arg(value_name = "FILE", required_unless_present = "coverage")]
    pub files: Vec<PathBuf>,

    /// Read the reports as this format instead of detecting it from their content.
    #[arg(long, value_enum, default_value_t = ReportFormatArg::Auto)]
    pub format: ReportFormatArg,

    /// A coverage report (lcov, Cobertura, istanbul, coverage.py, Go, JaCoCo) to read as well.
    #[arg(long, value_name = "FILE")]
    pub coverage: Vec<PathBuf>,
}

/// `--format` of `parse`: a report format, or `auto` to detect it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormatArg {
    /// Detect the format from the content.
    Auto,
    /// JUnit XML, in its dialects.
    Junit,
    /// Jest's `--json` document.
    Jest,
    /// Mocha's `json` reporter.
    Mocha,
    /// TAP 12, 13 and 14.
    Tap,
    /// pytest's terminal output.
    Pytest,
    /// python unittest's output.
    Unittest,
    /// `go test -json` or `-v`.
    Gotest,
    /// cargo test (libtest text or JSON, nextest).
    Libtest,
    /// node:test's spec reporter.
    NodeSpec,
    /// Shell tallies (`Passed: N`, ✓/✗, `[PASS]`).
    Adhoc,
    /// The plain line `N passed, N failed[, N skipped]`.
    Summary,
    /// Mocha's `spec` (default) and `dot` reporters.
    #[value(alias = "mocha-dot")]
    MochaSpec,
    /// Jest's default reporter.
    JestText,
    /// Vitest's default reporter.
    VitestText,
    /// Perl's `prove`.
    Prove,
}

impl ReportFormatArg {
    /// The forced format; `None` for `auto`.
    pub fn forced(self) -> Option<crate::results::ReportFormat> {
        use crate::results::ReportFormat as F;
        Some(match self {
            Self::Auto => return None,
            Self::Junit => F::Junit,
            Self::Jest => F::Jest,
            Self::Mocha => F::Mocha,
            Self::Tap => F::Tap,
            Self::Pytest => F::Pytest,
            Self::Unittest => F::Unittest,
            Self::Gotest => F::GoTest,
            Self::Libtest => F::Libtest,
            Self::NodeSpec => F::NodeSpec,
            Self::Adhoc => F::Adhoc,
            Self::Summary => F::Summary,
            Self::MochaSpec => F::MochaSpec,
            Self::JestText => F::JestText,
            Self::VitestText => F::VitestText,
            Self::Prove => F::Prove,
        })
    }
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The repository (or plain directory) holding the skills.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub repo: PathBuf,

    /// Base revision: skills whose files changed since it are gated
    /// [default: the merge-base with the default branch].
    #[arg(long, value_name = "REV", conflicts_with = "all")]
    pub base: Option<String>,

    /// Head revision; must be the checked-out commit [default: the working tree].
    #[arg(long, value_name = "REV", conflicts_with = "all")]
    pub head: Option<String>,

    /// Gate every skill, changed or not; works in a directory without git.
    #[arg(long)]
    pub all: bool,

    /// Gate only this skill: a directory name (every skill with it) or a path (repeatable).
    #[arg(long = "skill", value_name = "NAME")]
    pub skills: Vec<String>,

    /// The config file [default: .skillgate.toml in the repository, if present].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// The audit database [default: .skillgate/skills.db in the repository].
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,

    /// Write the results document (JSON, schema skillgate.results/1) to this file.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// How to print the verdict on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,

    #[command(flatten)]
    pub github: GithubArgs,

    /// Suites run at once [default: config `runner.jobs`, else the number of cores].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,

    /// Which outcomes make the process fail: `review` (exit 3 or 4), `correction` (exit 4 only)
    /// or `never` (always 0 once a verdict is reached).
    #[arg(long, value_enum, default_value_t = FailOn::Review)]
    pub fail_on: FailOn,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Text,
    Markdown,
    Json,
}

/// `--fail-on`'s values; the type is the domain's ([`crate::config::FailOn`]).
impl ValueEnum for FailOn {
    fn value_variants<'a>() -> &'a [Self] {
        &[Self::Review, Self::Correction, Self::Never]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(match self {
            Self::Review => "review",
            Self::Correction => "correction",
            Self::Never => "never",
        }))
    }
}

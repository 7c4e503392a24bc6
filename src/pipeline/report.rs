//! `report`: the trail read back (from its branch in a GitHub job, else the local file), its
//! analytics gathered over a window, rendered; in a GitHub job, the Markdown also goes to the job
//! summary, and on request to one tracking issue and as reminders on waiting pull requests.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::audit::{self, Reads};
use crate::error::Error;
use crate::github::{self, Reminders, Session, Token, Tracked, outputs};
use crate::report::{self, Report, Section, SectionName};
use crate::store::{ReportQuery, TrailView};
use crate::warning::{Warning, WarningKind};

use super::trust::trusted_config;

/// What `report` is asked for.
#[derive(Debug)]
pub struct ReportRequest {
    pub repo: PathBuf,
    pub config: Option<PathBuf>,
    /// `--db`: a local trail, even in a GitHub job.
    pub db: Option<PathBuf>,
    /// `--since`, `--until` as given.
    pub since: String,
    pub until: Option<String>,
    pub format: Format,
    pub out: Option<PathBuf>,
    pub sections: Vec<SectionName>,
    pub issue: Option<String>,
    pub remind_after: Option<String>,
    pub token: Option<Token>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Html,
    Json,
    Csv,
}

/// What `report` made.
#[derive(Debug)]
pub struct Reported {
    pub report: Report,
    /// What goes to stdout (empty when `--out` took it).
    pub stdout: String,
    /// Files written (`--out`).
    pub written: Vec<PathBuf>,
    pub warnings: Vec<Warning>,
}

/// Make the report `request` asks for.
pub fn report(request: &ReportRequest) -> Result<Reported, Error> {
    let now = now_epoch();
    let window = Window::parse(&request.since, request.until.as_deref(), now)?;
    let remind_after = request
        .remind_after
        .as_deref()
        .map(|text| {
            parse_duration(text).ok_or_else(|| {
                Error::usage(
                    format!("--remind-after {text}: not a duration"),
                    Some("write it with a unit: `48h`, `2d`"),
                )
            })
        })
        .transpose()?;
    if let Some(out) = &request.out
        && request.format != Format::Csv
    {
        super::check::check_out_path(out)?;
    }
    if request.format == Format::Csv && request.out.is_none() && request.sections.len() != 1 {
        return Err(Error::usage(
            "--format csv writes one file per section",
            Some("pass --out DIR (made if missing), or one --section to print it"),
        ));
    }
    let session = Session::from_env(request.token.as_ref().map(Token::expose))?;
    let mut warnings = Vec::new();
    let config = trusted_config(
        &request.repo,
        request.config.as_deref(),
        &session,
        &mut warnings,
    )?;
    let wants_github = request.issue.is_some() || remind_after.is_some();
    if wants_github && (session.repo.is_none() || session.token.is_none()) {
        return Err(Error::usage(
            "--issue and --remind-after write to GitHub: they need GITHUB_REPOSITORY and a token",
            Some(
                "run them in a scheduled GitHub job with `issues: write` and `pull-requests: write`, and GITHUB_TOKEN set",
            ),
        ));
    }

    // The trail: the audit branch in a GitHub job (every segment: waits and approvals reach
    // back past any window), else the local file.
    let branch = match &request.db {
        None if session.in_actions => {
            audit::connect(&config.audit, &session, &request.repo, Reads::All)?
        }
        _ => None,
    };
    let view = match &branch {
        Some(trail) if !trail.path().is_file() => {
            return Err(Error::usage(
                format!(
                    "the audit branch {} holds no trail yet: there is nothing to report",
                    trail.branch()
                ),
                Some("a gate run that publishes creates it (see docs/workflows/)"),
            ));
        }
        Some(trail) => {
            warnings.extend(
                trail
                    .chain_warning()
                    .map(|line| Warning::new(WarningKind::Audit, line)),
            );
            TrailView::open_single(&trail.path())?
        }
        None => {
            let path = super::audit::trail_path(&request.repo, request.db.as_deref())?;
            if session.in_actions && request.db.is_none() {
                warnings.push(Warning::new(
                    WarningKind::Audit,
                    format!(
                        "the audit branch was not read (`[audit] commit = \"{}\"`{}): the report is of {}",
                        config.audit.commit.as_str(),
                        if session.token.is_none() { ", no token" } else { "" },
                        path.display()
                    ),
                ));
            }
            TrailView::open(&path)?
        }
    };
    let repository = match session.repo.as_ref() {
        Some(repo) => Some(repo.full()),
        None => view.repository()?,
    };
    let mut sections = request.sections.clone();
    if remind_after.is_some() && !sections.is_empty() && !sections.contains(&SectionName::Waiting) {
        sections.push(SectionName::Waiting);
    }
    let mut report = view.report(&ReportQuery {
        since: window.since.clone(),
        until: window.until.clone(),
        generated_at: timestamp(now),
        repository,
        sections,
        routing: &config.routing,
    })?;
    // In a GitHub job, a wait is shown only while its pull request is open at the head it waits
    // at: the trail cannot tell a closed pull request, nor a head no run has decided on yet.
    if session.in_actions
        && session.token.is_some()
        && let Some(repo) = &session.repo
        && let Some(Section::Waiting(rows)) = report
            .sections
            .iter_mut()
            .find(|s| s.name() == SectionName::Waiting)
    {
        let ours = |row: &crate::report::Waiting| row.repository.eq_ignore_ascii_case(&repo.full());
        let mut numbers: Vec<u64> = rows
            .iter()
            .filter(|r| ours(r))
            .map(|r| r.pull_request)
            .collect();
        numbers.sort_unstable();
        numbers.dedup();
        if !numbers.is_empty() {
            // A token that cannot read pull requests (no `pull-requests: read`) leaves every
            // recorded wait listed, and says so: the report is still made.
            match session.with_client(async |client| {
                Ok(github::open_heads(client, repo, &numbers).await?)
            }) {
                Ok(heads) => {
                    let before = rows.len();
                    rows.retain(|r| {
                        !ours(r)
                            || heads.get(&r.pull_request).and_then(Option::as_deref)
                                == Some(r.head_sha.as_str())
                    });
                    let gone = before - rows.len();
                    if gone > 0 {
                        warnings.push(Warning::new(
                            WarningKind::Publish,
                            format!(
                                "{gone} recorded {} left out: {} pull request is closed, or its head moved on",
                                if gone == 1 { "wait" } else { "waits" },
                                if gone == 1 { "its" } else { "their" }
                            ),
                        ));
                    }
                }
                Err(err) => warnings.push(Warning::new(
                    WarningKind::Publish,
                    format!(
                        "could not tell which pull requests are open ({err}): every recorded wait is listed"
                    ),
                )),
            }
        }
    }
    let waiting = report.sections.iter().find_map(|s| match s {
        Section::Waiting(rows) => Some(rows.clone()),
        _ => None,
    });
    if !request.sections.is_empty() {
        report
            .sections
            .retain(|s| request.sections.contains(&s.name()));
    }

    // The Markdown, made only when something shows it.
    let wants_markdown = request.format == Format::Markdown
        || session.step_summary.is_some()
        || request.issue.is_some();
    let markdown = if wants_markdown {
        report::markdown::render(&report)
    } else {
        String::new()
    };
    if let Some(path) = &session.step_summary {
        outputs::append_summary(path, &markdown).map_err(|err| Error::io("write", path, err))?;
    }
    if wants_github && let Some(repo) = &session.repo {
        // A wait recorded before `escalated_to` was (or by hand) is asked of its route now.
        let mut waiting = waiting.unwrap_or_default();
        for row in &mut waiting {
            if row.escalated_to.is_empty()
                && let Some(tier) = crate::skill::Tier::parse(&row.approval_level)
                && let Some(route) = config.routing.route_for(tier, &row.categories)
            {
                row.escalated_to = route.users.iter().chain(&route.teams).cloned().collect();
            }
        }
        let waits = github::waits_of(&waiting, repo);
        let after_hours = remind_after.map(|d| d.as_secs().div_ceil(3600));
        let (tracked, reminders) = session.with_client(async |client| {
            let tracked = match &request.issue {
                Some(title) => Some(github::upsert_issue(client, repo, title, &markdown).await?),
                None => None,
            };
            let reminders = match after_hours {
                Some(hours) => {
                    Some(github::remind(client, repo, &waits, hours, &timestamp(now)).await?)
                }
                None => None,
            };
            Ok((tracked, reminders))
        })?;
        warnings.extend(Warning::all(
            WarningKind::Publish,
            published(tracked.as_ref(), reminders.as_ref()),
        ));
    }

    let mut written = Vec::new();
    let text = match request.format {
        Format::Markdown => markdown,
        Format::Html => report::html::render(&report),
        Format::Json => report::json::render(&report),
        Format::Csv => {
            let files = report::csv::render(&report);
            let Some(dir) = &request.out else {
                // One section asked for: its file, printed.
                return Ok(Reported {
                    stdout: files.into_iter().map(|(_, text)| text).collect(),
                    report,
                    written,
                    warnings,
                });
            };
            std::fs::create_dir_all(dir).map_err(|err| Error::io("create", dir, err))?;
            for (name, text) in files {
                let path = dir.join(name);
                write(&path, &text)?;
                written.push(path);
            }
            String::new()
        }
    };
    let stdout = match &request.out {
        Some(path) if request.format != Format::Csv => {
            write(path, &text)?;
            written.push(path.clone());
            String::new()
        }
        _ => text,
    };
    Ok(Reported {
        report,
        stdout,
        written,
        warnings,
    })
}

/// What went to GitHub, a line each: the tracking issue, reminders, and what was left alone.
fn published(tracked: Option<&Tracked>, reminders: Option<&Reminders>) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(t) = tracked {
        let done = if t.created {
            "created"
        } else if t.updated {
            "updated"
        } else {
            "unchanged"
        };
        lines.push(format!("tracking issue #{} {done}: {}", t.number, t.url));
        if !t.closed.is_empty() {
            let closed: Vec<String> = t.closed.iter().map(|n| format!("#{n}")).collect();
            lines.push(format!(
                "closed {} as duplicates of #{} (two runs raced)",
                closed.join(", "),
                t.number
            ));
        }
    }
    if let Some(r) = reminders {
        for number in &r.reminded {
            lines.push(format!("reminded the reviewers of #{number}"));
        }
        for (number, why) in &r.skipped {
            lines.push(format!("no reminder on #{number}: {why}"));
        }
        lines.extend(r.notes.iter().cloned());
    }
    lines
}

/// A file holds what stdout would: text from the trail made inert for a terminal (a JSON
/// document keeps its values).
fn write(path: &Path, text: &str) -> Result<(), Error> {
    std::fs::write(path, crate::untrusted::inert::stdout(text))
        .map_err(|err| Error::io("write", path, err))
}

/// Now, in seconds since the epoch: `SOURCE_DATE_EPOCH` when set (a reproducible report, as
/// reproducible builds use it), else the clock.
fn now_epoch() -> u64 {
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        })
}

/// `YYYY-MM-DD HH:MM:SS`, as the trail stores times.
fn timestamp(epoch: u64) -> String {
    let at = UNIX_EPOCH + Duration::from_secs(epoch);
    crate::store::sqlite_timestamp(&humantime::format_rfc3339_seconds(at).to_string())
}

/// The report's window, as the trail stores times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    pub since: String,
    pub until: String,
}

impl Window {
    /// `--since` (a duration back from the end, or a date) and `--until` (a date, or a
    /// duration back from `now`; default `now`).
    pub fn parse(since: &str, until: Option<&str>, now: u64) -> Result<Self, Error> {
        let end = match until {
            None => now,
            Some(text) => point(text, now).ok_or_else(|| when_error("--until", text))?,
        };
        let start = point(since, end).ok_or_else(|| when_error("--since", since))?;
        if start >= end {
            return Err(Error::usage(
                format!(
                    "the window is empty: --since {since} is not before {}",
                    until.map_or_else(|| "now".to_owned(), |u| format!("--until {u}"))
                ),
                None,
            ));
        }
        Ok(Self {
            since: timestamp(start),
            until: timestamp(end),
        })
    }
}

fn when_error(flag: &str, text: &str) -> Error {
    Error::usage(
        format!("{flag} {text}: neither a duration nor a date"),
        Some(
            "a duration back from the window's end (`30d`, `12h`, `2w`), or a date (`2026-11-01`, `2026-11-01T09:00:00Z`)",
        ),
    )
}

/// A duration back from `from`, or a date; seconds since the epoch.
fn point(text: &str, from: u64) -> Option<u64> {
    let text = text.trim();
    if let Some(back) = parse_duration(text) {
        return Some(from.saturating_sub(back.as_secs()));
    }
    let full = if text.len() == 10 {
        format!("{text} 00:00:00")
    } else {
        text.to_owned()
    };
    crate::store::epoch(&full)
}

/// `48h`, `30d`, `2w`, `90m`: a whole number and a unit (humantime's).
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    if !text.starts_with(|c: char| c.is_ascii_digit()) || text.contains(['-', ':']) {
        return None;
    }
    humantime::parse_duration(text).ok()
}

#[cfg(test)]
mod tests {
    use super::{Window, parse_duration};

    /// 2025-12-01 00:00:00 UTC.
    const NOW: u64 = 1_764_547_200;

    #[test]
    fn windows_read_durations_and_dates() {
        let w = Window::parse("30d", None, NOW).expect("30d");
        assert_eq!(
            (w.since.as_str(), w.until.as_str()),
            ("2025-11-01 00:00:00", "2025-12-01 00:00:00")
        );
        let w = Window::parse("2026-11-01", Some("2026-11-15T12:00:00Z"), NOW).expect("dates");
        assert_eq!(
            (w.since.as_str(), w.until.as_str()),
            ("2026-11-01 00:00:00", "2026-11-15 12:00:00")
        );
        let w = Window::parse("12h", Some("1d"), NOW).expect("back from until");
        assert_eq!(
            (w.since.as_str(), w.until.as_str()),
            ("2025-11-29 12:00:00", "2025-11-30 00:00:00")
        );
        let err = Window::parse("soon", None, NOW).expect_err("not a time");
        assert!(err.to_string().contains("--since soon"), "{err}");
        let err = Window::parse("2027-01-01", None, NOW).expect_err("empty window");
        assert!(err.to_string().contains("the window is empty"), "{err}");
    }

    #[test]
    fn durations_need_a_unit() {
        assert_eq!(parse_duration("48h").map(|d| d.as_secs()), Some(172_800));
        assert_eq!(parse_duration("2w").map(|d| d.as_secs()), Some(1_209_600));
        assert_eq!(parse_duration("2026-11-01"), None);
        assert_eq!(parse_duration("h"), None);
    }
}

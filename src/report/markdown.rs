//! The report as GitHub-flavoured Markdown: a table per section and Mermaid `xychart-beta`
//! charts, under GitHub's 65,536-character limit for an issue body.
//!
//! Every text cell that came from the trail goes through [`markdown_text`](crate::render::markdown_text);
//! logins and teams are shown in code spans, so they never mention anyone. Chart source holds only
//! numbers, fixed words and labels stripped to letters, digits and a little punctuation.

use std::cmp::Reverse;
use std::fmt::Write;

use super::{
    CategoryCoverage, CategoryGaps, DailyPassRate, Effectiveness, FlakyTest, Generated, PassRates,
    Report, Section, SkillPassRate, TierApprovalTime, TierPerformance, Waiting,
};
use crate::render::markdown_text as esc;

/// GitHub's limit on an issue body (and a comment), in characters.
pub const MAX_CHARS: usize = 65_536;

/// What a missing value shows.
use super::figures::NONE;
use super::figures::{fraction as pct, minutes as duration, percent, points};

/// The report as Markdown, at most [`MAX_CHARS`] characters.
pub fn render(report: &Report) -> String {
    render_within(report, MAX_CHARS)
}

/// The report as Markdown in at most `limit` characters (`chars()`, as GitHub counts): the
/// longest tables are trimmed first, each with a line saying how many rows were left out; when
/// the tables at zero rows still do not fit, the charts go, and last the text is cut with a
/// line saying so. The same report and limit always give the same text.
pub fn render_within(report: &Report, limit: usize) -> String {
    let mut doc = document(report, limit);
    doc.fit(limit);
    let out = doc.render(limit);
    if out.chars().count() <= limit {
        out
    } else {
        cut(&out, limit)
    }
}

// ---------------------------------------------------------------------------------------------
// The document: blocks of text, charts and tables, sized in characters so trimming is cheap.

enum Block {
    /// Headings and lines: always kept.
    Text(String),
    /// A Mermaid chart: dropped only when the tables at zero rows still do not fit.
    Chart(String),
    Table(Table),
}

struct Table {
    /// The header and the alignment row, each ending in a newline.
    head: String,
    head_chars: usize,
    /// Each row's line, ending in a newline, with its length in characters.
    rows: Vec<(String, usize)>,
    /// How many rows, from the first, are shown.
    shown: usize,
    /// The characters of those rows.
    shown_chars: usize,
    /// Rows of the section never laid out: past what the limit could show.
    uncounted: usize,
}

impl Table {
    fn new(columns: &[(&str, Align)], rows: Vec<Vec<String>>) -> Self {
        let mut head = String::from("|");
        for (title, _) in columns {
            let _ = write!(head, " {title} |");
        }
        head.push_str("\n|");
        for (_, align) in columns {
            head.push_str(match align {
                Align::Left => " --- |",
                Align::Right => " ---: |",
            });
        }
        head.push('\n');
        let rows: Vec<(String, usize)> = rows
            .into_iter()
            .map(|cells| {
                let mut line = String::from("|");
                for cell in cells {
                    let _ = write!(line, " {cell} |");
                }
                line.push('\n');
                let chars = line.chars().count();
                (line, chars)
            })
            .collect();
        let shown_chars = rows.iter().map(|(_, n)| n).sum();
        Self {
            head_chars: head.chars().count(),
            head,
            shown: rows.len(),
            shown_chars,
            rows,
            uncounted: 0,
        }
    }

    fn hidden(&self) -> usize {
        self.rows.len() - self.shown + self.uncounted
    }

    fn drop_last(&mut self) {
        if let Some(i) = self.shown.checked_sub(1) {
            self.shown = i;
            self.shown_chars -= self.rows[i].1;
        }
    }

    fn show_all(&mut self) {
        self.shown = self.rows.len();
        self.shown_chars = self.rows.iter().map(|(_, n)| n).sum();
    }
}

#[derive(Clone, Copy)]
enum Align {
    Left,
    Right,
}

struct Document {
    blocks: Vec<Block>,
    charts: bool,
}

impl Document {
    fn tables(&mut self) -> impl Iterator<Item = &mut Table> {
        self.blocks.iter_mut().filter_map(|b| match b {
            Block::Table(t) => Some(t),
            _ => None,
        })
    }

    /// The characters [`Document::render`] writes, without writing them.
    fn size(&self, limit: usize) -> usize {
        let mut size = 0;
        let mut blocks: usize = 0;
        for block in &self.blocks {
            size += match block {
                Block::Text(text) => text.chars().count(),
                Block::Chart(chart) if self.charts => chart.chars().count(),
                Block::Chart(_) => continue,
                Block::Table(t) => {
                    t.head_chars
                        + t.shown_chars
                        + match t.hidden() {
                            0 => 0,
                            n => 1 + trimmed_line(n, limit).chars().count(),
                        }
                }
            };
            blocks += 1;
        }
        // A blank line between blocks.
        size + blocks.saturating_sub(1)
    }

    /// Trims the longest table (by the characters of its shown rows, the first of equals) one
    /// row at a time until the document fits; when the tables trimmed as far as it helps still
    /// do not, drops the charts and trims again from whole tables.
    fn fit(&mut self, limit: usize) {
        self.trim(limit);
        if self.size(limit) > limit && self.charts {
            self.charts = false;
            self.tables().for_each(Table::show_all);
            self.trim(limit);
        }
    }

    fn trim(&mut self, limit: usize) {
        while self.size(limit) > limit {
            // A table whose rows are shorter than the line saying they were left out would
            // only grow: it is left whole.
            let longest = self
                .tables()
                .filter(|t| {
                    t.shown > 0
                        && (t.hidden() > 0
                            || t.shown_chars
                                > 1 + trimmed_line(t.rows.len(), limit).chars().count())
                })
                .min_by_key(|t| Reverse(t.shown_chars));
            match longest {
                Some(table) => table.drop_last(),
                None => break,
            }
        }
    }

    fn render(&self, limit: usize) -> String {
        let mut out = String::new();
        for block in &self.blocks {
            let text = match block {
                Block::Text(text) => text.clone(),
                Block::Chart(chart) if self.charts => chart.clone(),
                Block::Chart(_) => continue,
                Block::Table(t) => {
                    let mut text = t.head.clone();
                    for (row, _) in &t.rows[..t.shown] {
                        text.push_str(row);
                    }
                    if t.hidden() > 0 {
                        text.push('\n');
                        text.push_str(&trimmed_line(t.hidden(), limit));
                    }
                    text
                }
            };
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&text);
        }
        out
    }
}

/// The line under a table whose last `hidden` rows were left out.
fn trimmed_line(hidden: usize, limit: usize) -> String {
    let rows = if hidden == 1 { "row" } else { "rows" };
    let why = if limit == MAX_CHARS {
        format!(
            "the limit of an issue body is {} characters",
            count(MAX_CHARS as u64)
        )
    } else {
        format!(
            "this report is limited to {} characters",
            count(limit as u64)
        )
    };
    format!(
        "_… {} more {rows} not shown ({why}); the JSON and CSV formats hold them all._\n",
        count(hidden as u64)
    )
}

/// `text` cut at a line so that it and a line saying so fit in `limit` characters.
fn cut(text: &str, limit: usize) -> String {
    let last = format!(
        "\n_… the report was cut here to fit in {} characters; the JSON and CSV formats hold it all._\n",
        count(limit as u64)
    );
    let room = limit.saturating_sub(last.chars().count());
    if room == 0 {
        return last.chars().take(limit).collect();
    }
    let head: String = text.chars().take(room).collect();
    // End at a whole line, so no table row or code span is left open.
    let head = match head.rfind('\n') {
        Some(at) => &head[..=at],
        None => "",
    };
    format!("{head}{last}")
}

// ---------------------------------------------------------------------------------------------
// The sections.

/// No table row is shorter than this many characters (`| a | b |` and its newline).
const MIN_ROW_CHARS: usize = 8;

fn document(report: &Report, limit: usize) -> Document {
    // Rows past what `limit` could ever show are counted, not escaped and laid out: a trail
    // with thousands of waits would spend seconds on rows trimmed anyway.
    let cap = limit / MIN_ROW_CHARS + 1;
    let mut blocks = vec![Block::Text(format!(
        "# skillgate report\n\n{}\n",
        summary(report)
    ))];
    for section in &report.sections {
        let name = section.name();
        blocks.push(Block::Text(format!(
            "## {}\n\n_{}_\n",
            name.title(),
            name.about()
        )));
        if section.is_empty() {
            blocks.push(Block::Text(format!("{}\n", section.empty_line())));
            continue;
        }
        let first = |n: usize| n.min(cap);
        let cut = match section {
            Section::PassRates(p) => {
                let capped = PassRates {
                    daily: p.daily.clone(),
                    skills: p.skills[..first(p.skills.len())].to_vec(),
                };
                pass_rates(&capped, &mut blocks);
                p.skills.len() - capped.skills.len()
            }
            Section::Waiting(rows) => {
                waiting(&rows[..first(rows.len())], &mut blocks);
                rows.len() - first(rows.len())
            }
            Section::Effectiveness(rows) => {
                effectiveness(&rows[..first(rows.len())], &mut blocks);
                rows.len() - first(rows.len())
            }
            Section::Coverage(rows) => {
                coverage(&rows[..first(rows.len())], &mut blocks);
                rows.len() - first(rows.len())
            }
            Section::GatePerformance(rows) => {
                gate_performance(rows, &mut blocks);
                0
            }
            Section::Phase4(rows) => {
                phase4(&rows[..first(rows.len())], &mut blocks);
                rows.len() - first(rows.len())
            }
            Section::FlakyTests(rows) => {
                flaky_tests(&rows[..first(rows.len())], &mut blocks);
                rows.len() - first(rows.len())
            }
            Section::TimeToApproval(rows) => {
                time_to_approval(rows, &mut blocks);
                0
            }
            Section::Migration(rows) => {
                migration(&rows[..first(rows.len())], &mut blocks);
                rows.len() - first(rows.len())
            }
        };
        if let Some(Block::Table(table)) = blocks.last_mut() {
            table.uncounted = cut;
        }
    }
    Document {
        blocks,
        charts: true,
    }
}

/// `**acme/skills** · 2026-11-01 00:00 → 2026-12-01 00:00 UTC · 315 decisions in the window, 1,204 in the trail`
fn summary(report: &Report) -> String {
    let mut parts = Vec::new();
    if let Some(repository) = &report.repository {
        parts.push(format!("**{}**", esc(repository)));
    }
    parts.push(format!(
        "{} → {} UTC",
        when(&report.since),
        when(&report.until)
    ));
    let noun = if report.decisions_in_window == 1 {
        "decision"
    } else {
        "decisions"
    };
    parts.push(format!(
        "{} {noun} in the window, {} in the trail",
        count(report.decisions_in_window),
        count(report.decisions_total)
    ));
    parts.join(" · ")
}

fn pass_rates(p: &PassRates, blocks: &mut Vec<Block>) {
    if !p.daily.is_empty() {
        blocks.push(Block::Chart(daily_chart(&p.daily)));
    }
    let names = names(p.skills.iter().map(|s| (&s.skill, &s.dir)));
    let rows = p
        .skills
        .iter()
        .zip(names)
        .map(|(s, name)| {
            let rates = rates(s);
            let latest = s.points.last();
            vec![
                name,
                esc(&s.category),
                count(s.runs),
                rates.last().map_or_else(none, |&r| pct(r)),
                change(&rates),
                rates
                    .iter()
                    .copied()
                    .reduce(f64::min)
                    .map_or_else(none, pct),
                latest.map_or_else(none, |p| {
                    format!("{} ({})", esc(&p.decision), esc(&p.approval_level))
                }),
                sparkline(&rates),
            ]
        })
        .collect();
    blocks.push(Block::Table(Table::new(
        &[
            ("skill", Align::Left),
            ("category", Align::Left),
            ("runs", Align::Right),
            ("latest", Align::Right),
            ("change", Align::Right),
            ("lowest", Align::Right),
            ("latest decision", Align::Left),
            ("trend", Align::Left),
        ],
        rows,
    )));
}

/// The pass rates of a skill's points that have one, oldest first.
fn rates(skill: &SkillPassRate) -> Vec<f64> {
    skill
        .points
        .iter()
        .filter_map(|p| p.pass_rate)
        .filter(|r| r.is_finite())
        .collect()
}

/// From the first rate to the latest: `+2.1 pts`, `−6.4 pts`; `—` with fewer than two.
fn change(rates: &[f64]) -> String {
    match rates {
        [first, .., last] => points(last - first),
        _ => none(),
    }
}

fn daily_chart(daily: &[DailyPassRate]) -> String {
    // Within one year the year says nothing the summary line does not; `11-14` fits better.
    let one_year = daily
        .first()
        .map(|d| d.day.get(..5).unwrap_or_default())
        .is_some_and(|year| year.len() == 5 && daily.iter().all(|d| d.day.get(..5) == Some(year)));
    let labels: Vec<String> = daily
        .iter()
        .map(|d| {
            if one_year {
                d.day[5..].to_owned()
            } else {
                d.day.clone()
            }
        })
        .collect();
    let values: Vec<f64> = daily.iter().map(|d| d.mean_pass_rate * 100.0).collect();
    chart(
        "Mean pass rate per day (%)",
        "pass rate (%)",
        Some((0.0, 100.0)),
        &labels,
        &[("line", &values)],
    )
}

fn waiting(rows: &[Waiting], blocks: &mut Vec<Block>) {
    let names = names(rows.iter().map(|w| (&w.skill, &w.dir)));
    let rows = rows
        .iter()
        .zip(names)
        .map(|(w, name)| {
            let sha: String = w.head_sha.chars().take(7).collect();
            vec![
                name,
                esc(&w.category),
                esc(&w.approval_level),
                format!(
                    "{} at {}",
                    esc(&format!("{}#{}", w.repository, w.pull_request)),
                    code(&sha)
                ),
                duration(w.waited_hours as f64 * 60.0),
                when(&w.since),
                codes(&w.escalated_to),
                if w.changes_requested_by.is_empty() {
                    codes(&w.approvals)
                } else {
                    format!(
                        "{}; changes requested by {}",
                        codes(&w.approvals),
                        codes(&w.changes_requested_by)
                    )
                },
                w.test_coverage.map_or_else(none, pct),
                w.escalation_reason.as_deref().map_or_else(none, esc),
            ]
        })
        .collect();
    blocks.push(Block::Table(Table::new(
        &[
            ("skill", Align::Left),
            ("category", Align::Left),
            ("tier", Align::Left),
            ("pull request", Align::Left),
            ("waited", Align::Right),
            ("since", Align::Left),
            ("asked", Align::Left),
            ("approved by", Align::Left),
            ("coverage", Align::Right),
            ("reason", Align::Left),
        ],
        rows,
    )));
}

fn effectiveness(rows: &[Effectiveness], blocks: &mut Vec<Block>) {
    let rows = rows
        .iter()
        .map(|e| {
            vec![
                esc(&e.agent_type),
                esc(&e.skill),
                esc(&e.category),
                count(e.usage_count),
                e.test_pass_rate.map_or_else(none, pct),
                e.confidence_improvement.map_or_else(none, points),
                e.success_rate.map_or_else(none, pct),
            ]
        })
        .collect();
    blocks.push(Block::Table(Table::new(
        &[
            ("agent", Align::Left),
            ("skill", Align::Left),
            ("category", Align::Left),
            ("uses", Align::Right),
            ("test pass rate", Align::Right),
            ("confidence gained", Align::Right),
            ("success rate", Align::Right),
        ],
        rows,
    )));
}

fn coverage(rows: &[CategoryCoverage], blocks: &mut Vec<Block>) {
    let rows = rows
        .iter()
        .map(|c| {
            vec![
                esc(&c.category),
                count(c.skill_count),
                c.avg_coverage.map_or_else(none, pct),
                c.min_coverage.map_or_else(none, pct),
                c.max_coverage.map_or_else(none, pct),
                count(c.excellent),
                count(c.good),
                count(c.poor),
                count(c.unmeasured),
            ]
        })
        .collect();
    blocks.push(Block::Table(Table::new(
        &[
            ("category", Align::Left),
            ("skills", Align::Right),
            ("average", Align::Right),
            ("lowest", Align::Right),
            ("highest", Align::Right),
            ("≥ 95%", Align::Right),
            ("80–95%", Align::Right),
            ("< 80%", Align::Right),
            ("not measured", Align::Right),
        ],
        rows,
    )));
}

fn gate_performance(rows: &[TierPerformance], blocks: &mut Vec<Block>) {
    let labels: Vec<String> = rows.iter().map(|t| t.approval_level.clone()).collect();
    let rates: Vec<f64> = rows.iter().map(|t| t.approval_rate).collect();
    blocks.push(Block::Chart(chart(
        "Approval rate per tier (%)",
        "approved (%)",
        Some((0.0, 100.0)),
        &labels,
        &[("bar", &rates)],
    )));
    let rows = rows
        .iter()
        .map(|t| {
            vec![
                esc(&t.approval_level),
                count(t.total),
                count(t.approved),
                count(t.rejected),
                count(t.needs_correction),
                count(t.escalated),
                percent(t.approval_rate),
                t.avg_review_minutes.map_or_else(none, duration),
            ]
        })
        .collect();
    blocks.push(Block::Table(Table::new(
        &[
            ("tier", Align::Left),
            ("decisions", Align::Right),
            ("approved", Align::Right),
            ("rejected", Align::Right),
            ("needs correction", Align::Right),
            ("escalated", Align::Right),
            ("approval rate", Align::Right),
            ("average review", Align::Right),
        ],
        rows,
    )));
}

fn phase4(rows: &[Generated], blocks: &mut Vec<Block>) {
    let rows = rows
        .iter()
        .map(|g| {
            vec![
                esc(&g.skill),
                esc(&g.category),
                g.phase4_pattern_id.map_or_else(none, |id| id.to_string()),
                g.test_coverage.map_or_else(none, pct),
                g.required_test_pass_rate.map_or_else(none, pct),
                match (&g.decision, &g.approval_level) {
                    (Some(d), Some(level)) => format!("{} ({})", esc(d), esc(level)),
                    (Some(d), None) => esc(d),
                    (None, _) => none(),
                },
                when(&g.created_at),
                g.approved_at.as_deref().map_or_else(none, when),
            ]
        })
        .collect();
    blocks.push(Block::Table(Table::new(
        &[
            ("skill", Align::Left),
            ("category", Align::Left),
            ("pattern", Align::Right),
            ("coverage", Align::Right),
            ("required pass rate", Align::Right),
            ("latest decision", Align::Left),
            ("registered", Align::Left),
            ("approved", Align::Left),
        ],
        rows,
    )));
}

fn flaky_tests(rows: &[FlakyTest], blocks: &mut Vec<Block>) {
    let rows = rows
        .iter()
        .map(|f| {
            vec![
                esc(&f.skill),
                esc(&f.test),
                count(f.flaky_runs),
                count(f.runs),
                if f.runs == 0 {
                    none()
                } else {
                    pct(f.flaky_runs as f64 / f.runs as f64)
                },
                when(&f.last_seen),
            ]
        })
        .collect();
    blocks.push(Block::Table(Table::new(
        &[
            ("skill", Align::Left),
            ("test", Align::Left),
            ("flaky runs", Align::Right),
            ("runs", Align::Right),
            ("share", Align::Right),
            ("last seen", Align::Left),
        ],
        rows,
    )));
}

fn time_to_approval(rows: &[TierApprovalTime], blocks: &mut Vec<Block>) {
    let labels: Vec<String> = rows.iter().map(|t| t.approval_level.clone()).collect();
    // Hours once a p90 passes two hours: minutes in the thousands read badly on an axis.
    let hours = rows.iter().any(|t| t.p90_minutes >= 120.0);
    let (unit, per) = if hours {
        ("hours", 60.0)
    } else {
        ("minutes", 1.0)
    };
    let p90: Vec<f64> = rows.iter().map(|t| t.p90_minutes / per).collect();
    let median: Vec<f64> = rows.iter().map(|t| t.median_minutes / per).collect();
    // xychart-beta draws bars of one category over each other, in order: the p90 first, so the
    // median (never longer) shows in front of it.
    blocks.push(Block::Chart(chart(
        &format!("Time to approval per tier, {unit}: p90 (back) and median (front)"),
        unit,
        None,
        &labels,
        &[("bar", &p90), ("bar", &median)],
    )));
    let rows = rows
        .iter()
        .map(|t| {
            vec![
                esc(&t.approval_level),
                count(t.approvals),
                duration(t.median_minutes),
                duration(t.p90_minutes),
                duration(t.max_minutes),
            ]
        })
        .collect();
    blocks.push(Block::Table(Table::new(
        &[
            ("tier", Align::Left),
            ("approvals", Align::Right),
            ("median", Align::Right),
            ("p90", Align::Right),
            ("longest", Align::Right),
        ],
        rows,
    )));
}

fn migration(rows: &[CategoryGaps], blocks: &mut Vec<Block>) {
    let rows = rows
        .iter()
        .map(|g| {
            vec![
                esc(&g.category),
                count(g.skill_count),
                count(g.no_coverage_data),
                count(g.no_test_path),
                count(g.deprecated),
                count(g.latest_auto),
                count(g.latest_escalate),
                count(g.latest_human),
                count(g.never_gated),
            ]
        })
        .collect();
    blocks.push(Block::Table(Table::new(
        &[
            ("category", Align::Left),
            ("skills", Align::Right),
            ("no coverage data", Align::Right),
            ("no test path", Align::Right),
            ("deprecated", Align::Right),
            ("last auto", Align::Right),
            ("last escalate", Align::Right),
            ("last human", Align::Right),
            ("never gated", Align::Right),
        ],
        rows,
    )));
}

// ---------------------------------------------------------------------------------------------
// Cells.

fn none() -> String {
    NONE.to_owned()
}

/// Each skill's name, escaped, with its directory when another row has the same name.
fn names<'a>(
    skills: impl Iterator<Item = (&'a String, &'a Option<String>)> + Clone,
) -> Vec<String> {
    skills
        .clone()
        .map(|(name, dir)| {
            let clash = skills
                .clone()
                .any(|(other, other_dir)| other == name && other_dir != dir);
            match dir {
                Some(dir) if clash => esc(&format!("{name} ({dir})")),
                _ => esc(name),
            }
        })
        .collect()
}

/// `1,204`.
fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A trail time to the minute: `2026-11-28 09:15`, escaped.
fn when(timestamp: &str) -> String {
    let minutes = match timestamp.get(16..) {
        Some(seconds) if timestamp.len() == 19 && seconds.starts_with(':') => &timestamp[..16],
        _ => timestamp,
    };
    esc(minutes)
}

/// A login, team or SHA in a code span: no mention, no link, no markup. Backticks and controls
/// go (no login has them); `|` is escaped, since GitHub splits table cells before code spans.
fn code(text: &str) -> String {
    let clean: String = text
        .chars()
        .filter(|&c| c != '`' && !crate::untrusted::inert::is_bidi(c))
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let clean = clean.trim();
    if clean.is_empty() {
        return none();
    }
    format!("`{}`", clean.replace('|', "\\|"))
}

/// Logins and teams, each in a code span: `` `alice`, `acme/infra` ``.
fn codes(names: &[String]) -> String {
    let spans: Vec<String> = names
        .iter()
        .map(|n| code(n))
        .filter(|s| s != NONE)
        .collect();
    if spans.is_empty() {
        none()
    } else {
        spans.join(", ")
    }
}

/// The rates as `▁▂▃▄▅▆▇█`, scaled to their own range widened to at least 10 points, so a dip
/// from 100% to 93.6% shows and a wobble of 0.1 point does not look like a fall.
fn sparkline(rates: &[f64]) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let (Some(lo), Some(hi)) = (
        rates.iter().copied().reduce(f64::min),
        rates.iter().copied().reduce(f64::max),
    ) else {
        return none();
    };
    let lo = lo.min(hi - 0.1);
    rates
        .iter()
        .map(|r| {
            let at = ((r - lo) / (hi - lo) * 7.0).round();
            BARS[(at.max(0.0) as usize).min(7)]
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Charts.

/// A Mermaid `xychart-beta` in a fence: titles fixed in this file, labels from data quoted and
/// stripped ([`label`]), numbers.
fn chart(
    title: &str,
    y_title: &str,
    range: Option<(f64, f64)>,
    labels: &[String],
    series: &[(&str, &[f64])],
) -> String {
    let mut out = String::from("```mermaid\nxychart-beta\n");
    let _ = writeln!(out, "    title \"{}\"", title);
    let labels: Vec<String> = labels
        .iter()
        .map(|l| format!("\"{}\"", label(l, 40)))
        .collect();
    let _ = writeln!(out, "    x-axis [{}]", labels.join(", "));
    match range {
        Some((lo, hi)) => {
            let _ = writeln!(
                out,
                "    y-axis \"{}\" {} --> {}",
                y_title,
                lo.round(),
                hi.round()
            );
        }
        None => {
            let _ = writeln!(out, "    y-axis \"{}\"", y_title);
        }
    }
    for (kind, values) in series {
        let values: Vec<String> = values.iter().map(|&v| number(v)).collect();
        let _ = writeln!(out, "    {kind} [{}]", values.join(", "));
    }
    out.push_str("```\n");
    out
}

/// Text from data for a quoted Mermaid label: letters, digits, spaces and `-._:/` only, at most
/// `max` characters, so nothing in it can close the quote, start a comment (`%%`) or a
/// directive, or be read as markup.
fn label(text: &str, max: usize) -> String {
    let kept: String = text
        .chars()
        .filter(|&c| c.is_ascii_alphanumeric() || " -._:/".contains(c))
        .take(max)
        .collect();
    let kept = kept.trim();
    if kept.is_empty() {
        "?".to_owned()
    } else {
        kept.to_owned()
    }
}

/// A chart value: one decimal, `0` for what is not a number.
fn number(value: f64) -> String {
    if value.is_finite() {
        format!("{value:.1}")
    } else {
        "0".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sample;

    fn flaky(i: usize) -> FlakyTest {
        FlakyTest {
            skill: format!("skill-{:04}", i % 97),
            test: format!("tests/test_generated.py::test_case_number_{i:05}"),
            flaky_runs: (i % 7) as u64 + 1,
            runs: 9,
            last_seen: "2026-11-16 10:00:00".into(),
        }
    }

    fn with_flaky(n: usize) -> Report {
        let mut report = sample::report();
        for section in &mut report.sections {
            if let Section::FlakyTests(rows) = section {
                *rows = (0..n).map(flaky).collect();
            }
        }
        report
    }

    /// Whether each table row in `markdown` has as many cell separators as its header.
    fn tables_are_whole(markdown: &str) {
        let mut columns = None;
        for line in markdown.lines() {
            if !line.starts_with('|') {
                columns = None;
                continue;
            }
            // Unescaped pipes: `\|` is a pipe in a cell.
            let pipes = line
                .replace("\\\\", "")
                .replace("\\|", "")
                .matches('|')
                .count();
            match columns {
                None => columns = Some(pipes),
                Some(n) => assert_eq!(pipes, n, "a row with its own columns: {line}"),
            }
        }
    }

    #[test]
    fn sample_report() {
        let markdown = render(&sample::report());
        tables_are_whole(&markdown);
        insta::assert_snapshot!("markdown_sample", markdown);
    }

    #[test]
    fn empty_report() {
        let markdown = render(&sample::empty());
        assert!(
            !markdown.contains("```mermaid"),
            "no chart for an empty section"
        );
        assert!(!markdown.contains('|'), "no table for an empty section");
        for section in &sample::empty().sections {
            assert!(markdown.contains(section.empty_line()));
        }
        insta::assert_snapshot!("markdown_empty", markdown);
    }

    #[test]
    fn hostile_names_neither_mention_nor_open_html() {
        let markdown = render(&sample::report());
        assert!(!markdown.contains("<b>"), "{markdown}");
        assert!(!markdown.contains("@team"), "a mention: {markdown}");
        assert!(markdown.contains("&lt;b&gt;x&lt;/b&gt; @\u{200d}team \\| \\`y\\`"));
        // Who was asked: code spans, never a mention.
        assert!(markdown.contains("| `alice`, `acme/infra` |"), "{markdown}");
        assert!(!markdown.contains("@alice"));
    }

    /// The tables a Markdown parser reads in `markdown`: rows of cells' text (code spans with
    /// their backticks), the header first; and how many charts and HTML events.
    fn parsed(markdown: &str) -> (Vec<Vec<Vec<String>>>, usize, usize) {
        use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
        let (mut tables, mut charts, mut html) = (Vec::new(), 0, 0);
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut cell: Option<String> = None;
        for event in Parser::new_ext(markdown, Options::ENABLE_TABLES) {
            match event {
                Event::Html(_) | Event::InlineHtml(_) => html += 1,
                Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang))) => {
                    assert_eq!(&*lang, "mermaid");
                    charts += 1;
                }
                Event::Start(Tag::TableHead | Tag::TableRow) => rows.push(Vec::new()),
                Event::Start(Tag::TableCell) => cell = Some(String::new()),
                Event::End(TagEnd::TableCell) => {
                    if let (Some(row), Some(text)) = (rows.last_mut(), cell.take()) {
                        row.push(text);
                    }
                }
                Event::End(TagEnd::Table) => tables.push(std::mem::take(&mut rows)),
                Event::Text(text) => {
                    if let Some(c) = &mut cell {
                        c.push_str(&text);
                    }
                }
                Event::Code(code) => {
                    if let Some(c) = &mut cell {
                        c.push_str(&format!("`{code}`"));
                    }
                }
                _ => {}
            }
        }
        (tables, charts, html)
    }

    #[test]
    fn a_markdown_parser_reads_each_cell_where_it_was_put() {
        let mut report = sample::report();
        for section in &mut report.sections {
            if let Section::Waiting(rows) = section {
                rows[0].escalated_to =
                    vec!["ev|il".into(), "@x`y<b>".into(), "a\nb".into(), "\n".into()];
            }
        }
        let markdown = render(&report);
        let (tables, charts, html) = parsed(&markdown);
        assert_eq!(html, 0, "{markdown}");
        assert_eq!(charts, 3);
        assert_eq!(tables.len(), 9);
        let pass_rates = &tables[0];
        assert_eq!(pass_rates[0][0], "skill");
        // The hostile name is one cell, read as written (the joiner aside), and the cells after
        // it are where they belong.
        assert_eq!(pass_rates[2][0], "<b>x</b> @\u{200d}team | `y`");
        assert_eq!(pass_rates[2][1..4], ["general", "1", "50.0%"]);
        let waiting = &tables[1];
        assert_eq!(waiting[1][3], "acme/skills#\u{200d}42 at `3f2a9c1`");
        assert_eq!(waiting[1][6], "`ev|il`, `@xy<b>`, `a b`");
        assert_eq!(waiting[1][7], NONE);
        assert_eq!(waiting[1][8], "91.0%");
    }

    #[test]
    fn figures_read_as_a_person_reads_them() {
        assert_eq!(pct(0.957), "95.7%");
        assert_eq!(percent(82.8), "82.8%");
        assert_eq!(points(0.021), "+2.1 pts");
        assert_eq!(points(-0.064), "−6.4 pts");
        assert_eq!(points(0.0004), "0.0 pts");
        assert_eq!(duration(95.0), "95 min");
        assert_eq!(duration(1320.0), "22 h");
        assert_eq!(duration(2880.0), "2.0 d");
        assert_eq!(duration(4.2), "4.2 min");
        assert_eq!(duration(0.0), "0 min");
        assert_eq!(duration(f64::NAN), NONE);
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1204), "1,204");
        assert_eq!(count(65_536), "65,536");
        assert_eq!(count(1_000_000), "1,000,000");
        assert_eq!(when("2026-11-28 09:15:00"), "2026-11-28 09:15");
        assert_eq!(when("yesterday"), "yesterday");
        assert_eq!(change(&[0.5]), NONE);
        assert_eq!(change(&[1.0, 0.936, 0.957]), "−4.3 pts");
    }

    #[test]
    fn sparkline_follows_the_points() {
        assert_eq!(sparkline(&[1.0, 0.936, 0.957]), "█▄▅");
        assert_eq!(sparkline(&[0.0, 0.5, 1.0]), "▁▅█");
        // Flat: all at the top, no division by zero.
        assert_eq!(sparkline(&[0.9, 0.9]), "██");
        assert_eq!(sparkline(&[]), NONE);
    }

    #[test]
    fn skills_of_one_name_show_their_directory() {
        let a = ("setup".to_owned(), Some("plugins/a/setup".to_owned()));
        let b = ("setup".to_owned(), Some("plugins/b/setup".to_owned()));
        let c = ("other".to_owned(), Some("skills/other".to_owned()));
        let rows = [a, b, c];
        assert_eq!(
            names(rows.iter().map(|(n, d)| (n, d))),
            [
                "setup (plugins/a/setup)",
                "setup (plugins/b/setup)",
                "other"
            ]
        );
    }

    #[test]
    fn chart_labels_from_data_cannot_escape_their_quotes() {
        let rows = vec![TierPerformance {
            approval_level: "au\"to]\n%%{init: x}; click <b>".into(),
            total: 1,
            approved: 1,
            rejected: 0,
            needs_correction: 0,
            escalated: 0,
            approval_rate: 100.0,
            avg_review_minutes: None,
        }];
        let mut blocks = Vec::new();
        gate_performance(&rows, &mut blocks);
        let Block::Chart(chart) = &blocks[0] else {
            panic!("a chart first");
        };
        assert_eq!(
            chart,
            "```mermaid\nxychart-beta\n    title \"Approval rate per tier (%)\"\n    \
             x-axis [\"autoinit: x click b\"]\n    y-axis \"approved (%)\" 0 --> 100\n    \
             bar [100.0]\n```\n"
        );
        assert_eq!(label("\"\n", 40), "?");
        assert_eq!(label(&"x".repeat(50), 40).len(), 40);
    }

    #[test]
    fn a_single_point_is_still_a_chart() {
        let chart = daily_chart(&[DailyPassRate {
            day: "2026-11-14".into(),
            mean_pass_rate: 0.9,
            decisions: 1,
        }]);
        assert!(chart.contains("    x-axis [\"11-14\"]\n"), "{chart}");
        assert!(chart.contains("    line [90.0]\n"), "{chart}");
    }

    #[test]
    fn a_small_report_is_untouched() {
        let report = sample::report();
        let whole = render_within(&report, usize::MAX);
        assert_eq!(render(&report), whole);
        assert!(!whole.contains("not shown"));
        assert!(whole.chars().count() < MAX_CHARS);
        // Exactly at its own size: still whole.
        assert_eq!(render_within(&report, whole.chars().count()), whole);
    }

    #[test]
    fn rows_past_what_the_limit_could_show_are_counted_not_laid_out() {
        // More rows than 65,536 characters could hold at 8 a row: the note counts all of them.
        let report = with_flaky(20_000);
        let markdown = render(&report);
        assert!(markdown.chars().count() <= MAX_CHARS);
        let shown = markdown
            .lines()
            .filter(|l| l.contains("test\\_case\\_number\\_"))
            .count();
        assert!(shown > 100, "{shown} shown");
        assert!(
            markdown.contains(&format!(
                "_… {} more rows not shown",
                count(20_000 - shown as u64)
            )),
            "{}",
            &markdown[markdown.len() - 2000..]
        );
    }

    #[test]
    fn thousands_of_rows_stay_under_the_limit_and_say_what_was_trimmed() {
        let report = with_flaky(5_000);
        let markdown = render(&report);
        let chars = markdown.chars().count();
        assert!(chars <= MAX_CHARS, "{chars} characters");
        // Not trimmed further than it had to be: another row would not have fitted.
        assert!(chars > MAX_CHARS - 200, "{chars} characters");
        tables_are_whole(&markdown);
        // Escaped: `_` is `\_` in a cell.
        let shown = markdown
            .lines()
            .filter(|l| l.contains("test\\_case\\_number\\_"))
            .count();
        let hidden = 5_000 - shown;
        assert!(shown > 100 && hidden > 1000, "{shown} shown");
        assert!(
            markdown.contains(&format!(
                "_… {} more rows not shown (the limit of an issue body is 65,536 characters); \
                 the JSON and CSV formats hold them all._",
                count(hidden as u64)
            )),
            "{}",
            &markdown[markdown.len() - 2000..]
        );
        // The rows kept are the first ones.
        assert!(markdown.contains("number\\_00000 |"));
        assert!(!markdown.contains("number\\_04999 |"));
        // Only the longest table was trimmed; the charts stayed.
        assert_eq!(markdown.matches("not shown").count(), 1);
        assert_eq!(markdown.matches("```mermaid").count(), 3);
        assert_eq!(render(&report), markdown, "deterministic");
    }

    #[test]
    fn the_longest_table_is_trimmed_first_then_the_next() {
        let report = with_flaky(60);
        let whole = render_within(&report, usize::MAX);
        let size = whole.chars().count();
        // A little short: only the flaky tests, the longest table, lose rows.
        let markdown = render_within(&report, size - 300);
        assert!(markdown.chars().count() <= size - 300);
        assert_eq!(markdown.matches("not shown").count(), 1);
        let note = markdown.find("not shown").expect("a note");
        let flaky = markdown.find("## Flakiest tests").expect("the section");
        let next = markdown
            .find("## Time to approval")
            .expect("the next section");
        assert!(
            flaky < note && note < next,
            "the note is under the flaky tests"
        );
        assert!(markdown.contains("this report is limited to"));
        // Much shorter: the flaky tests shrink to the size of the next table, then both go.
        let markdown = render_within(&report, size - 9_000);
        assert!(markdown.matches("not shown").count() >= 2, "{markdown}");
        tables_are_whole(&markdown);
    }

    #[test]
    fn charts_go_when_empty_tables_do_not_fit_then_the_text_is_cut() {
        let report = sample::report();
        // The smallest the tables get with the charts in (a limit of the same number of
        // digits says the same length in its notes).
        let smallest = {
            let mut doc = document(&report, MAX_CHARS);
            doc.trim(0);
            doc.size(9_999)
        };
        let limit = smallest - 10;
        assert!((1_000..10_000).contains(&limit), "{limit}");
        let markdown = render_within(&report, limit);
        assert!(markdown.chars().count() <= limit);
        assert!(!markdown.contains("```mermaid"), "{markdown}");
        // Without the charts some rows fit again.
        assert!(markdown.contains("| api-tester |"), "{markdown}");
        // Too small for even the headings: cut, and said.
        let markdown = render_within(&report, 400);
        assert!(markdown.chars().count() <= 400, "{markdown}");
        assert!(markdown.starts_with("# skillgate report"));
        assert!(markdown.ends_with(
            "_… the report was cut here to fit in 400 characters; the JSON and CSV formats hold it all._\n"
        ));
    }

    #[test]
    fn no_limit_is_ever_exceeded() {
        let report = with_flaky(40);
        let size = render_within(&report, usize::MAX).chars().count();
        for limit in (0..=size + 10).step_by(37).chain([0, 1, 2, 50, 99, 100]) {
            let markdown = render_within(&report, limit);
            assert!(
                markdown.chars().count() <= limit,
                "{} > {limit}",
                markdown.chars().count()
            );
            assert_eq!(render_within(&report, limit), markdown);
        }
    }
}

//! The report as one self-contained HTML page: inline CSS and SVG charts, no script, no external
//! asset, readable in light and dark mode.
//!
//! A Content-Security-Policy meta (`default-src 'none'`) makes a browser refuse anything else the
//! page might be made to load. Every text from the trail goes through [`escape`].

use std::fmt::Write as _;

use super::svg::{self, Axis, Bar, Group, Point};
use super::{
    CategoryCoverage, CategoryGaps, Effectiveness, FlakyTest, Generated, PassRates, Report,
    Section, SkillPassRate, TierApprovalTime, TierPerformance, Waiting,
};

/// What the page may load: its own inline styles and `data:` images, nothing else, no script.
pub const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/// Shown for a value that is not there.
use super::figures::NONE;
pub use super::figures::{fraction as percent, minutes, percent as percent_of_100};

/// The page's style: the theme as custom properties, dark when the reader's system is.
const STYLE: &str = "\
:root{color-scheme:light dark;--bg:#ffffff;--fg:#1f2328;--muted:#59636e;--border:#d1d9e0;\
--stripe:#f6f8fa;--pass:#1a7f37;--series-1:#0969da;--series-2:#bc4c00}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;\
--border:#3d444d;--stripe:#151b23;--pass:#3fb950;--series-1:#4493f8;--series-2:#f0883e}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:72rem;padding:1.5rem;background:var(--bg);color:var(--fg);\
font:15px/1.5 system-ui,-apple-system,\"Segoe UI\",sans-serif}
h1{font-size:1.6rem;margin:0 0 .25rem}
h2{font-size:1.2rem;margin:2rem 0 .25rem;padding-bottom:.25rem;border-bottom:1px solid var(--border)}
header dl{display:flex;flex-wrap:wrap;gap:.25rem 1.5rem;margin:.5rem 0;color:var(--muted)}
header dt{font-weight:600}header dd{margin:0 0 0 .35rem}header div{display:flex}
.about,.empty,.note{color:var(--muted);margin:.25rem 0 .75rem}
.scroll{overflow-x:auto}
table{border-collapse:collapse;font-size:.9rem;margin:.5rem 0}
th,td{border:1px solid var(--border);padding:.3rem .6rem;text-align:left;vertical-align:top}
thead th{background:var(--stripe)}
caption{caption-side:top;text-align:left}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
code{font:.85em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
small{color:var(--muted)}
.chart{display:block;width:100%;max-width:640px;height:auto;margin:.5rem 0;color:var(--fg)}
.chart text{fill:currentColor;font-size:12px}
.chart .grid{stroke:currentColor;stroke-opacity:.15}
.chart .axis{stroke:currentColor;stroke-opacity:.6}
.chart .line{stroke:var(--pass);stroke-width:2;stroke-opacity:.55}
.chart .point{fill:var(--pass);stroke:var(--bg);stroke-width:1.5}
.chart .s1{fill:var(--series-1)}.chart .s2{fill:var(--series-2)}
.spark{width:6rem;height:1.2rem;vertical-align:middle}
.spark polyline{fill:none;stroke:currentColor;stroke-width:1.5}
";

/// The report as an HTML document.
pub fn render(report: &Report) -> String {
    let title = match &report.repository {
        Some(repo) => format!("skillgate report: {repo}"),
        None => "skillgate report".to_owned(),
    };
    let mut html = String::new();
    let _ = write!(
        html,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n\
         <title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n",
        escape(&title)
    );
    header(&mut html, report);
    html.push_str("<main>\n");
    for section in &report.sections {
        let name = section.name();
        let _ = write!(
            html,
            "<section id=\"{id}\">\n<h2>{}</h2>\n<p class=\"about\">{}</p>\n",
            escape(name.title()),
            escape(name.about()),
            id = name.as_str(),
        );
        if section.is_empty() {
            let _ = writeln!(
                html,
                "<p class=\"empty\">{}</p>",
                inline_code(section.empty_line())
            );
        } else {
            body(&mut html, section);
        }
        html.push_str("</section>\n");
    }
    html.push_str("</main>\n</body>\n</html>\n");
    html
}

/// Escape `text` for HTML content or a quoted attribute: `& < > " '` become entities,
/// bidirectional controls (which reorder what a reader sees) are dropped, and other control
/// characters become `�`.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if crate::untrusted::inert::is_bidi(c) => {}
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// A fixed sentence with `backticks` shown as code: the empty lines name tables this way.
fn inline_code(text: &str) -> String {
    text.split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                format!("<code>{}</code>", escape(part))
            } else {
                escape(part)
            }
        })
        .collect()
}

fn header(html: &mut String, report: &Report) {
    html.push_str("<header>\n<h1>skillgate report</h1>\n<dl>\n");
    let mut item = |term: &str, value: String| {
        let _ = writeln!(html, "<div><dt>{term}</dt><dd>{value}</dd></div>");
    };
    if let Some(repo) = &report.repository {
        item("Repository", escape(repo));
    }
    item(
        "Window",
        format!("{} → {} UTC", escape(&report.since), escape(&report.until)),
    );
    item(
        "Decisions",
        format!(
            "{} in the window, {} in the trail",
            report.decisions_in_window, report.decisions_total
        ),
    );
    item("Generated", format!("{} UTC", escape(&report.generated_at)));
    html.push_str("</dl>\n</header>\n");
}

fn body(html: &mut String, section: &Section) {
    match section {
        Section::PassRates(p) => pass_rates(html, p),
        Section::Waiting(rows) => waiting(html, rows),
        Section::Effectiveness(rows) => effectiveness(html, rows),
        Section::Coverage(rows) => coverage(html, rows),
        Section::GatePerformance(rows) => gate_performance(html, rows),
        Section::Phase4(rows) => phase4(html, rows),
        Section::FlakyTests(rows) => flaky(html, rows),
        Section::TimeToApproval(rows) => time_to_approval(html, rows),
        Section::Migration(rows) => migration(html, rows),
    }
}

/// A cell: text (escaped by the caller) or a right-aligned number.
enum Cell {
    Text(String),
    Num(String),
}

fn text(value: &str) -> Cell {
    Cell::Text(escape(value))
}

fn code(value: &str) -> Cell {
    Cell::Text(format!("<code>{}</code>", escape(value)))
}

fn opt_text(value: Option<&str>) -> Cell {
    value.map_or_else(|| Cell::Text(NONE.to_owned()), text)
}

fn num(value: impl ToString) -> Cell {
    Cell::Num(value.to_string())
}

/// A table: `columns` as `(heading, numeric)`, then the rows.
fn table(html: &mut String, caption: &str, columns: &[(&str, bool)], rows: Vec<Vec<Cell>>) {
    let _ = write!(
        html,
        "<div class=\"scroll\"><table>\n<caption class=\"note\">{}</caption>\n<thead><tr>",
        escape(caption)
    );
    for (heading, numeric) in columns {
        let class = if *numeric { " class=\"num\"" } else { "" };
        let _ = write!(html, "<th scope=\"col\"{class}>{}</th>", escape(heading));
    }
    html.push_str("</tr></thead>\n<tbody>\n");
    for row in rows {
        html.push_str("<tr>");
        for (i, cell) in row.into_iter().enumerate() {
            // The first cell names the row.
            let (open, close) = if i == 0 {
                ("th scope=\"row\"", "th")
            } else {
                ("td", "td")
            };
            match cell {
                Cell::Text(t) => {
                    let _ = write!(html, "<{open}>{t}</{close}>");
                }
                Cell::Num(n) => {
                    let _ = write!(html, "<{open} class=\"num\">{n}</{close}>");
                }
            }
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody>\n</table></div>\n");
}

fn opt_percent(rate: Option<f64>) -> Cell {
    num(rate.map_or_else(|| NONE.to_owned(), percent))
}

/// Whole hours waited: `5 h`, `3.0 d`.
fn hours(value: u64) -> String {
    if value < 48 {
        format!("{value} h")
    } else {
        format!("{:.1} d", value as f64 / 24.0)
    }
}

/// A change in percentage points between two rates: `+2.1 pts`, `−6.4 pts`.
fn points_change(from: f64, to: f64) -> String {
    super::figures::points(to - from)
}

fn pass_rates(html: &mut String, p: &PassRates) {
    if p.daily.is_empty() {
        let _ = writeln!(
            html,
            "<p class=\"note\">No daily series in this window.</p>"
        );
    } else {
        let points: Vec<Point> = p
            .daily
            .iter()
            .map(|d| Point {
                label: d.day.get(5..).unwrap_or(&d.day).to_owned(),
                value: d.mean_pass_rate * 100.0,
                title: format!(
                    "{}: {} mean pass rate over {} decision{}",
                    d.day,
                    percent(d.mean_pass_rate),
                    d.decisions,
                    if d.decisions == 1 { "" } else { "s" }
                ),
            })
            .collect();
        html.push_str(&svg::line_chart(
            "Daily mean test pass rate, all skills, 0 to 100%",
            &Axis::percent(),
            &points,
        ));
    }
    let shared: Vec<&str> = p
        .skills
        .iter()
        .map(|s| s.skill.as_str())
        .filter(|name| p.skills.iter().filter(|s| s.skill == *name).count() > 1)
        .collect();
    let rows = p
        .skills
        .iter()
        .map(|s| {
            let rates: Vec<f64> = s.points.iter().filter_map(|p| p.pass_rate).collect();
            let name = if shared.contains(&s.skill.as_str()) {
                format!(
                    "{}<br><small>{}</small>",
                    escape(&s.skill),
                    escape(s.dir.as_deref().unwrap_or(NONE))
                )
            } else {
                escape(&s.skill)
            };
            vec![
                Cell::Text(name),
                text(&s.category),
                num(s.runs),
                opt_percent(rates.last().copied()),
                num(match (rates.first(), rates.last()) {
                    (Some(first), Some(last)) if rates.len() > 1 => points_change(*first, *last),
                    _ => NONE.to_owned(),
                }),
                opt_percent(rates.iter().copied().reduce(f64::min)),
                opt_text(s.points.last().map(|p| p.decision.as_str())),
                Cell::Text(spark(s)),
            ]
        })
        .collect();
    table(
        html,
        "Per skill: its latest runs in the window, oldest first in the trend.",
        &[
            ("Skill", false),
            ("Category", false),
            ("Runs", true),
            ("Latest", true),
            ("Change", true),
            ("Lowest", true),
            ("Latest decision", false),
            ("Trend", false),
        ],
        rows,
    );
}

/// A skill's pass rates as a small line, 0% at the bottom: decoration, the table says the
/// numbers.
fn spark(skill: &SkillPassRate) -> String {
    let rates: Vec<f64> = skill
        .points
        .iter()
        .filter_map(|p| p.pass_rate)
        .map(|r| {
            if r.is_finite() {
                r.clamp(0.0, 1.0)
            } else {
                0.0
            }
        })
        .collect();
    if rates.len() < 2 {
        return NONE.to_owned();
    }
    let step = 96.0 / (rates.len() - 1) as f64;
    let points: Vec<String> = rates
        .iter()
        .enumerate()
        .map(|(i, r)| format!("{:.1},{:.1}", i as f64 * step + 2.0, 18.0 - r * 16.0))
        .collect();
    format!(
        "<svg class=\"spark\" viewBox=\"0 0 100 20\" aria-hidden=\"true\"><polyline points=\"{}\"/></svg>",
        points.join(" ")
    )
}

fn waiting(html: &mut String, rows: &[Waiting]) {
    let rows = rows
        .iter()
        .map(|w| {
            let asked = if w.escalated_to.is_empty() {
                NONE.to_owned()
            } else {
                list_of_code(&w.escalated_to)
            };
            let mut approvals = if w.approvals.is_empty() {
                "none yet".to_owned()
            } else {
                list_of_code(&w.approvals)
            };
            if !w.changes_requested_by.is_empty() {
                approvals.push_str("; changes requested by ");
                approvals.push_str(&list_of_code(&w.changes_requested_by));
            }
            vec![
                text(&w.skill),
                text(&w.category),
                text(&w.approval_level),
                Cell::Text(format!(
                    "{}#{} <code>{}</code>",
                    escape(&w.repository),
                    w.pull_request,
                    escape(w.head_sha.get(..7).unwrap_or(&w.head_sha))
                )),
                num(hours(w.waited_hours)),
                text(&w.since),
                Cell::Text(asked),
                Cell::Text(approvals),
                opt_text(w.escalation_reason.as_deref()),
                opt_percent(w.test_coverage),
            ]
        })
        .collect();
    table(
        html,
        "Longest wait first; times are UTC.",
        &[
            ("Skill", false),
            ("Category", false),
            ("Tier", false),
            ("Pull request", false),
            ("Waited", true),
            ("Since", false),
            ("Asked", false),
            ("Approvals", false),
            ("Reason", false),
            ("Coverage", true),
        ],
        rows,
    );
}

fn list_of_code(items: &[String]) -> String {
    items
        .iter()
        .map(|i| format!("<code>{}</code>", escape(i)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn effectiveness(html: &mut String, rows: &[Effectiveness]) {
    let rows = rows
        .iter()
        .map(|e| {
            vec![
                text(&e.agent_type),
                text(&e.skill),
                text(&e.category),
                opt_percent(e.test_pass_rate),
                num(e
                    .confidence_improvement
                    .map_or_else(|| NONE.to_owned(), |c| points_change(0.0, c))),
                num(e.usage_count),
                opt_percent(e.success_rate),
            ]
        })
        .collect();
    table(
        html,
        "Per agent type and skill.",
        &[
            ("Agent", false),
            ("Skill", false),
            ("Category", false),
            ("Test pass rate", true),
            ("Confidence gained", true),
            ("Uses", true),
            ("Success rate", true),
        ],
        rows,
    );
}

fn coverage(html: &mut String, rows: &[CategoryCoverage]) {
    let rows = rows
        .iter()
        .map(|c| {
            vec![
                text(&c.category),
                num(c.skill_count),
                opt_percent(c.avg_coverage),
                opt_percent(c.min_coverage),
                opt_percent(c.max_coverage),
                num(c.excellent),
                num(c.good),
                num(c.poor),
                num(c.unmeasured),
            ]
        })
        .collect();
    table(
        html,
        "Skills per coverage band.",
        &[
            ("Category", false),
            ("Skills", true),
            ("Average", true),
            ("Lowest", true),
            ("Highest", true),
            ("≥ 95%", true),
            ("80–95%", true),
            ("< 80%", true),
            ("Not measured", true),
        ],
        rows,
    );
}

fn gate_performance(html: &mut String, rows: &[TierPerformance]) {
    let groups: Vec<Group> = rows
        .iter()
        .map(|t| Group {
            label: t.approval_level.clone(),
            bars: vec![Bar {
                value: t.approval_rate,
                title: format!(
                    "{}: {} approved ({} of {})",
                    t.approval_level,
                    percent_of_100(t.approval_rate),
                    t.approved,
                    t.total
                ),
            }],
        })
        .collect();
    html.push_str(&svg::bar_chart(
        "Approval rate per tier, 0 to 100%",
        &Axis::percent(),
        &["approval rate"],
        &groups,
    ));
    let rows = rows
        .iter()
        .map(|t| {
            vec![
                text(&t.approval_level),
                num(t.total),
                num(t.approved),
                num(t.rejected),
                num(t.needs_correction),
                num(t.escalated),
                num(percent_of_100(t.approval_rate)),
                num(t
                    .avg_review_minutes
                    .map_or_else(|| NONE.to_owned(), minutes)),
            ]
        })
        .collect();
    table(
        html,
        "Decisions per tier.",
        &[
            ("Tier", false),
            ("Decisions", true),
            ("Approved", true),
            ("Rejected", true),
            ("Needs correction", true),
            ("Escalated", true),
            ("Approval rate", true),
            ("Average review", true),
        ],
        rows,
    );
}

fn phase4(html: &mut String, rows: &[Generated]) {
    let rows = rows
        .iter()
        .map(|g| {
            vec![
                text(&g.skill),
                text(&g.category),
                num(g
                    .phase4_pattern_id
                    .map_or_else(|| NONE.to_owned(), |id| id.to_string())),
                opt_percent(g.test_coverage),
                opt_percent(g.required_test_pass_rate),
                opt_text(g.decision.as_deref()),
                opt_text(g.approval_level.as_deref()),
                opt_text(g.approved_at.as_deref()),
                text(&g.created_at),
            ]
        })
        .collect();
    table(
        html,
        "Newest first; times are UTC.",
        &[
            ("Skill", false),
            ("Category", false),
            ("Pattern", true),
            ("Coverage", true),
            ("Required pass rate", true),
            ("Decision", false),
            ("Tier", false),
            ("Approved", false),
            ("Registered", false),
        ],
        rows,
    );
}

fn flaky(html: &mut String, rows: &[FlakyTest]) {
    let rows = rows
        .iter()
        .map(|f| {
            vec![
                text(&f.skill),
                code(&f.test),
                num(f.flaky_runs),
                num(f.runs),
                text(&f.last_seen),
            ]
        })
        .collect();
    table(
        html,
        "Flaky runs out of the skill's runs with test results.",
        &[
            ("Skill", false),
            ("Test", false),
            ("Flaky runs", true),
            ("Runs", true),
            ("Last seen", false),
        ],
        rows,
    );
}

fn time_to_approval(html: &mut String, rows: &[TierApprovalTime]) {
    let groups: Vec<Group> = rows
        .iter()
        .map(|t| Group {
            label: t.approval_level.clone(),
            bars: vec![
                Bar {
                    value: t.median_minutes,
                    title: format!("{} median: {}", t.approval_level, minutes(t.median_minutes)),
                },
                Bar {
                    value: t.p90_minutes,
                    title: format!("{} p90: {}", t.approval_level, minutes(t.p90_minutes)),
                },
            ],
        })
        .collect();
    let highest = rows
        .iter()
        .flat_map(|t| [t.median_minutes, t.p90_minutes])
        .filter(|m| m.is_finite())
        .fold(0.0, f64::max);
    html.push_str(&svg::bar_chart(
        "Time to approval per tier: median and 90th percentile",
        &Axis::minutes(highest, minutes),
        &["median", "p90"],
        &groups,
    ));
    let rows = rows
        .iter()
        .map(|t| {
            vec![
                text(&t.approval_level),
                num(t.approvals),
                num(minutes(t.median_minutes)),
                num(minutes(t.p90_minutes)),
                num(minutes(t.max_minutes)),
            ]
        })
        .collect();
    table(
        html,
        "Per tier of the approving decision.",
        &[
            ("Tier", false),
            ("Approvals", true),
            ("Median", true),
            ("p90", true),
            ("Longest", true),
        ],
        rows,
    );
}

fn migration(html: &mut String, rows: &[CategoryGaps]) {
    let rows = rows
        .iter()
        .map(|g| {
            vec![
                text(&g.category),
                num(g.skill_count),
                num(g.no_coverage_data),
                num(g.no_test_path),
                num(g.deprecated),
                num(g.latest_auto),
                num(g.latest_escalate),
                num(g.latest_human),
                num(g.never_gated),
            ]
        })
        .collect();
    table(
        html,
        "Skills per category, and the tier of each one's latest decision.",
        &[
            ("Category", false),
            ("Skills", true),
            ("No coverage data", true),
            ("No test path", true),
            ("Deprecated", true),
            ("Latest auto", true),
            ("Latest escalate", true),
            ("Latest human", true),
            ("Never gated", true),
        ],
        rows,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{SectionName, sample};

    #[test]
    fn escape_covers_the_five_characters_and_controls() {
        assert_eq!(
            escape(r#"<a href="x" title='y'>&amp;</a>"#),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;"
        );
        assert_eq!(escape("a\u{202e}b\u{1b}[31mc\nd"), "ab\u{fffd}[31mc\nd");
        assert_eq!(escape("plain-name_1.2"), "plain-name_1.2");
    }

    #[test]
    fn the_page_is_self_contained_and_strict() {
        let html = render(&sample::report());
        assert!(
            html.starts_with("<!doctype html>\n<html lang=\"en\">"),
            "{html}"
        );
        assert!(html.ends_with("</html>\n"));
        assert!(html.contains("<meta charset=\"utf-8\">"));
        assert!(html.contains(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
        ));
        assert!(html.contains("<meta name=\"viewport\""));
        assert!(html.contains("<title>skillgate report: acme/skills</title>"));
        assert!(html.contains("color-scheme:light dark"));
        assert!(html.contains("@media (prefers-color-scheme:dark)"));
        assert!(!html.contains("<script"), "a script");
        for external in [
            "http://", "https://", "//fonts", "url(", "@import", "<link", "src=",
        ] {
            // The SVG namespace is the one URL, an identifier a browser does not fetch.
            let outside_namespace = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
            assert!(
                !outside_namespace.contains(external),
                "{external} in the page"
            );
        }
        assert_eq!(html.matches("<style>").count(), 1);
    }

    #[test]
    fn every_section_in_order_with_its_about_line() {
        let html = render(&sample::report());
        let mut at = 0;
        for name in SectionName::ALL {
            let heading = format!("<h2>{}</h2>", escape(name.title()));
            let found = html[at..]
                .find(&heading)
                .unwrap_or_else(|| panic!("{heading} after byte {at}"));
            at += found;
            assert!(html[at..].contains(&escape(name.about())), "{name:?}");
        }
        assert_eq!(html.matches("<section id=").count(), 9);
        assert_eq!(html.matches("class=\"empty\"").count(), 0);
    }

    #[test]
    fn empty_sections_say_so_in_one_line() {
        let html = render(&sample::empty());
        assert_eq!(html.matches("<p class=\"empty\">").count(), 9);
        assert!(!html.contains("<table>"));
        assert!(!html.contains("<svg"));
        assert!(html.contains(
            "No agent usage is recorded yet: <code>skill_usage_log</code> has no row with a task id"
        ));
        assert!(html.contains("<title>skillgate report</title>"));
        assert!(!html.contains("Repository"));
    }

    #[test]
    fn charts_have_a_point_or_bar_per_datum() {
        let report = sample::report();
        let html = render(&report);
        assert_eq!(html.matches("<svg class=\"chart\"").count(), 3);
        let Section::PassRates(p) = &report.sections[0] else {
            panic!("pass rates first");
        };
        assert_eq!(
            html.matches("<circle class=\"point\"").count(),
            p.daily.len()
        );
        // Gate performance: one bar per tier (3); time to approval: median and p90 per tier (2).
        assert_eq!(html.matches("<rect class=\"bar s1\"").count(), 3 + 2);
        assert_eq!(html.matches("<rect class=\"bar s2\"").count(), 2);
        assert!(html.contains("<title>2026-11-15: 93.6% mean pass rate over 3 decisions</title>"));
        assert!(html.contains("<title>escalate p90: 22 h</title>"));
        assert!(html.contains("<title>human: 66.7% approved (8 of 12)</title>"));
    }

    #[test]
    fn numbers_are_formatted_and_right_aligned() {
        let html = render(&sample::report());
        // api-tester: latest 95.7%, from 100% to 95.7% is −4.3 points, lowest 93.6%.
        assert!(html.contains(
            "<th scope=\"row\">api-tester</th><td>testing</td><td class=\"num\">3</td><td class=\"num\">95.7%</td><td class=\"num\">\u{2212}4.3 pts</td><td class=\"num\">93.6%</td><td>approved</td>"
        ), "{html}");
        assert!(
            html.contains("<td class=\"num\">3.0 d</td>"),
            "72 hours waited"
        );
        assert!(html.contains("<td class=\"num\">+12.5 pts</td>"));
        assert!(html.contains(
            "<td class=\"num\">95 min</td><td class=\"num\">22 h</td><td class=\"num\">2.0 d</td>"
        ));
        assert!(html.contains("<th scope=\"col\" class=\"num\">Approval rate</th>"));
        assert!(
            html.contains("<td class=\"num\">—</td>"),
            "a missing average"
        );
        assert_eq!(minutes(0.0), "0 min");
        assert_eq!(minutes(f64::NAN), "—");
        assert_eq!(points_change(0.5, 0.5), "0.0 pts");
        assert_eq!(percent(-0.0), "0.0%");
    }

    #[test]
    fn text_from_the_trail_is_escaped() {
        let html = render(&sample::report());
        assert!(!html.contains("<b>x</b>"), "raw HTML from a skill name");
        assert!(html.contains("&lt;b&gt;x&lt;/b&gt; @team | `y`"));
        assert!(html.contains("<code>alice</code>, <code>acme/infra</code>"));
        assert!(html.contains("acme/skills#42 <code>3f2a9c1</code>"));

        let mut report = sample::empty();
        report.repository = Some("</title><script>x</script>".into());
        let html = render(&report);
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("&lt;/title&gt;&lt;script&gt;x&lt;/script&gt;"));
    }

    #[test]
    fn the_same_report_renders_the_same_bytes() {
        assert_eq!(render(&sample::report()), render(&sample::report()));
    }
}

//! Reminders for reviews that wait too long: re-request the routed reviewers of an open pull
//! request and edit one reminder line into its sticky comment, once per wait.
//!
//! A wait is identified by a digest of the pull request, its head and each waiting skill with
//! the time it started waiting; the line carries that digest in an HTML comment, so a later
//! scheduled run that finds it does nothing. The line sits right below the comment's marker,
//! where only this module writes: text further down (a test's output in a code block) cannot
//! pass for it.
//!
//! Without a sticky comment there is nowhere to record the reminder, so nobody is asked again
//! either: asking would repeat on every scheduled run. The pull request is skipped with a note.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::client::{ApiError, Client};
use super::event::Repo;
use super::publish::{ask_reviewers, repo_path, sticky_comments};
use crate::render::{self, COMMENT_MARKER, COMMENT_MAX_CHARS, markdown_text};
use crate::routing::Reviewers;

/// What starts a reminder line.
const LINE_START: &str = "> **Reminder** (";
/// What starts the tag that ends a reminder line.
const TAG_START: &str = "<!-- skillgate:reminder ";
/// Skills named on a reminder line; the rest are counted.
const MAX_NAMED_SKILLS: usize = 10;

/// A skill waiting for a review at a pull request's head, as the report found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wait {
    pub pull_request: u64,
    pub head_sha: String,
    pub skill: String,
    /// When the wait started: `YYYY-MM-DD HH:MM:SS`, UTC.
    pub since: String,
    pub waited_hours: u64,
    /// Who the routing asks for this skill.
    pub reviewers: Reviewers,
}

/// What [`remind`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Reminders {
    /// Pull requests whose reviewers were asked again and whose comment got the line.
    pub reminded: Vec<u64>,
    /// Pull requests left alone, and why.
    pub skipped: Vec<(u64, String)>,
    /// Worth a line in the job summary: reviewers GitHub refused, comments not found.
    pub notes: Vec<String>,
}

/// The waits of a report's "waiting" rows that belong to `repo`, with whom each asked:
/// `escalated_to` names users as they are and teams as `org/slug`.
pub fn waits_of(rows: &[crate::report::Waiting], repo: &Repo) -> Vec<Wait> {
    rows.iter()
        .filter(|row| row.repository.eq_ignore_ascii_case(&repo.full()))
        // A change request puts the next step with the author: nobody is reminded.
        .filter(|row| row.changes_requested_by.is_empty())
        .map(|row| {
            let mut reviewers = Reviewers::default();
            for name in &row.escalated_to {
                match name.split_once('/') {
                    Some((_, slug)) => reviewers.teams.push(slug.to_owned()),
                    None => reviewers.users.push(name.clone()),
                }
            }
            Wait {
                pull_request: row.pull_request,
                head_sha: row.head_sha.clone(),
                skill: row.skill.clone(),
                since: row.since.clone(),
                waited_hours: row.waited_hours,
                reviewers,
            }
        })
        .collect()
}

/// The head of each of these pull requests that is open; `None` for one closed, merged or
/// unknown to GitHub.
pub async fn open_heads(
    client: &Client,
    repo: &Repo,
    numbers: &[u64],
) -> Result<BTreeMap<u64, Option<String>>, ApiError> {
    let mut out = BTreeMap::new();
    for &number in numbers {
        let head = match client
            .get(&format!("{}/pulls/{number}", repo_path(repo)))
            .await
        {
            Ok(pull) if pull.get("state").and_then(Value::as_str) == Some("open") => pull
                .pointer("/head/sha")
                .and_then(Value::as_str)
                .map(str::to_owned),
            Ok(_) => None,
            Err(err) if err.status() == Some(404) => None,
            Err(err) => return Err(err),
        };
        out.insert(number, head);
    }
    Ok(out)
}

/// Remind the reviewers of every open pull request whose skills have waited `after_hours` or
/// more at its current head, unless the same wait was reminded already. `now` (`YYYY-MM-DD
/// HH:MM:SS`, UTC) dates the line. A pull request GitHub does not know is skipped; any other
/// failure to read or edit stops the run (what was reminded before it stays marked).
pub async fn remind(
    client: &Client,
    repo: &Repo,
    waits: &[Wait],
    after_hours: u64,
    now: &str,
) -> Result<Reminders, ApiError> {
    let mut out = Reminders::default();
    let mut by_pull: BTreeMap<u64, Vec<&Wait>> = BTreeMap::new();
    for wait in waits {
        by_pull.entry(wait.pull_request).or_default().push(wait);
    }
    for (number, waits) in by_pull {
        let overdue: Vec<&Wait> = waits
            .iter()
            .copied()
            .filter(|w| w.waited_hours >= after_hours)
            .collect();
        if overdue.is_empty() {
            let longest = waits.iter().map(|w| w.waited_hours).max().unwrap_or(0);
            out.skipped.push((
                number,
                format!("waited {longest} h, under the {after_hours} h threshold"),
            ));
            continue;
        }
        let pull = match client
            .get(&format!("{}/pulls/{number}", repo_path(repo)))
            .await
        {
            Ok(pull) => pull,
            Err(err) if err.status() == Some(404) => {
                out.skipped
                    .push((number, "no such pull request".to_owned()));
                continue;
            }
            Err(err) => return Err(err),
        };
        let state = pull.get("state").and_then(Value::as_str).unwrap_or("");
        if state != "open" {
            out.skipped
                .push((number, format!("the pull request is {state}")));
            continue;
        }
        let head = pull
            .pointer("/head/sha")
            .and_then(Value::as_str)
            .unwrap_or("");
        let current: Vec<&Wait> = overdue.into_iter().filter(|w| w.head_sha == head).collect();
        if current.is_empty() {
            out.skipped.push((
                number,
                format!("its head moved to {head}: a newer run decides"),
            ));
            continue;
        }
        let digests: Vec<String> = current
            .iter()
            .map(|w| wait_digest(number, head, w))
            .collect();
        let Some((comment_id, old)) = sticky_comments(client, repo, number)
            .await?
            .into_iter()
            .next()
        else {
            out.notes
                .push(format!("no skillgate comment on #{number} to remind in"));
            out.skipped
                .push((number, "no skillgate comment to remind in".to_owned()));
            continue;
        };
        // Each wait is reminded once: the tag lists the waits reminded at this head.
        let reminded: Vec<&str> = reminder_line(&old)
            .filter(|r| r.head == head)
            .map(|r| r.wait.split(',').collect())
            .unwrap_or_default();
        let fresh: Vec<&Wait> = current
            .iter()
            .zip(&digests)
            .filter(|(_, d)| !reminded.contains(&d.as_str()))
            .map(|(w, _)| *w)
            .collect();
        if fresh.is_empty() {
            out.skipped
                .push((number, "already reminded for this wait".to_owned()));
            continue;
        }
        let current = fresh;
        // Still waiting and reminded before, or reminded now: what the tag keeps.
        let mut digest: Vec<&str> = digests.iter().map(String::as_str).collect();
        digest.sort_unstable();
        digest.dedup();
        let digest = digest.join(",");
        let author = pull.pointer("/user/login").and_then(Value::as_str);
        let wanted = union(&current, author);
        let asked = ask_reviewers(client, repo, number, &wanted, &mut out.notes).await;
        let wanted_any = !wanted.users.is_empty() || !wanted.teams.is_empty();
        if wanted_any && asked.users.is_empty() && asked.teams.is_empty() {
            // Nobody was notified: leave the wait unmarked so a later run tries again.
            out.skipped
                .push((number, "no reviewer could be asked again".to_owned()));
            continue;
        }
        let line = line(now, &current, &asked, head, &digest);
        let body = with_reminder(&old, &line);
        client
            .patch(
                &format!("{}/issues/comments/{comment_id}", repo_path(repo)),
                &json!({ "body": body }),
            )
            .await?;
        out.reminded.push(number);
    }
    Ok(out)
}

/// The reviewers of all `waits`, without duplicates (any case) and without the author, whom
/// GitHub refuses to ask.
fn union(waits: &[&Wait], author: Option<&str>) -> Reviewers {
    let mut out = Reviewers::default();
    let is_author = |u: &str| author.is_some_and(|a| a.eq_ignore_ascii_case(u));
    for wait in waits {
        for user in &wait.reviewers.users {
            if !is_author(user) && !out.users.iter().any(|u| u.eq_ignore_ascii_case(user)) {
                out.users.push(user.clone());
            }
        }
        for team in &wait.reviewers.teams {
            if !out.teams.iter().any(|t| t.eq_ignore_ascii_case(team)) {
                out.teams.push(team.clone());
            }
        }
    }
    out
}

/// A wait's identity: the pull request, its head, the skill and since when it waits.
fn wait_digest(number: u64, head: &str, wait: &Wait) -> String {
    let mut hasher = Sha256::new();
    // Lengths first: no skill name can pass for another pair.
    hasher.update(format!(
        "{number}\n{head}\n{}:{}{}:{}\n",
        wait.skill.len(),
        wait.skill,
        wait.since.len(),
        wait.since
    ));
    hasher
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A login or team slug in a code span: only the characters GitHub allows in them, so nothing
/// closes the span or mentions anyone.
fn code(name: &str) -> String {
    let clean: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .collect();
    format!("`{clean}`")
}

/// `2026-12-01 09:00 UTC` from `2026-12-01 09:00:00`; anything else, escaped as given.
fn when(now: &str) -> String {
    let b = now.as_bytes();
    let shaped = b.len() == 19
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b' ',
            13 | 16 => *c == b':',
            _ => c.is_ascii_digit(),
        });
    if shaped {
        format!("{} UTC", &now[..16])
    } else {
        markdown_text(now)
    }
}

/// The reminder line, tag included.
fn line(now: &str, waits: &[&Wait], asked: &Reviewers, head: &str, digest: &str) -> String {
    let mut skills: Vec<(&str, u64)> = waits
        .iter()
        .map(|w| (w.skill.as_str(), w.waited_hours))
        .collect();
    skills.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    skills.dedup_by(|a, b| a.0 == b.0);
    let who = if skills.len() == 1 {
        format!(
            "{} has waited {} h for a review",
            markdown_text(skills[0].0),
            skills[0].1
        )
    } else {
        let mut named: Vec<String> = skills
            .iter()
            .take(MAX_NAMED_SKILLS)
            .map(|(skill, hours)| format!("{} ({hours} h)", markdown_text(skill)))
            .collect();
        if skills.len() > MAX_NAMED_SKILLS {
            named.push(format!("{} more", skills.len() - MAX_NAMED_SKILLS));
        }
        format!("{} have waited for a review", named.join(", "))
    };
    let mut asked_again: Vec<String> = asked.users.iter().map(|u| code(u)).collect();
    asked_again.extend(asked.teams.iter().map(|t| format!("team {}", code(t))));
    let asked_again = if asked_again.is_empty() {
        "no reviewer is routed to ask again".to_owned()
    } else {
        format!("asked again: {}", asked_again.join(", "))
    };
    format!(
        "{LINE_START}{}): {who}; {asked_again}. {TAG_START}head={head} wait={digest} -->",
        when(now)
    )
}

/// The reminder line of a sticky comment: the line right below the marker.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ReminderLine<'a> {
    pub line: &'a str,
    pub head: &'a str,
    pub wait: &'a str,
}

pub(crate) fn reminder_line(body: &str) -> Option<ReminderLine<'_>> {
    let mut lines = body.lines();
    if lines.next()? != COMMENT_MARKER {
        return None;
    }
    let line = lines.next()?;
    if !line.starts_with(LINE_START) {
        return None;
    }
    let tag = line.rsplit_once(TAG_START)?.1.strip_suffix(" -->")?;
    let (head, wait) = tag.split_once(' ')?;
    let head = head.strip_prefix("head=")?;
    let wait = wait.strip_prefix("wait=")?;
    let hex = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
    (hex(head) && wait.split(',').all(hex)).then_some(ReminderLine { line, head, wait })
}

/// `body` with `line` as its reminder: in place of the old one, else right below the marker,
/// followed by a blank line (a blockquote note may come next). The rest is trimmed when the
/// comment would outgrow GitHub's limit.
pub(crate) fn with_reminder(body: &str, line: &str) -> String {
    let rest = without_reminder(body);
    let rest = rest
        .strip_prefix(COMMENT_MARKER)
        .map_or(rest.as_str(), |r| r.strip_prefix('\n').unwrap_or(r));
    let head = format!("{COMMENT_MARKER}\n{line}\n\n");
    let room = COMMENT_MAX_CHARS.saturating_sub(head.chars().count());
    let rest = render::trim_chars(rest, room, "the check run and the job summary");
    format!("{head}{rest}")
}

/// `body` without its reminder line and the blank line after it.
fn without_reminder(body: &str) -> String {
    if reminder_line(body).is_none() {
        return body.to_owned();
    }
    // The marker's line, the reminder's, then a blank one if there.
    let after_line = |s: &str| s.split_once('\n').map_or("", |(_, rest)| rest).to_owned();
    let rest = after_line(&after_line(body));
    let rest = match rest.split_once('\n') {
        Some((blank, after)) if blank.trim().is_empty() => after,
        _ => rest.as_str(),
    };
    format!("{COMMENT_MARKER}\n{rest}")
}

/// The sticky comment `new` replaces `old`: the old reminder line stays when it is about the
/// same `head` (the wait it records goes on), else it is dropped (a new head is a new wait).
pub(crate) fn carry_reminder(old: &str, new: &str, head: &str) -> String {
    match reminder_line(old) {
        Some(found) if found.head == head && new.starts_with(COMMENT_MARKER) => {
            with_reminder(new, found.line)
        }
        _ => new.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "0123456789abcdef0123456789abcdef01234567";

    fn wait(skill: &str, since: &str, hours: u64) -> Wait {
        Wait {
            pull_request: 42,
            head_sha: HEAD.to_owned(),
            skill: skill.to_owned(),
            since: since.to_owned(),
            waited_hours: hours,
            reviewers: Reviewers {
                users: vec!["alice".to_owned()],
                teams: vec!["infra".to_owned()],
            },
        }
    }

    fn comment(rest: &str) -> String {
        format!("{COMMENT_MARKER}\n{rest}")
    }

    #[test]
    fn the_digest_is_the_wait_not_its_hours() {
        let a = wait("deploy-helper", "2026-11-28 09:00:00", 72);
        let b = wait("pdf", "2026-11-29 10:00:00", 47);
        let one = wait_digest(42, HEAD, &a);
        assert_eq!(one.len(), 16);
        assert_ne!(one, wait_digest(42, HEAD, &b));
        let mut later = a.clone();
        later.waited_hours = 96;
        assert_eq!(one, wait_digest(42, HEAD, &later));
        assert_ne!(one, wait_digest(43, HEAD, &a));
        assert_ne!(one, wait_digest(42, &HEAD.replace('0', "f"), &a));
        let mut again = a.clone();
        again.since = "2026-11-30 09:00:00".to_owned();
        assert_ne!(one, wait_digest(42, HEAD, &again));
    }

    #[test]
    fn the_line_names_without_mentioning_and_escapes_skill_names() {
        let w = wait("@octocat <b>#12</b>", "2026-11-28 09:00:00", 72);
        let asked = Reviewers {
            users: vec!["alice".to_owned(), "bo`b".to_owned()],
            teams: vec!["infra".to_owned()],
        };
        let text = line("2026-12-01 09:00:00", &[&w], &asked, HEAD, "00ff");
        assert_eq!(
            text,
            format!(
                "> **Reminder** (2026-12-01 09:00 UTC): @\u{200d}octocat &lt;b&gt;\\#\u{200d}12&lt;/b&gt; has waited 72 h for a review; asked again: `alice`, `bob`, team `infra`. <!-- skillgate:reminder head={HEAD} wait=00ff -->"
            )
        );
        let many: Vec<Wait> = (0..12)
            .map(|i| wait(&format!("s{i:02}"), "2026-11-28 09:00:00", 50 + i))
            .collect();
        let refs: Vec<&Wait> = many.iter().collect();
        let text = line("now", &refs, &Reviewers::default(), HEAD, "00ff");
        assert!(
            text.starts_with("> **Reminder** (now): s11 (61 h), s10 (60 h), "),
            "{text}"
        );
        assert!(
            text.contains(
                "s02 (52 h), 2 more have waited for a review; no reviewer is routed to ask again."
            ),
            "{text}"
        );
    }

    #[test]
    fn a_reminder_is_found_only_right_below_the_marker() {
        let tag = format!("<!-- skillgate:reminder head={HEAD} wait=abcd -->");
        let body = comment(&format!("> **Reminder** (x): y. {tag}\n\nreport"));
        let found = reminder_line(&body).expect("reminder");
        assert_eq!((found.head, found.wait), (HEAD, "abcd"));
        // Further down (a test's output quoted in the report) it is text, not a reminder.
        let lower = comment(&format!("report\n> **Reminder** (x): y. {tag}\n"));
        assert_eq!(reminder_line(&lower), None);
        assert_eq!(
            reminder_line(&format!("> **Reminder** (x): y. {tag}")),
            None
        );
        let forged = comment("> **Reminder** (x): y. <!-- skillgate:reminder head=zz wait=1 -->");
        assert_eq!(reminder_line(&forged), None);
    }

    #[test]
    fn a_reminder_replaces_the_old_one_or_goes_below_the_marker() {
        let first = with_reminder(
            &comment("> a note\n\n## Report\n"),
            "> **Reminder** (1): a. <!-- skillgate:reminder head=aa wait=01 -->",
        );
        assert_eq!(
            first,
            comment(
                "> **Reminder** (1): a. <!-- skillgate:reminder head=aa wait=01 -->\n\n> a note\n\n## Report\n"
            )
        );
        let second = with_reminder(
            &first,
            "> **Reminder** (2): b. <!-- skillgate:reminder head=bb wait=02 -->",
        );
        assert_eq!(
            second,
            comment(
                "> **Reminder** (2): b. <!-- skillgate:reminder head=bb wait=02 -->\n\n> a note\n\n## Report\n"
            )
        );
        // A comment at GitHub's limit is trimmed to make room, never sent over it.
        let full = comment(&format!("{}\n", "x".repeat(80)).repeat(808));
        assert!(full.chars().count() <= COMMENT_MAX_CHARS);
        let long = with_reminder(
            &full,
            "> **Reminder** (3): c. <!-- skillgate:reminder head=cc wait=03 -->",
        );
        assert!(long.chars().count() <= COMMENT_MAX_CHARS);
        assert_eq!(reminder_line(&long).map(|r| r.wait), Some("03"));
        assert!(
            long.contains("**Cut here:**"),
            "{}",
            &long[long.len() - 200..]
        );
    }

    #[test]
    fn a_new_comment_keeps_the_reminder_of_the_same_head_only() {
        let line =
            format!("> **Reminder** (1): a. <!-- skillgate:reminder head={HEAD} wait=01 -->");
        let old = comment(&format!("{line}\n\nold report\n"));
        let new = comment("new report\n");
        assert_eq!(
            carry_reminder(&old, &new, HEAD),
            comment(&format!("{line}\n\nnew report\n"))
        );
        let other = "fedcba9876543210fedcba9876543210fedcba98";
        assert_eq!(carry_reminder(&old, &new, other), new);
        assert_eq!(carry_reminder(&comment("old\n"), &new, HEAD), new);
    }
}

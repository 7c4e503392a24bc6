//! JUnit XML in its dialects (Surefire, pytest, jest-junit, mocha, nextest, node:test), streamed
//! so that memory follows the failures kept, not the file's size. No DTD entity is expanded.
//!
//! Counting rules: each `<testcase>` is one test, whatever a suite's `tests=` says; a direct
//! `<failure>` or `<error>` fails it, `<skipped>` skips it, and a failure is never hidden by a
//! skip, except node:test's todo: `<skipped type="todo">` beside a `<failure>` is a todo that
//! failed, which node counts as a todo, not a failure. node's JUnit reporter writes an empty
//! `describe` as a passing `<testcase>` and a skipped one as a skipped `<testcase>`, which its
//! own closing comments (`<!-- pass 0 -->`, `<!-- skipped 0 -->`, `<!-- todo 0 -->`) do not
//! count: when those comments are there, they cap the passes and the skips (never the
//! failures). Earlier attempts of one test (reruns) count once.

use std::borrow::Cow;
use std::io::{self, BufRead, BufReader, Read, Seek};

use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use super::model::{
    MAX_KEPT_FAILURES, MAX_MESSAGE_BYTES, Outcome, ReportFormat, TestCase, TestRun,
    classify_failure, push_truncated, truncate_utf8,
};
use super::node_totals::NodeTotals;
use crate::input::encoding::{Utf8Reader, is_utf16};
use crate::input::xml::{Capped, TooLong, line_at};
use crate::input::{InputError, MAX_NAME_BYTES};

/// The name of a `<testcase>` without one.
const UNNAMED: &str = "unnamed test case";

/// Deeper nesting is refused: real reports nest a few levels, hostile ones to exhaust memory.
const MAX_DEPTH: usize = 256;

/// Read a JUnit XML report. `Ok(None)` when the root element is not `<testsuites>` or
/// `<testsuite>` (a Cobertura report, some other XML).
///
/// Nearly every report is valid UTF-8: it is read as it is (quick-xml checks every event).
/// Only a report with a broken byte, or in UTF-16, is read again through the decoder that
/// repairs or transcodes it, so that one bad byte in a message does not lose the whole report.
pub(crate) fn read<R: Read + Seek>(mut input: R) -> Result<Option<TestRun>, InputError> {
    input.rewind()?;
    let mut head = [0u8; 2];
    let utf16 = input.read_exact(&mut head).is_ok() && is_utf16(&head);
    input.rewind()?;
    let mut result = if utf16 {
        Err(Stop::NotUtf8)
    } else {
        read_xml(&mut input)
    };
    if let Err(Stop::NotUtf8) = result {
        input.rewind()?;
        result = read_xml(Utf8Reader::new(&mut input));
    }
    match result {
        Ok(run) => Ok(run),
        Err(Stop::Io(e)) => Err(InputError::Io(e)),
        Err(Stop::NotUtf8) => Err(InputError::malformed(
            1,
            "invalid UTF-8 after decoding".to_owned(),
        )),
        Err(Stop::Malformed { offset, message }) => {
            Err(InputError::malformed(line_at(&mut input, offset)?, message))
        }
    }
}

fn read_xml(input: impl Read) -> Result<Option<TestRun>, Stop> {
    let mut reader = Reader::from_reader(Capped::new(BufReader::with_capacity(256 * 1024, input)));
    // A lone `&` in a message is a producer's slip, not a reason to drop the whole report.
    reader.config_mut().allow_dangling_amp = true;
    Junit::new().read(&mut reader)
}

/// A case read, held back until the next one shows whether it was an earlier attempt of the
/// same test. Its identity is in [`Junit::attempt_id`].
struct Attempt {
    outcome: Outcome,
    /// Built only for a failure: a million passing cases allocate nothing.
    failure: Option<TestCase>,
    /// An earlier attempt failed: a `flakyFailure`/`flakyError`, or a sibling written before.
    failed_before: bool,
}

/// A case's attributes as written: equal for two attempts of one test. The buffers are reused
/// from one case to the next.
#[derive(Default, PartialEq, Eq)]
struct Identity {
    classname: Field,
    name: Field,
    file: Field,
    line: Option<u32>,
}

impl Identity {
    fn clear(&mut self) {
        self.classname.clear();
        self.name.clear();
        self.file.clear();
        self.line = None;
    }
}

/// An attribute value that may be absent, in a buffer kept across cases.
#[derive(Default)]
struct Field {
    value: String,
    present: bool,
}

impl Field {
    fn get(&self) -> Option<&str> {
        self.present.then_some(self.value.as_str())
    }

    fn set(&mut self, value: &str) {
        self.value.clear();
        push_truncated(&mut self.value, value, MAX_NAME_BYTES);
        self.present = true;
    }

    fn clear(&mut self) {
        self.present = false;
    }
}

impl PartialEq for Field {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl Eq for Field {}

/// Why reading stopped early.
enum Stop {
    Io(io::Error),
    /// Bytes that are not UTF-8: read again through the repairing decoder.
    NotUtf8,
    /// At a byte offset into the file.
    Malformed {
        offset: u64,
        message: String,
    },
}

struct Junit {
    run: TestRun,
    open: OpenElements,
    suites: Vec<Suite>,
    case: Option<Case>,
    /// The case last closed, its buffers kept for the next one.
    spare: Option<Case>,
    /// The last case read, held back until the next one shows whether it was an earlier
    /// attempt of the same test.
    attempt: Option<Attempt>,
    attempt_id: Identity,
    root_is_testsuites: bool,
    /// `<testsuites name>`: pytest names it "pytest tests" whatever `junit_suite_name` says.
    root_name: Option<String>,
    root_time: Option<u64>,
    top_suites_time: Option<u64>,
    cases_time: Option<u64>,
    /// node:test's `<!-- tests 9 -->`, `<!-- pass 4 -->`, … comments at the end of its report.
    node: NodeTotals,
}

/// One comment directly inside `<testsuites>`: node's `key N` adds to its totals; any other
/// comment is not node's.
fn read_node_comment(totals: &mut NodeTotals, comment: &str) {
    let mut words = comment.split_whitespace();
    let (Some(key), Some(value), None) = (words.next(), words.next(), words.next()) else {
        return;
    };
    let Ok(n) = value.parse::<u64>() else {
        return;
    };
    totals.add(key, n);
}

/// node counts no suite as a test: an empty or skipped `describe` written as a `<testcase>` is
/// taken back from the passes or the skips.
fn cap_to_node_totals(totals: &NodeTotals, run: &mut TestRun) {
    if !totals.complete() {
        return;
    }
    let (passed, _, skipped) = totals.counts();
    run.passed = run.passed.min(passed);
    run.skipped = run.skipped.min(skipped);
}

struct Suite {
    depth: usize,
    name: Option<String>,
    /// mocha-junit-reporter writes the file on the suite, not on its cases.
    file: Option<String>,
}

/// Local names of the open elements, outermost first, in one buffer: opening an element
/// allocates nothing.
#[derive(Default)]
struct OpenElements {
    names: String,
    starts: Vec<usize>,
}

impl OpenElements {
    fn len(&self) -> usize {
        self.starts.len()
    }

    fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    fn last(&self) -> Option<&str> {
        self.names.get(*self.starts.last()?..)
    }

    fn push(&mut self, name: &str) {
        self.starts.push(self.names.len());
        self.names.push_str(name);
    }

    fn pop(&mut self) -> bool {
        match self.starts.pop() {
            Some(start) => {
                self.names.truncate(start);
                true
            }
            None => false,
        }
    }
}

struct Case {
    depth: usize,
    id: Identity,
    duration_ms: Option<u64>,
    outcome: Outcome,
    /// A Surefire/nextest `flakyFailure` or `flakyError`: an earlier attempt failed.
    flaky: bool,
    /// node:test's `<skipped type="todo">`: a todo, even if it also failed.
    todo: bool,
    /// Whether this case's failure details are kept (there is room among the kept failures).
    keep: bool,
    /// Inside a direct `<failure>`/`<error>` child.
    in_failure: bool,
    failure_attr: Option<String>,
    failure_text: String,
    message: String,
    /// `type` attributes (`TimeoutError`, `testTimeoutFailure`), for classifying.
    types: String,
}

impl Junit {
    fn new() -> Self {
        Self {
            run: TestRun::new(ReportFormat::Junit),
            open: OpenElements::default(),
            suites: Vec::new(),
            case: None,
            spare: None,
            attempt: None,
            attempt_id: Identity::default(),
            root_is_testsuites: false,
            root_name: None,
            root_time: None,
            top_suites_time: None,
            cases_time: None,
            node: NodeTotals::default(),
        }
    }

    fn read<R: BufRead>(mut self, reader: &mut Reader<Capped<R>>) -> Result<Option<TestRun>, Stop> {
        let mut buf = Vec::new();
        loop {
            buf.clear();
            reader.get_mut().reset();
            let event = match reader.read_event_into(&mut buf) {
                Ok(event) => event,
                Err(e) => return Err(stop_at(reader, &e)),
            };
            let position = reader.buffer_position();
            match event {
                Event::Start(e) => {
                    if !self.open_element(&e, position)? {
                        return Ok(None);
                    }
                }
                Event::Empty(e) => {
                    if !self.open_element(&e, position)? {
                        return Ok(None);
                    }
                    if self.close_element() {
                        return Ok(Some(self.finish()));
                    }
                }
                Event::End(_) => {
                    if self.close_element() {
                        return Ok(Some(self.finish()));
                    }
                }
                Event::Text(text) => {
                    if self.open.is_empty() && !text.trim().is_empty() {
                        // Text before any element: not a report.
                        return Ok(None);
                    }
                    // Captured output of passing tests is most of a big report: only the text
                    // of a kept failure is worth normalising.
                    if self.wants_text() {
                        self.push_text(&text.xml10_content());
                    }
                }
                Event::CData(cdata) => {
                    if self.wants_text() {
                        self.push_text(&cdata.xml10_content());
                    }
                }
                Event::GeneralRef(reference) => {
                    // Character references and the five predefined entities only; anything a
                    // DTD declared stays as written, unexpanded.
                    let name = reference.xml10_content();
                    let resolved: Cow<'_, str> = match reference.resolve_char_ref() {
                        Ok(Some(c)) => Cow::Owned(c.to_string()),
                        _ => match quick_xml::escape::resolve_predefined_entity(&name) {
                            Some(s) => Cow::Borrowed(s),
                            None => Cow::Owned(format!("&{name};")),
                        },
                    };
                    self.push_text(&resolved);
                }
                Event::Eof => {
                    return match self.open.last() {
                        Some(open) => Err(Stop::Malformed {
                            offset: position,
                            message: format!(
                                "unexpected end of XML inside <{open}> (help: the runner may \
                                 have been stopped before it finished writing the report)"
                            ),
                        }),
                        // Only a prolog, or nothing at all.
                        None => Ok(None),
                    };
                }
                Event::Comment(comment) => {
                    if self.root_is_testsuites && self.open.len() == 1 {
                        read_node_comment(&mut self.node, &comment.xml10_content());
                    }
                }
                Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
            }
        }
    }

    /// Returns false when the root element says this is not a JUnit report.
    fn open_element(&mut self, e: &BytesStart<'_>, position: u64) -> Result<bool, Stop> {
        let local = e.local_name();
        let name: &str = local.as_ref();
        let depth = self.open.len();
        if depth >= MAX_DEPTH {
            return Err(Stop::Malformed {
                offset: position,
                message: format!("elements nested deeper than {MAX_DEPTH}"),
            });
        }
        match name {
            "testsuites" if depth == 0 => {
                let attrs = Attrs::read(e);
                self.root_is_testsuites = true;
                self.root_time = attrs.time;
                self.root_name = attrs.name;
            }
            "testsuite" if self.case.is_none() => {
                // Attempts of one test are siblings: a suite boundary ends the run of them.
                self.commit_attempt();
                let attrs = Attrs::read(e);
                if depth == 0 {
                    self.root_time = attrs.time;
                } else if depth == 1 && self.root_is_testsuites {
                    self.top_suites_time = add(self.top_suites_time, attrs.time);
                }
                self.suites.push(Suite {
                    depth,
                    name: attrs.name,
                    file: attrs.file,
                });
            }
            _ if depth == 0 => return Ok(false),
            "testcase" if self.case.is_none() => {
                let mut case = self.spare.take().unwrap_or_else(Case::new);
                case.start(e, depth, self.run.failures.len() < MAX_KEPT_FAILURES);
                self.cases_time = add(self.cases_time, case.duration_ms);
                self.case = Some(case);
            }
            // Only direct children of the case decide its outcome. Surefire's (and nextest's)
            // `flakyFailure`/`flakyError` and `rerunFailure`/`rerunError` are earlier attempts,
            // not outcomes: a test that failed in the end also has a `failure` or `error`, one
            // that passed in the end has none and is flaky.
            "flakyFailure" | "flakyError" => {
                if let Some(case) = &mut self.case
                    && case.depth + 1 == depth
                {
                    case.flaky = true;
                }
            }
            "failure" | "error" => {
                if let Some(case) = &mut self.case
                    && case.depth + 1 == depth
                {
                    case.outcome = Outcome::Failed;
                    case.in_failure = true;
                    if case.keep {
                        let attrs = Attrs::read(e);
                        case.failure_attr = attrs.message;
                        // Bounded: a case may hold any number of failures.
                        if let Some(kind) = attrs.kind
                            && case.types.len() < MAX_NAME_BYTES
                        {
                            case.types.push_str(&kind);
                            case.types.push(' ');
                        }
                    }
                }
            }
            "skipped" => {
                if let Some(case) = &mut self.case
                    && case.depth + 1 == depth
                {
                    let mut todo = false;
                    each_attribute(e, |key, value| todo |= key == "type" && value == "todo");
                    case.todo |= todo;
                    if case.outcome != Outcome::Failed {
                        case.outcome = Outcome::Skipped;
                    }
                }
            }
            _ => {}
        }
        self.open.push(name);
        Ok(true)
    }

    /// Returns true when the root element closed.
    fn close_element(&mut self) -> bool {
        let closes_failure = matches!(self.open.last(), Some("failure" | "error"));
        if !self.open.pop() {
            return true;
        }
        let depth = self.open.len();
        if let Some(case) = &mut self.case {
            if case.in_failure && case.depth + 1 == depth && closes_failure {
                case.end_failure();
            }
            if case.depth == depth {
                self.end_case();
            }
        }
        if self.suites.last().is_some_and(|s| s.depth == depth) {
            self.commit_attempt();
            self.suites.pop();
        }
        depth == 0
    }

    fn wants_text(&self) -> bool {
        self.case.as_ref().is_some_and(|c| c.in_failure && c.keep)
    }

    fn push_text(&mut self, text: &str) {
        if let Some(case) = &mut self.case
            && case.in_failure
            && case.keep
        {
            push_capped(&mut case.failure_text, text);
        }
    }

    fn end_case(&mut self) {
        let Some(mut case) = self.case.take() else {
            return;
        };
        // pytest-rerunfailures writes every attempt as a `<testcase>` of its own, the earlier
        // ones with no outcome element: such a case followed by a sibling with the same
        // classname, name, file and line was an attempt that failed, and only the last counts.
        // A sibling that failed or was skipped is never folded into the next one (Gradle's
        // retry, or two tests that share a name): a failure is never hidden. An unnamed case
        // is never taken for another attempt of anything.
        if case.todo {
            // node:test's todo, whatever its body did.
            case.outcome = Outcome::Skipped;
        }
        let mut failed_before = case.flaky;
        match self.attempt.take() {
            Some(earlier)
                if case.id.name.present
                    && earlier.outcome == Outcome::Passed
                    && self.attempt_id == case.id =>
            {
                failed_before = true;
            }
            Some(other) => self.commit(other),
            None => {}
        }
        let failure = (case.outcome == Outcome::Failed).then(|| self.failure(&case));
        self.attempt = Some(Attempt {
            outcome: case.outcome,
            failure,
            failed_before,
        });
        std::mem::swap(&mut self.attempt_id, &mut case.id);
        self.spare = Some(case);
    }

    /// The failed test case as recorded.
    fn failure(&self, case: &Case) -> TestCase {
        let name = case.id.name.get().unwrap_or(UNNAMED).to_owned();
        // jest-junit's classname repeats the test's full name, mocha-junit-reporter's its
        // title: neither names a class, so the enclosing suite does.
        let suite = case
            .id
            .classname
            .get()
            .filter(|c| {
                !c.is_empty()
                    && *c != name
                    && !name
                        .strip_suffix(c)
                        .is_some_and(|before| before.ends_with(' '))
            })
            .map(str::to_owned)
            .or_else(|| self.suites.iter().rev().find_map(|s| s.name.clone()));
        let file = case
            .id
            .file
            .get()
            .map(str::to_owned)
            .or_else(|| self.suites.iter().rev().find_map(|s| s.file.clone()));
        // pytest writes 0-based line numbers (its own report location), everyone else 1-based.
        let in_pytest = self.root_name.as_deref() == Some("pytest tests")
            || self
                .suites
                .iter()
                .any(|s| s.name.as_deref() == Some("pytest"));
        let line = case
            .id
            .line
            .map(|line| {
                if in_pytest {
                    line.saturating_add(1)
                } else {
                    line
                }
            })
            .filter(|&line| line > 0);
        let message = (!case.message.is_empty())
            .then(|| truncate_utf8(case.message.trim(), MAX_MESSAGE_BYTES));
        let kind = classify_failure(&format!(
            "{} {}",
            case.types,
            message.as_deref().unwrap_or_default()
        ));
        TestCase {
            name,
            suite,
            file,
            line,
            duration_ms: case.duration_ms,
            outcome: Outcome::Failed,
            message,
            kind: Some(kind),
        }
    }

    fn commit_attempt(&mut self) {
        if let Some(attempt) = self.attempt.take() {
            self.commit(attempt);
        }
    }

    /// Count the held-back attempt, whose identity is `attempt_id`.
    fn commit(&mut self, attempt: Attempt) {
        match (attempt.outcome, attempt.failure) {
            (_, Some(failure)) => self.run.record(failure),
            (Outcome::Skipped, None) => self.run.skipped += 1,
            (_, None) => {
                if attempt.failed_before && self.run.flaky.len() < MAX_KEPT_FAILURES {
                    let name = self.attempt_id.name.get().unwrap_or(UNNAMED);
                    self.run.flaky.push(name.to_owned());
                }
                self.run.passed += 1;
            }
        }
    }

    fn finish(mut self) -> TestRun {
        self.commit_attempt();
        self.run.duration_ms = self.root_time.or(self.top_suites_time).or(self.cases_time);
        cap_to_node_totals(&self.node, &mut self.run);
        self.run
    }
}

impl Case {
    fn new() -> Self {
        Self {
            depth: 0,
            id: Identity::default(),
            duration_ms: None,
            outcome: Outcome::Passed,
            flaky: false,
            todo: false,
            keep: false,
            in_failure: false,
            failure_attr: None,
            failure_text: String::new(),
            message: String::new(),
            types: String::new(),
        }
    }

    /// Begin a case at `depth` from its start tag, reusing this one's buffers.
    fn start(&mut self, e: &BytesStart<'_>, depth: usize, keep: bool) {
        self.depth = depth;
        self.id.clear();
        self.duration_ms = None;
        self.outcome = Outcome::Passed;
        self.flaky = false;
        self.todo = false;
        self.keep = keep;
        self.in_failure = false;
        self.failure_attr = None;
        self.failure_text.clear();
        self.message.clear();
        self.types.clear();
        each_attribute(e, |key, value| match key {
            "name" => self.id.name.set(value),
            "classname" => self.id.classname.set(value),
            "file" => self.id.file.set(value),
            "line" => self.id.line = value.trim().parse().ok(),
            "time" => self.duration_ms = parse_seconds(value),
            _ => {}
        });
    }

    /// Join the `message` attribute and the element text of the failure just closed.
    fn end_failure(&mut self) {
        self.in_failure = false;
        let attr = self.failure_attr.take().unwrap_or_default();
        let attr = attr.trim();
        let text = std::mem::take(&mut self.failure_text);
        let text = text.trim();
        let part = match (attr.is_empty(), text.is_empty()) {
            (true, true) => return,
            (false, true) => attr.to_owned(),
            (true, false) => text.to_owned(),
            (false, false) if text.starts_with(attr) => text.to_owned(),
            (false, false) => format!("{attr}\n{text}"),
        };
        if !self.message.is_empty() {
            push_capped(&mut self.message, "\n\n");
        }
        push_capped(&mut self.message, &part);
    }
}

/// Append while the string is shorter than a message may be; the one cut later by
/// `truncate_utf8` marks that something was left out.
fn push_capped(buf: &mut String, text: &str) {
    let room = (MAX_MESSAGE_BYTES + 4).saturating_sub(buf.len());
    if room == 0 {
        return;
    }
    let mut end = text.len().min(room);
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    buf.push_str(text.get(..end).unwrap_or_default());
}

fn add(total: Option<u64>, more: Option<u64>) -> Option<u64> {
    match (total, more) {
        (Some(a), Some(b)) => Some(a.saturating_add(b)),
        (a, b) => a.or(b),
    }
}

/// The attributes the readers look at, read in one pass.
#[derive(Default)]
struct Attrs {
    name: Option<String>,
    classname: Option<String>,
    file: Option<String>,
    line: Option<u32>,
    time: Option<u64>,
    message: Option<String>,
    kind: Option<String>,
}

impl Attrs {
    fn read(e: &BytesStart<'_>) -> Self {
        let mut attrs = Self::default();
        each_attribute(e, |key, value| match key {
            "name" => attrs.name = Some(truncate_utf8(value, MAX_NAME_BYTES)),
            "classname" => attrs.classname = Some(truncate_utf8(value, MAX_NAME_BYTES)),
            "file" => attrs.file = Some(truncate_utf8(value, MAX_NAME_BYTES)),
            "line" => attrs.line = value.trim().parse().ok(),
            "time" => attrs.time = parse_seconds(value),
            "message" => attrs.message = Some(truncate_utf8(value, MAX_MESSAGE_BYTES)),
            "type" => attrs.kind = Some(truncate_utf8(value, MAX_NAME_BYTES)),
            _ => {}
        });
        attrs
    }
}

/// Call `f` with the local name and value of each attribute. Predefined entities and
/// character references are resolved; anything a DTD declared stays as written. A malformed
/// attribute ends the list; what came before it is kept.
fn each_attribute(e: &BytesStart<'_>, mut f: impl FnMut(&str, &str)) {
    let mut iter = e.attributes();
    iter.with_checks(false);
    for attr in iter {
        let Ok(attr) = attr else { break };
        let value = attr
            .normalized_value(XmlVersion::Implicit1_0)
            .unwrap_or_else(|_| attr.value.clone());
        f(attr.key.local_name().as_ref(), &value);
    }
}

/// `time` in seconds → milliseconds. Surefire groups thousands with commas (`1,234.5`, its
/// schema's `SUREFIRE_TIME`); a comma anywhere else (`0,5`) is refused, not guessed at.
fn parse_seconds(value: &str) -> Option<u64> {
    let value = value.trim();
    let value: Cow<'_, str> = if value.contains(',') {
        let whole = value.split('.').next().unwrap_or_default();
        let mut groups = whole.split(',');
        let first = groups.next().unwrap_or_default();
        let grouped = (1..=3).contains(&first.len())
            && groups.all(|g| g.len() == 3 && g.bytes().all(|b| b.is_ascii_digit()));
        if !grouped {
            return None;
        }
        Cow::Owned(value.replace(',', ""))
    } else {
        Cow::Borrowed(value)
    };
    let seconds: f64 = value.parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64)
}

fn stop_at<R>(reader: &Reader<R>, error: &quick_xml::Error) -> Stop {
    if let quick_xml::Error::Encoding(_) = error {
        return Stop::NotUtf8;
    }
    if let quick_xml::Error::Io(io_error) = error {
        if TooLong::caused(io_error) {
            return Stop::Malformed {
                offset: reader.buffer_position(),
                message: TooLong.to_string(),
            };
        }
        return Stop::Io(io::Error::new(io_error.kind(), io_error.to_string()));
    }
    Stop::Malformed {
        offset: reader.error_position(),
        message: format!("invalid XML: {error}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::ReadError;
    use crate::results::model::FailureKind;
    use std::path::{Path, PathBuf};

    fn fixture(rel: &str) -> PathBuf {
        crate::results::testkit::fixture(&format!("junit/{rel}"))
    }

    fn read_file(path: &Path) -> Result<Option<TestRun>, ReadError> {
        crate::results::read_report_as(path, ReportFormat::Junit)
    }

    fn read(rel: &str) -> TestRun {
        read_file(&fixture(rel))
            .expect("read")
            .expect("a JUnit report")
    }

    fn read_str(xml: &str) -> Result<Option<TestRun>, ReadError> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("report.xml");
        std::fs::write(&path, xml).expect("write");
        read_file(&path)
    }

    fn counts(run: &TestRun) -> (u64, u64, u64) {
        (run.passed, run.failed, run.skipped)
    }

    fn names(run: &TestRun) -> Vec<&str> {
        run.failures.iter().map(|c| c.name.as_str()).collect()
    }

    const PYTEST_FAILED: [&str; 5] = [
        "test_fails_assertion",
        "test_setup_error",
        "test_missing_module",
        "test_times_out",
        "test_ünïcödé_names[| pipes | `tick` @someone <b>bold</b> & done]",
    ];

    #[test]
    fn pytest_xunit2() {
        // pytest's summary (pytest.stdout.txt): 4 failed, 2 passed, 1 skipped, 1 xfailed,
        // 1 error. Errors count as failed, xfail as skipped: 2 passed, 5 failed, 2 skipped.
        let run = read("pytest-xunit2.xml");
        assert_eq!(run.framework, "junit");
        assert_eq!(run.format, ReportFormat::Junit);
        assert_eq!(counts(&run), (2, 5, 2));
        assert_eq!(names(&run), PYTEST_FAILED);
        assert!(run.duration_ms.is_some());

        let assertion = &run.failures[0];
        assert_eq!(assertion.suite.as_deref(), Some("sample_suite"));
        assert_eq!(assertion.file, None);
        assert_eq!(assertion.kind, Some(FailureKind::Assertion));
        let message = assertion.message.as_deref().expect("message");
        assert!(
            message.starts_with("AssertionError: assert {'name': 'dep... 'retries': 2}"),
            "{message}"
        );
        // The attribute, then the element text with its escapes resolved.
        assert!(
            message.contains("\n>       assert actual == expected"),
            "{message}"
        );

        let setup = &run.failures[1];
        assert_eq!(
            setup.message.as_deref().map(|m| m.lines().next()),
            Some(Some(
                "failed on setup with \"RuntimeError: database fixture could not connect\""
            ))
        );

        assert_eq!(run.failures[2].kind, Some(FailureKind::Dependency));
        let timeout = &run.failures[3];
        assert_eq!(timeout.suite.as_deref(), Some("sample_suite.TestGroup"));
        assert_eq!(timeout.kind, Some(FailureKind::Timeout));
    }

    #[test]
    fn pytest_xunit1_has_files_and_one_based_lines() {
        let run = read("pytest-xunit1.xml");
        assert_eq!(counts(&run), (2, 5, 2));
        assert_eq!(names(&run), PYTEST_FAILED);
        let lines: Vec<_> = run
            .failures
            .iter()
            .map(|c| (c.file.as_deref(), c.line))
            .collect();
        // The lines of the `def`s in pytest-project/sample_suite.py.
        let file = Some("sample_suite.py");
        assert_eq!(
            lines,
            [
                (file, Some(18)),
                (file, Some(24)),
                (file, Some(38)),
                (file, Some(46)),
                (file, Some(50)),
            ]
        );
    }

    #[test]
    fn node_test_reporter() {
        // node's closing comments: tests 9, pass 4, fail 2, cancelled 1, skipped 1, todo 1.
        let run = read("node.xml");
        assert_eq!(counts(&run), (4, 3, 2));
        assert_eq!(
            names(&run),
            [
                "collapses punctuation",
                "| pipes | `tick` @someone <b>bold</b> ünïcödé ✓",
                "finishes in time",
            ]
        );
        // node writes classname="test" on every case.
        assert_eq!(run.failures[1].suite.as_deref(), Some("test"));
        let timeout = &run.failures[2];
        assert_eq!(timeout.kind, Some(FailureKind::Timeout));
        let message = timeout.message.as_deref().expect("message");
        assert!(
            message.starts_with("test timed out after 50ms\n[Error [ERR_TEST_FAILURE]"),
            "{message}"
        );
        assert!(timeout.duration_ms.is_some_and(|ms| ms >= 50));
    }

    #[test]
    fn node_test_reporter_with_hooks_and_subtests() {
        // node's comments say tests 4, pass 4: it counts "parent test", which its JUnit
        // reporter writes as a <testsuite>, and drops the failing `after` hook entirely.
        let run = read("node-hooks.xml");
        assert_eq!(counts(&run), (3, 0, 0));
    }

    #[test]
    fn node_failing_todos_are_todos() {
        // node: tests 8, suites 2, pass 2, fail 1, todo 5. It writes a todo that failed with
        // both `<skipped type="todo">` and `<failure>`; the todo suite is a `<testsuite>` and
        // its failing child an ordinary failure: 2 / 1 / 5.
        let run = read("node-todo.xml");
        assert_eq!(counts(&run), (2, 1, 5));
        assert_eq!(names(&run), ["fails in a todo suite"]);
        assert_eq!(run.failures[0].suite.as_deref(), Some("test"));
        assert!(
            run.failures[0]
                .message
                .as_deref()
                .is_some_and(|m| m.starts_with("a todo suite does not make its tests todo")),
            "{:?}",
            run.failures[0].message
        );
    }

    #[test]
    fn node_empty_describe_is_no_test() {
        // node: tests 0, suites 1, pass 0. The describe is written as a passing <testcase>;
        // node's own `<!-- pass 0 -->` takes it back.
        let run = read("node-empty.xml");
        assert_eq!(counts(&run), (0, 0, 0));
        assert_eq!(run.pass_rate(), None);
    }

    #[test]
    fn node_suites_that_are_no_tests_under_a_name_pattern() {
        // `--test-name-pattern=kept`. node: tests 6, suites 5, pass 2, fail 2, skipped 2. The
        // empty describe is a passing <testcase>, the skipped and the empty todo describe are
        // skipped ones, "kept parent" a <testsuite>: 3 passes and 4 skips capped to node's 2
        // and 2; node's second failure is "kept parent", failed by its child: 2 / 1 / 2.
        let run = read("node-pattern.xml");
        assert_eq!(counts(&run), (2, 1, 2));
        assert_eq!(names(&run), ["kept child fails"]);
    }

    #[test]
    fn node_comments_are_read_only_where_node_writes_them() {
        let counted = |xml: &str| counts(&read_str(xml).expect("read").expect("report"));
        let node = "<!-- tests 1 --><!-- pass 0 --><!-- fail 0 --><!-- skipped 0 -->\
                    <!-- todo 0 -->";
        // Directly inside <testsuites>, the whole set: the passes are capped.
        assert_eq!(
            counted(&format!(
                r#"<testsuites><testcase name="a"/><testcase name="b"><skipped/></testcase>{node}</testsuites>"#
            )),
            (0, 0, 0)
        );
        // Inside a suite, under a lone <testsuite>, or without `fail`: not node's totals.
        assert_eq!(
            counted(&format!(
                r#"<testsuites><testsuite>{node}<testcase name="a"/></testsuite></testsuites>"#
            )),
            (1, 0, 0)
        );
        assert_eq!(
            counted(&format!(
                r#"<testsuite><testcase name="a"/>{node}</testsuite>"#
            )),
            (1, 0, 0)
        );
        assert_eq!(
            counted(
                r#"<testsuites><testcase name="a"/><!-- tests 1 --><!-- pass 0 --></testsuites>"#
            ),
            (1, 0, 0)
        );
        // Never the failures; and a skip that is no todo hides no failure.
        assert_eq!(
            counted(&format!(
                r#"<testsuites><testcase name="a"><skipped type="skipped"/><failure/></testcase>{node}</testsuites>"#
            )),
            (0, 1, 0)
        );
    }

    fn flaky(run: &TestRun) -> Vec<&str> {
        run.flaky.iter().map(String::as_str).collect()
    }

    #[test]
    fn jest_junit() {
        // jest's summary (jest.stdout.txt): 2 failed, 1 skipped, 1 todo, 4 passed, 8 total.
        // jest-junit writes the todo test as a case with no outcome element, so it reads as
        // passed; and it writes only the last try of a retried test, so nothing is flaky.
        let run = read("jest.xml");
        assert_eq!(counts(&run), (5, 2, 1));
        assert_eq!(
            names(&run),
            ["slugify collapses punctuation", "io reads the config"]
        );
        assert!(run.flaky.is_empty());
        // Its classname repeats the name: the suite is the <testsuite>'s name instead.
        let assertion = &run.failures[0];
        assert_eq!(assertion.suite.as_deref(), Some("slugify"));
        assert_eq!(assertion.file.as_deref(), Some("jest-suite.spec.js"));
        assert_eq!(assertion.line, None);
        assert_eq!(assertion.kind, Some(FailureKind::Assertion));
        let message = assertion.message.as_deref().expect("message");
        assert!(
            message.starts_with("Error: expect(received).toBe(expected)"),
            "{message}"
        );
        assert!(message.contains("Expected: \"a_b\""), "{message}");
        assert_eq!(run.failures[1].kind, Some(FailureKind::Dependency));
        assert_eq!(run.duration_ms, Some(507));
    }

    #[test]
    fn mocha_junit_reporter() {
        // mocha's spec reporter (mocha.spec.txt): 4 passing, 2 pending, 3 failing. The pending
        // tests are in the XML because of includePending; the failing `before all` hook is a
        // case of its own.
        let run = read("mocha.xml");
        assert_eq!(counts(&run), (4, 3, 2));
        assert_eq!(
            names(&run),
            [
                "slugify collapses punctuation",
                "io finishes in time",
                "database \"before all\" hook for \"reads a row\"",
            ]
        );
        assert!(run.flaky.is_empty());
        // The classname is the test's title; the suite and the file come from <testsuite>.
        let first = &run.failures[0];
        assert_eq!(first.suite.as_deref(), Some("slugify"));
        assert_eq!(
            first.file.as_deref(),
            Some("/tmp/skillgate-fixtures/junit/js-project/mocha-suite.cjs")
        );
        assert_eq!(
            first.message.as_deref().map(|m| m.lines().next()),
            // XML turns the newlines of an attribute into spaces.
            Some(Some(
                "Expected values to be strictly equal:  'a-b' !== 'a_b'"
            ))
        );
        assert_eq!(run.failures[1].suite.as_deref(), Some("io"));
        assert_eq!(run.failures[1].kind, Some(FailureKind::Timeout));
        assert_eq!(run.failures[1].duration_ms, Some(49));
    }

    #[test]
    fn nextest_with_retries() {
        // nextest's summary (nextest.stdout.txt): 5 tests run: 4 passed (1 flaky), 1 failed,
        // 1 skipped. Its JUnit leaves the ignored test out, so 4 / 1 / 0. The test that failed
        // three times is one failed case (failure + two rerunFailure), not three.
        let run = read("nextest.xml");
        assert_eq!(counts(&run), (4, 1, 0));
        assert_eq!(flaky(&run), ["tests::flaky_on_first_run"]);
        assert_eq!(names(&run), ["tests::collapses_punctuation"]);
        let case = &run.failures[0];
        assert_eq!(case.suite.as_deref(), Some("skill-checks"));
        // nextest writes neither file nor line.
        assert_eq!((case.file.as_deref(), case.line), (None, None));
        let message = case.message.as_deref().expect("message");
        assert!(
            message.starts_with("thread 'tests::collapses_punctuation' ("),
            "{message}"
        );
        // The first attempt's failure, not a rerun's; and no captured output.
        assert!(
            message.contains("left: \"a-b\"\n right: \"a_b\""),
            "{message}"
        );
        assert!(!message.contains("running 1 test"), "{message}");
    }

    #[test]
    fn pytest_legacy_with_logging_properties_and_reruns() {
        // pytest's summary (pytest-logging.stdout.txt): 2 failed, 2 passed, 1 skipped, 3 rerun.
        // pytest-rerunfailures writes each attempt as a <testcase> of its own: the attempts of
        // one test count once, and a test whose last attempt passed is flaky.
        let run = read("pytest-logging.xml");
        assert_eq!(counts(&run), (2, 2, 1));
        assert_eq!(flaky(&run), ["test_flaky_on_first_run"]);
        assert_eq!(
            names(&run),
            ["test_logs_and_fails", "test_always_fails_with_reruns"]
        );
        // The suite is named skill_checks, yet the lines are pytest's 0-based ones, made
        // 1-based: the `def` line, or the decorator's.
        let found: Vec<_> = run
            .failures
            .iter()
            .map(|c| (c.suite.as_deref(), c.file.as_deref(), c.line))
            .collect();
        let suite = Some("logging_suite");
        let file = Some("logging_suite.py");
        assert_eq!(found, [(suite, file, Some(22)), (suite, file, Some(42))]);
        // Captured output and logs are not part of the message.
        let message = run.failures[0].message.as_deref().expect("message");
        assert!(
            message.starts_with("AssertionError: arithmetic is broken\nassert (2 + 2) == 5\n"),
            "{message}"
        );
        assert!(!message.contains("Captured"), "{message}");
        assert_eq!(run.failures[1].kind, Some(FailureKind::Timeout));
    }

    #[test]
    fn surefire_reruns_and_flakes() {
        // Hand-written after Surefire's schema; Surefire would say: Tests run: 6,
        // Failures: 1, Errors: 1, Skipped: 1, Flakes: 2.
        let run = read("surefire-handwritten.xml");
        assert_eq!(counts(&run), (3, 2, 1));
        assert_eq!(
            flaky(&run),
            ["passesAfterARetry", "connectsAfterTwoRetries"]
        );
        assert_eq!(names(&run), ["collapsesPunctuation", "uploadsToTheBucket"]);
        assert_eq!(run.duration_ms, Some(1_234_500));
        let failure = &run.failures[0];
        assert_eq!(
            failure.suite.as_deref(),
            Some("com.example.skills.SlugifyTest")
        );
        // The final <failure> only: no rerun's stack trace or output.
        assert_eq!(
            failure.message.as_deref(),
            Some(
                "expected: <a-b> but was: <a_b>\norg.opentest4j.AssertionFailedError: \
                 expected: <a-b> but was: <a_b>\n\tat com.example.skills.SlugifyTest.\
                 collapsesPunctuation(SlugifyTest.java:22)"
            )
        );
        let error = &run.failures[1];
        assert_eq!(error.suite.as_deref(), Some("com.example.skills.UploadIT"));
        assert_eq!(error.kind, Some(FailureKind::Timeout));
        assert_eq!(error.duration_ms, Some(30_001));
    }

    #[test]
    fn consecutive_attempts_of_one_test_count_once() {
        let xml = r#"<testsuites>
          <testsuite name="s">
            <testcase classname="m" name="retried" file="t.py" line="3"/>
            <testcase classname="m" name="retried" file="t.py" line="3"/>
            <testcase classname="m" name="retried" file="t.py" line="3"/>
            <testcase classname="m" name="rerun then fail"/>
            <testcase classname="m" name="rerun then fail"><failure message="final"/></testcase>
            <testcase classname="m" name="gradle"><failure message="first"/></testcase>
            <testcase classname="m" name="gradle"/>
            <testcase classname="m" name="never"><failure message="1"/></testcase>
            <testcase classname="m" name="never"><failure message="2"/></testcase>
            <testcase classname="m" name="skipped then ran"><skipped/></testcase>
            <testcase classname="m" name="skipped then ran"/>
            <testcase classname="other" name="skipped then ran"/>
            <testcase/>
            <testcase/>
            <testcase classname="m" name="split"/>
          </testsuite>
          <testsuite name="t">
            <testcase classname="m" name="split"/>
          </testsuite>
        </testsuites>"#;
        let run = read_str(xml).expect("read").expect("report");
        // Folded: the three `retried` (flaky), the two `rerun then fail` (one failure).
        // Counted apart: a failed or skipped case and the next, another classname, unnamed
        // cases, cases in other suites.
        assert_eq!(counts(&run), (8, 4, 1));
        assert_eq!(flaky(&run), ["retried"]);
        assert_eq!(names(&run), ["rerun then fail", "gradle", "never", "never"]);
        assert_eq!(run.failures[0].message.as_deref(), Some("final"));
    }

    #[test]
    fn flaky_needs_a_direct_child_and_a_pass_in_the_end() {
        let xml = r#"<testsuite>
          <testcase name="a"><flakyError message="x"/></testcase>
          <testcase name="b"><system-out><flakyFailure/></system-out></testcase>
          <testcase name="c"><flakyFailure/><failure message="still broken"/></testcase>
          <testcase name="d"><flakyFailure/><skipped message="later disabled"/></testcase>
        </testsuite>"#;
        let run = read_str(xml).expect("read").expect("report");
        assert_eq!(counts(&run), (2, 1, 1));
        assert_eq!(flaky(&run), ["a"]);
        assert_eq!(names(&run), ["c"]);
    }

    #[test]
    fn flaky_names_are_capped_and_counts_stay_exact() {
        let mut xml = String::from("<testsuite>");
        for i in 0..MAX_KEPT_FAILURES + 3 {
            xml.push_str(&format!(
                "<testcase name=\"t{i}\"><flakyFailure message=\"m\"/></testcase>"
            ));
        }
        xml.push_str("</testsuite>");
        let run = read_str(&xml).expect("read").expect("report");
        assert_eq!(run.passed, (MAX_KEPT_FAILURES + 3) as u64);
        assert_eq!(run.flaky.len(), MAX_KEPT_FAILURES);
        assert_eq!(run.flaky[0], "t0");
    }

    #[test]
    fn files_lines_and_times_as_written() {
        let xml = r#"<testsuites name="x">
          <testsuite name="s" file="suite.js">
            <properties><property name="a" value="b"/></properties>
            <testcase name="no time" file="own.rs" line="12"><failure/></testcase>
            <testcase name="suite file"><failure/></testcase>
            <testcase name="bad line" line="-3"><failure/></testcase>
            <testcase name="grouped" time="1,234"><failure/></testcase>
            <testcase name="decimal comma" time="0,5"><failure/></testcase>
            <testcase name="odd groups" time="12,34.5"><failure/></testcase>
            <system-out>suite output</system-out>
            <system-err>suite errors</system-err>
          </testsuite>
        </testsuites>"#;
        let run = read_str(xml).expect("read").expect("report");
        let found: Vec<_> = run
            .failures
            .iter()
            .map(|c| {
                (
                    c.file.as_deref(),
                    c.line,
                    c.duration_ms,
                    c.message.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                (Some("own.rs"), Some(12), None, None),
                (Some("suite.js"), None, None, None),
                (Some("suite.js"), None, None, None),
                (Some("suite.js"), None, Some(1_234_000), None),
                (Some("suite.js"), None, None, None),
                (Some("suite.js"), None, None, None),
            ]
        );
        assert_eq!(run.duration_ms, Some(1_234_000));
    }

    #[test]
    fn a_truncated_report_is_an_error_naming_file_and_line() {
        let err = read_file(&fixture("truncated.xml")).expect_err("truncated");
        let text = err.to_string();
        let ReadError::Malformed { line, .. } = &err else {
            panic!("{err:?}");
        };
        assert_eq!(*line, 15, "{text}");
        assert!(text.starts_with("failed to read test report "), "{text}");
        assert!(
            text.contains("truncated.xml: line 15: unexpected end of XML inside <error>"),
            "{text}"
        );
    }

    #[test]
    fn dtd_entities_are_never_expanded() {
        let run = read("entity-bomb.xml");
        assert_eq!(counts(&run), (1, 1, 0));
        let case = &run.failures[0];
        assert_eq!(case.name, "laughs &lol9;");
        // The text repeats the attribute, so it is kept once.
        assert_eq!(case.message.as_deref(), Some("&lol9; &xxe; <kept>"));
    }

    #[test]
    fn other_xml_is_not_a_report() {
        let cobertura = r#"<?xml version="1.0"?>
            <!DOCTYPE coverage SYSTEM "http://cobertura.sourceforge.net/xml/coverage-04.dtd">
            <coverage line-rate="0.9"><packages/></coverage>"#;
        assert_eq!(read_str(cobertura).expect("read"), None);
        assert_eq!(read_str("<?xml version=\"1.0\"?>\n").expect("read"), None);
    }

    #[test]
    fn nested_suites_timing_and_outcomes() {
        let xml = r#"<testsuites time="2.5">
          <testsuite name="outer" time="9">
            <testsuite name="inner">
              <testcase name="a" time="0.0125"/>
              <testcase name="b" classname=""><skipped/></testcase>
              <testcase name="c" classname="pkg.C" file="src/c.rs" line="7">
                <flakyFailure message="first try"/>
                <system-out><failure>not a child of the case</failure></system-out>
              </testcase>
              <testcase name="d"><skipped/><error type="TimeoutError"/></testcase>
              <testcase name="e"><failure><![CDATA[<raw> & text]]></failure><failure message="second"/></testcase>
            </testsuite>
            <testcase name="f" line="0"><failure message="x&#10;y &amp; z"/></testcase>
          </testsuite>
        </testsuites>"#;
        let run = read_str(xml).expect("read").expect("report");
        assert_eq!(counts(&run), (2, 3, 1));
        assert_eq!(run.flaky, ["c"]);
        assert_eq!(run.duration_ms, Some(2500));
        assert_eq!(names(&run), ["d", "e", "f"]);
        let d = &run.failures[0];
        assert_eq!(d.suite.as_deref(), Some("inner"));
        assert_eq!(d.message, None);
        assert_eq!(d.kind, Some(FailureKind::Timeout));
        assert_eq!(
            run.failures[1].message.as_deref(),
            Some("<raw> & text\n\nsecond")
        );
        let f = &run.failures[2];
        assert_eq!(f.suite.as_deref(), Some("outer"));
        assert_eq!(f.line, None);
        // A character reference keeps its newline (attribute normalization spares them).
        assert_eq!(f.message.as_deref(), Some("x\ny & z"));
    }

    #[test]
    fn durations_fall_back_to_suites_then_cases() {
        let xml = r#"<testsuites><testsuite time="1,001.5"><testcase name="a"/></testsuite>
            <testsuite time="0.5"/></testsuites>"#;
        let run = read_str(xml).expect("read").expect("report");
        assert_eq!(run.duration_ms, Some(1_002_000));
        let xml = r#"<testsuite><testcase name="a" time="0.25"/><testcase name="b" time="0.5"/></testsuite>"#;
        let run = read_str(xml).expect("read").expect("report");
        assert_eq!(run.duration_ms, Some(750));
        assert_eq!(parse_seconds("-1"), None);
        assert_eq!(parse_seconds("NaN"), None);
        assert_eq!(parse_seconds("0,5"), None);
    }

    #[test]
    fn counts_stay_exact_beyond_the_kept_failures() {
        let mut xml = String::from("<testsuite>");
        for i in 0..MAX_KEPT_FAILURES + 3 {
            xml.push_str(&format!(
                "<testcase name=\"t{i}\"><failure message=\"m\"/></testcase>"
            ));
        }
        xml.push_str("</testsuite>");
        let run = read_str(&xml).expect("read").expect("report");
        assert_eq!(run.failed, (MAX_KEPT_FAILURES + 3) as u64);
        assert_eq!(run.failures.len(), MAX_KEPT_FAILURES);
    }

    #[test]
    fn long_messages_are_cut() {
        let long = "é".repeat(MAX_MESSAGE_BYTES);
        let xml = format!(
            "<testsuite><testcase name=\"a\"><failure>{long}</failure></testcase></testsuite>"
        );
        let run = read_str(&xml).expect("read").expect("report");
        let message = run.failures[0].message.as_deref().expect("message");
        assert!(message.len() <= MAX_MESSAGE_BYTES);
        assert!(message.ends_with('…'));
    }

    #[test]
    fn broken_xml_names_the_line() {
        let err =
            read_str("<testsuite>\n<testcase name=\"a\">\n</testsuite>\n").expect_err("mismatched");
        assert_eq!(
            err.to_string().rsplit_once("report.xml: ").map(|(_, m)| m),
            Some(
                "line 3: invalid XML: ill-formed document: expected `</testcase>`, but `</testsuite>` was found"
            )
        );
        let err = read_str("<testsuite>\n<testcase name=\"a").expect_err("cut in a tag");
        assert!(matches!(err, ReadError::Malformed { line: 2, .. }), "{err}");
    }

    #[test]
    fn deep_nesting_is_refused() {
        let xml = format!("<testsuite>{}", "<x>".repeat(MAX_DEPTH + 1));
        let err = read_str(&xml).expect_err("too deep");
        assert!(err.to_string().contains("nested deeper than 256"), "{err}");
    }
}

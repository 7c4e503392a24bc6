//! Cobertura XML (coverage.py `xml`, istanbul's `cobertura` reporter, gcovr, …), streamed with
//! quick-xml; `<line>`s of every class merge by file and line number. No DTD is processed.

use std::collections::HashMap;
use std::io::{Read, Seek};

use quick_xml::events::{BytesStart, Event};

use super::limits::{
    MAX_LINE_NUMBER, MAX_XML_DEPTH, check_counts, nonzero_count, shown, unexpected_eof,
};
use super::model::{Coverage, CoverageFormat, CoverageUnit};
use crate::input::InputError;
use crate::input::head::read_head;
use crate::input::xml::{XmlReader, XmlStop, next_event, xml_reader, xml_result, xml_root};

/// Read a Cobertura report. `Ok(None)` when the root element is not a Cobertura `<coverage>`.
pub(crate) fn read(mut input: impl Read + Seek) -> Result<Option<Coverage>, InputError> {
    if !sniff(&read_head(&mut input)?) {
        return Ok(None);
    }
    let result = Cobertura::default().read(&mut xml_reader(&mut input));
    xml_result(&mut input, result)
}

/// The root element is `<coverage>`. Clover's root has the same name; the reader tells them
/// apart by the attributes and children Cobertura has.
pub(crate) fn sniff(head: &[u8]) -> bool {
    xml_root(head) == Some("coverage")
}

/// Cobertura's elements: the nesting decides which `<line>`s count, and the names tell where a
/// truncated file ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Element {
    Coverage,
    Sources,
    Source,
    Packages,
    Package,
    Classes,
    Class,
    Methods,
    Method,
    Lines,
    Line,
    Conditions,
    Condition,
    Other,
}

const ELEMENTS: [(Element, &str); 13] = [
    (Element::Coverage, "coverage"),
    (Element::Sources, "sources"),
    (Element::Source, "source"),
    (Element::Packages, "packages"),
    (Element::Package, "package"),
    (Element::Classes, "classes"),
    (Element::Class, "class"),
    (Element::Methods, "methods"),
    (Element::Method, "method"),
    (Element::Lines, "lines"),
    (Element::Line, "line"),
    (Element::Conditions, "conditions"),
    (Element::Condition, "condition"),
];

impl Element {
    fn from_name(name: &str) -> Self {
        ELEMENTS
            .iter()
            .find(|(_, n)| *n == name)
            .map_or(Self::Other, |(element, _)| *element)
    }

    fn name(self) -> &'static str {
        ELEMENTS
            .iter()
            .find(|(element, _)| *element == self)
            .map_or("an element", |(_, name)| name)
    }
}

#[derive(Default)]
struct Cobertura {
    open: Vec<Element>,
    /// Index into `lines` of the class being read.
    class: Option<usize>,
    /// Source file name → its index in `lines`.
    files: HashMap<String, usize>,
    /// Per source file: line number → hit by any class.
    lines: Vec<HashMap<u32, bool>>,
    /// The root's `lines-covered` and `lines-valid`.
    root_totals: (Option<u64>, Option<u64>),
    /// The root or its children look like Cobertura (not Clover or some other `<coverage>`).
    cobertura: bool,
}

impl Cobertura {
    fn read(mut self, reader: &mut XmlReader<impl Read>) -> Result<Coverage, XmlStop> {
        let mut buf = Vec::new();
        loop {
            let root_closed = match next_event(reader, &mut buf)? {
                Event::Start(e) => {
                    self.open_element(reader, &e)?;
                    false
                }
                Event::Empty(e) => {
                    self.open_element(reader, &e)?;
                    self.close_element()
                }
                Event::End(_) => self.close_element(),
                Event::Text(text) => {
                    if self.open.is_empty() && !text.trim_ascii().is_empty() {
                        // Text before any element: not XML at all.
                        return Err(XmlStop::Foreign);
                    }
                    false
                }
                Event::Eof => {
                    return match self.open.last() {
                        Some(open) => Err(XmlStop::at(reader, unexpected_eof(open.name()))),
                        None => Err(XmlStop::Foreign),
                    };
                }
                // Entity references, CDATA, comments, the DOCTYPE: nothing here is counted.
                _ => false,
            };
            if root_closed {
                return self.finish(reader);
            }
        }
    }

    /// Stops with [`XmlStop::Foreign`] when the root element is not a Cobertura one.
    fn open_element(
        &mut self,
        reader: &XmlReader<impl Read>,
        e: &BytesStart<'_>,
    ) -> Result<(), XmlStop> {
        let depth = self.open.len();
        if depth >= MAX_XML_DEPTH {
            return Err(XmlStop::at(
                reader,
                format!("elements nested deeper than {MAX_XML_DEPTH}"),
            ));
        }
        let parent = self.open.last().copied();
        let element = Element::from_name(e.local_name().as_ref());
        match (element, parent) {
            (Element::Coverage, None) => self.open_root(reader, e)?,
            (_, None) => return Err(XmlStop::Foreign),
            (Element::Packages, Some(Element::Coverage)) => self.cobertura = true,
            (Element::Class, _) => {
                let name = attribute(e, "filename")
                    .or_else(|| attribute(e, "name"))
                    .unwrap_or_default();
                let next = self.lines.len();
                let index = *self.files.entry(name).or_insert(next);
                if index == next {
                    self.lines.push(HashMap::new());
                }
                self.class = Some(index);
            }
            // Only a class's own `<lines>` count: `<method>`s repeat some of them, and
            // istanbul's give the declaration line, which the class's lines do not list.
            (Element::Line, Some(Element::Lines))
                if depth >= 2 && self.open.get(depth - 2) == Some(&Element::Class) =>
            {
                self.read_line(reader, e)?;
            }
            _ => {}
        }
        self.open.push(element);
        Ok(())
    }

    fn open_root(
        &mut self,
        reader: &XmlReader<impl Read>,
        e: &BytesStart<'_>,
    ) -> Result<(), XmlStop> {
        let count = |name: &str| -> Result<Option<u64>, XmlStop> {
            match attribute(e, name) {
                None => Ok(None),
                Some(value) => value.trim().parse().map(Some).map_err(|_| {
                    XmlStop::at(
                        reader,
                        format!(
                            "invalid {name}=\"{}\" on <coverage>: expected a count",
                            shown(&value)
                        ),
                    )
                }),
            }
        };
        self.root_totals = (count("lines-covered")?, count("lines-valid")?);
        self.cobertura = ["line-rate", "lines-valid", "lines-covered", "branch-rate"]
            .iter()
            .any(|name| attribute(e, name).is_some());
        Ok(())
    }

    fn read_line(
        &mut self,
        reader: &XmlReader<impl Read>,
        e: &BytesStart<'_>,
    ) -> Result<(), XmlStop> {
        let Some(class) = self.class else {
            return Ok(());
        };
        let number = attribute(e, "number").unwrap_or_default();
        let number: u32 = number
            .trim()
            .parse()
            .ok()
            .filter(|&n| u64::from(n) <= MAX_LINE_NUMBER)
            .ok_or_else(|| {
                XmlStop::at(
                    reader,
                    format!(
                        "invalid <line number=\"{}\">: expected a line number up to \
                         {MAX_LINE_NUMBER}",
                        shown(&number)
                    ),
                )
            })?;
        let hits = attribute(e, "hits").unwrap_or_default();
        let hit = nonzero_count(&hits).ok_or_else(|| {
            XmlStop::at(
                reader,
                format!("invalid <line hits=\"{}\">: expected a count", shown(&hits)),
            )
        })?;
        if let Some(lines) = self.lines.get_mut(class) {
            *lines.entry(number).or_insert(false) |= hit;
        }
        Ok(())
    }

    /// Returns true when the root element closed.
    fn close_element(&mut self) -> bool {
        if self.open.pop() == Some(Element::Class) {
            self.class = None;
        }
        self.open.is_empty()
    }

    fn finish(self, reader: &XmlReader<impl Read>) -> Result<Coverage, XmlStop> {
        let has_lines = self.lines.iter().any(|lines| !lines.is_empty());
        let (covered, total) = if has_lines {
            self.lines
                .iter()
                .fold((0u64, 0u64), |(covered, total), lines| {
                    let hit = lines.values().filter(|&&hit| hit).count() as u64;
                    (covered + hit, total + lines.len() as u64)
                })
        } else {
            // Writers that leave out the lines (or a project without any) still state totals.
            match self.root_totals {
                (Some(covered), Some(total)) => (covered, total),
                _ if self.cobertura => (0, 0),
                _ => return Err(XmlStop::Foreign),
            }
        };
        check_counts(covered, total).map_err(|e| XmlStop::at(reader, e))?;
        Ok(Coverage {
            format: CoverageFormat::Cobertura,
            unit: CoverageUnit::Lines,
            covered,
            total,
        })
    }
}

/// An attribute's value as written: entities stay unexpanded (file names are only compared
/// with each other, and numbers never hold any).
fn attribute(e: &BytesStart<'_>, name: &str) -> Option<String> {
    let mut attributes = e.attributes();
    attributes.with_checks(false);
    attributes
        .map_while(Result::ok)
        .find(|a| a.key.local_name().as_ref() == name)
        .map(|a| a.value.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::files::Sample;
    use crate::input::ReadError;
    use crate::results::testkit::fixture;
    use std::path::Path;

    fn read_file(path: &Path) -> Result<Option<Coverage>, ReadError> {
        crate::coverage::read_coverage_as(path, CoverageFormat::Cobertura)
    }

    fn read(rel: &str) -> (u64, u64) {
        let coverage = read_file(&fixture(&format!("cobertura/{rel}")))
            .expect("read")
            .expect("a Cobertura report");
        assert_eq!(coverage.format, CoverageFormat::Cobertura);
        (coverage.covered, coverage.total)
    }

    const SAMPLE: Sample = Sample {
        file: "coverage.xml",
        reader: read_file,
    };

    #[test]
    fn coverage_py_matches_its_total_line() {
        // coveragepy.report.txt: "TOTAL 36 4 …": 36 statements, 4 missed.
        assert_eq!(read("coveragepy.xml"), (32, 36));
    }

    #[test]
    fn istanbul_matches_its_text_summary() {
        // istanbul.text-summary.txt: "Lines : 63.63% ( 7/11 )". Its <method> lines list the
        // declaration line of `percent` (5), which is not a line of the class: not counted.
        assert_eq!(read("istanbul.xml"), (7, 11));
    }

    #[test]
    fn gcovr_matches_its_summary() {
        // gcovr.summary.txt: "lines: 63.6% (14 out of 22)"; every line is listed twice
        // (method and class), and counted once.
        assert_eq!(read("gcovr.xml"), (14, 22));
    }

    #[test]
    fn a_file_in_several_classes_counts_each_line_once() {
        // Java's Cobertura writes inner classes as classes of the same file; other writers
        // repeat a file in several packages. A line is hit if any of them hit it.
        let xml = r#"<?xml version="1.0"?>
<coverage lines-valid="99" lines-covered="99" line-rate="1">
  <packages>
    <package name="a"><classes>
      <class name="Foo" filename="src/Foo.java"><lines>
        <line number="1" hits="1"/><line number="2" hits="0"/><line number="3" hits="0"/>
      </lines></class>
      <class name="Foo$Inner" filename="src/Foo.java"><lines>
        <line number="3" hits="7" branch="true" condition-coverage="50% (1/2)">
          <conditions><condition number="0" type="jump" coverage="50%"/></conditions>
        </line>
        <line number="4" hits="0"/>
      </lines></class>
    </classes></package>
    <package name="b"><classes>
      <class name="Foo" filename="src/Foo.java"><lines><line number="2" hits="0"/></lines></class>
      <class name="bar" filename="bar.py"><lines><line number="1" hits="0"/></lines></class>
    </classes></package>
  </packages>
</coverage>"#;
        // src/Foo.java: lines 1–4, 1 and 3 hit; bar.py: line 1, missed. The root totals are
        // ignored when lines are there.
        assert_eq!(SAMPLE.totals(xml), (2, 5));
    }

    #[test]
    fn root_totals_stand_in_for_missing_lines() {
        assert_eq!(
            SAMPLE.totals(
                r#"<coverage lines-valid="40" lines-covered="30" line-rate="0.75"><packages/></coverage>"#
            ),
            (30, 40)
        );
        // Cobertura without any lines or totals: nothing measured.
        assert_eq!(
            SAMPLE.totals(r#"<coverage line-rate="0"></coverage>"#),
            (0, 0)
        );
        assert_eq!(SAMPLE.totals(r#"<coverage><packages/></coverage>"#), (0, 0));
    }

    #[test]
    fn other_xml_is_not_cobertura() {
        // Clover's root has the same name but none of Cobertura's attributes or children.
        assert_eq!(
            SAMPLE
                .read(r#"<coverage generated="1" clover="4.4.1"><project/></coverage>"#)
                .expect("read"),
            None
        );
        assert_eq!(SAMPLE.read("<testsuites/>").expect("read"), None);
        assert_eq!(SAMPLE.read("").expect("read"), None);
        assert_eq!(SAMPLE.read("<?xml version=\"1.0\"?>").expect("read"), None);
        assert_eq!(SAMPLE.read("\u{0}\u{1}garbage\u{ff}").expect("read"), None);
        assert_eq!(
            read_file(&fixture("jacoco/jacoco.xml")).expect("read"),
            None
        );
    }

    #[test]
    fn entities_are_never_expanded() {
        let xml = r#"<?xml version="1.0"?>
<!DOCTYPE coverage [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
  <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
  <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
  <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
  <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
  <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
  <!ENTITY xxe SYSTEM "file:///etc/passwd">
]>
<coverage line-rate="0.5"><sources><source>&lol9;&xxe;</source></sources><packages>
  <package name="&lol9;"><classes>
    <class name="x" filename="&lol9;&xxe;"><lines>
      <line number="1" hits="1"/><line number="2" hits="0"/>
    </lines></class>
    <class name="y" filename="&lol9;"><lines><line number="1" hits="0"/></lines></class>
  </classes></package>
</packages></coverage>"#;
        assert_eq!(SAMPLE.totals(xml), (1, 3));
        // An entity in a count is not a count.
        assert_eq!(
            SAMPLE.error(r#"<coverage lines-valid="&lol9;" lines-covered="1"/>"#),
            "line 1: invalid lines-valid=\"&lol9;\" on <coverage>: expected a count"
        );
    }

    #[test]
    fn broken_reports_name_the_line() {
        let report = std::fs::read_to_string(fixture("cobertura/coveragepy.xml")).expect("fixture");
        // Cut inside a tag (line 30 of the report), and after a whole line.
        let cut: String = report.chars().take(1200).collect();
        assert_eq!(
            SAMPLE.error(&cut),
            "line 30: invalid XML: syntax error: tag not closed: `>` not found before end of input"
        );
        let lines: Vec<&str> = report.lines().take(29).collect();
        assert_eq!(
            SAMPLE.error(&lines.join("\n")),
            "line 29: unexpected end of XML inside <classes> (help: the coverage tool may have \
             been stopped before it finished writing the report)"
        );

        assert_eq!(
            SAMPLE.error(
                "<coverage line-rate=\"1\">\n<packages><class filename=\"a\"><lines>\n<line number=\"x\" hits=\"1\"/>"
            ),
            "line 3: invalid <line number=\"x\">: expected a line number up to 10000000"
        );
        assert_eq!(
            SAMPLE
                .error("<coverage>\n<class filename=\"a\"><lines><line number=\"4\" hits=\"-1\"/>"),
            "line 2: invalid <line hits=\"-1\">: expected a count"
        );
        assert_eq!(
            SAMPLE.error("<coverage><class filename=\"a\"><lines><line number=\"4\"/>"),
            "line 1: invalid <line hits=\"\">: expected a count"
        );
        assert_eq!(
            SAMPLE.error("<coverage><class><lines><line number=\"99999999999\" hits=\"1\"/>"),
            "line 1: invalid <line number=\"99999999999\">: expected a line number up to 10000000"
        );
        assert_eq!(
            SAMPLE.error("<coverage lines-valid=\"3\" lines-covered=\"4\"/>"),
            "line 1: 4 covered lines is more than the 3 lines in total"
        );
        assert_eq!(
            SAMPLE.error("<coverage lines-valid=\"-3\" lines-covered=\"0\"/>"),
            "line 1: invalid lines-valid=\"-3\" on <coverage>: expected a count"
        );
        assert_eq!(
            SAMPLE.error("<coverage lines-valid=\"99999999999999999\" lines-covered=\"0\"/>"),
            "line 1: 99999999999999999 lines is more than any codebase has (the limit is \
             1000000000000)"
        );
        let message = SAMPLE.error("<coverage>\n<packages></package></coverage>");
        assert!(message.starts_with("line 2: invalid XML"), "{message}");
        let deep = format!("<coverage>{}", "<a>".repeat(300));
        assert_eq!(
            SAMPLE.error(&deep),
            "line 1: elements nested deeper than 256"
        );
    }

    #[test]
    fn a_runaway_text_run_is_refused_not_held() {
        let mut xml = String::from("<coverage line-rate=\"1\">\n<sources><source>");
        xml.push_str(&"a".repeat(65 * 1024 * 1024));
        xml.push_str("</source></sources></coverage>");
        assert_eq!(
            SAMPLE.error(&xml),
            "line 2: a single XML tag or text run is longer than 64 MiB"
        );
    }
}

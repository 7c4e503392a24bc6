//! JaCoCo XML (`jacoco.xml`), streamed with quick-xml: the report's own LINE counter. Its DOCTYPE
//! names an external DTD, which is never fetched; no entity is expanded.

use std::io::{Read, Seek};

use quick_xml::events::{BytesStart, Event};

use super::limits::{MAX_XML_DEPTH, check_counts, shown, unexpected_eof};
use super::model::{Coverage, CoverageFormat, CoverageUnit};
use crate::input::InputError;
use crate::input::head::read_head;
use crate::input::xml::{XmlReader, XmlStop, next_event, xml_reader, xml_result, xml_root};

/// Read a JaCoCo report. `Ok(None)` when the root is not a JaCoCo `<report>`.
pub(crate) fn read(mut input: impl Read + Seek) -> Result<Option<Coverage>, InputError> {
    if !sniff(&read_head(&mut input)?) {
        return Ok(None);
    }
    let result = Jacoco::default().read(&mut xml_reader(&mut input));
    xml_result(&mut input, result)
}

/// The root element is `<report>`. Other tools (EMMA) use that name too; the reader tells them
/// apart by JaCoCo's `<counter>` and `<sessioninfo>` elements.
pub(crate) fn sniff(head: &[u8]) -> bool {
    xml_root(head) == Some("report")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Element {
    Report,
    SourceFile,
    Other,
}

impl Element {
    fn name(self) -> &'static str {
        match self {
            Self::Report => "report",
            Self::SourceFile => "sourcefile",
            Self::Other => "an element",
        }
    }
}

#[derive(Default)]
struct Jacoco {
    open: Vec<Element>,
    /// The LINE counter that is a direct child of `<report>`: (covered, missed).
    report_lines: Option<(u64, u64)>,
    /// The LINE counters of every `<sourcefile>`, added up: (covered, missed).
    source_lines: Option<(u64, u64)>,
    /// A `<counter>` or `<sessioninfo>` was seen: this is JaCoCo, not some other `<report>`.
    jacoco: bool,
}

impl Jacoco {
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
                Event::Eof => {
                    return match self.open.last() {
                        Some(open) => Err(XmlStop::at(reader, unexpected_eof(open.name()))),
                        None => Err(XmlStop::Foreign),
                    };
                }
                // Text, entity references, the DOCTYPE: nothing here is counted.
                _ => false,
            };
            if root_closed {
                return self.finish(reader);
            }
        }
    }

    /// Stops with [`XmlStop::Foreign`] when the root element is not a JaCoCo one.
    fn open_element(
        &mut self,
        reader: &XmlReader<impl Read>,
        e: &BytesStart<'_>,
    ) -> Result<(), XmlStop> {
        if self.open.len() >= MAX_XML_DEPTH {
            return Err(XmlStop::at(
                reader,
                format!("elements nested deeper than {MAX_XML_DEPTH}"),
            ));
        }
        let parent = self.open.last().copied();
        let element = match (e.local_name().as_ref(), parent) {
            ("report", None) => Element::Report,
            (_, None) => return Err(XmlStop::Foreign),
            ("sourcefile", _) => Element::SourceFile,
            ("sessioninfo", _) => {
                self.jacoco = true;
                Element::Other
            }
            ("counter", _) => {
                self.jacoco = true;
                self.read_counter(reader, e, parent)?;
                Element::Other
            }
            _ => Element::Other,
        };
        self.open.push(element);
        Ok(())
    }

    fn read_counter(
        &mut self,
        reader: &XmlReader<impl Read>,
        e: &BytesStart<'_>,
        parent: Option<Element>,
    ) -> Result<(), XmlStop> {
        let target = match parent {
            Some(Element::Report) if self.report_lines.is_none() => &mut self.report_lines,
            Some(Element::SourceFile) => &mut self.source_lines,
            // Package, class, method and group counters repeat what the others add up to.
            _ => return Ok(()),
        };
        let mut kind = None;
        let mut missed = None;
        let mut covered = None;
        let mut attributes = e.attributes();
        attributes.with_checks(false);
        for attribute in attributes.map_while(Result::ok) {
            match attribute.key.local_name().as_ref() {
                "type" => kind = Some(attribute.value),
                "missed" => missed = Some(attribute.value),
                "covered" => covered = Some(attribute.value),
                _ => {}
            }
        }
        if kind.as_deref() != Some("LINE") {
            return Ok(());
        }
        let count = |name: &str, value: Option<&str>| -> Result<u64, XmlStop> {
            let value = value.unwrap_or_default();
            value.trim().parse().map_err(|_| {
                XmlStop::at(
                    reader,
                    format!(
                        "invalid LINE <counter {name}=\"{}\">: expected a count",
                        shown(value)
                    ),
                )
            })
        };
        let missed = count("missed", missed.as_deref())?;
        let covered = count("covered", covered.as_deref())?;
        let (sum_covered, sum_missed) = target.unwrap_or((0, 0));
        let sum = (
            sum_covered.saturating_add(covered),
            sum_missed.saturating_add(missed),
        );
        check_counts(sum.0, sum.0.saturating_add(sum.1)).map_err(|e| XmlStop::at(reader, e))?;
        *target = Some(sum);
        Ok(())
    }

    /// Returns true when the root element closed.
    fn close_element(&mut self) -> bool {
        self.open.pop();
        self.open.is_empty()
    }

    fn finish(self, reader: &XmlReader<impl Read>) -> Result<Coverage, XmlStop> {
        let (covered, missed) = match self.report_lines.or(self.source_lines) {
            Some(lines) => lines,
            // A report of classes without any line (compiled without debug info, or nothing
            // analysed) measured nothing.
            None if self.jacoco => (0, 0),
            None => return Err(XmlStop::Foreign),
        };
        let total = covered.saturating_add(missed);
        check_counts(covered, total).map_err(|e| XmlStop::at(reader, e))?;
        Ok(Coverage {
            format: CoverageFormat::Jacoco,
            unit: CoverageUnit::Lines,
            covered,
            total,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::files::Sample;
    use crate::input::ReadError;
    use crate::results::testkit::fixture;
    use std::path::Path;

    fn read_file(path: &Path) -> Result<Option<Coverage>, ReadError> {
        crate::coverage::read_coverage_as(path, CoverageFormat::Jacoco)
    }

    fn read(rel: &str) -> (u64, u64) {
        let coverage = read_file(&fixture(&format!("jacoco/{rel}")))
            .expect("read")
            .expect("a JaCoCo report");
        assert_eq!(coverage.format, CoverageFormat::Jacoco);
        (coverage.covered, coverage.total)
    }

    const SAMPLE: Sample = Sample {
        file: "jacoco.xml",
        reader: read_file,
    };

    const DOCTYPE: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd">"#;

    #[test]
    fn the_report_counter_matches_jacocos_own() {
        // counters.txt: JaCoCo's bundle LINE counter, covered=17 missed=7.
        assert_eq!(read("jacoco.xml"), (17, 24));
    }

    #[test]
    fn without_report_counters_the_source_files_add_up() {
        // The same report without its report-level counters: the three <sourcefile> LINE
        // counters (7+3, 3+2, 7+2) give the same figure; class and method counters are not
        // added on top.
        assert_eq!(read("no-report-counters.xml"), (17, 24));
    }

    #[test]
    fn only_the_reports_own_counter_is_the_total() {
        let xml = format!(
            r#"{DOCTYPE}<report name="x"><sessioninfo id="s" start="1" dump="2"/>
<group name="g"><package name="p"><class name="p/A"><counter type="LINE" missed="1" covered="1"/></class>
<sourcefile name="A.java"><line nr="1" mi="0" ci="1" mb="0" cb="0"/><counter type="LINE" missed="1" covered="1"/></sourcefile>
<counter type="LINE" missed="1" covered="1"/></package><counter type="LINE" missed="1" covered="1"/></group>
<counter type="INSTRUCTION" missed="5" covered="50"/><counter type="LINE" missed="3" covered="9"/></report>"#
        );
        assert_eq!(SAMPLE.totals(&xml), (9, 12));
    }

    #[test]
    fn an_empty_report_measured_nothing() {
        let xml = format!(
            r#"{DOCTYPE}<report name="x"><sessioninfo id="s" start="1" dump="2"/></report>"#
        );
        assert_eq!(SAMPLE.totals(&xml), (0, 0));
    }

    #[test]
    fn other_reports_are_not_jacoco() {
        // EMMA's report has the same root name and no counters.
        assert_eq!(
            SAMPLE
                .read(r#"<report><stats><packages value="1"/></stats><data/></report>"#)
                .expect("read"),
            None
        );
        assert_eq!(SAMPLE.read("").expect("read"), None);
        assert_eq!(SAMPLE.read("<coverage/>").expect("read"), None);
        assert_eq!(SAMPLE.read("\u{0}\u{1}\u{2}").expect("read"), None);
        assert_eq!(
            read_file(&fixture("cobertura/gcovr.xml")).expect("read"),
            None
        );
    }

    #[test]
    fn the_dtd_is_neither_fetched_nor_expanded() {
        let xml = r#"<?xml version="1.0"?>
<!DOCTYPE report [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
  <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
  <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
  <!ENTITY xxe SYSTEM "http://127.0.0.1:9/report.dtd">
]>
<report name="&lol6;&xxe;"><package name="&lol6;">&lol6;
<sourcefile name="&xxe;"><counter type="LINE" missed="2" covered="3"/></sourcefile>
</package></report>"#;
        assert_eq!(SAMPLE.totals(xml), (3, 5));
        assert_eq!(
            SAMPLE.error(
                "<report>\n<counter type=\"LINE\" missed=\"&lol;\" covered=\"1\"/></report>"
            ),
            "line 2: invalid LINE <counter missed=\"&lol;\">: expected a count"
        );
    }

    #[test]
    fn broken_reports_name_the_line() {
        let full = std::fs::read_to_string(fixture("jacoco/jacoco.xml")).expect("fixture");
        let truncated: String = full.chars().take(2000).collect();
        let message = SAMPLE.error(&truncated);
        // JaCoCo writes the whole report on one line.
        assert!(message.starts_with("line 1: "), "{message}");

        assert_eq!(
            SAMPLE.error("<report>\n<counter type=\"LINE\" missed=\"-1\" covered=\"3\"/></report>"),
            "line 2: invalid LINE <counter missed=\"-1\">: expected a count"
        );
        assert_eq!(
            SAMPLE.error("<report><counter type=\"LINE\" covered=\"3\"/></report>"),
            "line 1: invalid LINE <counter missed=\"\">: expected a count"
        );
        assert_eq!(
            SAMPLE.error("<report><counter type=\"LINE\" missed=\"1\" covered=\"3.5\"/></report>"),
            "line 1: invalid LINE <counter covered=\"3.5\">: expected a count"
        );
        assert_eq!(
            SAMPLE.error(
                "<report><counter type=\"LINE\" missed=\"18446744073709551615\" \
                 covered=\"18446744073709551615\"/></report>"
            ),
            "line 1: 18446744073709551615 lines is more than any codebase has (the limit is \
             1000000000000)"
        );
        // A counter of another type is not looked at.
        assert_eq!(
            SAMPLE.totals("<report><counter type=\"BRANCH\" missed=\"x\" covered=\"y\"/></report>"),
            (0, 0)
        );
    }
}

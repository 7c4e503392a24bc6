//! What a skill documents for its users to pass in or read back: its inputs, parameters,
//! arguments, outputs and fields. Removing one that the base documented is a breaking change.
//!
//! Where they are documented:
//! - in the frontmatter, at the top level or inside `metadata`, under `inputs`, `parameters`,
//!   `arguments`, `outputs` or `fields` (any case, `-` or `_`): a list of names, a list of
//!   mappings with a `name` (or of one-key mappings, `- region: the AWS region`), or a mapping
//!   keyed by name;
//! - in the body, under a heading named Input(s), Parameter(s), Argument(s), Output(s) or
//!   Field(s) (any level and case, a trailing `:` allowed), down to the next heading of the same
//!   or a higher level: each top-level list item whose first word is a code span or bold
//!   (`` - `region`: the AWS region ``, `- **region** (string)`), and the first column of each
//!   row of a table.
//!
//! Names compare exactly, wherever they are documented: moving `region` from the frontmatter to
//! the body, from Inputs to Parameters, or reordering them removes nothing.

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::frontmatter::{self, ErrorKind, Key, Node, Value};

/// Past this many, the rest of the removed names are counted, not listed.
const MAX_LISTED: usize = 10;

/// One documented name and what kind of thing the document calls it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Documented {
    /// `input`, `parameter`, `argument`, `output` or `field`.
    pub kind: &'static str,
    pub name: String,
}

/// The singular of a section or key name the documentation uses (`Inputs` → `input`).
fn kind_of(word: &str) -> Option<&'static str> {
    let word = word
        .trim()
        .trim_end_matches(':')
        .trim()
        .to_ascii_lowercase()
        .replace('_', "-");
    Some(match word.as_str() {
        "inputs" | "input" => "input",
        "parameters" | "parameter" => "parameter",
        "arguments" | "argument" => "argument",
        "outputs" | "output" => "output",
        "fields" | "field" => "field",
        _ => return None,
    })
}

/// Everything a `SKILL.md` documents, in document order (frontmatter first); `None` when its
/// frontmatter cannot be read, so there is nothing to compare with.
pub fn documented(text: &str) -> Option<Vec<Documented>> {
    let (fields, body) = match frontmatter::parse(text) {
        Ok(doc) => {
            let body = text
                .split_inclusive('\n')
                .skip(doc.body_line.saturating_sub(1))
                .collect::<String>();
            (doc.fields, body)
        }
        Err(err) if err.kind == ErrorKind::Missing => (Vec::new(), text.to_owned()),
        Err(_) => return None,
    };
    let mut found = Vec::new();
    from_fields(&fields, &mut found);
    if let Some((_, node)) = fields
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("metadata"))
        && let Value::Map(entries) = &node.value
    {
        from_fields(entries, &mut found);
    }
    from_body(&body, &mut found);
    Some(found)
}

fn from_fields(fields: &[(Key, Node)], found: &mut Vec<Documented>) {
    for (key, node) in fields {
        let Some(kind) = kind_of(key) else {
            continue;
        };
        let mut push = |name: &str| {
            let name = name.trim();
            if !name.is_empty() {
                found.push(Documented {
                    kind,
                    name: name.to_owned(),
                });
            }
        };
        match &node.value {
            Value::Seq(items) => {
                for item in items {
                    match &item.value {
                        Value::String(name) => push(name),
                        Value::Map(entries) => {
                            let named = entries.iter().find(|(k, _)| k.text == "name");
                            match (named, entries.as_slice()) {
                                (Some((_, n)), _) => {
                                    if let Value::String(name) = &n.value {
                                        push(name);
                                    }
                                }
                                // `- region: the AWS region`
                                (None, [(only, _)]) => push(only),
                                _ => {}
                            }
                        }
                        _ => {}
                    }
                }
            }
            Value::Map(entries) => {
                for (name, _) in entries {
                    push(name);
                }
            }
            _ => {}
        }
    }
}

/// Where the walk through the body stands.
#[derive(Default)]
struct Walk {
    /// The section being read, and the level of its heading.
    section: Option<(&'static str, HeadingLevel)>,
    /// Text of the heading being read.
    heading: Option<(HeadingLevel, String)>,
    /// Depth of nested lists.
    lists: usize,
    /// Waiting for the first word of a top-level list item.
    item_start: bool,
    /// Inside bold at the start of an item: its text so far.
    bold: Option<String>,
    /// In a table body row: the first cell's text while it is read, `None` once it is done.
    cell: Option<String>,
    in_head: bool,
    cells_in_row: usize,
}

fn from_body(body: &str, found: &mut Vec<Documented>) {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut w = Walk::default();
    for event in Parser::new_ext(body, options) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                w.heading = Some((level, String::new()));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, text)) = w.heading.take() {
                    match kind_of(&text) {
                        Some(kind) => w.section = Some((kind, level)),
                        None if w.section.is_some_and(|(_, at)| level <= at) => {
                            w.section = None;
                        }
                        None => {}
                    }
                }
            }
            Event::Text(text) | Event::Code(text) if w.heading.is_some() => {
                if let Some((_, heading)) = &mut w.heading {
                    heading.push_str(&text);
                }
            }
            _ if w.section.is_none() => {}
            Event::Start(Tag::List(_)) => w.lists += 1,
            Event::End(TagEnd::List(_)) => w.lists = w.lists.saturating_sub(1),
            Event::Start(Tag::Item) => w.item_start = w.lists == 1,
            Event::End(TagEnd::Item) => w.item_start = false,
            Event::Start(Tag::Paragraph) | Event::TaskListMarker(_) => {}
            Event::Start(Tag::Strong) if w.item_start => w.bold = Some(String::new()),
            Event::End(TagEnd::Strong) if w.bold.is_some() => {
                let text = w.bold.take().unwrap_or_default();
                push_name(&mut w, &text, found);
            }
            Event::Text(text) if w.bold.is_some() => {
                if let Some(bold) = &mut w.bold {
                    bold.push_str(&text);
                }
            }
            Event::Code(code) if w.item_start => push_name(&mut w, &code, found),
            Event::Start(Tag::TableHead) => w.in_head = true,
            Event::End(TagEnd::TableHead) => w.in_head = false,
            Event::Start(Tag::TableRow) => w.cells_in_row = 0,
            Event::Start(Tag::TableCell) => {
                w.cells_in_row += 1;
                if !w.in_head && w.cells_in_row == 1 {
                    w.cell = Some(String::new());
                }
            }
            Event::End(TagEnd::TableCell) => {
                if let Some(text) = w.cell.take() {
                    push_name(&mut w, &text, found);
                }
            }
            Event::Text(text) | Event::Code(text) if w.cell.is_some() => {
                if let Some(cell) = &mut w.cell {
                    cell.push_str(&text);
                }
            }
            // Anything else first in an item: prose, not a name.
            Event::Text(_) | Event::Start(_) if w.item_start => w.item_start = false,
            _ => {}
        }
    }
}

/// The first word of `text`, without a trailing `:`, as a name of the current section.
fn push_name(w: &mut Walk, text: &str, found: &mut Vec<Documented>) {
    w.item_start = false;
    let Some((kind, _)) = w.section else {
        return;
    };
    let name = text
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_end_matches([':', ','])
        .trim_matches('`');
    if !name.is_empty() {
        found.push(Documented {
            kind,
            name: name.to_owned(),
        });
    }
}

/// What the base documented that the head no longer does, as breaking changes in a reviewer's
/// words (`documented input `region` removed`). Nothing when either side cannot be read.
pub fn removed(before: &str, after: &str) -> Vec<String> {
    let (Some(before), Some(after)) = (documented(before), documented(after)) else {
        return Vec::new();
    };
    let mut gone: Vec<&Documented> = Vec::new();
    for old in &before {
        if !after.iter().any(|new| new.name == old.name) && !gone.iter().any(|g| g.name == old.name)
        {
            gone.push(old);
        }
    }
    let mut reasons: Vec<String> = gone
        .iter()
        .take(MAX_LISTED)
        .map(|d| format!("documented {} `{}` removed", d.kind, d.name))
        .collect();
    if gone.len() > MAX_LISTED {
        reasons.push(format!(
            "{} more documented inputs or fields removed",
            gone.len() - MAX_LISTED
        ));
    }
    reasons
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<(&'static str, String)> {
        documented(text)
            .expect("readable")
            .into_iter()
            .map(|d| (d.kind, d.name))
            .collect()
    }

    fn pairs(list: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
        list.iter().map(|(k, n)| (*k, (*n).to_owned())).collect()
    }

    const FRONT: &str = "---\nname: s\ndescription: d\n";

    #[test]
    fn frontmatter_lists_maps_and_metadata() {
        let text = format!(
            "{FRONT}inputs: [region, bucket]\nparameters:\n  - name: limit\n    type: int\n  - dry_run: skip writes\noutputs:\n  url: where it went\n  size: bytes\nmetadata:\n  arguments:\n    - path\n---\n# s\n"
        );
        assert_eq!(
            names(&text),
            pairs(&[
                ("input", "region"),
                ("input", "bucket"),
                ("parameter", "limit"),
                ("parameter", "dry_run"),
                ("output", "url"),
                ("output", "size"),
                ("argument", "path"),
            ])
        );
    }

    #[test]
    fn body_sections_lists_and_tables() {
        let text = format!(
            "{FRONT}---\n# Tool\nIntro with `not_an_input`.\n\n## Inputs\n\n- `region`: the AWS region\n- **bucket** (string): where\n- plain words are prose\n  - `nested` is detail\n\n### Optional\n\n* `--dry-run` skips writes\n\n## Output fields:\n\n- `ignored`: not a section name\n\n## Outputs\n\n| Name | Meaning |\n|------|---------|\n| `url` | where it went |\n| size | bytes |\n\n## Usage\n\n- `later`: not in a section\n"
        );
        assert_eq!(
            names(&text),
            pairs(&[
                ("input", "region"),
                ("input", "bucket"),
                ("input", "--dry-run"),
                ("output", "url"),
                ("output", "size"),
            ])
        );
    }

    #[test]
    fn a_removed_input_is_named_wherever_it_was_documented() {
        let before = format!("{FRONT}inputs: [region, bucket]\n---\n## Outputs\n- `url`: x\n");
        let after = format!("{FRONT}inputs: [bucket]\n---\n## Outputs\n- `link`: x\n");
        assert_eq!(
            removed(&before, &after),
            vec![
                "documented input `region` removed".to_owned(),
                "documented output `url` removed".to_owned(),
            ]
        );
    }

    #[test]
    fn renaming_the_heading_reordering_or_adding_removes_nothing() {
        let before = format!("{FRONT}---\n## Inputs\n- `region`: r\n- `bucket`: b\n");
        let renamed = format!("{FRONT}---\n## Parameters\n- `region`: r\n- `bucket`: b\n");
        let reordered = format!("{FRONT}---\n## Inputs\n- `bucket`: b\n- `region`: r\n");
        let added = format!("{FRONT}---\n## Inputs\n- `region`: r\n- `bucket`: b\n- `acl`: a\n");
        let moved = format!("{FRONT}inputs:\n  region: r\n  bucket: b\n---\n# s\n");
        for after in [&renamed, &reordered, &added, &moved] {
            assert_eq!(removed(&before, after), Vec::<String>::new(), "{after}");
        }
        // A heading that stops naming a section takes its items with it.
        let usage = format!("{FRONT}---\n## Usage\n- `region`: r\n- `bucket`: b\n");
        assert_eq!(removed(&before, &usage).len(), 2);
    }

    #[test]
    fn unreadable_frontmatter_compares_nothing_and_many_removals_are_counted() {
        let before = format!("{FRONT}inputs: [a]\n---\n");
        assert!(removed(&before, "---\nname: [unclosed\n---\n").is_empty());
        assert!(removed("---\nname: [unclosed\n---\n", &before).is_empty());
        // No frontmatter at all: the whole file is the body.
        assert_eq!(names("## Inputs\n- `a`\n"), pairs(&[("input", "a")]));
        let many: Vec<String> = (0..13).map(|i| format!("p{i}")).collect();
        let before = format!("{FRONT}parameters: [{}]\n---\n", many.join(", "));
        let reasons = removed(&before, &format!("{FRONT}---\n"));
        assert_eq!(reasons.len(), 11);
        assert_eq!(reasons[0], "documented parameter `p0` removed");
        assert_eq!(reasons[10], "3 more documented inputs or fields removed");
    }
}

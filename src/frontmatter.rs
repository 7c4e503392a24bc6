//! The YAML frontmatter of a `SKILL.md`, read into a tree that remembers each value's line.
//!
//! Anchors and aliases are refused: frontmatter never needs them and expanding them is how
//! YAML bombs work. Nesting is capped before parsing: the YAML parser recurses once per level,
//! and a line of 500,000 `- ` would overflow the stack.

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// A YAML value with the 1-based line (in the whole `SKILL.md`) and column (in characters)
/// where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Value,
    pub line: usize,
    pub column: usize,
}

/// A mapping key: its text and where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub text: String,
    pub line: usize,
    pub column: usize,
}

impl std::ops::Deref for Key {
    type Target = str;

    fn deref(&self) -> &str {
        &self.text
    }
}

impl PartialEq<str> for Key {
    fn eq(&self, other: &str) -> bool {
        self.text == other
    }
}

impl PartialEq<&str> for Key {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    String(String),
    Seq(Vec<Node>),
    /// Keys in document order; keys are scalars read as text.
    Map(Vec<(Key, Node)>),
}

impl Value {
    /// What kind of value this is, for error messages ("expected a number, found a list").
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Null => "nothing",
            Self::Bool(_) => "a boolean",
            Self::Int(_) | Self::Float(_) => "a number",
            Self::String(_) => "a string",
            Self::Seq(_) => "a list",
            Self::Map(_) => "a mapping",
        }
    }

    /// The value as JSON, for keeping unknown fields.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Self::Null => serde_json::Value::Null,
            Self::Bool(b) => (*b).into(),
            Self::Int(i) => (*i).into(),
            Self::Float(f) => serde_json::Number::from_f64(*f)
                .map_or(serde_json::Value::Null, serde_json::Value::Number),
            Self::String(s) => s.clone().into(),
            Self::Seq(items) => items.iter().map(|n| n.value.to_json()).collect(),
            Self::Map(entries) => entries
                .iter()
                .map(|(k, n)| (k.text.clone(), n.value.to_json()))
                .collect::<serde_json::Map<_, _>>()
                .into(),
        }
    }
}

/// A `SKILL.md` split into its frontmatter and body.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The top-level mapping of the frontmatter, in order.
    pub fields: Vec<(Key, Node)>,
    /// 1-based line where the Markdown body starts.
    pub body_line: usize,
}

/// Deeper YAML than this is refused before it is parsed (see the module docs). Real frontmatter
/// nests two or three levels.
pub const MAX_INDENT: usize = 128;

/// Why a `SKILL.md` has no usable frontmatter; `line` and `column` are 1-based in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontmatterError {
    pub kind: ErrorKind,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The file does not start with `---`.
    Missing,
    /// No closing `---`.
    Unclosed,
    /// The YAML between them is broken, or not a mapping, or uses what we refuse.
    Invalid,
}

impl FrontmatterError {
    fn invalid(line: usize, column: usize, message: String) -> Self {
        Self {
            kind: ErrorKind::Invalid,
            line,
            column,
            message,
        }
    }
}

/// Split and parse a `SKILL.md`.
pub fn parse(text: &str) -> Result<Document, FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != "---" {
        return Err(FrontmatterError {
            kind: ErrorKind::Missing,
            line: 1,
            column: 1,
            message: "no frontmatter: SKILL.md must start with a `---` line, then YAML with \
                      `name` and `description`, then `---`"
                .to_owned(),
        });
    }
    let start = first.len();
    let mut offset = start;
    let mut closing = None;
    for (i, line) in lines.enumerate() {
        let trimmed = line.trim_end();
        if trimmed == "---" || trimmed == "..." {
            closing = Some((offset, i + 2));
            break;
        }
        offset += line.len();
    }
    let Some((end, closing_line)) = closing else {
        return Err(FrontmatterError {
            kind: ErrorKind::Unclosed,
            line: 1,
            column: 1,
            message: "unclosed frontmatter: the `---` on line 1 has no closing `---`".to_owned(),
        });
    };
    let yaml = &text[start..end];
    check_depth(yaml, 2)?;
    let fields = match load(yaml, 2)? {
        Some(Node {
            value: Value::Map(fields),
            ..
        }) => fields,
        Some(Node {
            value: Value::Null, ..
        })
        | None => Vec::new(),
        Some(node) => {
            return Err(FrontmatterError::invalid(
                node.line,
                node.column,
                format!(
                    "frontmatter must be a mapping of keys, found {}",
                    node.value.kind()
                ),
            ));
        }
    };
    Ok(Document {
        fields,
        body_line: closing_line + 1,
    })
}

/// Refuse YAML nested deeper than [`MAX_INDENT`]. Every block level needs more indentation (or
/// another `- `, `? ` or `: ` in front of the content) than its parent, so the width of a line's
/// lead bounds its depth; flow nesting (`[[[`) is capped at 255 by the parser itself.
fn check_depth(yaml: &str, first_line: usize) -> Result<(), FrontmatterError> {
    for (i, line) in yaml.lines().enumerate() {
        // Blanks and indicators (`-`, `?`, `:` followed by a blank), not a rule of dashes.
        let bytes = line.as_bytes();
        let mut lead = 0;
        while let Some(&b) = bytes.get(lead) {
            let indicator = matches!(b, b'-' | b'?' | b':')
                && bytes
                    .get(lead + 1)
                    .is_none_or(|n| matches!(n, b' ' | b'\t'));
            if !(matches!(b, b' ' | b'\t') || indicator) {
                break;
            }
            lead += 1;
        }
        if lead > MAX_INDENT {
            return Err(FrontmatterError::invalid(
                first_line + i,
                MAX_INDENT + 1,
                format!(
                    "frontmatter nests too deeply: this line is indented {lead} columns, \
                     at most {MAX_INDENT} are read"
                ),
            ));
        }
    }
    Ok(())
}

/// Parse one YAML document; `first_line` is the file line of the YAML's first line.
fn load(yaml: &str, first_line: usize) -> Result<Option<Node>, FrontmatterError> {
    let mut builder = Builder {
        first_line,
        stack: Vec::new(),
        root: None,
        error: None,
    };
    let mut parser = Parser::new_from_str(yaml);
    parser.load(&mut builder, false).map_err(|err| {
        FrontmatterError::invalid(
            first_line + err.marker().line().saturating_sub(1),
            err.marker().col() + 1,
            format!("invalid YAML in frontmatter: {}", err.info()),
        )
    })?;
    if let Some(err) = builder.error {
        return Err(err);
    }
    Ok(builder.root)
}

enum Frame {
    Seq(Node),
    /// The mapping so far and the key waiting for its value.
    Map(Node, Option<Key>),
}

struct Builder {
    first_line: usize,
    stack: Vec<Frame>,
    root: Option<Node>,
    error: Option<FrontmatterError>,
}

impl Builder {
    /// The file line and 1-based column of a parser mark (whose column is 0-based).
    fn position(&self, mark: Marker) -> (usize, usize) {
        (
            self.first_line + mark.line().saturating_sub(1),
            mark.col() + 1,
        )
    }

    fn fail(&mut self, (line, column): (usize, usize), message: String) {
        if self.error.is_none() {
            self.error = Some(FrontmatterError::invalid(line, column, message));
        }
    }

    /// Attach a finished node to its parent (or make it the root).
    fn push(&mut self, node: Node) {
        let problem = match self.stack.last_mut() {
            None => {
                self.root = Some(node);
                None
            }
            Some(Frame::Seq(seq)) => {
                if let Value::Seq(items) = &mut seq.value {
                    items.push(node);
                }
                None
            }
            Some(Frame::Map(map, pending)) => match pending.take() {
                None => match scalar_key(&node.value) {
                    None => Some((
                        (node.line, node.column),
                        "a frontmatter key must be plain text".to_owned(),
                    )),
                    Some(key) => {
                        // A block mapping's start mark is at its first key's `:`; where the
                        // mapping starts is where that key does.
                        if matches!(&map.value, Value::Map(entries) if entries.is_empty())
                            && node.line == map.line
                            && node.column < map.column
                        {
                            map.column = node.column;
                        }
                        let duplicate = matches!(&map.value, Value::Map(entries) if entries.iter().any(|(k, _)| k.text == key));
                        let problem = duplicate.then(|| {
                            (
                                (node.line, node.column),
                                format!("duplicate key `{key}` in frontmatter"),
                            )
                        });
                        *pending = Some(Key {
                            text: key,
                            line: node.line,
                            column: node.column,
                        });
                        problem
                    }
                },
                Some(key) => {
                    if let Value::Map(entries) = &mut map.value {
                        entries.push((key, node));
                    }
                    None
                }
            },
        };
        if let Some((position, message)) = problem {
            self.fail(position, message);
        }
    }
}

/// A mapping key as text; `None` for a list or mapping used as a key.
fn scalar_key(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Int(i) => Some(i.to_string()),
        Value::Float(f) => Some(f.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some("null".to_owned()),
        Value::Seq(_) | Value::Map(_) => None,
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, event: Event, mark: Marker) {
        if self.error.is_some() {
            return;
        }
        let position = self.position(mark);
        let (line, column) = position;
        match event {
            Event::Alias(_) => self.fail(
                position,
                "anchors and aliases (`&name`, `*name`) are not allowed in frontmatter".to_owned(),
            ),
            Event::Scalar(text, style, anchor, _tag) => {
                if anchor != 0 {
                    self.fail(
                        position,
                        "anchors (`&name`) are not allowed in frontmatter".to_owned(),
                    );
                    return;
                }
                // An empty value (`name:`) is marked where the next token stands, often on the
                // next line: it belongs where its key does.
                let (line, column) = match self.stack.last() {
                    Some(Frame::Map(_, Some(key)))
                        if text.is_empty() && style == TScalarStyle::Plain =>
                    {
                        (key.line, key.column)
                    }
                    _ => (line, column),
                };
                let value = if style == TScalarStyle::Plain {
                    plain_scalar(text)
                } else {
                    Value::String(text)
                };
                self.push(Node {
                    value,
                    line,
                    column,
                });
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) if anchor != 0 => {
                self.fail(
                    position,
                    "anchors (`&name`) are not allowed in frontmatter".to_owned(),
                );
            }
            Event::SequenceStart(..) => self.stack.push(Frame::Seq(Node {
                value: Value::Seq(Vec::new()),
                line,
                column,
            })),
            Event::MappingStart(..) => self.stack.push(Frame::Map(
                Node {
                    value: Value::Map(Vec::new()),
                    line,
                    column,
                },
                None,
            )),
            Event::SequenceEnd | Event::MappingEnd => match self.stack.pop() {
                Some(Frame::Seq(node) | Frame::Map(node, _)) => self.push(node),
                None => self.fail(position, "unbalanced YAML structure".to_owned()),
            },
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart
            | Event::DocumentEnd => {}
        }
    }
}

/// YAML 1.2 core schema resolution of an unquoted scalar.
fn plain_scalar(text: String) -> Value {
    match text.as_str() {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    let numeric_start = text
        .trim_start_matches(['-', '+'])
        .starts_with(|c: char| c.is_ascii_digit() || c == '.');
    if numeric_start {
        if let Ok(i) = text.parse::<i64>() {
            return Value::Int(i);
        }
        if let Ok(f) = text.parse::<f64>()
            && f.is_finite()
        {
            return Value::Float(f);
        }
    }
    Value::String(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field<'a>(doc: &'a Document, key: &str) -> &'a Node {
        &doc.fields
            .iter()
            .find(|(k, _)| k == key)
            .unwrap_or_else(|| panic!("no field {key}"))
            .1
    }

    #[test]
    fn reads_fields_with_their_lines() {
        let doc = parse(
            "---\nname: pdf-tools\ndescription: \"Read PDFs: extract text\"\nmetadata:\n  version: 1.2.0\n  risk-score: 0.4\ntags: [a, b]\n---\n# Body\n",
        )
        .expect("valid");
        assert_eq!(field(&doc, "name").value, Value::String("pdf-tools".into()));
        assert_eq!(field(&doc, "name").line, 2);
        assert_eq!(field(&doc, "name").column, 7);
        assert_eq!(field(&doc, "description").line, 3);
        assert_eq!(
            field(&doc, "description").column,
            14,
            "a quoted value starts at its quote"
        );
        let metadata = field(&doc, "metadata");
        assert_eq!(
            (metadata.line, metadata.column),
            (5, 3),
            "a block mapping starts at its first key"
        );
        let Value::Map(meta) = &metadata.value else {
            panic!("metadata is a map")
        };
        assert_eq!(
            meta[0],
            (
                Key {
                    text: "version".to_owned(),
                    line: 5,
                    column: 3
                },
                Node {
                    value: Value::String("1.2.0".into()),
                    line: 5,
                    column: 12
                }
            )
        );
        assert_eq!(
            (doc.fields[0].0.line, doc.fields[0].0.column),
            (2, 1),
            "keys know where they stand"
        );
        assert_eq!(field(&doc, "tags").column, 7, "a flow list starts at `[`");
        assert_eq!(meta[1].1.value, Value::Float(0.4));
        assert_eq!(meta[1].1.line, 6);
        let Value::Seq(tags) = &field(&doc, "tags").value else {
            panic!("tags is a list")
        };
        assert_eq!(tags.len(), 2);
        assert_eq!(doc.body_line, 9);
    }

    #[test]
    fn quoted_scalars_stay_strings() {
        let doc = parse("---\nversion: \"1.0\"\nflag: 'true'\ncount: 3\n---\n").expect("valid");
        assert_eq!(field(&doc, "version").value, Value::String("1.0".into()));
        assert_eq!(field(&doc, "flag").value, Value::String("true".into()));
        assert_eq!(field(&doc, "count").value, Value::Int(3));
    }

    #[test]
    fn missing_frontmatter_is_line_one() {
        let err = parse("# Just a title\n").expect_err("no frontmatter");
        assert_eq!((err.kind, err.line, err.column), (ErrorKind::Missing, 1, 1));
        assert!(err.message.starts_with("no frontmatter"), "{}", err.message);
        let err = parse("").expect_err("empty file");
        assert_eq!(err.line, 1);
    }

    #[test]
    fn unclosed_frontmatter_is_reported() {
        let err = parse("---\nname: x\ndescription: y\n").expect_err("unclosed");
        assert_eq!(
            (err.kind, err.line, err.column),
            (ErrorKind::Unclosed, 1, 1)
        );
        assert!(
            err.message.starts_with("unclosed frontmatter"),
            "{}",
            err.message
        );
    }

    #[test]
    fn invalid_yaml_names_its_line_and_column_in_the_file() {
        let err = parse("---\nname: x\ndescription: [unclosed\nother: 1\n---\n").expect_err("bad");
        assert!(err.message.starts_with("invalid YAML"), "{}", err.message);
        assert_eq!(err.kind, ErrorKind::Invalid);
        assert_eq!((err.line, err.column), (4, 6), "{}", err.message);
        let err = parse("---\nname: x\n  bad indent: y\n---\n").expect_err("bad indent");
        assert_eq!((err.line, err.column), (3, 13), "{}", err.message);
        let err = parse("---\nname: \"x\ndescription: y\n---\n").expect_err("open quote");
        assert!(err.message.starts_with("invalid YAML"), "{}", err.message);
        assert_eq!(err.line, 2, "where the quote opens: {}", err.message);
    }

    #[test]
    fn aliases_and_duplicates_are_refused_where_they_stand() {
        let err = parse("---\na: &x [1, 2]\nb: *x\n---\n").expect_err("anchor");
        assert_eq!(
            (err.line, err.column),
            (2, 7),
            "the anchored node: {}",
            err.message
        );
        let err = parse("---\na: [1, 2]\nb: *x\n---\n").expect_err("alias");
        assert_eq!((err.line, err.column), (3, 4), "{}", err.message);
        let err = parse("---\nname: a\nname: b\n---\n").expect_err("duplicate");
        assert_eq!((err.line, err.column), (3, 1));
        assert!(err.message.contains("duplicate key `name`"));
    }

    #[test]
    fn an_alias_bomb_is_refused_at_its_first_anchor_in_bounded_time() {
        // The billion laughs: nine levels of ten aliases each.
        let mut yaml = String::from("---\nname: bomb\na0: &a0 [\"lol\"]\n");
        for level in 1..10 {
            let refs = vec![format!("*a{}", level - 1); 10].join(", ");
            yaml.push_str(&format!("a{level}: &a{level} [{refs}]\n"));
        }
        yaml.push_str("---\n");
        let started = std::time::Instant::now();
        let err = parse(&yaml).expect_err("bomb");
        assert_eq!((err.line, err.column), (3, 9), "{}", err.message);
        assert!(err.message.contains("anchors"), "{}", err.message);
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
    }

    #[test]
    fn deep_nesting_is_refused_before_the_parser_recurses() {
        // 400,000 nested block lists on one line would overflow the parser's stack.
        let yaml = format!("---\nname: deep\na:\n{}x\n---\n", "- ".repeat(400_000));
        let err = parse(&yaml).expect_err("too deep");
        assert_eq!((err.line, err.column), (4, MAX_INDENT + 1));
        assert!(err.message.contains("nests too deeply"), "{}", err.message);
        // 255 levels of flow lists are the parser's own limit, reached without harm.
        let yaml = format!("---\na: {}x{}\n---\n", "[".repeat(300), "]".repeat(300));
        let err = parse(&yaml).expect_err("flow too deep");
        assert!(err.message.contains("recursion limit"), "{}", err.message);
        let yaml = format!("---\na: {}x{}\n---\n", "[".repeat(200), "]".repeat(200));
        parse(&yaml).expect("200 flow levels parse");
        let yaml = format!("---\na: |\n  {}\n---\n", "-".repeat(300));
        parse(&yaml).expect("a rule of dashes is text, not nesting");
    }

    #[test]
    fn non_mapping_frontmatter_is_an_error_and_empty_is_fine() {
        let err = parse("---\n- a\n- b\n---\n").expect_err("list");
        assert!(err.message.contains("found a list"), "{}", err.message);
        let doc = parse("---\n---\nbody\n").expect("empty frontmatter parses");
        assert!(doc.fields.is_empty());
        assert_eq!(doc.body_line, 3);
    }

    #[test]
    fn bom_and_crlf_are_accepted() {
        let doc = parse("\u{feff}---\r\nname: x\r\n---\r\n").expect("crlf");
        assert_eq!(field(&doc, "name").value, Value::String("x".into()));
    }
}

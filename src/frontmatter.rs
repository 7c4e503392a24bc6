//! The YAML frontmatter of a `SKILL.md`, read into a tree that remembers each value's line.
//!
//! Anchors and aliases are refused: frontmatter never needs them and expanding them is how
//! YAML bombs work.

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// A YAML value with the 1-based line (in the whole `SKILL.md`) where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Value,
    pub line: usize,
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
    Map(Vec<(String, Node)>),
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
                .map(|(k, n)| (k.clone(), n.value.to_json()))
                .collect::<serde_json::Map<_, _>>()
                .into(),
        }
    }
}

/// A `SKILL.md` split into its frontmatter and body.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The top-level mapping of the frontmatter, in order.
    pub fields: Vec<(String, Node)>,
    /// 1-based line where the Markdown body starts.
    pub body_line: usize,
}

/// Why a `SKILL.md` has no usable frontmatter; `line` is 1-based in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontmatterError {
    pub line: usize,
    pub message: String,
}

/// Split and parse a `SKILL.md`.
pub fn parse(text: &str) -> Result<Document, FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != "---" {
        return Err(FrontmatterError {
            line: 1,
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
            line: 1,
            message: "unclosed frontmatter: the `---` on line 1 has no closing `---`".to_owned(),
        });
    };
    let yaml = &text[start..end];
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
            return Err(FrontmatterError {
                line: node.line,
                message: format!(
                    "frontmatter must be a mapping of keys, found {}",
                    node.value.kind()
                ),
            });
        }
    };
    Ok(Document {
        fields,
        body_line: closing_line + 1,
    })
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
    parser
        .load(&mut builder, false)
        .map_err(|err| FrontmatterError {
            line: first_line + err.marker().line().saturating_sub(1),
            message: format!("invalid YAML in frontmatter: {}", err.info()),
        })?;
    if let Some(err) = builder.error {
        return Err(err);
    }
    Ok(builder.root)
}

enum Frame {
    Seq(Node),
    /// The mapping so far and the key waiting for its value.
    Map(Node, Option<(String, usize)>),
}

struct Builder {
    first_line: usize,
    stack: Vec<Frame>,
    root: Option<Node>,
    error: Option<FrontmatterError>,
}

impl Builder {
    fn line(&self, mark: Marker) -> usize {
        self.first_line + mark.line().saturating_sub(1)
    }

    fn fail(&mut self, line: usize, message: String) {
        if self.error.is_none() {
            self.error = Some(FrontmatterError { line, message });
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
                    None => Some((node.line, "a frontmatter key must be plain text".to_owned())),
                    Some(key) => {
                        let duplicate = matches!(&map.value, Value::Map(entries) if entries.iter().any(|(k, _)| *k == key));
                        let problem = duplicate
                            .then(|| (node.line, format!("duplicate key `{key}` in frontmatter")));
                        *pending = Some((key, node.line));
                        problem
                    }
                },
                Some((key, _)) => {
                    if let Value::Map(entries) = &mut map.value {
                        entries.push((key, node));
                    }
                    None
                }
            },
        };
        if let Some((line, message)) = problem {
            self.fail(line, message);
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
        let line = self.line(mark);
        match event {
            Event::Alias(_) => self.fail(
                line,
                "anchors and aliases (`&name`, `*name`) are not allowed in frontmatter".to_owned(),
            ),
            Event::Scalar(text, style, anchor, _tag) => {
                if anchor != 0 {
                    self.fail(
                        line,
                        "anchors (`&name`) are not allowed in frontmatter".to_owned(),
                    );
                    return;
                }
                let value = if style == TScalarStyle::Plain {
                    plain_scalar(text)
                } else {
                    Value::String(text)
                };
                self.push(Node { value, line });
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) if anchor != 0 => {
                self.fail(
                    line,
                    "anchors (`&name`) are not allowed in frontmatter".to_owned(),
                );
            }
            Event::SequenceStart(..) => self.stack.push(Frame::Seq(Node {
                value: Value::Seq(Vec::new()),
                line,
            })),
            Event::MappingStart(..) => self.stack.push(Frame::Map(
                Node {
                    value: Value::Map(Vec::new()),
                    line,
                },
                None,
            )),
            Event::SequenceEnd | Event::MappingEnd => match self.stack.pop() {
                Some(Frame::Seq(node) | Frame::Map(node, _)) => self.push(node),
                None => self.fail(line, "unbalanced YAML structure".to_owned()),
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
        assert_eq!(field(&doc, "description").line, 3);
        let Value::Map(meta) = &field(&doc, "metadata").value else {
            panic!("metadata is a map")
        };
        assert_eq!(
            meta[0],
            (
                "version".to_owned(),
                Node {
                    value: Value::String("1.2.0".into()),
                    line: 5
                }
            )
        );
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
        assert_eq!(err.line, 1);
        assert!(err.message.starts_with("no frontmatter"), "{}", err.message);
        let err = parse("").expect_err("empty file");
        assert_eq!(err.line, 1);
    }

    #[test]
    fn unclosed_frontmatter_is_reported() {
        let err = parse("---\nname: x\ndescription: y\n").expect_err("unclosed");
        assert_eq!(err.line, 1);
        assert!(
            err.message.starts_with("unclosed frontmatter"),
            "{}",
            err.message
        );
    }

    #[test]
    fn invalid_yaml_names_its_line_in_the_file() {
        let err = parse("---\nname: x\ndescription: [unclosed\nother: 1\n---\n").expect_err("bad");
        assert!(err.message.starts_with("invalid YAML"), "{}", err.message);
        assert!((3..=5).contains(&err.line), "line {}", err.line);
        let err = parse("---\nname: x\n  bad indent: y\n---\n").expect_err("bad indent");
        assert_eq!(err.line, 3, "{}", err.message);
    }

    #[test]
    fn aliases_and_duplicates_are_refused() {
        let err = parse("---\na: &x [1, 2]\nb: *x\n---\n").expect_err("anchor");
        assert_eq!(err.line, 2);
        let err = parse("---\nname: a\nname: b\n---\n").expect_err("duplicate");
        assert_eq!(err.line, 3);
        assert!(err.message.contains("duplicate key `name`"));
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

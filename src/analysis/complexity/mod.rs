//! McCabe cyclomatic complexity of a skill's code, per function, from tree-sitter's parsers of
//! bash, Python and JavaScript/TypeScript, counted the way `lizard` counts.

mod bash;
mod javascript;
mod language;
mod measure;
mod python;
mod walker;

#[cfg(test)]
mod lizard;

pub use language::Language;
pub use measure::{
    Complexity, FunctionComplexity, GLOBAL, MAX_FUNCTIONS, PARSE_TIME_LIMIT, measure,
};

//! McCabe cyclomatic complexity of a skill's code, per function, from tree-sitter's parsers of
//! bash, Python and JavaScript/TypeScript, counted the way `lizard` counts.

mod bash;
mod functions;
mod javascript;
mod language;
mod python;
mod walker;

#[cfg(test)]
mod lizard;

pub use functions::{
    Complexity, FunctionComplexity, GLOBAL, MAX_FUNCTIONS, PARSE_TIME_LIMIT, measure,
};
pub use language::Language;

//! One file per subcommand: each turns its arguments into a request, calls the pipeline and
//! maps the outcome to what the binary prints and how it exits.

pub mod audit;
pub mod check;
pub mod lint;
pub mod parse;
pub mod publish;
pub mod query;
pub mod report;
pub mod review;

use crate::warning::Warning;

/// What the binary prints and how it exits.
#[derive(Debug)]
pub struct Outcome {
    pub stdout: String,
    pub warnings: Vec<Warning>,
    pub exit_code: u8,
}

/// `--publish`, as the pipeline knows it.
fn publish_mode(mode: crate::cli::PublishMode) -> crate::pipeline::deliver::PublishMode {
    use crate::cli::PublishMode as Arg;
    use crate::pipeline::deliver::PublishMode;
    match mode {
        Arg::Auto => PublishMode::Auto,
        Arg::Github => PublishMode::Github,
        Arg::None => PublishMode::None,
    }
}

/// A run as `--format` asks.
fn rendered(run: &crate::gate::GateRun, format: crate::cli::OutputFormat) -> String {
    use crate::cli::OutputFormat;
    match format {
        OutputFormat::Text => crate::render::text(run),
        OutputFormat::Markdown => crate::render::markdown(run),
        OutputFormat::Json => crate::render::json(run),
    }
}

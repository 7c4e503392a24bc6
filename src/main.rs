//! The `skillgate` binary: parse the command line, run the command, map the outcome to an exit code.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use skillgate::cli::{Cli, Command};
use skillgate::commands;
use skillgate::progress::{Display, Progress, Style};
use skillgate::render::inert;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => {
            let stderr = std::io::stderr();
            let style = Style::detect(stderr.is_terminal());
            let progress: Arc<dyn Progress> = Arc::new(Display::new(style, stderr));
            commands::check::run(&args, &progress)
        }
        Command::Parse(args) => commands::parse::run(&args),
        Command::Lint(args) => commands::lint::run(&args),
        Command::Publish(args) => commands::publish::run(&args),
        Command::Review(args) => commands::review::run(&args),
        Command::Audit(command) => commands::audit::run(&command),
    };
    // Everything printed carries text from the pull request, and a log runs workflow commands:
    // each piece passes through `inert` on its way out.
    match result {
        Ok(outcome) => {
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (`skillgate check | head`) is not an error worth a message.
            let _ = stdout.write_all(inert::stdout(&outcome.stdout).as_bytes());
            let _ = stdout.flush();
            let mut stderr = std::io::stderr().lock();
            for warning in &outcome.warnings {
                let _ = writeln!(stderr, "{}", inert::text(&format!("warning: {warning}")));
            }
            ExitCode::from(outcome.exit_code)
        }
        Err(err) => {
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(stderr, "{}", inert::text(&format!("error: {err}")));
            if let Some(help) = err.help() {
                let _ = writeln!(stderr, "{}", inert::text(&format!("help: {help}")));
            }
            ExitCode::from(err.exit_code())
        }
    }
}

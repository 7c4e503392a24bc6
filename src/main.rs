//! The `skillgate` binary: parse the command line, run the command, map the outcome to an exit code.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use skillgate::cli::{Cli, Command};
use skillgate::commands;
use skillgate::progress::{Display, Style};
use skillgate::runner::Progress;
use skillgate::untrusted::inert;

fn main() -> ExitCode {
    // A panic's message can hold text from the pull request (a path, a name): it leaves through
    // `inert` like everything else. The exit code stays Rust's 101.
    std::panic::set_hook(Box::new(|info| {
        let backtrace = std::backtrace::Backtrace::capture();
        let backtrace = (backtrace.status() == std::backtrace::BacktraceStatus::Captured)
            .then(|| backtrace.to_string());
        let report = crash_report(
            std::thread::current().name(),
            &info.to_string(),
            backtrace.as_deref(),
        );
        let _ = std::io::stderr().lock().write_all(report.as_bytes());
    }));
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
        Command::Report(args) => commands::report::run(&args),
        Command::Query(args) => commands::query::run(&args),
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

/// What a panic prints, inert: the panic's place and message, the thread when it is not the
/// main one, and the backtrace when `RUST_BACKTRACE` asked for one.
fn crash_report(thread: Option<&str>, panic: &str, backtrace: Option<&str>) -> String {
    let thread = match thread {
        Some("main") => String::new(),
        Some(name) => format!(" in thread '{name}'"),
        None => " in an unnamed thread".to_owned(),
    };
    let backtrace = match backtrace {
        Some(trace) => format!("backtrace:\n{trace}"),
        None => "note: run with `RUST_BACKTRACE=1` for a backtrace\n".to_owned(),
    };
    inert::text(&format!(
        "skillgate crashed{thread}: {panic}\n\
         this is a bug in skillgate: please report it, with the command that ran and this \
         message\n{backtrace}"
    ))
}

#[cfg(test)]
mod tests {
    use super::crash_report;

    #[test]
    fn a_crash_says_where_and_asks_for_a_report() {
        assert_eq!(
            crash_report(Some("main"), "panicked at src/x.rs:3:5:\nboom", None),
            "skillgate crashed: panicked at src/x.rs:3:5:\nboom\n\
             this is a bug in skillgate: please report it, with the command that ran and this \
             message\nnote: run with `RUST_BACKTRACE=1` for a backtrace\n"
        );
        let report = crash_report(
            Some("tokio-runtime-worker"),
            "panicked at a.rs:1:1:\nx",
            None,
        );
        assert!(
            report.starts_with("skillgate crashed in thread 'tokio-runtime-worker': panicked at"),
            "{report}"
        );
        let report = crash_report(None, "p", Some("   0: main\n"));
        assert!(report.ends_with("backtrace:\n   0: main\n"), "{report}");
    }

    #[test]
    fn a_crash_message_from_the_pull_request_is_inert() {
        let report = crash_report(
            Some("::set-output name=tier::auto"),
            "panicked at src/x.rs:3:5:\nbad name \"x\n::add-mask::y\r::warning::z\u{1b}[2J ##[error]e\u{202e}\"",
            Some("::error::trace"),
        );
        for line in report.split(['\n', '\r']) {
            let visible: String = line.chars().filter(char::is_ascii).collect();
            assert!(!visible.trim_start().starts_with("::"), "{line:?}");
            assert!(!visible.contains("##["), "{line:?}");
            assert!(
                !line.chars().any(|c| c.is_control() || c == '\u{202e}'),
                "{line:?}"
            );
        }
        assert!(report.contains("bad name"), "{report}");
    }
}

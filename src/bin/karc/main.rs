//! The `karc` command-line tool. Library errors are typed; here they become
//! messages and exit codes (0 success, 1 a check failed, 2 bad input).

mod anonymize;
mod cli;
mod compare;
mod export;
mod inspect;
mod keys;
mod pack;
mod progress;
mod publish;
mod restore;
mod stream;
mod verify;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

/// A closed pipe (`karc inspect f.karc | head`) ends the process quietly, as
/// for any Unix filter, instead of failing a print with a panic.
#[cfg(unix)]
fn quiet_on_closed_pipe() {
    // SAFETY: restoring the default disposition of SIGPIPE before any
    // thread starts; no handler runs Rust code.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn quiet_on_closed_pipe() {}

fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Anonymize(args) => anonymize::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Stream(args) => stream::run(args),
        Command::Pack(args) => pack::run(args),
        Command::Restore(args) => restore::run(args),
        Command::Export(args) => export::run(args),
        Command::Publish(args) => publish::run(args),
        Command::Inspect(args) => inspect::run(args),
        Command::Compare(args) => compare::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("karc: error: {}", message(&err));
            let code = err
                .downcast_ref::<karc::Error>()
                .map_or(2, karc::Error::exit_code);
            ExitCode::from(code)
        }
    }
}

/// The error and its causes on one line, leaving out a cause whose text the
/// message already shows (an I/O error is named by its wrapper too).
fn message(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text.replace(['\n', '\r'], " ")
}

//! The `karc` command-line tool. Library errors are typed; here they become
//! messages and exit codes (0 success, 1 a check failed, 2 bad input).

mod anonymize;
mod cli;
mod compare;
mod export;
mod files;
mod generate;
mod init;
mod inspect;
mod json;
mod keys;
mod pack;
mod progress;
mod publish;
mod report;
mod restore;
mod shown;
mod sign;
mod stream;
mod verify;

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

use cli::{Cli, Command};
use json::Json;
use karc::api::ErrorResult;

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

/// At most two malloc arenas (glibc makes one per thread, up to eight a
/// core): karc's worker threads free each other's large column buffers,
/// and each arena keeps what it freed. On 1M rows of `gen-table mixed`, a
/// pack peaked at 1.03 to 1.09 GB with the default and at 950 MB with two,
/// in the same time (tools/BENCHMARKS.md). (Blocks of 1 MiB or more
/// mapped on their own, `M_MMAP_THRESHOLD`, were tried: a restore of 10M
/// rows took 0.8 s more, each large buffer zeroed afresh; a pack hands
/// its freed memory back instead, `io::release_freed_memory`.)
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn fewer_malloc_arenas() {
    // SAFETY: mallopt only sets an allocator parameter; called before any
    // thread starts.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn fewer_malloc_arenas() {}

fn main() -> ExitCode {
    quiet_on_closed_pipe();
    fewer_malloc_arenas();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage_error(err),
    };
    let json = Json::new(cli.json, cli.command.data_output());
    let result = match cli.command {
        Command::Anonymize(args) => anonymize::run(args, json),
        Command::Verify(args) => verify::run(args, json),
        Command::Stream(args) => stream::run(args, json),
        Command::Pack(args) => pack::run(args, json),
        Command::Restore(args) => restore::run(args, json),
        Command::Export(args) => export::run(args, json),
        Command::Publish(args) => publish::run(args, json),
        Command::Inspect(args) => inspect::run(args, json),
        Command::Report(args) => report::run(args, json),
        Command::Compare(args) => compare::run(args, json),
        Command::Completions(args) => generate::completions(args, json),
        Command::Man(args) => generate::man(args, json),
        Command::Keygen(args) if args.signing => sign::keygen(args, json),
        Command::Keygen(args) if args.pseudonym => keys::pseudonym_keygen(args, json),
        Command::Keygen(args) => keys::keygen(args, json),
        Command::Sign(args) => sign::run(args, json),
        Command::Init(args) => init::run(args, json),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            let message = karc::api::message(err.as_ref());
            eprintln!("karc: error: {message}");
            let code = err
                .downcast_ref::<karc::api::Error>()
                .map_or(2, karc::api::Error::exit_code);
            // The error's document goes where the result's would have.
            let _ = json.print(&ErrorResult::new(message, code, false));
            ExitCode::from(code)
        }
    }
}

/// Help and version go out as clap writes them; a usage error is one line,
/// as every other error (exit 2).
fn usage_error(err: clap::Error) -> ExitCode {
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        err.exit();
    }
    // clap's first paragraph and its tips, without the usage.
    let text = err.render().to_string();
    let lines = text.lines().map(str::trim);
    let first: Vec<&str> = lines.clone().take_while(|l| !l.is_empty()).collect();
    let mut message = first.join(" ");
    for tip in lines.filter(|l| l.starts_with("tip:")) {
        message.push_str("; ");
        message.push_str(tip);
    }
    let message = message.strip_prefix("error: ").unwrap_or(&message);
    let message = format!("{} (see --help)", hide_secret_keys(message));
    eprintln!("karc: error: {message}");
    if json_asked() {
        let _ = Json::Stdout.print(&ErrorResult::new(message, 2, true));
    }
    ExitCode::from(2)
}

/// Whether `--json` is among the arguments (before any `--`), for a usage
/// error clap reports before the arguments are parsed.
fn json_asked() -> bool {
    std::env::args_os()
        .skip(1)
        .take_while(|a| a != "--")
        .any(|a| a == "--json")
}

/// `text` with every age secret key (a misplaced argument clap echoes)
/// replaced by a mention of it.
fn hide_secret_keys(text: &str) -> String {
    const PREFIX: &str = "AGE-SECRET-KEY-";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.to_ascii_uppercase().find(PREFIX) {
        out.push_str(&rest[..at]);
        out.push_str("AGE-SECRET-KEY-(not shown)");
        let key = &rest[at..];
        let end = key
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '-')
            .unwrap_or(key.len());
        rest = &key[end..];
    }
    out.push_str(rest);
    out
}

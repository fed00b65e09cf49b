//! `karc completions SHELL` and `karc man`: texts generated from the
//! command-line definitions, so they never disagree with `--help`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use clap::CommandFactory;
use karc::api::GeneratedResult;
use karc::api::{Access, Output};

use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::json::Json;

pub fn completions(args: CompletionsArgs, json: Json) -> Result<ExitCode> {
    let mut bytes = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "karc", &mut bytes);
    let name = write(&args.output, &bytes)?;
    json.print(&GeneratedResult {
        what: "completions",
        shell: Some(args.shell.to_string()),
        files: vec![name],
        bytes: bytes.len() as u64,
    })?;
    Ok(ExitCode::SUCCESS)
}

pub fn man(args: ManArgs, json: Json) -> Result<ExitCode> {
    let mut cli = Cli::command().disable_help_subcommand(true);
    cli.build();
    let mut pages = vec![page(&cli)?];
    if args.dir.is_some() {
        pages.extend(
            cli.get_subcommands()
                .map(page)
                .collect::<Result<Vec<_>>>()?,
        );
    }
    let mut files = Vec::new();
    let mut bytes = 0;
    for (file_name, text) in &pages {
        let path = match &args.dir {
            Some(dir) => dir.join(file_name),
            None => args.output.clone(),
        };
        files.push(write(&path, text)?);
        bytes += text.len() as u64;
    }
    json.print(&GeneratedResult {
        what: "man",
        shell: None,
        files,
        bytes,
    })?;
    Ok(ExitCode::SUCCESS)
}

/// A command's man page: its file name (`karc-pack.1`) and its roff text.
fn page(command: &clap::Command) -> Result<(String, Vec<u8>)> {
    let man = clap_mangen::Man::new(command.clone());
    let mut text = Vec::new();
    man.render(&mut text)?;
    Ok((man.get_filename(), text))
}

/// Writes `bytes` to `path` atomically (`-`: standard output); returns
/// the name it goes by.
fn write(path: &Path, bytes: &[u8]) -> Result<String> {
    let output = Output::new(path, Access::Public)?;
    output.write_bytes(bytes)?;
    Ok(output.name().display().to_string())
}

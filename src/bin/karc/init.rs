//! `karc init`: writes the config (and hierarchy files) the facade drafts
//! for a table.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use karc::api::Error;
use karc::api::{Access, Output, is_std};
use karc::api::{InitOptions, InitOutput, InitResult};

use crate::cli::InitArgs;
use crate::json::Json;

pub fn run(args: InitArgs, json: Json) -> anyhow::Result<ExitCode> {
    let to_stdout = is_std(&args.output);
    // Hierarchy files are named relative to the config's directory.
    let hierarchies_dir = match &args.hierarchies_dir {
        Some(dir) if to_stdout => Some(dir.clone()),
        Some(dir) => Some(relative_to(
            dir,
            args.output.parent().unwrap_or(Path::new("")),
        )),
        None => None,
    };
    let options = InitOptions {
        qi: args.qi.clone(),
        sensitive: args.sensitive.clone(),
        l: args.l,
        k: args.k,
        hierarchies_dir,
    };
    let output = karc::api::init(&args.input, &options)?;
    check_targets(&args, &output, to_stdout)?;
    if let Some(dir) = &args.hierarchies_dir {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        for (file, text) in &output.hierarchies {
            Output::new(&dir.join(file), Access::Public)?.write_bytes(text.as_bytes())?;
        }
    }
    Output::new(&args.output, Access::Public)?.write_bytes(output.config.as_bytes())?;
    if json.on() {
        let hierarchy_files = match &args.hierarchies_dir {
            Some(dir) => (output.hierarchies.iter())
                .map(|(f, _)| dir.join(f).display().to_string())
                .collect(),
            None => Vec::new(),
        };
        json.print(&InitResult {
            input: args.input.display().to_string(),
            config: args.output.display().to_string(),
            hierarchy_files,
            sampled_rows: output.sampled_rows,
            columns: output.columns,
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.explain {
        let text = explanation(&output);
        if to_stdout {
            eprint!("{text}");
        } else {
            print!("{text}");
        }
    }
    if !to_stdout {
        eprintln!(
            "karc: wrote {}{}: review its roles, then `karc pack -c {} {} -o out.karc -r age1...`",
            args.output.display(),
            match output.hierarchies.len() {
                0 => String::new(),
                n => format!(" and {n} hierarchy files"),
            },
            args.output.display(),
            args.input.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses to write onto the input (a link to it included, even with
/// --force, as every other command refuses) or, without --force, onto an
/// existing file: the config and each hierarchy file.
fn check_targets(args: &InitArgs, output: &InitOutput, to_stdout: bool) -> anyhow::Result<()> {
    let mut targets: Vec<PathBuf> = Vec::new();
    if let Some(dir) = &args.hierarchies_dir {
        targets.extend(output.hierarchies.iter().map(|(f, _)| dir.join(f)));
    }
    if !to_stdout {
        targets.push(args.output.clone());
    }
    // Never the input, even with --force (a link to it included), as
    // every other command refuses.
    let outputs: Vec<Output> = (targets.iter())
        .map(|t| Output::new(t, Access::Public))
        .collect::<Result<_, _>>()?;
    crate::files::refuse_overwriting(
        std::slice::from_ref(&args.input),
        &outputs.iter().map(Some).collect::<Vec<_>>(),
    )?;
    if !args.force
        && let Some(existing) = targets.iter().find(|t| t.exists())
    {
        return Err(Error::Options(format!(
            "{}: the file exists: give --force to replace it",
            existing.display()
        ))
        .into());
    }
    Ok(())
}

/// `path` as seen from directory `base` (both as given, relative to the
/// working directory or absolute); absolute when no simple relation holds.
fn relative_to(path: &Path, base: &Path) -> PathBuf {
    if base.as_os_str().is_empty() {
        return path.to_owned();
    }
    if let Ok(rest) = path.strip_prefix(base) {
        return rest.to_owned();
    }
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}

/// The ranking `--explain` prints: one line a column, QIs in the order
/// picked. Names come from the table: control characters are escaped.
fn explanation(output: &InitOutput) -> String {
    let mut text = format!(
        "columns ranked by meaning, then power (ARX's distinction: distinct values / rows; \
         separation: share of row pairs told apart; on {} sampled rows)\n\
         {:>4}  {:<11}  {:>11}  {:>10}  {:>11}  column: reason\n",
        output.sampled_rows, "rank", "role", "distinction", "separation", "with before"
    );
    for c in &output.columns {
        let rank = c.rank.map_or("-".to_owned(), |r| r.to_string());
        let joint = c
            .joint_distinction
            .map_or("-".to_owned(), |j| format!("{j:.4}"));
        text.push_str(&format!(
            "{rank:>4}  {:<11}  {:>11.4}  {:>10.4}  {joint:>11}  {}: {}\n",
            c.role,
            c.distinction,
            c.separation,
            printable(&c.name),
            printable(&c.reason)
        ));
    }
    text
}

/// `text` with control characters escaped, for a terminal.
fn printable(text: &str) -> String {
    text.chars()
        .flat_map(|ch| {
            let escaped: Vec<char> = if ch.is_control() {
                ch.escape_default().collect()
            } else {
                vec![ch]
            };
            escaped
        })
        .collect()
}

//! Writes a realistic table (see `karc_tools::realistic`) of any length,
//! seeded, row by row (memory does not grow with the rows), and its config:
//!
//! ```sh
//! cargo run --release -p karc-tools --bin gen-table -- --rows 1000000 --out claims.csv
//! karc pack -c tools/realistic.toml claims.csv -o claims.karc -a mondrian -k 10 --no-encryption
//! cargo run --release -p karc-tools --bin gen-table -- --kind numeric --config numeric.toml
//! ```
//!
//! The table goes to `--out`, or to standard output when neither `--out`
//! nor `--config` is given; `--config` writes the kind's config (and its
//! hierarchy files into `--hierarchies`, default `hierarchies/` beside the
//! config).

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use karc_tools::realistic::{Kind, write_config, write_csv};

#[derive(Debug, Parser)]
#[command(
    about = "Write a seeded realistic table (ids, timestamps, decimals, zip codes, free text, \
                   empty cells) of any length, and its karc config"
)]
struct Args {
    /// Which table: insurance claims (mixed) or numeric-heavy.
    #[arg(long, value_enum, default_value = "mixed")]
    kind: Kind,
    /// Number of data rows.
    #[arg(long, default_value_t = 1_000_000)]
    rows: u64,
    /// Seed of every random draw: the same seed gives the same bytes.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write the table here instead of standard output.
    #[arg(long, short = 'o')]
    out: Option<PathBuf>,
    /// Write the kind's config here (then the table only with --out).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Directory of the config's hierarchy files (default: `hierarchies` beside the config).
    #[arg(long, requires = "config")]
    hierarchies: Option<PathBuf>,
}

fn run(args: &Args) -> Result<(), String> {
    if let Some(config) = &args.config {
        let dir = args.hierarchies.clone().unwrap_or_else(|| {
            config
                .parent()
                .map_or_else(|| PathBuf::from("hierarchies"), |p| p.join("hierarchies"))
        });
        write_config(args.kind, config, &dir).map_err(|e| format!("{}: {e}", config.display()))?;
    }
    match (&args.out, &args.config) {
        (Some(out), _) => {
            let file = std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
            let mut w = BufWriter::with_capacity(1 << 16, file);
            write_csv(args.kind, args.rows, args.seed, &mut w)
                .and_then(|()| w.flush())
                .map_err(|e| format!("{}: {e}", out.display()))
        }
        (None, Some(_)) => Ok(()),
        (None, None) => {
            let mut w = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
            match write_csv(args.kind, args.rows, args.seed, &mut w).and_then(|()| w.flush()) {
                // A reader that stops early is not an error of the generator.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                r => r.map_err(|e| format!("standard output: {e}")),
            }
        }
    }
}

fn main() -> ExitCode {
    match run(&Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gen-table: error: {e}");
            ExitCode::from(2)
        }
    }
}

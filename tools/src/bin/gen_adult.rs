//! Writes a table of any size drawn from Adult's joint distribution (see
//! `karc_tools::adult_gen`).
//!
//! ```sh
//! cargo run --release -p karc-tools --bin gen_adult -- --rows 1000000 --seed 1 --out adult-1m.csv
//! ```
//!
//! Options: `--rows N` (default 30162), `--seed S` (default 0), `--out FILE`
//! (default standard output), `--config TOML` and `--input CSV` (default
//! the bundled `fixtures/adult/adult.toml` and `adult.csv`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use karc::config::Config;
use karc::dataset::Dataset;
use karc_tools::adult_gen::{adult_fixture, generate};

#[derive(Debug, Parser)]
#[command(about = "Write a table of any size drawn from Adult's joint distribution")]
struct Args {
    /// Number of rows to write.
    #[arg(long, default_value_t = 30_162)]
    rows: usize,
    /// Seed of the draws.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Output CSV (written atomically); standard output when absent.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Config of the source table (default: the bundled Adult, 9 QIs).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Source table (default: the bundled `adult.csv`).
    #[arg(long)]
    input: Option<PathBuf>,
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gen_adult: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let config = Config::load(&args.config.unwrap_or_else(|| adult_fixture("adult.toml")))?;
    let input = args.input.unwrap_or_else(|| adult_fixture("adult.csv"));
    let data = Dataset::load(&config, &input)?;
    match args.out {
        Some(path) => {
            karc::io::write_atomically(&path, |w| {
                generate(&data, args.rows, args.seed, w).map_err(std::io::Error::other)
            })?;
        }
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            generate(&data, args.rows, args.seed, &mut out)?;
            out.flush()?;
        }
    }
    Ok(())
}

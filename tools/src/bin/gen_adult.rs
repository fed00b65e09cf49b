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

use karc::config::Config;
use karc::dataset::Dataset;
use karc_tools::adult_gen::generate;
use karc_tools::args::Args;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gen_adult: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = Args::from_env(&["rows", "seed", "out", "config", "input"])?;
    let rows: usize = args.parse("rows")?.unwrap_or(30_162);
    let seed: u64 = args.parse("seed")?.unwrap_or(0);
    let fixtures = karc_tools::args::fixtures();
    let config_path: PathBuf = args
        .take("config")
        .map_or_else(|| fixtures.join("adult/adult.toml"), PathBuf::from);
    let input: PathBuf = args
        .take("input")
        .map_or_else(|| fixtures.join("adult/adult.csv"), PathBuf::from);
    let config = Config::load(&config_path)?;
    let data = Dataset::load(&config, &input)?;
    match args.take("out") {
        Some(path) => {
            karc::io::write_atomically(std::path::Path::new(&path), |w| {
                generate(&data, rows, seed, w).map_err(std::io::Error::other)
            })?;
        }
        None => {
            let stdout = std::io::stdout();
            let mut lock = std::io::BufWriter::new(stdout.lock());
            generate(&data, rows, seed, &mut lock)?;
            lock.flush()?;
        }
    }
    Ok(())
}

//! Writes paper 000's synthetic workload: the table, the hierarchies and a
//! config for {C1..Cn} (see `karc_tools::paper000` for the domains chosen).
//!
//! ```sh
//! cargo run --release -p karc-tools --bin paper000-workload -- --rows 10240 --constraints 8 --out /tmp/p000
//! karc anonymize -c /tmp/p000/paper000.toml /tmp/p000/paper000.csv -o release.csv
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use karc_tools::paper000;

#[derive(Debug, Parser)]
#[command(about = "Write paper 000's workload: uniform 9-attribute table, hierarchies, config")]
struct Args {
    /// Number of rows (the paper uses 1,024..10,240).
    #[arg(long, default_value_t = 10_240)]
    rows: usize,
    /// Seed of the value stream.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// |CSet|: the config holds C1..Cn of the paper's Table 2 (1..=8).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..=8))]
    constraints: u8,
    /// The algorithm the config names.
    #[arg(long, default_value = "classfly-plus-complete")]
    algorithm: String,
    /// Output directory (created if needed).
    #[arg(long)]
    out: PathBuf,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match paper000::write(
        &args.out,
        args.rows,
        args.seed,
        usize::from(args.constraints),
        &args.algorithm,
    ) {
        Ok(files) => {
            eprintln!(
                "wrote {} ({} rows) and {}",
                files.table.display(),
                args.rows,
                files.config.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}: {e}", args.out.display());
            ExitCode::from(2)
        }
    }
}

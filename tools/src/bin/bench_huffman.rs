//! Decode speed of the table-driven Huffman decoder against a bit-by-bit
//! canonical decoder, in the same run (see `karc_tools::huffman_bench`);
//! prints a Markdown table: MB/s and million symbols/s of both, and their
//! ratio, medians of several runs. Then the time to decode each QI section
//! of the private part's original columns on Adult, per difference mode.
//!
//! ```sh
//! cargo run --release -p karc-tools --bin bench_huffman -- [--symbols N] [--runs R] [--section-runs S]
//! ```

use std::path::PathBuf;

use clap::Parser;
use karc::codec::DiffMode;
use karc_tools::bench::BoxError;

#[derive(Debug, Parser)]
#[command(about = "Huffman decode speed: table-driven against bit-by-bit, in one run")]
struct Args {
    /// Symbols per stream (each Adult column is tiled to this length).
    #[arg(long, default_value_t = 2_000_000)]
    symbols: usize,
    /// Timed runs per decoder and stream; the median counts.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Timed runs per QI section of the original columns (0: no sections).
    #[arg(long, default_value_t = 51)]
    section_runs: usize,
    /// The table (and config) whose sections are timed.
    #[arg(long, default_value = "fixtures/adult/adult.toml")]
    config: PathBuf,
    #[arg(long, default_value = "fixtures/adult/adult.csv")]
    csv: PathBuf,
    /// Time only this QI's section.
    #[arg(long)]
    qi: Option<String>,
}

fn main() -> Result<(), BoxError> {
    let args = Args::parse();
    if args.runs > 0 {
        print!(
            "{}",
            karc_tools::huffman_bench::report(args.symbols, args.runs)?
        );
    }
    if args.section_runs > 0 {
        println!();
        print!(
            "{}",
            karc_tools::huffman_bench::sections_report(
                &args.config,
                &args.csv,
                &[DiffMode::Paper, DiffMode::PerValue, DiffMode::PerValueRans],
                args.qi.as_deref(),
                args.section_runs
            )?
        );
    }
    Ok(())
}

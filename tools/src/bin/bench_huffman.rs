//! Decode speed of the table-driven Huffman decoder against a bit-by-bit
//! canonical decoder, in the same run (see `karc_tools::huffman_bench`);
//! prints a Markdown table: MB/s and million symbols/s of both, and their
//! ratio, medians of several runs.
//!
//! ```sh
//! cargo run --release -p karc-tools --bin bench_huffman -- [--symbols N] [--runs R]
//! ```

use clap::Parser;
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
}

fn main() -> Result<(), BoxError> {
    let args = Args::parse();
    print!(
        "{}",
        karc_tools::huffman_bench::report(args.symbols, args.runs)?
    );
    Ok(())
}

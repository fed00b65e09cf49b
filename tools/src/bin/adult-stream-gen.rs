//! Writes an Adult-like stream (see `karc_tools::adult_stream`) of any length
//! to standard output, in raw Adult's layout (header, `,` separators), for
//! `karc stream` at scale:
//!
//! ```sh
//! cargo run --release -p karc-tools --bin adult-stream-gen -- --rows 3000000 \
//!   | /usr/bin/time -v karc stream -c fixtures/adult-raw/adult-stream.toml --k 100 --delay 10000 > /dev/null
//! ```

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use karc_tools::adult_stream::{AdultStream, adult_clean};

#[derive(Debug, Parser)]
#[command(about = "Write an Adult-like stream of any length to standard output")]
struct Args {
    /// Number of rows.
    #[arg(long, default_value_t = 1_000_000)]
    rows: u64,
    /// Seed of the resampling and noise.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The raw Adult file to resample.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/adult-raw/adult.csv"))]
    adult: PathBuf,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let (header, rows) = match adult_clean(&args.adult) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("adult-stream-gen: error: {}: {e}", args.adult.display());
            return ExitCode::from(2);
        }
    };
    let mut stream = AdultStream::new(&header, &rows, args.seed);
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut write = || -> std::io::Result<()> {
        writeln!(out, "{}", header.join(","))?;
        for _ in 0..args.rows {
            writeln!(out, "{}", stream.next_row().join(","))?;
        }
        out.flush()
    };
    match write() {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stops early is not an error of the generator.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("adult-stream-gen: error: {e}");
            ExitCode::from(2)
        }
    }
}

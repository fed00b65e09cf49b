//! Archive speed against zip, measured in the same run (issue 3's targets):
//! writing the archive (the anonymization excluded; private part sealed for
//! an X25519 recipient) at most half of zip's time on the same CSV, and
//! restoring (open with its integrity and claim checks, unseal, decode,
//! render, digest) no slower than unzip. `bench` reports the same
//! measurement among the others (`karc_tools::bench::archive_vs_zip`).
//!
//! ```text
//! cargo run --release -p karc-tools --bin bench_archive -- [CONFIG CSV [RUNS]]
//! ```
//! (default: fixtures/adult/adult.toml, fixtures/adult/adult.csv, 9 runs,
//! the config's algorithm at k = 5; every figure is the median of the runs,
//! the two sides interleaved.)

use std::path::PathBuf;

use karc::anonymize::Algorithm;
use karc::config::Config;
use karc_tools::bench::{BoxError, Prepared, archive_vs_zip, with_k};

fn main() -> Result<(), BoxError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let config_path = PathBuf::from(
        args.first()
            .map_or("fixtures/adult/adult.toml", String::as_str),
    );
    let csv = PathBuf::from(
        args.get(1)
            .map_or("fixtures/adult/adult.csv", String::as_str),
    );
    let runs: usize = args.get(2).map_or(Ok(9), |r| r.parse())?;

    let config = Config::load(&config_path)?;
    let algorithm = Algorithm::from_name(&config.algorithm.name)?;
    let p = Prepared::new(with_k(config, algorithm, 5), &csv)?;
    let rows = archive_vs_zip(&p, &csv, runs)?;
    println!(
        "{}: {} bytes, {} rows; {} k=5; {runs} runs, medians",
        csv.display(),
        rows.first().map_or(0, |r| r.csv_bytes),
        p.data.rows(),
        algorithm.name()
    );
    for r in &rows {
        println!(
            "mode {}: zip {} bytes, karc {} bytes (sealed)",
            r.mode, r.zip_bytes, r.karc_bytes
        );
        println!(
            "  write:   zip {:8.2} ms   karc pack {:8.2} ms   ratio {:.3} (target <= 0.5)   [with CSV load: {:.2} ms, ratio {:.3}]",
            r.zip_ms,
            r.pack_ms,
            r.pack_vs_zip(),
            r.load_pack_ms,
            r.load_pack_ms / r.zip_ms
        );
        println!(
            "  restore: unzip {:6.2} ms   karc restore {:6.2} ms   ratio {:.3} (target <= 1.0)",
            r.unzip_ms,
            r.restore_ms,
            r.restore_vs_unzip()
        );
    }
    Ok(())
}

//! Times every global-recoding anonymizer on Adult (9 QIs) and `karc
//! anonymize` end to end, and prints a Markdown table.
//!
//! Each figure is the median of several runs, set beside two yardsticks
//! measured in the same run: the time to read and dictionary-encode Adult's
//! CSV (the least any run must spend) and the target of issue 2.
//!
//! ```sh
//! cargo run --release -p karc-tools --bin bench_anonymize [-- RUNS]
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use karc::anonymize::{self, Algorithm};
use karc::config::Config;
use karc::dataset::Dataset;
use karc::privacy::PrivacyModel;
use karc::table::Table;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Median wall time of `runs` calls, in milliseconds.
fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runs: usize = std::env::args().nth(1).map_or(Ok(7), |a| a.parse())?;
    let root = root();
    let config_path = root.join("fixtures/adult/adult.toml");
    let csv = root.join("fixtures/adult/adult.csv");
    let mut config = Config::load(&config_path)?;
    config.privacy.k = Some(10);
    config.privacy.constraints.clear();
    let options = config.csv_options()?;

    let read_ms = median_ms(runs, || {
        Table::read(&csv, &options).expect("read Adult");
    });
    let data = Dataset::load(&config, &csv)?;
    let model = PrivacyModel::from_config(&config, &data)?;

    println!(
        "Adult, {} rows, {} QIs, k = 10, median of {runs} runs\n",
        data.rows(),
        data.qis.len()
    );
    println!("| what | ms | / read CSV | target ms | / target |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    let row = |what: &str, ms: f64, target: f64| {
        println!(
            "| {what} | {ms:.1} | {:.2} | {target:.0} | {:.2} |",
            ms / read_ms,
            ms / target
        );
    };
    row(
        "read + dictionary-encode adult.csv (baseline)",
        read_ms,
        f64::NAN,
    );
    for (algorithm, target) in [
        (Algorithm::Datafly, 50.0),
        (Algorithm::MaDatafly, 50.0),
        (Algorithm::Incognito, 500.0),
    ] {
        let mut c = config.algorithm.clone();
        c.name = algorithm.name().to_owned();
        let mut levels = None;
        let ms = median_ms(runs, || {
            let outcome = anonymize::run(&data, &model, &c).expect("anonymize");
            levels = outcome.levels;
        });
        row(
            &format!("{} (checked release, levels {levels:?})", algorithm.name()),
            ms,
            target,
        );
    }

    // End to end: the release build of the binary, as a user runs it.
    let karc = root.join("target/release/karc");
    if karc.exists() {
        let out = std::env::temp_dir().join(format!("karc-bench-{}.csv", std::process::id()));
        let ms = median_ms(runs, || {
            let status = Command::new(&karc)
                .arg("anonymize")
                .arg("-c")
                .arg(&config_path)
                .arg("--k")
                .arg("10")
                .arg(&csv)
                .arg("-o")
                .arg(&out)
                .stderr(std::process::Stdio::null())
                .status()
                .expect("run karc");
            assert!(status.success(), "karc anonymize failed");
        });
        let _ = std::fs::remove_file(&out);
        row("`karc anonymize` end to end (datafly)", ms, 200.0);
    } else {
        println!("\n(build `cargo build --release` first to time `karc anonymize` end to end)");
    }
    Ok(())
}

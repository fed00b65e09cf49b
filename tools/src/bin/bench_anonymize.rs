//! Times every global-recoding anonymizer on Adult (9 QIs) and `karc
//! anonymize` end to end, and prints a Markdown table.
//!
//! Each figure is the median of several runs, wall time and CPU time (on a
//! shared machine the wall clock also measures the neighbours), set beside
//! two yardsticks: the CPU time to read and dictionary-encode Adult's CSV,
//! measured in the same run (the least any run must spend), and the target
//! of issue 2.
//!
//! ```sh
//! cargo run --release -p karc-tools --bin bench_anonymize [-- RUNS]
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;

use karc::anonymize::{self, Algorithm};
use karc::config::Config;
use karc::dataset::Dataset;
use karc::privacy::PrivacyModel;
use karc::table::Table;
use karc_tools::bench::median_ms;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
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
    println!("| what | wall ms | CPU ms | CPU / read CSV | target ms | CPU / target |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    let row = |what: &str, (wall, cpu): (f64, f64), target: Option<f64>| {
        let (t, ratio) = target.map_or(("-".to_owned(), "-".to_owned()), |t| {
            (format!("{t:.0}"), format!("{:.2}", cpu / t))
        });
        println!(
            "| {what} | {wall:.1} | {cpu:.1} | {:.2} | {t} | {ratio} |",
            cpu / read_ms.1
        );
    };
    row(
        "read + dictionary-encode adult.csv (baseline)",
        read_ms,
        None,
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
        let levels = levels.map_or("-".to_owned(), |l| format!("{l:?}"));
        row(
            &format!("{} (checked release, levels {levels})", algorithm.name()),
            ms,
            Some(target),
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
        row("`karc anonymize` end to end (datafly)", ms, Some(200.0));
    } else {
        println!("\n(build `cargo build --release` first to time `karc anonymize` end to end)");
    }
    Ok(())
}

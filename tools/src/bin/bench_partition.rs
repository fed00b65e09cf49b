//! Speed of the partitioning anonymizers, against a baseline measured in the
//! same run: loading the CSV they work on (parse, dictionary-code, bind).
//!
//! 1. Adult, 9 QIs (`fixtures/adult/adult.toml`), k = 10: Mondrian, Basic
//!    Mondrian and Top-down greedy, each the algorithm alone and
//!    `anonymize::run` (algorithm plus the independent verification).
//! 2. A generated Adult of `--rows` rows (default 1,000,000; see
//!    `gen_adult`), k = 10: Mondrian, with the process's peak resident
//!    memory (VmHWM, reset before loading where the kernel allows).
//!
//! Prints a Markdown table: wall and CPU time (median of `--repeat` runs,
//! default 5, on Adult; one run on the generated table), and the ratio of
//! CPU times to the load of the same table (steadier than wall time on a
//! shared machine).
//!
//! ```sh
//! cargo run --release -p karc-tools --bin bench_partition
//! ```

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use karc::anonymize::{self, Algorithm, basic_mondrian, mondrian, topdown};
use karc::config::Config;
use karc::dataset::Dataset;
use karc::privacy::PrivacyModel;
use karc_tools::adult_gen::{adult_fixture, generate};

#[derive(Debug, Parser)]
#[command(about = "Time Mondrian, Basic Mondrian and Top-down against the CSV load")]
struct Args {
    /// Rows of the generated Adult for the scaling run.
    #[arg(long, default_value_t = 1_000_000)]
    rows: usize,
    /// Runs per measurement on Adult (the median is shown).
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    /// Seed of Top-down and of the generated table.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench_partition: {e}");
            ExitCode::from(2)
        }
    }
}

/// Wall and CPU time of one measurement, in milliseconds.
#[derive(Clone, Copy)]
struct Time {
    wall: f64,
    cpu: f64,
}

/// CPU time the calling thread has run, in nanoseconds (Linux schedstat);
/// on a shared machine it is steadier than wall time.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Times one call of `f`.
fn time<T>(f: impl FnOnce() -> T) -> (T, Time) {
    let (cpu, start) = (cpu_ns(), Instant::now());
    let out = std::hint::black_box(f());
    let wall = start.elapsed().as_secs_f64() * 1e3;
    let cpu = (cpu_ns() - cpu) as f64 / 1e6;
    (out, Time { wall, cpu })
}

/// The medians of wall and CPU time over `repeat` calls of `f`.
fn median<T>(repeat: usize, mut f: impl FnMut() -> T) -> Time {
    let runs: Vec<Time> = (0..repeat.max(1)).map(|_| time(&mut f).1).collect();
    let mid = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Time {
        wall: mid(runs.iter().map(|t| t.wall).collect()),
        cpu: mid(runs.iter().map(|t| t.cpu).collect()),
    }
}

/// The process's peak resident set (VmHWM), in MiB.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Resets VmHWM to the current RSS (Linux `clear_refs` value 5).
fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn row(workload: &str, step: &str, t: Time, baseline: Time) {
    println!(
        "| {workload} | {step} | {:.1} | {:.1} | {:.2} |",
        t.wall,
        t.cpu,
        t.cpu / baseline.cpu
    );
}

fn load(config: &Config, csv: &Path, k: usize) -> Result<(Dataset, PrivacyModel), karc::Error> {
    let data = Dataset::load(config, csv)?;
    let mut c = config.clone();
    c.privacy.k = Some(k);
    c.privacy.constraints.clear();
    let model = PrivacyModel::from_config(&c, &data)?;
    Ok((data, model))
}

fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let Args { rows, repeat, seed } = args;
    let mut config = Config::load(&adult_fixture("adult.toml"))?;
    let adult = adult_fixture("adult.csv");
    let k = 10;

    println!("| workload | step | wall ms | CPU ms | CPU ratio to load |");
    println!("| --- | --- | --- | --- | --- |");

    // 1. Adult, 9 QIs.
    let (data, model) = load(&config, &adult, k)?;
    let label = format!("Adult {} rows, {} QIs, k={k}", data.rows(), data.qis.len());
    let base = median(repeat, || load(&config, &adult, k).map(|_| ()));
    row(&label, "load CSV (baseline)", base, base);
    let steps: [(Algorithm, &dyn Fn() -> karc::Result<anonymize::Outcome>); 3] = [
        (Algorithm::Mondrian, &|| mondrian(&data, &model)),
        (Algorithm::BasicMondrian, &|| basic_mondrian(&data, &model)),
        (Algorithm::TopDown, &|| topdown(&data, &model, seed)),
    ];
    for (a, f) in steps {
        f()?;
        row(&label, a.name(), median(repeat, f), base);
        config.algorithm.name = a.name().to_owned();
        config.algorithm.seed = seed;
        let checked = median(repeat, || anonymize::run(&data, &model, &config.algorithm));
        row(
            &label,
            &format!("{} + verification", a.name()),
            checked,
            base,
        );
    }
    drop(data);

    // 2. A generated Adult of `rows` rows.
    let source = Dataset::load(&config, &adult)?;
    let dir = tempfile::tempdir()?;
    let big = dir.path().join(format!("adult-{rows}.csv"));
    {
        let file = std::io::BufWriter::new(std::fs::File::create(&big)?);
        generate(&source, rows, seed, file)?;
    }
    drop(source);
    let reset = reset_peak_rss();
    let (loaded, base) = time(|| load(&config, &big, k));
    let (data, model) = loaded?;
    let label = format!("generated Adult {rows} rows, {} QIs, k={k}", data.qis.len());
    row(&label, "load CSV (baseline)", base, base);
    let (outcome, t) = time(|| mondrian(&data, &model));
    row(&label, "mondrian", t, base);
    drop(outcome?);
    config.algorithm.name = "mondrian".to_owned();
    let (outcome, t) = time(|| anonymize::run(&data, &model, &config.algorithm));
    row(&label, "mondrian + verification", t, base);
    let outcome = outcome?;
    let peak = peak_rss_mib().map_or("n/a".to_owned(), |m| format!("{m:.0} MiB"));
    let metrics = karc::metrics::measure(&data, &outcome.release, &model);
    println!();
    println!(
        "Peak resident memory over load + both Mondrian runs{}: {peak}. \
         Mondrian on {rows} rows: NCP {:.4}, DM {:.0}.",
        if reset {
            ""
        } else {
            " (and everything before: VmHWM could not be reset)"
        },
        metrics.ncp,
        metrics.dm
    );
    Ok(())
}

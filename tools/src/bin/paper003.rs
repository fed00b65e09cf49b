//! Reproduces paper 003's comparison of FADS and CASTLE on Adult (30,162
//! rows without `?`, the ten QIs of the paper), side by side in one run:
//! average information loss and time against the data size (5K..30K),
//! delta, K and the number of QIs, for the mixed QI set and the numeric-only
//! one; then both on generated Adult-like streams (FADS up to 3M rows) to
//! show FADS' time per row flat and CASTLE's growing. Prints Markdown.
//!
//! Defaults are the paper's Table 3: K=100, delta=10000, tau=0.5, c0=1.0,
//! beta=50, mu=100. Time is CPU time (user + system) of the anonymizer only.
//!
//! ```sh
//! cargo run --release -p karc-tools --bin paper003
//! cargo run --release -p karc-tools --bin paper003 -- --scale-rows 3000000 --castle-scale-rows 300000
//! cargo run --release -p karc-tools --bin paper003 -- --only k --tau 0.15   # FADS' tau at small K
//! ```

use std::path::PathBuf;

use clap::Parser;
use karc::config::{Config, Role};
use karc::stream::{Schema, Stream, StreamAlgorithm, StreamParams, run_csv};
use karc_tools::adult_stream::{AdultStream, QIS, adult_clean, adult_clean_csv};
use karc_tools::cpu_ms;

#[derive(Debug, Parser)]
#[command(about = "Paper 003: FADS against CASTLE on Adult, Markdown tables")]
struct Args {
    /// Largest generated stream for FADS.
    #[arg(long, default_value_t = 3_000_000)]
    scale_rows: u64,
    /// Largest generated stream for CASTLE (its time grows faster).
    #[arg(long, default_value_t = 120_000)]
    castle_scale_rows: u64,
    /// Skip the parameter sweeps (delta, K, QIs).
    #[arg(long)]
    no_sweeps: bool,
    /// Run only these sections (size, delta, k, qis, scale; default all).
    #[arg(long, value_delimiter = ',', value_parser = ["size", "delta", "k", "qis", "scale"])]
    only: Vec<String>,
    /// FADS' tau (reuse bound; the paper's Table 3: 0.5).
    #[arg(long, default_value_t = 0.5)]
    tau: f64,
    /// FADS' c0 (reusable clusters c0 * delta / K; the paper's Table 3: 1.0).
    #[arg(long, default_value_t = 1.0)]
    c0: f64,
    /// Seed of both anonymizers and of the generator.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The stream config with only `qis` as quasi-identifiers.
fn config_with(qis: &[&str]) -> Config {
    let mut c =
        Config::load(&root().join("fixtures/adult-raw/adult-stream.toml")).expect("fixture config");
    for col in &mut c.columns {
        if col.role == Some(Role::Quasi) && !qis.contains(&col.name.as_str()) {
            col.role = Some(Role::Insensitive);
        }
    }
    c
}

#[derive(Debug, Clone, Copy)]
struct Run {
    loss: f64,
    cpu_ms: f64,
    rows: u64,
    suppressed: u64,
}

impl Run {
    fn us_per_row(&self) -> f64 {
        self.cpu_ms * 1e3 / self.rows as f64
    }
}

fn run_table(config: &Config, csv: &str, algorithm: StreamAlgorithm, params: &StreamParams) -> Run {
    let start = cpu_ms();
    let s = run_csv(
        config,
        csv.as_bytes(),
        algorithm,
        params.clone(),
        None,
        |_, _, _| {},
    )
    .expect("paper 003 setup runs");
    Run {
        loss: s.avg_infoloss,
        cpu_ms: cpu_ms() - start,
        rows: s.rows,
        suppressed: s.suppressed,
    }
}

fn run_generated(
    config: &Config,
    header: &[String],
    adult: &[Vec<String>],
    rows: u64,
    algorithm: StreamAlgorithm,
    params: &StreamParams,
) -> Run {
    let schema = Schema::bind(config, header, b',', None).expect("schema");
    let mut stream = Stream::new(schema, algorithm, params.clone()).expect("params");
    let mut source = AdultStream::new(header, adult, params.seed);
    // Generate outside the clock, a chunk at a time.
    let mut spent = 0.0;
    let mut chunk: Vec<csv::StringRecord> = Vec::with_capacity(CHUNK);
    let mut line = 1u64;
    let mut left = rows;
    while left > 0 {
        chunk.clear();
        for _ in 0..left.min(CHUNK as u64) {
            chunk.push(source.next_row().iter().collect());
        }
        left -= chunk.len() as u64;
        let start = cpu_ms();
        for record in &chunk {
            line += 1;
            stream.push(line, record).expect("generated rows are valid");
            drop(stream.take_published());
        }
        spent += cpu_ms() - start;
    }
    let start = cpu_ms();
    stream.finish();
    drop(stream.take_published());
    spent += cpu_ms() - start;
    let s = stream.summary();
    Run {
        loss: s.avg_infoloss,
        cpu_ms: spent,
        rows: s.rows,
        suppressed: s.suppressed,
    }
}

/// Rows generated ahead of each timed stretch.
const CHUNK: usize = 10_000;

fn params(k: usize, delta: usize, seed: u64, (tau, c0): (f64, f64)) -> StreamParams {
    let mut p = StreamParams::new(k, delta);
    p.seed = seed;
    p.tau = tau;
    p.c0 = c0;
    p
}

fn header(first: &str) {
    println!(
        "| {first} | FADS loss | CASTLE loss | FADS ms | CASTLE ms | FADS µs/row | CASTLE µs/row | CASTLE/FADS time | suppressed (FADS/CASTLE) |"
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
}

fn line(first: impl std::fmt::Display, f: Run, c: Run) {
    println!(
        "| {first} | {:.4} | {:.4} | {:.0} | {:.0} | {:.1} | {:.1} | {:.1} | {}/{} |",
        f.loss,
        c.loss,
        f.cpu_ms,
        c.cpu_ms,
        f.us_per_row(),
        c.us_per_row(),
        c.cpu_ms / f.cpu_ms.max(1e-9),
        f.suppressed,
        c.suppressed
    );
}

fn both(config: &Config, csv: &str, p: &StreamParams) -> (Run, Run) {
    (
        run_table(config, csv, StreamAlgorithm::Fads, p),
        run_table(config, csv, StreamAlgorithm::Castle, p),
    )
}

fn main() {
    let args = Args::parse();
    let (head, adult) =
        adult_clean(&root().join("fixtures/adult-raw/adult.csv")).expect("fixture data");
    let full = adult_clean_csv(&head, &adult, adult.len());
    let mixed: Vec<&str> = QIS.to_vec();
    let numeric: Vec<&str> = QIS[..6].to_vec();
    // Mixed subsets grow alternately by a numeric and a categorical QI.
    let interleaved = [
        "age",
        "education",
        "fnlwgt",
        "marital-status",
        "education-num",
        "occupation",
        "capital-gain",
        "native-country",
        "capital-loss",
        "hours-per-week",
    ];
    let seed = args.seed;
    let wants = |section: &str| args.only.is_empty() || args.only.iter().any(|s| s == section);
    let sweeps = !args.no_sweeps;
    let fads = (args.tau, args.c0);
    println!(
        "# Paper 003: FADS against CASTLE on Adult ({} rows without `?`)\n",
        adult.len()
    );
    println!(
        "Defaults (paper 003, Table 3): K=100, delta=10000, tau={}, c0={} (FADS); beta=50, mu=100 (CASTLE); seed {seed}. \
         Loss: average information loss (Definition 5, = GLM). Time: CPU ms of the anonymizer.\n",
        args.tau, args.c0
    );

    for (name, qis) in [("10 QIs, mixed", &mixed), ("6 QIs, numeric only", &numeric)] {
        let config = config_with(qis);
        if wants("size") {
            println!("## Data size ({name})\n");
            header("rows");
            for n in [5_000, 10_000, 15_000, 20_000, 25_000, 30_162] {
                let csv = adult_clean_csv(&head, &adult, n);
                let (f, c) = both(&config, &csv, &params(100, 10_000, seed, fads));
                line(n, f, c);
            }
            println!();
        }
        if sweeps && wants("delta") {
            println!("## delta ({name}, all rows)\n");
            header("delta");
            for delta in [1_000, 2_500, 5_000, 10_000, 20_000] {
                let (f, c) = both(&config, &full, &params(100, delta, seed, fads));
                line(delta, f, c);
            }
            println!();
        }
        if sweeps && wants("k") {
            println!("## K ({name}, all rows)\n");
            header("K");
            for k in [10, 25, 50, 100, 200] {
                let (f, c) = both(&config, &full, &params(k, 10_000, seed, fads));
                line(k, f, c);
            }
            println!();
        }
    }
    if sweeps && wants("qis") {
        for (name, order, sizes) in [
            (
                "mixed, alternating numeric and categorical",
                &interleaved[..],
                &[2usize, 4, 6, 8, 10][..],
            ),
            ("numeric only", &QIS[..6], &[2, 3, 4, 5, 6][..]),
        ] {
            println!("## Number of QIs ({name}, all rows)\n");
            header("QIs");
            for &n in sizes {
                let config = config_with(&order[..n]);
                let (f, c) = both(&config, &full, &params(100, 10_000, seed, fads));
                line(n, f, c);
            }
            println!();
        }
    }

    if !wants("scale") {
        return;
    }
    println!("## Generated Adult-like streams (10 QIs, K=100, delta=10000)\n");
    println!(
        "| rows | FADS loss | FADS ms | FADS µs/row | CASTLE loss | CASTLE ms | CASTLE µs/row |"
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let config = config_with(&mixed);
    let mut n = 30_000u64;
    while n <= args.scale_rows {
        let p = params(100, 10_000, seed, fads);
        let f = run_generated(&config, &head, &adult, n, StreamAlgorithm::Fads, &p);
        let c = (n <= args.castle_scale_rows)
            .then(|| run_generated(&config, &head, &adult, n, StreamAlgorithm::Castle, &p));
        match c {
            Some(c) => println!(
                "| {n} | {:.4} | {:.0} | {:.1} | {:.4} | {:.0} | {:.1} |",
                f.loss,
                f.cpu_ms,
                f.us_per_row(),
                c.loss,
                c.cpu_ms,
                c.us_per_row()
            ),
            None => println!(
                "| {n} | {:.4} | {:.0} | {:.1} | | | |",
                f.loss,
                f.cpu_ms,
                f.us_per_row()
            ),
        }
        n = match n {
            30_000 => 60_000,
            60_000 => 120_000,
            120_000 => 300_000,
            300_000 => 1_000_000,
            1_000_000 => 3_000_000,
            _ => n * 3,
        };
    }
}

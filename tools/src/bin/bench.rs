//! karc's benchmark suite in one run, printed as a Markdown report (the
//! tables the README quotes; `--write` also writes `tools/BENCHMARKS.md`):
//!
//! 1. anonymization time of every algorithm on Adult (9 QIs, k = 10), beside
//!    the time to read and dictionary-encode the CSV;
//! 2. pack and restore of Adult against zip and unzip of the same CSV, for
//!    every difference mode, as ratios (issue 3's targets: pack at most half
//!    of zip, restore no slower than unzip);
//! 3. scaling on generated Adult-like tables (30K, 300K and 3M rows; see
//!    `karc_tools::adult_gen`): time and peak memory per stage (load,
//!    anonymize with Mondrian and with Datafly, pack, restore), each stage in
//!    its own child process (this binary, `bench stage ...`) whose peak
//!    resident set the parent reads with `wait4`; then the growth from the
//!    second-largest to the largest table against n log n, and the peak
//!    memory against 2 GiB;
//! 4. Huffman decoding, table-driven against bit by bit
//!    (`karc_tools::huffman_bench`, also the `bench_huffman` runner).
//!
//! ```sh
//! cargo run --release -p karc-tools --bin bench -- [--quick] [--write] [--runs N]
//! ```
//! `--quick` drops the 3M table and times one run of everything (a smoke
//! run); `--config`/`--input` replace Adult, `--sizes` the table sizes.
//! Generated tables live in a temporary directory, removed at the end.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use age::secrecy::ExposeSecret;
use clap::{Parser, Subcommand};
use karc::anonymize::{self, Algorithm};
use karc::config::Config;
use karc::dataset::Dataset;
use karc::privacy::PrivacyModel;
use karc::table::Table;
use karc_tools::adult_gen::{adult_fixture, generate};
use karc_tools::bench::{
    BoxError, FORMAT_SECTION, Prepared, Stage, StageInput, StageMeasure, archive_vs_zip, machine,
    measure_child, median, median_ms, replace_section, run_stage, section, shown, with_k,
    x25519_pair,
};

#[derive(Debug, Parser)]
#[command(about = "karc's benchmark suite: anonymization, archive against zip, scaling")]
struct Args {
    #[command(subcommand)]
    command: Option<Sub>,
    /// Smoke run: no 3M-row table, one timed run of everything.
    #[arg(long)]
    quick: bool,
    /// Also write the report to tools/BENCHMARKS.md.
    #[arg(long)]
    write: bool,
    /// Timed runs of each Adult measurement (median); default 5, 1 with --quick.
    #[arg(long)]
    runs: Option<usize>,
    /// Config of the source table (default: the bundled Adult, 9 QIs).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Source table (default: the bundled adult.csv).
    #[arg(long)]
    input: Option<PathBuf>,
    /// Rows of the generated tables, comma separated (default
    /// 30000,300000,3000000; without the last with --quick).
    #[arg(long, value_delimiter = ',')]
    sizes: Option<Vec<usize>>,
    /// k of every measurement.
    #[arg(long, default_value_t = 10)]
    k: usize,
}

#[derive(Debug, Subcommand)]
enum Sub {
    /// One scaling stage, run by the benchmark in a child process; prints
    /// `stage WALL_MS CPU_MS`.
    #[command(hide = true)]
    Stage {
        stage: String,
        #[arg(long)]
        config: PathBuf,
        #[arg(long)]
        csv: PathBuf,
        #[arg(long)]
        algorithm: String,
        #[arg(long)]
        k: usize,
        #[arg(long)]
        archive: PathBuf,
        #[arg(long)]
        identity: PathBuf,
    },
    /// Writes a generated table, in a child process so that the parent stays
    /// small (a child spawned by vfork inherits the parent's peak resident
    /// set as its own starting peak).
    #[command(hide = true)]
    Generate {
        #[arg(long)]
        config: PathBuf,
        #[arg(long)]
        input: PathBuf,
        #[arg(long)]
        rows: usize,
        #[arg(long)]
        out: PathBuf,
    },
    /// Does nothing: the peak resident set of a child that only starts.
    #[command(hide = true)]
    Idle,
}

/// The anonymizers of the scaling benchmark: Mondrian (local recoding, a
/// recursive median partition, O(n log n)) and Datafly (global recoding,
/// one frequency pass per generalization step).
const SCALING: [Algorithm; 2] = [Algorithm::Mondrian, Algorithm::Datafly];

/// The memory limit of issue 5's acceptance.
const MEMORY_LIMIT: u64 = 2 << 30;

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match args.command {
        Some(Sub::Stage {
            ref stage,
            ref config,
            ref csv,
            ref algorithm,
            k,
            ref archive,
            ref identity,
        }) => (|| -> Result<(), BoxError> {
            let input = StageInput {
                config: config.clone(),
                csv: csv.clone(),
                algorithm: Algorithm::from_name(algorithm)?,
                k,
                archive: archive.clone(),
                identity: identity.clone(),
            };
            let (wall, cpu, note) = run_stage(stage.parse()?, &input)?;
            println!("stage {wall:.3} {cpu:.3} {note}");
            Ok(())
        })(),
        Some(Sub::Generate {
            ref config,
            ref input,
            rows,
            ref out,
        }) => (|| -> Result<(), BoxError> {
            let source = Dataset::load(&Config::load(config)?, input)?;
            karc::io::write_atomically(out, |w| {
                generate(&source, rows, 1, w).map_err(std::io::Error::other)
            })?;
            println!("stage 0 0");
            Ok(())
        })(),
        Some(Sub::Idle) => {
            println!("stage 0 0");
            Ok(())
        }
        None => run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<(), BoxError> {
    let runs = args.runs.unwrap_or(if args.quick { 1 } else { 5 }).max(1);
    let config_path = args
        .config
        .clone()
        .unwrap_or_else(|| adult_fixture("adult.toml"));
    let csv = args
        .input
        .clone()
        .unwrap_or_else(|| adult_fixture("adult.csv"));
    let sizes = args.sizes.clone().unwrap_or_else(|| {
        if args.quick {
            vec![30_000, 300_000]
        } else {
            vec![30_000, 300_000, 3_000_000]
        }
    });
    let base = Config::load(&config_path)?;
    let mut report = String::new();
    writeln!(report, "# karc benchmarks\n")?;
    writeln!(
        report,
        "Generated by `cargo run --release -p karc-tools --bin bench --{}{}` on {}. \
         Times are wall-clock milliseconds (CPU milliseconds beside them: on a shared machine the \
         wall clock also measures the neighbours); each section says of how many runs its figures are the medians.\n",
        if args.quick { " --quick" } else { " --write" },
        args.runs.map_or(String::new(), |r| format!(" --runs {r}")),
        machine()
    )?;

    let name = shown(&csv);
    // The scaling stages run first, while this process is still small: a
    // child inherits its parent's peak as its own starting peak.
    let mut scaled = String::new();
    // Each stage is run in this many processes (median times, highest
    // peak); one for the smoke run.
    let repeats = if args.quick { 1 } else { 3 };
    scaling(&mut scaled, &config_path, &csv, &sizes, args.k, repeats)?;
    let source = Source {
        base: &base,
        csv: &csv,
        name: &name,
        k: args.k,
        runs,
    };
    anonymization(&mut report, &source)?;
    eprintln!("bench: anonymization done");
    archive(&mut report, &source)?;
    eprintln!("bench: archive done");
    report.push_str(&scaled);
    // Issue 3's decode-speed benchmark (also `bench_huffman`).
    let symbols = if args.quick { 50_000 } else { 2_000_000 };
    writeln!(report, "## Huffman decoding\n")?;
    report.push_str(&karc_tools::huffman_bench::report(symbols, runs)?);
    writeln!(report)?;

    print!("{report}");
    if args.write {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("BENCHMARKS.md");
        // Keep bench_format's section, which this run does not measure.
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        let report = match section(&old, FORMAT_SECTION) {
            Some(kept) => replace_section(&report, FORMAT_SECTION, kept),
            None => report,
        };
        karc::io::write_atomically(&path, |w| w.write_all(report.as_bytes()))?;
        eprintln!("bench: wrote {}", path.display());
    }
    Ok(())
}

/// The table of sections 1 and 2, and how they measure it.
#[derive(Clone, Copy)]
struct Source<'a> {
    base: &'a Config,
    csv: &'a Path,
    /// The CSV as the report names it.
    name: &'a str,
    k: usize,
    runs: usize,
}

/// Section 1: every algorithm on the source table.
fn anonymization(report: &mut String, src: &Source<'_>) -> Result<(), BoxError> {
    let (base, csv, k, runs) = (src.base, src.csv, src.k, src.runs);
    let options = base.csv_options()?;
    let read = median_ms(runs, || {
        Table::read(csv, &options).expect("the table loaded once already");
    });
    let data = Dataset::load(base, csv)?;
    let config = with_k(base.clone(), Algorithm::Datafly, k);
    let model = PrivacyModel::from_config(&config, &data)?;
    writeln!(
        report,
        "## Anonymization time per algorithm\n\n`{}`, {} rows, {} quasi-identifiers, k = {k}; \
         `anonymize::run` (the algorithm, then the release re-verified); median of {runs} run(s).\n",
        src.name,
        data.rows(),
        data.qis.len()
    )?;
    writeln!(
        report,
        "| algorithm | wall ms | CPU ms | CPU / read CSV |\n| --- | ---: | ---: | ---: |"
    )?;
    writeln!(
        report,
        "| read + dictionary-encode the CSV (yardstick) | {:.1} | {:.1} | 1.00 |",
        read.0, read.1
    )?;
    for &algorithm in Algorithm::ALL {
        let mut c = config.algorithm.clone();
        c.name = algorithm.name().to_owned();
        let mut failure = None;
        let (wall, cpu) = median_ms(runs, || {
            if let Err(e) = anonymize::run(&data, &model, &c) {
                failure = Some(e);
            }
        });
        if let Some(e) = failure {
            return Err(format!("{}: {e}", algorithm.name()).into());
        }
        writeln!(
            report,
            "| {} | {wall:.1} | {cpu:.1} | {:.2} |",
            algorithm.name(),
            cpu / read.1
        )?;
    }
    writeln!(report)?;
    Ok(())
}

/// Section 2: pack and restore against zip and unzip, every mode.
fn archive(report: &mut String, src: &Source<'_>) -> Result<(), BoxError> {
    // Three times the runs: each is a fraction of a second, and unzip's
    // few milliseconds make the restore ratio the noisiest figure.
    let (csv, k, runs) = (src.csv, src.k, 3 * src.runs);
    let algorithm = Algorithm::Datafly;
    let p = Prepared::new(with_k(src.base.clone(), algorithm, k), csv)?;
    let rows = archive_vs_zip(&p, csv, runs)?;
    writeln!(
        report,
        "## Pack and restore against zip\n\n`{}` anonymized once ({}, k = {k}); per difference \
         mode, in the same run and on the same bytes: zip (the zip crate, deflate at its default \
         level) against `writer::pack` (encode both parts, seal the private part for an X25519 \
         recipient; the anonymization excluded), and unzip against restore (open with integrity and \
         privacy-claim checks, unseal, check the public part's digest, decode, render the CSV, \
         check its CRC-32; unzip checks its CRC-32 too); both outputs \
         checked byte for byte; medians of {runs} run(s). Issues 3 and 5's targets: pack / zip <= 0.5, \
         restore / unzip <= 1.0.\n",
        src.name,
        algorithm.name()
    )?;
    writeln!(
        report,
        "| mode | CSV B | zip B | karc B | zip ms | pack ms | pack / zip | load + pack ms | unzip ms | restore ms | restore / unzip |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    )?;
    for r in &rows {
        writeln!(
            report,
            "| {} | {} | {} | {} | {:.2} | {:.2} | {:.3} | {:.2} | {:.2} | {:.2} | {:.3} |",
            r.mode,
            r.csv_bytes,
            r.zip_bytes,
            r.karc_bytes,
            r.zip_ms,
            r.pack_ms,
            r.pack_vs_zip(),
            r.load_pack_ms,
            r.unzip_ms,
            r.restore_ms,
            r.restore_vs_unzip()
        )?;
    }
    writeln!(report)?;
    Ok(())
}

/// One row of the scaling table.
struct Scaled {
    rows: usize,
    algorithm: Option<Algorithm>,
    stage: Stage,
    m: StageMeasure,
}

/// Section 3: generated tables, each stage in a child process.
fn scaling(
    report: &mut String,
    config_path: &Path,
    csv: &Path,
    sizes: &[usize],
    k: usize,
    repeats: usize,
) -> Result<(), BoxError> {
    let dir = tempfile::tempdir()?;
    let (identity, _) = x25519_pair();
    let identity_file = dir.path().join("identity.txt");
    std::fs::write(
        &identity_file,
        format!("{}\n", identity.to_string().expose_secret()),
    )?;
    let exe = std::env::current_exe()?;
    // Measured first: this process's peak only grows, and every child
    // starts from it.
    let floor = measure_child({
        let mut c = Command::new(&exe);
        c.arg("idle");
        c
    })?;
    let mut measured = Vec::new();
    let mut csv_bytes = Vec::new();
    for &rows in sizes {
        let table = dir.path().join(format!("adult-{rows}.csv"));
        let mut g = Command::new(&exe);
        g.arg("generate")
            .arg("--config")
            .arg(config_path)
            .arg("--input")
            .arg(csv)
            .arg("--rows")
            .arg(rows.to_string())
            .arg("--out")
            .arg(&table);
        measure_child(g).map_err(|e| format!("generating {rows} rows: {e}"))?;
        csv_bytes.push(std::fs::metadata(&table)?.len());
        let archive = dir.path().join(format!("adult-{rows}.karc"));
        let stage = |stage: Stage, algorithm: Algorithm| -> Result<StageMeasure, BoxError> {
            let mut c = Command::new(&exe);
            c.arg("stage")
                .arg(stage.name())
                .arg("--config")
                .arg(config_path)
                .arg("--csv")
                .arg(&table)
                .arg("--algorithm")
                .arg(algorithm.name())
                .arg("--k")
                .arg(k.to_string())
                .arg("--archive")
                .arg(&archive)
                .arg("--identity")
                .arg(&identity_file);
            measure_child(c).map_err(|e| format!("{rows} rows, {}: {e}", stage.name()).into())
        };
        let repeated = |st: Stage, a: Algorithm| -> Result<StageMeasure, BoxError> {
            let mut all: Vec<StageMeasure> = Vec::new();
            for _ in 0..repeats {
                all.push(stage(st, a)?);
            }
            Ok(StageMeasure {
                wall_ms: median(all.iter().map(|m| m.wall_ms).collect()),
                cpu_ms: median(all.iter().map(|m| m.cpu_ms).collect()),
                peak_rss: all.iter().map(|m| m.peak_rss).max().unwrap_or(0),
                note: all.pop().map(|m| m.note).unwrap_or_default(),
            })
        };
        measured.push(Scaled {
            rows,
            algorithm: None,
            stage: Stage::Load,
            m: repeated(Stage::Load, SCALING[0])?,
        });
        for algorithm in SCALING {
            for st in [Stage::Anonymize, Stage::Pack, Stage::Restore] {
                measured.push(Scaled {
                    rows,
                    algorithm: Some(algorithm),
                    stage: st,
                    m: repeated(st, algorithm)?,
                });
            }
        }
        std::fs::remove_file(&table)?;
        let _ = std::fs::remove_file(&archive);
        eprintln!("bench: {rows} rows done");
    }

    writeln!(
        report,
        "## Scaling\n\nTables drawn from Adult's joint distribution (`gen_adult`, seed 1), k = {k}. \
         Each stage runs in its own process (`bench stage ...`), which first loads what the stage \
         needs, untimed: the time is the stage's alone, the peak resident set (`ru_maxrss` of \
         `wait4`) the whole process's, so it includes the stage's input as the `karc` command that \
         runs the stage would hold it. load = read and dictionary-encode the CSV; anonymize = \
         `anonymize::run`; pack = encode and seal (default mode, X25519) and write the file; \
         restore = open (integrity and privacy-claim checks), unseal, public digest (BLAKE3), \
         decode, render, checksum (CRC-32). \
         Each figure is the median of {repeats} process(es) (peak: the highest). The last column \
         says what the stage made: pack and restore times follow how many cells the anonymization \
         changed (their differences are what the private part codes), which differs between sizes \
         as the algorithms generalize less on larger tables: the generator resamples the \
         source's rows, so a table m times larger than the source (Adult: 30,162 rows) repeats \
         each combination of quasi-identifiers about m times, and from m around k on needs little \
         generalization (compare Datafly's levels). A child that only starts peaks at {:.1} MiB (the binary, and the peak it \
         inherits from the runner, which spawns it before loading anything): every peak includes \
         that floor.\n",
        mib(floor.peak_rss)
    )?;
    writeln!(
        report,
        "| rows | CSV MB | algorithm | stage | wall ms | CPU ms | peak RSS MiB | made |\n\
         | ---: | ---: | --- | --- | ---: | ---: | ---: | --- |"
    )?;
    for s in &measured {
        let bytes = csv_bytes[sizes.iter().position(|&r| r == s.rows).expect("a size")];
        writeln!(
            report,
            "| {} | {:.2} | {} | {} | {:.1} | {:.1} | {:.1} | {} |",
            s.rows,
            bytes as f64 / 1e6,
            s.algorithm.map_or("-", Algorithm::name),
            s.stage.name(),
            s.m.wall_ms,
            s.m.cpu_ms,
            mib(s.m.peak_rss),
            s.m.note
        )?;
    }
    writeln!(report)?;

    if sizes.len() >= 2 {
        let (small, large) = (sizes[sizes.len() - 2], sizes[sizes.len() - 1]);
        let n_log_n = (large as f64 * (large as f64).ln()) / (small as f64 * (small as f64).ln());
        writeln!(
            report,
            "### Growth from {small} to {large} rows\n\nn log n grows by {n_log_n:.2} \
             ({}x the rows, times ln({large}) / ln({small})). Within n log n: the CPU-time ratio \
             is at most that; CPU times on a busy shared machine vary between runs too (cache and \
             memory-bandwidth contention), so a ratio within a few percent of the line is a tie. \
             The memory limit is 2 GiB (2048 MiB) at {large} rows.\n",
            large / small.max(1)
        )?;
        writeln!(
            report,
            "| algorithm | stage | wall ratio | CPU ratio | n log n ratio | within n log n | peak RSS MiB at {large} | under 2 GiB |\n\
             | --- | --- | ---: | ---: | ---: | --- | ---: | --- |"
        )?;
        for s in measured.iter().filter(|s| s.rows == large) {
            let before = measured
                .iter()
                .find(|b| b.rows == small && b.stage == s.stage && b.algorithm == s.algorithm)
                .expect("every stage measured at every size");
            let cpu_ratio = s.m.cpu_ms / before.m.cpu_ms;
            writeln!(
                report,
                "| {} | {} | {:.2} | {cpu_ratio:.2} | {n_log_n:.2} | {} | {:.1} | {} |",
                s.algorithm.map_or("-", Algorithm::name),
                s.stage.name(),
                s.m.wall_ms / before.m.wall_ms,
                yes_no(cpu_ratio <= n_log_n),
                mib(s.m.peak_rss),
                yes_no(s.m.peak_rss < MEMORY_LIMIT)
            )?;
        }
        writeln!(report)?;
    }
    Ok(())
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1u32 << 20)
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

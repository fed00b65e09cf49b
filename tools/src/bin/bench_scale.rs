//! Issue 33's benchmark, in one run: every table against zip -6, xz -9,
//! zstd -19 --long, Parquet + zstd and (when found) OpenZL's `zli`, with
//! the hand-written config of the benchmarks and the one `karc init`
//! writes for the table, as a newcomer would. Each command runs as a
//! child process measured through `wait4` (wall time, CPU time, peak
//! resident set) under an address-space and CPU cap: `karc pack` (Mondrian
//! k = 10, sealed for the test recipient of `fixtures/archive/keys`),
//! `karc restore` (checked with `cmp`), `karc export`, `karc verify`, and
//! each compressor with its decompression. Inputs: the Adult fixture,
//! `adult-stream-gen` and `gen-table` mixed and numeric at `--rows`.
//!
//! ```sh
//! cargo build --release --workspace
//! nice cargo run --release -p karc-tools --bin bench_scale -- [--rows 1000000] \
//!   [--python VENV/bin/python3] [--zli PATH] [--write]
//! ```
//! `--zli` names OpenZL's command-line tool (default: `zli` on the PATH,
//! skipped and said so when there is none); `--zli-compress` and
//! `--zli-decompress` its arguments, `{in}` and `{out}` standing for the
//! files. `--write` replaces this benchmark's section of
//! `tools/BENCHMARKS.md`.

use std::fmt::Write as _;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::str::FromStr;

use clap::Parser;
use karc_tools::bench::{BoxError, Limits, machine, replace_section};
use karc_tools::measured::{Measured, Runner, Source, load_average, repo, same_bytes, size};
use karc_tools::realistic::Kind;

const GIB: u64 = 1 << 30;
/// This benchmark's section of tools/BENCHMARKS.md.
const SECTION: &str = "## Scale and baselines (issue 33)";

#[derive(Debug, Parser)]
#[command(
    about = "Issue 33's benchmark: karc against zip, xz, zstd, Parquet and OpenZL, \
                   with a hand-written and an init config, as child processes"
)]
struct Args {
    /// Rows of each generated table.
    #[arg(long, default_value_t = 1_000_000)]
    rows: u64,
    /// The inputs to measure, comma-separated (default: all).
    #[arg(long, value_enum, value_delimiter = ',')]
    inputs: Vec<Source>,
    /// The configs to measure, comma-separated (default: both).
    #[arg(long, value_enum, value_delimiter = ',')]
    configs: Vec<Setup>,
    /// Seed of the generated tables.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Address space of each child, in GiB (RLIMIT_AS).
    #[arg(long, default_value_t = 8)]
    mem_limit_gib: u64,
    /// A Python with pyarrow, for Parquet + zstd (skipped without it).
    #[arg(long, default_value = "python3")]
    python: PathBuf,
    /// OpenZL's `zli` (default: `zli` on the PATH; skipped without it).
    #[arg(long)]
    zli: Option<PathBuf>,
    /// `zli`'s arguments to compress `{in}` into `{out}`.
    #[arg(long, default_value = "compress --profile csv {in} --output {out}")]
    zli_compress: String,
    /// `zli`'s arguments to decompress `{in}` into `{out}`.
    #[arg(long, default_value = "decompress {in} --output {out}")]
    zli_decompress: String,
    /// The karc binary (default: the one built beside this binary).
    #[arg(long)]
    karc: Option<PathBuf>,
    /// Where the inputs and outputs are written (a temporary directory in it).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Write the report so far to this file after each table.
    #[arg(long)]
    partial: Option<PathBuf>,
    /// Also write the report into its section of tools/BENCHMARKS.md.
    #[arg(long)]
    write: bool,
}

/// Which config a table is packed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Setup {
    /// The benchmarks' hand-written config.
    Hand,
    /// What `karc init TABLE` writes (its QIs, hierarchies and k = 5; the
    /// command line's `-a mondrian -k 10` on top).
    Init,
}

impl Setup {
    fn name(self) -> &'static str {
        match self {
            Setup::Hand => "hand-written",
            Setup::Init => "karc init",
        }
    }
}

/// `wall (CPU) RSS` of a measured command, or how it failed.
fn cell(m: &Measured) -> String {
    match &m.error {
        None => format!(
            "{:.2} ({:.2}) {:.0}",
            m.run.wall_ms / 1e3,
            m.run.cpu_ms / 1e3,
            m.rss_mib()
        ),
        Some(e) => format!("failed ({}): {e}", m.run.exit),
    }
}

fn command(program: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(program);
    c.args(args);
    c
}

/// A compressor measured: its file's size, compression and decompression
/// (checked against the input).
struct Baseline {
    name: String,
    bytes: Option<u64>,
    compress: Measured,
    decompress: Option<Measured>,
    exact: bool,
}

/// Compresses `csv` with `compress` (`{in}`, `{out}` in its arguments)
/// and decompresses with `decompress`, when given.
fn baseline(
    runner: &Runner,
    name: &str,
    program: &Path,
    (compress, decompress): (&str, Option<&str>),
    csv: &Path,
) -> Result<Baseline, BoxError> {
    let (packed, unpacked) = (runner.path("baseline.out"), runner.path("baseline.csv"));
    let _ = std::fs::remove_file(&packed);
    let _ = std::fs::remove_file(&unpacked);
    let fill = |template: &str, input: &Path, output: &Path| -> Vec<String> {
        (template.split_whitespace())
            .map(|a| {
                a.replace("{in}", &input.display().to_string())
                    .replace("{out}", &output.display().to_string())
            })
            .collect()
    };
    let args = fill(compress, csv, &packed);
    let to_stdout = !compress.contains("{out}");
    let c = command(
        program,
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let measured = runner.measure_once(c, to_stdout.then_some(packed.as_path()))?;
    let bytes = measured.ok().then(|| size(&packed));
    let mut out = Baseline {
        name: name.to_owned(),
        bytes,
        compress: measured,
        decompress: None,
        exact: false,
    };
    if let (Some(template), true) = (decompress, out.compress.ok()) {
        let args = fill(template, &packed, &unpacked);
        let to_stdout = !template.contains("{out}");
        let c = command(
            program,
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        let m = runner.measure_once(c, to_stdout.then_some(unpacked.as_path()))?;
        out.exact = m.ok() && same_bytes(csv, &unpacked)?;
        out.decompress = Some(m);
    }
    let _ = std::fs::remove_file(&packed);
    let _ = std::fs::remove_file(&unpacked);
    Ok(out)
}

/// `zip -6` and `unzip` (zip adds to an existing archive: none first).
fn zip(runner: &Runner, csv: &Path) -> Result<Baseline, BoxError> {
    let (archive, dir) = (runner.path("table.zip"), runner.path("unzipped"));
    let _ = std::fs::remove_file(&archive);
    let mut c = Command::new("zip");
    c.args(["-6", "-q", "-j"]).arg(&archive).arg(csv);
    let compress = runner.measure_once(c, None)?;
    let bytes = compress.ok().then(|| size(&archive));
    let mut u = Command::new("unzip");
    u.args(["-q", "-o"]).arg(&archive).arg("-d").arg(&dir);
    let decompress = runner.measure_once(u, None)?;
    let exact = decompress.ok() && same_bytes(csv, &dir.join(csv.file_name().expect("a name")))?;
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&archive);
    Ok(Baseline {
        name: "zip -6".to_owned(),
        bytes,
        compress,
        decompress: Some(decompress),
        exact,
    })
}

/// Streams a CSV into Parquet with zstd, every column as text.
const PARQUET: &str = r#"
import csv, sys
import pyarrow as pa, pyarrow.csv as pc, pyarrow.parquet as pq
src, dst, delimiter = sys.argv[1], sys.argv[2], sys.argv[3]
with open(src, newline="") as f:
    names = next(csv.reader(f, delimiter=delimiter))
reader = pc.open_csv(src, read_options=pc.ReadOptions(block_size=1 << 24),
    parse_options=pc.ParseOptions(delimiter=delimiter),
    convert_options=pc.ConvertOptions(column_types={n: pa.string() for n in names}))
with pq.ParquetWriter(dst, reader.schema, compression="zstd") as w:
    for batch in reader:
        w.write_batch(batch)
"#;

/// karc on one table with one config.
struct KarcRun {
    setup: Setup,
    bytes: Option<u64>,
    pack: Measured,
    restore: Option<Measured>,
    exact: bool,
    export: Option<Measured>,
    verify: Option<Measured>,
}

struct Karc {
    karc: PathBuf,
    seal: Vec<String>,
    open: Vec<String>,
}

impl Karc {
    fn keys(karc: PathBuf) -> Result<Karc, BoxError> {
        let identity = repo("fixtures/archive/keys/identity.txt");
        let text = std::fs::read_to_string(&identity)?;
        let secret = text
            .lines()
            .find(|l| l.starts_with("AGE-SECRET-KEY-"))
            .ok_or("no AGE-SECRET-KEY line in the test identity")?;
        let recipient = age::x25519::Identity::from_str(secret)?.to_public();
        Ok(Karc {
            karc,
            seal: vec!["-r".to_owned(), recipient.to_string()],
            open: vec!["-i".to_owned(), identity.display().to_string()],
        })
    }

    fn run(&self, args: &[&str], extra: &[String]) -> Command {
        let mut c = Command::new(&self.karc);
        c.args(args).args(extra);
        c
    }

    /// The config `karc init` writes for `csv`, as a newcomer gets it (its
    /// hierarchies as builders in the config, built by the pack).
    fn init(&self, runner: &Runner, csv: &Path) -> Result<Result<PathBuf, String>, BoxError> {
        let config = runner.path("init.toml");
        let _ = std::fs::remove_file(&config);
        let c = self.run(
            &[
                "init",
                &csv.display().to_string(),
                "-o",
                &config.display().to_string(),
            ],
            &[],
        );
        let m = runner.measure_once(c, None)?;
        Ok(match m.error {
            None => Ok(config),
            Some(e) => Err(e),
        })
    }

    fn measure(
        &self,
        runner: &Runner,
        setup: Setup,
        config: &Path,
        csv: &Path,
    ) -> Result<KarcRun, BoxError> {
        let (archive, restored, export) = (
            runner.path("table.karc"),
            runner.path("restored.csv"),
            runner.path("release.csv"),
        );
        for p in [&archive, &restored, &export] {
            let _ = std::fs::remove_file(p);
        }
        let (a, c, i) = (
            archive.display().to_string(),
            config.display().to_string(),
            csv.display().to_string(),
        );
        let args = ["pack", "-c", &c, &i, "-o", &a, "-a", "mondrian", "-k", "10"];
        let pack = runner.measure_once(self.run(&args, &self.seal), None)?;
        let mut run = KarcRun {
            setup,
            bytes: None,
            pack,
            restore: None,
            exact: false,
            export: None,
            verify: None,
        };
        if !run.pack.ok() {
            return Ok(run);
        }
        run.bytes = Some(size(&archive));
        let r = restored.display().to_string();
        let restore =
            runner.measure_once(self.run(&["restore", &a, "-o", &r], &self.open), None)?;
        run.exact = restore.ok() && same_bytes(csv, &restored)?;
        run.restore = Some(restore);
        let _ = std::fs::remove_file(&restored);
        let e = export.display().to_string();
        run.export = Some(runner.measure_once(self.run(&["export", &a, "-o", &e], &[]), None)?);
        let _ = std::fs::remove_file(&export);
        run.verify = Some(runner.measure_once(self.run(&["verify", &a], &[]), None)?);
        let _ = std::fs::remove_file(&archive);
        Ok(run)
    }
}

/// One table measured.
struct Row {
    name: String,
    rows: u64,
    csv_bytes: u64,
    karc: Vec<KarcRun>,
    baselines: Vec<Baseline>,
}

/// `zli` from `--zli`, else from the PATH.
fn find_zli(given: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = given {
        return Some(p.to_owned());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("zli"))
        .find(|p| p.is_file())
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

fn ratio(a: Option<u64>, b: Option<u64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0 => format!("{:.2}", a as f64 / b as f64),
        _ => "-".to_owned(),
    }
}

// Long: the report's tables, in the order they are read (sizes, ratios, times, bars)
fn report(args: &Args, versions: &str, rows: &[Row]) -> Result<String, BoxError> {
    let mut r = String::new();
    writeln!(r, "{SECTION}\n")?;
    writeln!(
        r,
        "`cargo run --release -p karc-tools --bin bench_scale -- --rows {}` (nice'd), \
         {}; {versions}. karc: `pack -a mondrian -k 10` sealed for the X25519 test recipient, \
         `restore` (checked with `cmp`), `export` (CSV), `verify`; each with the benchmarks' \
         hand-written config and with the one `karc init TABLE` writes. \
         Baselines on the CSV: `zip -6` / `unzip`, `xz -9 -T1` / `xz -d`, `zstd -19 --long -T1` / \
         `zstd -d`, Parquet + zstd (pyarrow, every column as text) and OpenZL's `zli` with its \
         CSV profile when built (`--zli PATH`). Times are wall seconds (CPU seconds) and peak \
         RSS in MiB of one run, on a machine shared with other engineers ({}).\n",
        args.rows,
        machine(),
        load_average(),
    )?;
    writeln!(r, "### Sizes (bytes) and karc's file against each\n")?;
    writeln!(
        r,
        "| table | rows | CSV | config | karc | zip -6 | xz -9 | zstd -19 --long | Parquet + zstd | zli | karc / zip | karc / xz | karc / zstd | karc / Parquet | karc / zli |"
    )?;
    writeln!(
        r,
        "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    )?;
    for row in rows {
        let b = |name: &str| {
            (row.baselines.iter())
                .find(|b| b.name.starts_with(name))
                .and_then(|b| b.bytes)
        };
        for k in &row.karc {
            writeln!(
                r,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                row.name,
                row.rows,
                row.csv_bytes,
                k.setup.name(),
                opt(k.bytes),
                opt(b("zip")),
                opt(b("xz")),
                opt(b("zstd")),
                opt(b("Parquet")),
                opt(b("zli")),
                ratio(k.bytes, b("zip")),
                ratio(k.bytes, b("xz")),
                ratio(k.bytes, b("zstd")),
                ratio(k.bytes, b("Parquet")),
                ratio(k.bytes, b("zli")),
            )?;
        }
    }
    writeln!(
        r,
        "\n### karc: wall s (CPU s) peak RSS MiB\n\n\
         | table | config | pack | restore | restored exactly | export | verify | pack / zip | restore / unzip |\n\
         | --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |"
    )?;
    for row in rows {
        let zip = row.baselines.iter().find(|b| b.name == "zip -6");
        for k in &row.karc {
            let per = |m: Option<&Measured>, base: Option<&Measured>| match (m, base) {
                (Some(m), Some(b)) if m.ok() && b.ok() && b.run.wall_ms > 0.0 => {
                    format!("{:.2}", m.run.wall_ms / b.run.wall_ms)
                }
                _ => "-".to_owned(),
            };
            writeln!(
                r,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                row.name,
                k.setup.name(),
                cell(&k.pack),
                opt(k.restore.as_ref().map(cell)),
                if k.exact { "yes" } else { "no" },
                opt(k.export.as_ref().map(cell)),
                opt(k.verify.as_ref().map(cell)),
                per(Some(&k.pack), zip.map(|z| &z.compress)),
                per(k.restore.as_ref(), zip.and_then(|z| z.decompress.as_ref())),
            )?;
        }
    }
    writeln!(
        r,
        "\n### Baselines: compress, decompress: wall s (CPU s) peak RSS MiB\n\n\
         | table | tool | compress | decompress | decompressed exactly |\n| --- | --- | ---: | ---: | --- |"
    )?;
    for row in rows {
        for b in &row.baselines {
            writeln!(
                r,
                "| {} | {} | {} | {} | {} |",
                row.name,
                b.name,
                cell(&b.compress),
                opt(b.decompress.as_ref().map(cell)),
                match b.decompress {
                    Some(_) if b.exact => "yes",
                    Some(_) => "no",
                    None => "-",
                },
            )?;
        }
    }
    writeln!(r)?;
    Ok(r)
}

/// The table's CSV: the fixture, or generated into the directory.
fn table_csv(
    runner: &Runner,
    source: Source,
    rows: u64,
    seed: u64,
) -> Result<(PathBuf, u64), BoxError> {
    if source == Source::Adult {
        let csv = repo("fixtures/adult/adult.csv");
        let lines = std::io::BufRead::split(std::io::BufReader::new(File::open(&csv)?), b'\n');
        return Ok((csv, lines.count() as u64 - 1));
    }
    let exe = std::env::current_exe()?;
    let (program, mut args) = match source {
        Source::AdultStream => (exe.with_file_name("adult-stream-gen"), Vec::new()),
        _ => {
            let kind = if source == Source::Mixed {
                Kind::Mixed
            } else {
                Kind::Numeric
            };
            let args = vec!["--kind".to_owned(), kind.name().to_owned()];
            (exe.with_file_name("gen-table"), args)
        }
    };
    args.extend([
        "--rows".to_owned(),
        rows.to_string(),
        "--seed".to_owned(),
        seed.to_string(),
    ]);
    let csv = runner.path("table.csv");
    let c = command(
        &program,
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let made = runner.measure_once(c, Some(&csv))?;
    if let Some(e) = made.error {
        return Err(format!("{}: {e}", program.display()).into());
    }
    Ok((csv, rows))
}

// Long: one table after the other, each through karc (two configs) and the five baselines
fn run(args: &Args) -> Result<String, BoxError> {
    let karc = match &args.karc {
        Some(k) => k.clone(),
        None => std::env::current_exe()?.with_file_name("karc"),
    };
    let karc = Karc::keys(karc)?;
    let tmp = match &args.dir {
        Some(dir) => tempfile::Builder::new()
            .prefix("bench_scale")
            .tempdir_in(dir)?,
        None => tempfile::Builder::new().prefix("bench_scale").tempdir()?,
    };
    let runner = Runner {
        dir: tmp.path().to_owned(),
        limits: Limits {
            address_space: Some(args.mem_limit_gib * GIB),
            cpu_seconds: Some(3600),
        },
    };
    let python = Command::new(&args.python)
        .args(["-c", "import pyarrow"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let zli = find_zli(args.zli.as_deref());
    let mut versions = vec![match &zli {
        Some(z) => format!("zli: {}", z.display()),
        None => "zli not found (give --zli PATH): its column is empty".to_owned(),
    }];
    if !python {
        versions.push(format!(
            "{} has no pyarrow: Parquet skipped",
            args.python.display()
        ));
    }
    let sources = if args.inputs.is_empty() {
        Source::ALL.to_vec()
    } else {
        args.inputs.clone()
    };
    let setups = if args.configs.is_empty() {
        vec![Setup::Hand, Setup::Init]
    } else {
        args.configs.clone()
    };
    let mut rows = Vec::new();
    for source in sources {
        eprintln!("bench_scale: {}: writing the table", source.name());
        let (csv, n) = table_csv(&runner, source, args.rows, args.seed)?;
        let mut karc_runs = Vec::new();
        for &setup in &setups {
            eprintln!(
                "bench_scale: {}: karc, {} config",
                source.name(),
                setup.name()
            );
            let config = match setup {
                Setup::Hand => source.config(),
                Setup::Init => match karc.init(&runner, &csv)? {
                    Ok(c) => c,
                    Err(e) => {
                        eprintln!("bench_scale: {}: karc init failed: {e}", source.name());
                        continue;
                    }
                },
            };
            karc_runs.push(karc.measure(&runner, setup, &config, &csv)?);
        }
        eprintln!("bench_scale: {}: baselines", source.name());
        let mut baselines = vec![zip(&runner, &csv)?];
        let tools: [(&str, &str, &str, &str); 2] = [
            ("xz -9", "xz", "-9 -T1 -c {in}", "-d -c {in}"),
            (
                "zstd -19 --long",
                "zstd",
                "-19 --long -T1 -q -c {in}",
                "-d --long=31 -q -c {in}",
            ),
        ];
        for (name, program, compress, decompress) in tools {
            baselines.push(baseline(
                &runner,
                name,
                Path::new(program),
                (compress, Some(decompress)),
                &csv,
            )?);
        }
        if python {
            // Every table here is comma-separated.
            let delimiter = ",";
            let out = runner.path("table.parquet");
            let mut c = Command::new(&args.python);
            c.arg("-c").arg(PARQUET).arg(&csv).arg(&out).arg(delimiter);
            let m = runner.measure_once(c, None)?;
            baselines.push(Baseline {
                name: "Parquet + zstd".to_owned(),
                bytes: m.ok().then(|| size(&out)),
                compress: m,
                decompress: None,
                exact: false,
            });
            let _ = std::fs::remove_file(&out);
        }
        if let Some(zli) = &zli {
            baselines.push(baseline(
                &runner,
                "zli (CSV profile)",
                zli,
                (&args.zli_compress, Some(&args.zli_decompress)),
                &csv,
            )?);
        }
        rows.push(Row {
            name: source.name().to_owned(),
            rows: n,
            csv_bytes: size(&csv),
            karc: karc_runs,
            baselines,
        });
        if source != Source::Adult {
            let _ = std::fs::remove_file(&csv);
        }
        // The report so far, after each table: a long run that is stopped
        // keeps what it measured.
        let text = report(args, &versions.join("; "), &rows)?;
        if let Some(path) = &args.partial {
            std::fs::write(path, &text)?;
        }
    }
    report(args, &versions.join("; "), &rows)
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(text) => {
            print!("{text}");
            if args.write {
                let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("BENCHMARKS.md");
                let old = std::fs::read_to_string(&path).unwrap_or_default();
                let new = replace_section(&old, SECTION, &text);
                if let Err(e) = std::fs::write(&path, new) {
                    eprintln!("bench_scale: error: {}: {e}", path.display());
                    return ExitCode::from(2);
                }
                eprintln!("bench_scale: wrote {}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bench_scale: error: {e}");
            ExitCode::from(2)
        }
    }
}

//! Issue 16's acceptance benchmark, in one run: for each input (the Adult
//! fixture; `adult-stream-gen` and both kinds of `gen-table` at `--rows`;
//! with `--ten-million`, `adult-stream-gen` at 10M rows too) it writes the
//! CSV into a temporary directory, then runs as child processes, each
//! measured through `wait4` (wall time, CPU time, peak resident set) under
//! an address-space and CPU cap: `karc pack` (Mondrian k = 10, default
//! mode, the whole process including the anonymization, sealed for the test
//! recipient of `fixtures/archive/keys`), `karc restore` (checked with
//! `cmp`), `zip -6`, `unzip` (checked too), `xz -6`, `zstd -19` and, when a
//! Python with pyarrow is given, Parquet with zstd. It prints Markdown
//! tables of sizes, times, peak memory and the issue's ratios with yes/no
//! against its bars, and the Adult fixture's Datafly k = 5 file against
//! 66,000 B. A karc that fails (out of memory, killed) is reported in the
//! tables, with its exit and peak memory, instead of stopping the run.
//!
//! ```sh
//! cargo build --release --workspace
//! cargo run --release -p karc-tools --bin bench_format -- [--rows 1000000] [--ten-million] \
//!   [--python VENV/bin/python3] [--write]
//! ```
//! `--write` replaces this benchmark's section of `tools/BENCHMARKS.md`.
//! `karc`, `adult-stream-gen` and `gen-table` are taken from this binary's
//! directory (`target/release`).

use std::fmt::Write as _;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::str::FromStr;

use clap::Parser;
use karc::config::Config;
use karc_tools::bench::{BoxError, FORMAT_SECTION, Limits, machine, replace_section};
use karc_tools::measured::{MIB, Measured, Runner, Source, load_average, repo, same_bytes, size};
use karc_tools::realistic::Kind;

const GIB: u64 = 1 << 30;

#[derive(Debug, Parser)]
#[command(
    about = "Issue 16's acceptance benchmark: karc pack and restore against zip, xz, zstd \
                   and Parquet on Adult, adult-stream-gen and gen-table, as child processes"
)]
struct Args {
    /// Rows of each generated table.
    #[arg(long, default_value_t = 1_000_000)]
    rows: u64,
    /// Also measure adult-stream-gen at 10,000,000 rows.
    #[arg(long)]
    ten_million: bool,
    /// The inputs to measure, comma-separated (default: all).
    #[arg(long, value_enum, value_delimiter = ',')]
    inputs: Vec<Source>,
    /// Seed of the generated tables.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Runs of each command on a generated table (median times, highest peak).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    runs: u64,
    /// Runs of each command on the Adult fixture, whose processes take milliseconds.
    #[arg(long, default_value_t = 11, value_parser = clap::value_parser!(u64).range(1..))]
    adult_runs: u64,
    /// Address space of each child, in GiB (RLIMIT_AS): a runaway process fails alone.
    #[arg(long, default_value_t = 8)]
    mem_limit_gib: u64,
    /// CPU seconds of each child (RLIMIT_CPU).
    #[arg(long, default_value_t = 3600)]
    cpu_limit_s: u64,
    /// A Python with pyarrow, for Parquet + zstd (skipped, and said so, without it).
    #[arg(long, default_value = "python3")]
    python: PathBuf,
    /// Pack with --no-encryption instead of sealing for the test recipient.
    #[arg(long)]
    no_encryption: bool,
    /// The karc binary (default: the one built beside this binary).
    #[arg(long)]
    karc: Option<PathBuf>,
    /// Where the inputs and outputs are written (a temporary directory in
    /// it, removed at the end; default: the system's temporary directory).
    /// 10M rows take about 1.1 GB of CSV and as much again of output.
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Threads of xz and zstd on tables above 1M rows (`-T`): at 10M rows
    /// each takes many CPU minutes. At 1M rows and below they run on one.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    big_threads: u32,
    /// Also write the report into its section of tools/BENCHMARKS.md.
    #[arg(long)]
    write: bool,
}

/// A binary built beside this one (target/release).
fn sibling(name: &str) -> Result<PathBuf, BoxError> {
    let exe = std::env::current_exe()?;
    let path = exe.with_file_name(name);
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "{}: not found: build it first with `cargo build --release --workspace`",
            path.display()
        )
        .into())
    }
}

/// Streams a CSV into a Parquet file with zstd, every column as text (the
/// cells' exact spelling, as karc keeps it), batch by batch.
const PARQUET: &str = r#"
import csv, sys
import pyarrow as pa, pyarrow.csv as pc, pyarrow.parquet as pq
src, dst, delimiter = sys.argv[1], sys.argv[2], sys.argv[3]
with open(src, newline="") as f:
    names = next(csv.reader(f, delimiter=delimiter))
reader = pc.open_csv(
    src,
    read_options=pc.ReadOptions(block_size=1 << 24),
    parse_options=pc.ParseOptions(delimiter=delimiter),
    convert_options=pc.ConvertOptions(column_types={n: pa.string() for n in names}),
)
with pq.ParquetWriter(dst, reader.schema, compression="zstd") as w:
    for batch in reader:
        w.write_batch(batch)
"#;

/// `karc pack`, and `karc restore` with its check when the pack succeeded.
struct KarcRun {
    pack: Measured,
    karc_bytes: Option<u64>,
    restore: Option<Measured>,
    restored_exact: Option<bool>,
}

impl KarcRun {
    /// The restore, when it ran and gave the input's bytes.
    fn exact_restore(&self) -> Option<&Measured> {
        self.restore
            .as_ref()
            .filter(|m| m.ok() && self.restored_exact == Some(true))
    }
}

/// One input measured.
struct Row {
    name: String,
    rows: u64,
    csv_bytes: u64,
    karc: KarcRun,
    zip: Measured,
    zip_bytes: u64,
    unzip: Measured,
    unzipped_exact: bool,
    xz: Measured,
    xz_bytes: u64,
    zstd: Measured,
    zstd_bytes: u64,
    parquet: Option<(Measured, u64)>,
}

impl Row {
    /// The issue's memory bar: 1 GiB up to 1M rows, 4 GiB at 10M.
    fn rss_bar(&self) -> u64 {
        if self.rows > 1_000_000 { 4 * GIB } else { GIB }
    }

    /// The highest peak of karc's pack and restore.
    fn karc_peak(&self) -> u64 {
        let restore = self.karc.restore.as_ref().map_or(0, |r| r.run.peak_rss);
        self.karc.pack.run.peak_rss.max(restore)
    }
}

/// The karc commands' shared arguments: how to seal and open.
struct Keys {
    seal: Vec<String>,
    open: Vec<String>,
    described: String,
}

fn keys(no_encryption: bool) -> Result<Keys, BoxError> {
    if no_encryption {
        return Ok(Keys {
            seal: vec!["--no-encryption".to_owned()],
            open: Vec::new(),
            described: "unsealed (`--no-encryption`)".to_owned(),
        });
    }
    let identity_file = repo("fixtures/archive/keys/identity.txt");
    let text = std::fs::read_to_string(&identity_file)?;
    let secret = text
        .lines()
        .find(|l| l.starts_with("AGE-SECRET-KEY-"))
        .ok_or_else(|| format!("{}: no AGE-SECRET-KEY line", identity_file.display()))?;
    let recipient = age::x25519::Identity::from_str(secret)?.to_public();
    Ok(Keys {
        seal: vec!["-r".to_owned(), recipient.to_string()],
        open: vec!["-i".to_owned(), identity_file.display().to_string()],
        described: "sealed for the X25519 test recipient of `fixtures/archive/keys` (`-r`)"
            .to_owned(),
    })
}

/// The sizes of the CSV written by `karc pack` and restored, or the failure.
struct Karc<'a> {
    karc: PathBuf,
    keys: &'a Keys,
}

impl Karc<'_> {
    /// `karc pack` with this algorithm and k, then `karc restore` and `cmp`.
    fn pack_restore(
        &self,
        runner: &Runner,
        runs: u64,
        config: &Path,
        csv: &Path,
        (algorithm, k): (&str, usize),
    ) -> Result<KarcRun, BoxError> {
        let archive = runner.dir.join("table.karc");
        let restored = runner.dir.join("restored.csv");
        let pack = runner.measure(runs, None, || {
            let mut c = Command::new(&self.karc);
            c.arg("pack")
                .arg("-c")
                .arg(config)
                .arg(csv)
                .arg("-o")
                .arg(&archive)
                .args(["-a", algorithm, "-k", &k.to_string()])
                .args(&self.keys.seal);
            c
        })?;
        if !pack.ok() {
            return Ok(KarcRun {
                pack,
                karc_bytes: None,
                restore: None,
                restored_exact: None,
            });
        }
        let karc_bytes = size(&archive);
        let restore = runner.measure(runs, None, || {
            let mut c = Command::new(&self.karc);
            // Each timed run writes over the last one's output.
            c.arg("restore")
                .arg(&archive)
                .arg("-o")
                .arg(&restored)
                .arg("--force")
                .args(&self.keys.open);
            c
        })?;
        let exact = restore.ok() && same_bytes(csv, &restored)?;
        let _ = std::fs::remove_file(&restored);
        let _ = std::fs::remove_file(&archive);
        Ok(KarcRun {
            pack,
            karc_bytes: Some(karc_bytes),
            restore: Some(restore),
            restored_exact: Some(exact),
        })
    }

    /// The file `karc pack --no-encryption` writes with this algorithm and
    /// k: its bytes, and its public plus private parts (`karc inspect
    /// --json`); `None` when either command fails.
    fn unsealed(
        &self,
        dir: &Path,
        config: &Path,
        csv: &Path,
        (algorithm, k): (&str, usize),
    ) -> Result<Option<(u64, u64)>, BoxError> {
        let archive = dir.join("unsealed.karc");
        let packed = Command::new(&self.karc)
            .arg("pack")
            .arg("-c")
            .arg(config)
            .arg(csv)
            .arg("-o")
            .arg(&archive)
            .args(["-a", algorithm, "-k", &k.to_string(), "--no-encryption"])
            .output()?;
        if !packed.status.success() {
            return Ok(None);
        }
        let inspected = Command::new(&self.karc)
            .args(["inspect", "--json"])
            .arg(&archive)
            .output()?;
        let _ = std::fs::remove_file(&archive);
        if !inspected.status.success() {
            return Ok(None);
        }
        let json: serde_json::Value = serde_json::from_slice(&inspected.stdout)?;
        let field = |name: &str| json[name].as_u64();
        Ok(
            match (
                field("file_bytes"),
                field("public_bytes"),
                field("private_bytes"),
            ) {
                (Some(file), Some(public), Some(private)) => Some((file, public + private)),
                _ => None,
            },
        )
    }
}

/// Measures every tool on `csv`.
fn measure_input(
    runner: &Runner,
    karc: &Karc<'_>,
    python: Option<&Path>,
    (runs, big_threads): (u64, u32),
    (name, rows): (String, u64),
    config: &Path,
    csv: &Path,
) -> Result<Row, BoxError> {
    let dir = &runner.dir;
    eprintln!("bench_format: {name}: karc pack and restore");
    let karc = karc.pack_restore(runner, runs, config, csv, ("mondrian", 10))?;

    eprintln!("bench_format: {name}: zip, unzip, xz, zstd");
    let zip_path = dir.join("table.zip");
    let zip = runner.measure(runs, None, || {
        // zip adds to an existing archive: start from none each run.
        let _ = std::fs::remove_file(&zip_path);
        let mut c = Command::new("zip");
        c.args(["-6", "-q", "-j"]).arg(&zip_path).arg(csv);
        c
    })?;
    let zip_bytes = size(&zip_path);
    let unzip_dir = dir.join("unzipped");
    let unzip = runner.measure(runs, None, || {
        let mut c = Command::new("unzip");
        c.args(["-q", "-o"])
            .arg(&zip_path)
            .arg("-d")
            .arg(&unzip_dir);
        c
    })?;
    let unzipped = unzip_dir.join(csv.file_name().expect("a file name"));
    let unzipped_exact = unzip.ok() && same_bytes(csv, &unzipped)?;
    let _ = std::fs::remove_dir_all(&unzip_dir);
    let _ = std::fs::remove_file(&zip_path);

    let compressed = dir.join("table.out");
    let compress = |program: &str, args: &[&str]| -> Result<(Measured, u64), BoxError> {
        let m = runner.measure(1, Some(&compressed), || {
            let mut c = Command::new(program);
            c.args(args).arg(csv);
            c
        })?;
        let bytes = size(&compressed);
        let _ = std::fs::remove_file(&compressed);
        Ok((m, bytes))
    };
    let threads = format!("-T{}", compress_threads(rows, big_threads));
    let (xz, xz_bytes) = compress("xz", &["-6", &threads, "-c"])?;
    let (zstd, zstd_bytes) = compress("zstd", &["-19", &threads, "-q", "-c"])?;
    let parquet = match python {
        Some(py) => {
            eprintln!("bench_format: {name}: Parquet");
            let delimiter = Config::load(config)?.delimiter()?.unwrap_or(b',') as char;
            let out = dir.join("table.parquet");
            let m = runner.measure(1, None, || {
                let mut c = Command::new(py);
                c.arg("-c")
                    .arg(PARQUET)
                    .arg(csv)
                    .arg(&out)
                    .arg(delimiter.to_string());
                c
            })?;
            let bytes = size(&out);
            let _ = std::fs::remove_file(&out);
            Some((m, bytes))
        }
        None => None,
    };
    Ok(Row {
        name,
        rows,
        csv_bytes: size(csv),
        karc,
        zip,
        zip_bytes,
        unzip,
        unzipped_exact,
        xz,
        xz_bytes,
        zstd,
        zstd_bytes,
        parquet,
    })
}

/// The threads xz and zstd get on a table of `rows`: one up to 1M rows,
/// `big` above.
fn compress_threads(rows: u64, big: u32) -> u32 {
    if rows > 1_000_000 { big } else { 1 }
}

/// The version a program prints with these arguments: the first word of
/// its output that is a dotted number (`3.0`, `v1.5.4,` as `1.5.4`).
fn version(program: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    text.split_whitespace().find_map(|word| {
        let v = word
            .trim_start_matches('v')
            .trim_end_matches([',', ';', ')']);
        let dotted = v.contains('.') && v.bytes().all(|b| b.is_ascii_digit() || b == b'.');
        (dotted && v.starts_with(|c: char| c.is_ascii_digit())).then(|| v.to_owned())
    })
}

/// A ratio with its bar: the figure and yes/no, or `-` and `no` when a side
/// failed.
fn ratio(x: Option<f64>, bar: f64) -> (String, &'static str) {
    match x {
        Some(x) => (format!("{x:.2}"), if x <= bar { "yes" } else { "no" }),
        None => ("-".to_owned(), "no"),
    }
}

/// A wall-time ratio with the CPU-time ratio of the same two runs beside it.
fn with_cpu(wall: String, runs: Option<(&Measured, &Measured)>) -> String {
    match runs {
        Some((a, b)) => format!("{wall} ({:.2})", a.run.cpu_ms / b.run.cpu_ms),
        None => wall,
    }
}

/// A failed command as a list item: its exit, time, peak and last stderr line.
fn failure(input: &str, what: &str, m: &Measured) -> String {
    format!(
        "- {input}, {what}: {} after {:.1} s at a peak of {:.1} MiB: `{}`",
        m.run.exit,
        m.secs(),
        m.rss_mib(),
        m.error.as_deref().unwrap_or("")
    )
}

fn opt<T: std::fmt::Display>(x: Option<T>) -> String {
    x.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// The Adult fixture, Datafly k = 5: the file against 66,000 B and restore
/// against unzip (measured on the same CSV in the main table).
struct AdultDatafly {
    karc: KarcRun,
    unzip: Measured,
    /// The same file unsealed (`--no-encryption`, deterministic): its
    /// bytes, and its public plus private parts as `karc compare` totals
    /// them (the measure of the 70,617 B the issue quoted).
    unsealed: Option<(u64, u64)>,
}

fn report(
    args: &Args,
    keys: &Keys,
    versions: &str,
    rows: &[Row],
    datafly: Option<&AdultDatafly>,
) -> Result<String, BoxError> {
    let mut r = String::new();
    let command: Vec<String> = std::env::args().skip(1).collect();
    writeln!(r, "{FORMAT_SECTION}\n")?;
    writeln!(
        r,
        "Generated by `cargo run --release -p karc-tools --bin bench_format --{}{}` on {}; {versions}. \
         Each input is written to a temporary directory (generated tables with seed {}), then every \
         command runs as a child process, measured through `wait4`: wall seconds, CPU seconds \
         (user + system) in parentheses, peak resident set (`ru_maxrss`) in MiB; each child runs \
         under `RLIMIT_AS` = {} GiB and `RLIMIT_CPU` = {} s, so a karc that runs out of memory \
         fails alone and is reported here. karc, zip and unzip: on generated tables the median of \
         {} run(s), on the Adult fixture of {} run(s) (peak: the highest); xz, zstd and Parquet: \
         one run.\n\n\
         `karc pack` is the whole process (read, Mondrian k = 10, pack in the default difference \
         mode, write), {}; `karc restore` writes the CSV, which `cmp` compares with the input; \
         `zip -6 -j` and `unzip -o` (checked with `cmp` too), `xz -6` and `zstd -19` (to a \
         file; on one thread, `-T1`, up to 1M rows, on {} above, `-T{}`, as they take many CPU \
         minutes there), and Parquet: pyarrow streaming the CSV into one file with zstd at its default \
         level, every column as text (each cell's exact spelling, as karc keeps it). Inputs and \
         configs (`-a mondrian -k 10` on the command line): `fixtures/adult/adult.csv` with \
         `fixtures/adult/adult.toml` (9 categorical QIs); `adult-stream-gen --rows N` with \
         `fixtures/adult-raw/adult-stream.toml` (raw Adult's 15 columns, 10 QIs); `gen-table \
         --kind mixed --rows N` with `tools/realistic.toml` (13 columns: claim id, timestamp, \
         age/sex/zip QIs, coordinates, categories, amount, ratio, diagnosis, free text; empty \
         cells) and `gen-table --kind numeric --rows N` with `tools/realistic-numeric.toml` \
         (10 columns: id, age/income/latitude/longitude QIs, ratios, balance, score).\n",
        if command.is_empty() { "" } else { " " },
        command.join(" "),
        machine(),
        args.seed,
        args.mem_limit_gib,
        args.cpu_limit_s,
        args.runs,
        args.adult_runs,
        keys.described,
        args.big_threads,
        args.big_threads,
    )?;
    writeln!(
        r,
        "The machine is shared: {} (load average when the report was written; other engineers \
         build and test on the same cores), so wall times carry their load: ratios compare \
         commands of the same run, measured one after the other on the same input.\n",
        load_average()
    )?;

    writeln!(r, "### Sizes (bytes)\n")?;
    writeln!(
        r,
        "| input | rows | CSV | karc | zip -6 | xz -6 | zstd -19 | Parquet + zstd |"
    )?;
    writeln!(
        r,
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    )?;
    for row in rows {
        writeln!(
            r,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            row.name,
            row.rows,
            row.csv_bytes,
            opt(row.karc.karc_bytes),
            row.zip_bytes,
            row.xz_bytes,
            row.zstd_bytes,
            opt(row.parquet.as_ref().map(|p| p.1)),
        )?;
    }

    writeln!(
        r,
        "\n### Times: wall s (CPU s); peak RSS MiB\n\n\
         | input | karc pack | pack RSS | karc restore | restore RSS | restored exactly | zip -6 | unzip | xz -6 | zstd -19 | Parquet + zstd |\n\
         | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |"
    )?;
    for row in rows {
        writeln!(
            r,
            "| {} | {} | {:.1} | {} | {} | {} | {} | {}{} | {} | {} | {} |",
            row.name,
            row.karc.pack.cell(),
            row.karc.pack.rss_mib(),
            opt(row.karc.restore.as_ref().map(Measured::cell)),
            opt(row
                .karc
                .restore
                .as_ref()
                .map(|m| format!("{:.1}", m.rss_mib()))),
            opt(row.karc.restored_exact.map(yes_no)),
            row.zip.cell(),
            row.unzip.cell(),
            if row.unzipped_exact { "" } else { " (differs)" },
            row.xz.cell(),
            row.zstd.cell(),
            opt(row.parquet.as_ref().map(|p| p.0.cell())),
        )?;
    }

    writeln!(
        r,
        "\n### Issue 16's bars\n\n\
         Pack time / zip time <= 3, karc file / xz file <= 1, restore time / unzip time <= 1.5 \
         (wall times, which the bars judge; CPU times' ratio in parentheses: karc uses a second \
         thread, zip and unzip one; the restore checked byte for byte), and karc's peak resident set (the \
         higher of pack and restore) <= 1 GiB up to 1M rows, <= 4 GiB above. The issue sets them \
         at 1M and 10M rows; smaller tables are held to the same bars.\n\n\
         | input | rows | pack / zip | <= 3 | karc / xz | <= 1 | restore / unzip | <= 1.5 | peak RSS MiB | <= bar | all bars |\n\
         | --- | ---: | ---: | --- | ---: | --- | ---: | --- | ---: | --- | --- |"
    )?;
    for row in rows {
        let k = &row.karc;
        let packed = k.pack.ok();
        let (pack_zip, pz) = ratio(packed.then(|| k.pack.secs() / row.zip.secs()), 3.0);
        let pack_zip = with_cpu(pack_zip, packed.then_some((&k.pack, &row.zip)));
        let (size_xz, sx) = ratio(k.karc_bytes.map(|b| b as f64 / row.xz_bytes as f64), 1.0);
        let restored = k.exact_restore();
        let (restore_unzip, ru) = ratio(restored.map(|m| m.secs() / row.unzip.secs()), 1.5);
        let restore_unzip = with_cpu(restore_unzip, restored.map(|m| (m, &row.unzip)));
        let peak = row.karc_peak();
        let memory = packed && peak <= row.rss_bar();
        let all = [pz, sx, ru].iter().all(|&v| v == "yes") && memory;
        writeln!(
            r,
            "| {} | {} | {pack_zip} | {pz} | {size_xz} | {sx} | {restore_unzip} | {ru} | {:.1} | {} | {} |",
            row.name,
            row.rows,
            peak as f64 / MIB,
            yes_no(memory),
            yes_no(all),
        )?;
    }

    if let Some(d) = datafly {
        let k = &d.karc;
        let (size, sb) = ratio(k.karc_bytes.map(|b| b as f64 / 66_000.0), 1.0);
        let (total, tb) = ratio(d.unsealed.map(|u| u.1 as f64 / 66_000.0), 1.0);
        let restored = k.exact_restore();
        let (restore_unzip, ru) = ratio(restored.map(|m| m.secs() / d.unzip.secs()), 1.0);
        writeln!(
            r,
            "\n### Adult fixture, Datafly k = 5, default mode\n\n\
             The issue's bar: the file <= 66,000 B (70,617 B when it was filed), restore <= \
             unzip's time; {} run(s), same sealing. The 70,617 B the issue quoted was `karc \
             compare`'s total, the public plus the private part (README at f5f33b4), without the \
             container's table nor a seal; the same file unsealed, and that total, are measured \
             beside it (deterministic bytes; the age envelope of a sealed file adds about 300 B, \
             varying with its random grease stanza).\n\n\
             | karc B | / 66,000 | <= 1 | unsealed B | public + private B | / 66,000 | <= 1 | karc pack | karc restore | restored exactly | unzip | restore / unzip | <= 1 |\n\
             | ---: | ---: | --- | ---: | ---: | ---: | --- | ---: | ---: | --- | ---: | ---: | --- |\n\
             | {} | {size} | {sb} | {} | {} | {total} | {tb} | {} | {} | {} | {} | {restore_unzip} | {ru} |",
            args.adult_runs,
            opt(k.karc_bytes),
            opt(d.unsealed.map(|u| u.0)),
            opt(d.unsealed.map(|u| u.1)),
            k.pack.cell(),
            opt(k.restore.as_ref().map(Measured::cell)),
            opt(k.restored_exact.map(yes_no)),
            d.unzip.cell(),
        )?;
    }

    let mut failures = Vec::new();
    let mut karc_failures = |name: &str, k: &KarcRun| {
        for (what, m) in [
            ("karc pack", Some(&k.pack)),
            ("karc restore", k.restore.as_ref()),
        ] {
            if let Some(m) = m.filter(|m| !m.ok()) {
                failures.push(failure(name, what, m));
            }
        }
        if k.restored_exact == Some(false) && k.restore.as_ref().is_some_and(Measured::ok) {
            failures.push(format!(
                "- {name}, karc restore: the output differs from the CSV"
            ));
        }
    };
    for row in rows {
        karc_failures(&row.name, &row.karc);
    }
    if let Some(d) = datafly {
        karc_failures("Adult fixture, Datafly k = 5", &d.karc);
    }
    for row in rows {
        let named = [
            ("zip", Some(&row.zip)),
            ("unzip", Some(&row.unzip)),
            ("xz", Some(&row.xz)),
            ("zstd", Some(&row.zstd)),
            ("Parquet", row.parquet.as_ref().map(|p| &p.0)),
        ];
        for (what, m) in named {
            if let Some(m) = m.filter(|m| !m.ok()) {
                failures.push(failure(&row.name, what, m));
            }
        }
        if row.unzip.ok() && !row.unzipped_exact {
            failures.push(format!(
                "- {}, unzip: the output differs from the CSV",
                row.name
            ));
        }
    }
    if !failures.is_empty() {
        writeln!(r, "\n### Failures\n\n{}", failures.join("\n"))?;
    }
    writeln!(r)?;
    Ok(r)
}

fn run(args: &Args) -> Result<String, BoxError> {
    let karc = match &args.karc {
        Some(k) => k.clone(),
        None => sibling("karc")?,
    };
    let keys = keys(args.no_encryption)?;
    let karc = Karc { karc, keys: &keys };
    let tmp = match &args.dir {
        Some(dir) => tempfile::Builder::new()
            .prefix("bench_format")
            .tempdir_in(dir)?,
        None => tempfile::Builder::new().prefix("bench_format").tempdir()?,
    };
    let runner = Runner {
        dir: tmp.path().to_owned(),
        limits: Limits {
            address_space: Some(args.mem_limit_gib * GIB),
            cpu_seconds: Some(args.cpu_limit_s),
        },
    };
    let python = Command::new(&args.python)
        .args(["-c", "import pyarrow"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
        .then_some(args.python.as_path());
    let mut versions: Vec<String> = [("zip", "-v"), ("xz", "--version"), ("zstd", "--version")]
        .into_iter()
        .map(
            |(program, flag)| match version(Path::new(program), &[flag]) {
                Some(v) => format!("{program} {v}"),
                None => format!("{program} (version unknown)"),
            },
        )
        .collect();
    match python {
        Some(py) => versions.push(format!(
            "pyarrow {}",
            opt(version(
                py,
                &["-c", "import pyarrow; print(pyarrow.__version__)"]
            ))
        )),
        None => {
            eprintln!(
                "bench_format: {} has no pyarrow: Parquet skipped (python3 -m venv DIR && \
                 DIR/bin/pip install pyarrow, then --python DIR/bin/python3)",
                args.python.display()
            );
            versions.push(format!(
                "Parquet skipped: `{}` has no pyarrow (give `--python` one that has)",
                args.python.display()
            ));
        }
    }
    let versions = versions.join(", ");

    let sources = if args.inputs.is_empty() {
        Source::ALL.to_vec()
    } else {
        args.inputs.clone()
    };
    let mut plan: Vec<(Source, u64)> = Vec::new();
    for &s in &sources {
        plan.push((s, if s == Source::Adult { 0 } else { args.rows }));
    }
    if args.ten_million {
        plan.push((Source::AdultStream, 10_000_000));
    }

    let mut rows = Vec::new();
    let mut datafly = None;
    for (source, n) in plan {
        let config = source.config();
        let (csv, runs, n) = match source {
            Source::Adult => {
                let csv = repo("fixtures/adult/adult.csv");
                // Data rows: lines less the header, counted without loading the file.
                let lines =
                    std::io::BufRead::split(std::io::BufReader::new(File::open(&csv)?), b'\n');
                let n = lines.count() as u64 - 1;
                (csv, args.adult_runs, n)
            }
            _ => {
                let csv = runner.dir.join("table.csv");
                eprintln!("bench_format: {}: writing {n} rows", source.name());
                let (program, mut gen_args) = match source {
                    Source::AdultStream => (sibling("adult-stream-gen")?, Vec::new()),
                    _ => {
                        let kind = if source == Source::Mixed {
                            Kind::Mixed
                        } else {
                            Kind::Numeric
                        };
                        (
                            sibling("gen-table")?,
                            vec!["--kind".to_owned(), kind.name().to_owned()],
                        )
                    }
                };
                gen_args.extend(["--rows".to_owned(), n.to_string()]);
                gen_args.extend(["--seed".to_owned(), args.seed.to_string()]);
                let made = runner.measure(1, Some(&csv), || {
                    let mut c = Command::new(&program);
                    c.args(&gen_args);
                    c
                })?;
                if !made.ok() {
                    return Err(format!(
                        "{}: {}: {}",
                        source.name(),
                        made.run.exit,
                        made.error.unwrap_or_default()
                    )
                    .into());
                }
                (csv, args.runs, n)
            }
        };
        let row = measure_input(
            &runner,
            &karc,
            python,
            (runs, args.big_threads),
            (source.name().to_owned(), n),
            &config,
            &csv,
        )?;
        if source == Source::Adult {
            eprintln!("bench_format: Adult fixture: Datafly k = 5");
            datafly = Some(AdultDatafly {
                karc: karc.pack_restore(&runner, runs, &config, &csv, ("datafly", 5))?,
                unzip: row.unzip.clone(),
                unsealed: karc.unsealed(&runner.dir, &config, &csv, ("datafly", 5))?,
            });
        } else {
            let _ = std::fs::remove_file(&csv);
        }
        rows.push(row);
    }
    report(args, &keys, &versions, &rows, datafly.as_ref())
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(text) => {
            print!("{text}");
            if args.write {
                let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("BENCHMARKS.md");
                let old = std::fs::read_to_string(&path).unwrap_or_default();
                let new = replace_section(&old, FORMAT_SECTION, &text);
                if let Err(e) = karc::io::write_atomically(&path, |w| {
                    std::io::Write::write_all(w, new.as_bytes())
                }) {
                    eprintln!("bench_format: error: {}: {e}", path.display());
                    return ExitCode::from(2);
                }
                eprintln!("bench_format: wrote {}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bench_format: error: {e}");
            ExitCode::from(2)
        }
    }
}

//! Writes the reproduction report: karc's numbers beside the papers'.
//!
//! - Paper 004: the reduction of the compression rate against zip for the
//!   original data (karc's private part against zip of the original CSV) and
//!   for the anonymized data (karc's public part against zip of the release
//!   CSV), for Incognito, Datafly, Top-down, Mondrian and Basic Mondrian at
//!   k = 5, 10, 50, 100, in the paper's difference mode and in karc's default
//!   mode, with pack and restore times against zip and unzip;
//! - paper 001: MA-Datafly against Datafly (Precision over k);
//! - paper 000: Classfly+ against Datafly (Precision on its workload).
//!
//! ```sh
//! cargo run --release -p karc-tools --bin reproduce -- -o tools/REPRODUCTION.md
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use karc::anonymize::{self, Algorithm};
use karc::codec::DiffMode;
use karc::compare::{CompareOptions, CompareRow, compare};
use karc::config::Config;
use karc::dataset::Dataset;
use karc::metrics::measure;
use karc::privacy::PrivacyModel;
use karc_tools::paper000;
use karc_tools::paper004::{self, FIGURES};

#[derive(Debug, Parser)]
#[command(about = "Reproduce the papers' comparisons and write the report as Markdown")]
struct Args {
    /// Where to write the report (standard output when absent).
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Timed runs of each pack, restore, zip and unzip (the fastest counts).
    #[arg(long, default_value_t = 3)]
    repeats: usize,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn pct(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

fn find<'a>(rows: &'a [CompareRow], algorithm: &str, k: usize, mode: DiffMode) -> &'a CompareRow {
    rows.iter()
        .find(|r| r.algorithm == algorithm && r.k == k && r.mode == mode.name())
        .expect("every cell was measured")
}

fn paper004_section(out: &mut String, repeats: usize) -> karc::Result<()> {
    let config = Config::load(&root().join("fixtures/adult/adult.toml"))?;
    let input = root().join("fixtures/adult/adult.csv");
    let options = CompareOptions {
        algorithms: FIGURES
            .iter()
            .map(|f| Algorithm::from_name(f.algorithm))
            .collect::<karc::Result<_>>()?,
        ks: paper004::K.to_vec(),
        modes: vec![DiffMode::Paper, DiffMode::default()],
        baselines: false,
        repeats,
    };
    let rows = compare(&config, &input, &options, &mut |_| {})?;
    let default = DiffMode::default();
    let first = &rows[0];
    let _ = writeln!(
        out,
        "## Paper 004: karc against zip on Adult\n\n\
         Adult, {} rows, 9 quasi-identifiers (`fixtures/adult/adult.toml`), suppression limit 0. \
         Original CSV {} B; zip of it (the zip crate, deflate at its default level, as a user's zip tool) \
         {} B, a rate of {} (the paper's Windows 11 zip: {:.2} %). karc's default difference mode is `{}`.\n",
        first.rows,
        first.original_bytes,
        first.zip_original_bytes,
        pct(first.zip_rate_original),
        paper004::ZIP_ORIGINAL_RATE,
        default.name()
    );
    let _ = writeln!(
        out,
        "### Original data: reduction of the rate against zip (private part against zip of the original)\n\n\
         | algorithm | k | paper | karc, paper mode | karc, default mode | private bytes (paper / default) |\n\
         | --- | ---: | ---: | ---: | ---: | ---: |"
    );
    let (mut sum_paper, mut sum_pm, mut sum_dm) = (0.0, 0.0, 0.0);
    for f in &FIGURES {
        for (i, &k) in paper004::K.iter().enumerate() {
            let p = find(&rows, f.algorithm, k, DiffMode::Paper);
            let d = find(&rows, f.algorithm, k, default);
            sum_paper += f.original_reduction[i];
            sum_pm += p.reduction_original_vs_zip;
            sum_dm += d.reduction_original_vs_zip;
            let _ = writeln!(
                out,
                "| {} | {k} | {:.1} % | {} | {} | {} / {} |",
                f.paper_name,
                f.original_reduction[i],
                pct(p.reduction_original_vs_zip),
                pct(d.reduction_original_vs_zip),
                p.private_bytes,
                d.private_bytes
            );
        }
    }
    let n = (FIGURES.len() * paper004::K.len()) as f64;
    let _ = writeln!(
        out,
        "| **average** | | **{:.1} %** (paper: {:.1} %) | **{}** | **{}** | |\n",
        sum_paper / n,
        paper004::AVERAGE_ORIGINAL_REDUCTION,
        pct(sum_pm / n),
        pct(sum_dm / n)
    );
    let _ = writeln!(
        out,
        "### Anonymized data: reduction of the rate against zip (public part against zip of the release)\n\n\
         | algorithm | k | paper: zip rate / scheme rate / reduction | karc: zip rate / public rate | karc reduction |\n\
         | --- | ---: | ---: | ---: | ---: |"
    );
    let (mut sum_paper, mut sum_karc) = (0.0, 0.0);
    for f in &FIGURES {
        for (i, &k) in paper004::K.iter().enumerate() {
            let d = find(&rows, f.algorithm, k, default);
            let (zr, sr, red) = f.release[i];
            sum_paper += red;
            sum_karc += d.reduction_release_vs_zip;
            let _ = writeln!(
                out,
                "| {} | {k} | {zr:.2} % / {sr:.2} % / {red:.1} % | {} / {} | {} |",
                f.paper_name,
                pct(d.zip_rate_release),
                pct(d.rate_release),
                pct(d.reduction_release_vs_zip)
            );
        }
    }
    let _ = writeln!(
        out,
        "| **average** | | **{:.1} %** (paper: {:.1} %) | | **{}** |\n",
        sum_paper / n,
        paper004::AVERAGE_RELEASE_REDUCTION,
        pct(sum_karc / n)
    );
    let _ = writeln!(
        out,
        "The public part is the same in both difference modes (they differ only in the private part).\n\n\
         ### Time: karc against zip and unzip, measured in the same run\n\n\
         Pack = encoding both parts and sealing the private part for one X25519 recipient (the anonymization \
         is timed apart); restore = opening the file (integrity and privacy claim re-checked), unsealing, \
         decoding and rendering the original CSV, checked byte for byte. The paper reports its scheme at \
         about 34 ms against zip's 43.5 ms on the original data (ratio about 0.8).\n\n\
         | algorithm | k | mode | anonymize ms | pack ms | zip ms | pack / zip | restore ms | unzip ms | restore / unzip |\n\
         | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    for r in &rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.1} | {:.1} | {:.1} | {:.2} | {:.1} | {:.1} | {:.2} |",
            r.algorithm,
            r.k,
            r.mode,
            r.anonymize_ms,
            r.karc_pack_ms,
            r.zip_ms,
            r.pack_vs_zip,
            r.karc_restore_ms,
            r.unzip_ms,
            r.restore_vs_unzip
        );
    }
    out.push('\n');
    Ok(())
}

fn paper001_section(out: &mut String) -> karc::Result<()> {
    let mut config = Config::load(&root().join("fixtures/adult/adult8.toml"))?;
    // Datafly's own budget (up to k suppressed rows), as Sweeney's Datafly and the paper use it.
    config.privacy.suppression_limit = None;
    let data = Dataset::load(&config, &root().join("fixtures/adult/adult.csv"))?;
    let _ = writeln!(
        out,
        "## Paper 001: MA-Datafly against Datafly\n\n\
         The paper reports, on 16,008 rows of Adult's test file, equal Precision at k = 2 and MA-Datafly's \
         Precision clearly above Datafly's as k grows to 200. Here: the 30,162 rows of `fixtures/adult` \
         with the 8 QIs of `adult8.toml` (salary-class sensitive), and Datafly's own suppression budget of \
         k rows.\n\n\
         | k | Datafly Precision | MA-Datafly Precision | Datafly levels | MA-Datafly levels |\n\
         | ---: | ---: | ---: | --- | --- |"
    );
    let (mut ahead, mut equal, mut behind) = (0, 0, 0);
    for k in [2, 5, 10, 20, 50, 100, 200] {
        config.privacy.k = Some(k);
        let model = PrivacyModel::from_config(&config, &data)?;
        let mut cells = Vec::new();
        for a in ["datafly", "ma-datafly"] {
            config.algorithm.name = a.to_owned();
            let o = anonymize::run(&data, &model, &config.algorithm)?;
            let p = measure(&data, &o.release, &model)
                .precision
                .unwrap_or(f64::NAN);
            cells.push((p, o.levels.unwrap_or_default()));
        }
        match cells[1].0.partial_cmp(&cells[0].0) {
            Some(std::cmp::Ordering::Greater) => ahead += 1,
            Some(std::cmp::Ordering::Less) => behind += 1,
            _ => equal += 1,
        }
        let _ = writeln!(
            out,
            "| {k} | {:.4} | {:.4} | {:?} | {:?} |",
            cells[0].0, cells[1].0, cells[0].1, cells[1].1
        );
    }
    let _ = writeln!(
        out,
        "\nMA-Datafly's Precision is higher at {ahead}, equal at {equal} and lower at {behind} of these k values. \
         Its tie-break (the more uneven frequency distribution first) is a local rule: on this table it \
         sometimes spends a level on a column that a later step has to raise anyway, so the paper's \
         consistent advantage is not reproduced here.\n"
    );
    Ok(())
}

fn paper000_section(out: &mut String) -> karc::Result<()> {
    let _ = writeln!(
        out,
        "## Paper 000: Classfly+ against Datafly\n\n\
         Precision on paper 000's synthetic workload (`tools/src/paper000.rs`, seed 0), constraint sets \
         {{C1, C2}} and {{C1..C4}}; the paper shows complete (C) = partial (P) above naive (N) and Datafly (D). \
         The full grid (|CSet| = 2..8, times) is printed by `cargo run --release -p karc-tools --bin paper000`.\n\n\
         | rows | constraints | D | N | C | P |\n| ---: | --- | ---: | ---: | ---: | ---: |"
    );
    let dir = tempfile::tempdir().map_err(|e| karc::Error::io(std::env::temp_dir(), e))?;
    for rows in [1024, 5 * 1024, 10 * 1024] {
        for size in [2, 4] {
            let w = paper000::load(dir.path(), rows, 0, size)?;
            let mut precision = Vec::new();
            for a in [
                "datafly",
                "classfly-plus-naive",
                "classfly-plus-complete",
                "classfly-plus-partial",
            ] {
                let mut c = w.config.algorithm.clone();
                c.name = a.to_owned();
                let o = anonymize::run(&w.data, &w.model, &c)?;
                precision.push(
                    measure(&w.data, &o.release, &w.model)
                        .precision
                        .unwrap_or(f64::NAN),
                );
            }
            let _ = writeln!(
                out,
                "| {rows} | C1..C{size} | {:.4} | {:.4} | {:.4} | {:.4} |",
                precision[0], precision[1], precision[2], precision[3]
            );
        }
    }
    out.push('\n');
    Ok(())
}

fn report(repeats: usize) -> karc::Result<String> {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Reproduction report\n\n\
         Generated by `cargo run --release -p karc-tools --bin reproduce -- -o tools/REPRODUCTION.md` \
         (2 cores; times are the fastest of {repeats} runs and vary with the machine's load; sizes are exact \
         and deterministic).\n\n\
         ## Why karc's percentages differ from the papers'\n\n\
         - The papers' releases are not ours: paper 004 does not publish its hierarchies' use, suppression \
           setting or Top-down/Mondrian variants; karc's algorithms follow `ALGORITHMS.md` (for example \
           Datafly with suppression limit 0 generalizes age to `*` already at k = 2, where the paper's Datafly \
           keeps more detail), so the same scheme meets different data.\n\
         - The CSV layout differs: paper 004 compresses its own export of Adult (7.87 % zip rate); ours is \
           ARX's `adult.csv` (`;`, CRLF, 2,516,935 bytes), and zip rates depend on the text layout.\n\
         - The paper's \"anonymized data\" rate divides by the anonymized file; ours divides karc's public part \
           (which also carries the claim, hierarchies and metadata) by the release CSV karc exports.\n\
         - zip here is the zip crate's deflate at its default level, run in-process; the paper timed \
           Windows 11's zip tool, so only the ratios, not the milliseconds, compare.\n"
    );
    paper004_section(&mut out, repeats)?;
    paper001_section(&mut out)?;
    paper000_section(&mut out)?;
    Ok(out)
}

fn main() -> ExitCode {
    let args = Args::parse();
    match report(args.repeats) {
        Ok(text) => {
            let written = match &args.output {
                Some(path) => karc::io::write_atomically(path, |w| w.write_all(text.as_bytes())),
                None => {
                    print!("{text}");
                    Ok(())
                }
            };
            match written {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("reproduce: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Err(e) => {
            eprintln!("reproduce: {e}");
            ExitCode::from(2)
        }
    }
}

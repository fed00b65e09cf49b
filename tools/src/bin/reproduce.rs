//! Writes the reproduction report: karc's numbers beside the papers'.
//!
//! - Paper 004: the reduction of the compression rate against zip for the
//!   original data (karc's private part against zip of the original CSV) and
//!   for the anonymized data (karc's public part against zip of the release
//!   CSV), for Incognito, Datafly, Top-down, Mondrian and Basic Mondrian at
//!   k = 5, 10, 50, 100, in the paper's difference mode and in karc's default
//!   mode, with pack and restore times against zip and unzip;
//! - paper 001: MA-Datafly against Datafly (Precision over k);
//! - paper 000 (and 002, the same paper): Classfly+ against two Datafly
//!   baselines (Precision and time on its workload);
//! - paper 003: FADS against CASTLE (average information loss and time on
//!   Adult, at the paper's defaults and at K = 10);
//!
//! and, first, a table of every headline claim beside karc's figure.
//!
//! ```sh
//! cargo run --release -p karc-tools --bin reproduce -- -o tools/REPRODUCTION.md
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use karc::anonymize::{self, Algorithm};
use karc::codec::DiffMode;
use karc::compare::{CompareOptions, CompareRow, compare};
use karc::config::{Config, Role};
use karc::dataset::Dataset;
use karc::metrics::measure;
use karc::privacy::PrivacyModel;
use karc::release::Release;
use karc::stream::{StreamAlgorithm, StreamParams, run_csv};
use karc_tools::adult_stream::{QIS, adult_clean, adult_clean_csv};
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

/// One headline claim of a paper beside karc's figure on the same workload.
struct Claim {
    paper: &'static str,
    claim: &'static str,
    paper_figure: &'static str,
    karc_figure: String,
    /// The karc-tools binary that prints the detail.
    command: &'static str,
    why: &'static str,
}

impl Claim {
    fn new(
        paper: &'static str,
        claim: &'static str,
        paper_figure: &'static str,
        karc_figure: String,
        command: &'static str,
        why: &'static str,
    ) -> Claim {
        Claim {
            paper,
            claim,
            paper_figure,
            karc_figure,
            command,
            why,
        }
    }
}

fn paper004_section(out: &mut String, claims: &mut Vec<Claim>, repeats: usize) -> karc::Result<()> {
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
    claims.push(Claim::new(
        "004",
        "original data: the scheme's rate is on average 72.2 % below zip's (Tables 3-7)",
        "72.2 %",
        format!(
            "{} (paper mode), {} (default mode)",
            pct(sum_pm / n),
            pct(sum_dm / n)
        ),
        "reproduce",
        "karc's releases (Datafly at suppression 0 raises more) and Adult's CSV layout differ from the paper's",
    ));
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
    claims.push(Claim::new(
        "004",
        "anonymized data: the scheme's rate is on average 64.2 % below zip's (Table 8)",
        "64.2 %",
        pct(sum_karc / n),
        "reproduce",
        "karc's public part also carries the claim, hierarchies and metadata; the releases differ per algorithm",
    ));
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
    let mut pack: Vec<f64> = rows.iter().map(|r| r.pack_vs_zip).collect();
    let mut restore: Vec<f64> = rows.iter().map(|r| r.restore_vs_unzip).collect();
    pack.sort_by(f64::total_cmp);
    restore.sort_by(f64::total_cmp);
    claims.push(Claim::new(
        "004",
        "time: the scheme packs the original in about 34 ms against zip's 43.5 ms (ratio about 0.8)",
        "0.8",
        format!(
            "pack / zip median {:.2} (range {:.2}-{:.2}); restore / unzip median {:.2}",
            pack[pack.len() / 2],
            pack[0],
            pack[pack.len() - 1],
            restore[restore.len() / 2]
        ),
        "reproduce",
        "in-process zip crate against Windows 11's zip tool; times on a shared 2-core machine",
    ));
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

fn paper001_section(out: &mut String, claims: &mut Vec<Claim>) -> karc::Result<()> {
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
    claims.push(Claim::new(
        "001",
        "MA-Datafly's Precision equals Datafly's at k = 2 and is clearly above it as k grows to 200",
        "equal, then above",
        format!("higher at {ahead}, equal at {equal}, lower at {behind} of 7 k values"),
        "reproduce",
        "the paper's 16,008 test rows against karc's 30,162; its tie-break is a local rule that can spend a level a later step raises anyway",
    ));
    let _ = writeln!(
        out,
        "\nMA-Datafly's Precision is higher at {ahead}, equal at {equal} and lower at {behind} of these k values. \
         Its tie-break (the more uneven frequency distribution first) is a local rule: on this table it \
         sometimes spends a level on a column that a later step has to raise anyway, so the paper's \
         consistent advantage is not reproduced here.\n"
    );
    Ok(())
}

/// Paper 000's methods on one workload: Precision and the fastest of
/// `repeats` times (ms) of D, D∪, N, C, P, each release checked.
fn paper000_row(w: &paper000::Loaded, repeats: usize) -> karc::Result<Vec<(f64, f64, Release)>> {
    let union = paper000::union_model(&w.model);
    let mut row = Vec::new();
    for (name, model) in [
        ("datafly", &w.model),
        ("datafly", &union),
        ("classfly-plus-naive", &w.model),
        ("classfly-plus-complete", &w.model),
        ("classfly-plus-partial", &w.model),
    ] {
        let mut c = w.config.algorithm.clone();
        c.name = name.to_owned();
        let mut best = f64::INFINITY;
        let mut release = None;
        for _ in 0..repeats.max(1) {
            let start = Instant::now();
            let o = anonymize::run(&w.data, model, &c)?;
            best = best.min(start.elapsed().as_secs_f64() * 1e3);
            release = Some(o.release);
        }
        let release = release.expect("at least one run");
        // D∪ satisfies the union constraint; the claim checked is the set's.
        let report = karc::privacy::verify_release(&w.data, &release, &w.model);
        assert!(report.holds(), "{name}: {:?}", report.failures());
        let p = measure(&w.data, &release, &w.model)
            .precision
            .unwrap_or(f64::NAN);
        row.push((p, best, release));
    }
    Ok(row)
}

fn paper000_section(out: &mut String, claims: &mut Vec<Claim>, repeats: usize) -> karc::Result<()> {
    let _ = writeln!(
        out,
        "## Paper 000 (and 002): Classfly+ against Datafly\n\n\
         Precision (Sweeney) over the constrained QIs on paper 000's synthetic workload (`tools/src/paper000.rs`: \
         9 uniform attributes, constraints C1..C8 of its Table 2, seed 0). D is karc's Datafly on the constraint \
         set (a row violates when it violates any constraint, each counted on its own QIs); D∪ is Datafly on the \
         set's union constraint (Definition 5), the single-constraint method \"simply ported\" that the paper's \
         introduction criticises; N, C, P are naive, complete and partial Classfly+. Every release passed \
         karc's verifier on the constraint set. The full grid (|CSet| = 2..8, 1K..10K) is printed by \
         `cargo run --release -p karc-tools --bin paper000`.\n\n\
         | rows | constraints | D | D∪ | N | C | P | C over D | C over D∪ |\n\
         | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    let dir = tempfile::tempdir().map_err(|e| karc::Error::io(std::env::temp_dir(), e))?;
    let gain = |x: f64, base: f64| (x / base - 1.0) * 100.0;
    let (mut over_d, mut over_u, mut n_above, mut same, mut count) = (
        [Vec::new(), Vec::new()],
        [Vec::new(), Vec::new()],
        [0, 0],
        true,
        0,
    );
    let mut c_by_size = [Vec::new(), Vec::new()];
    for rows in [1024, 5 * 1024, 10 * 1024] {
        for (s, size) in [2, 4].into_iter().enumerate() {
            let w = paper000::load(dir.path(), rows, 0, size)?;
            let r = paper000_row(&w, 1)?;
            let p: Vec<f64> = r.iter().map(|x| x.0).collect();
            same &= r[3].2 == r[4].2;
            count += 1;
            over_d[s].push(gain(p[3], p[0]));
            over_u[s].push(gain(p[3], p[1]));
            n_above[s] += usize::from(p[2] > p[0]);
            c_by_size[s].push(p[3]);
            let _ = writeln!(
                out,
                "| {rows} | C1..C{size} | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} | {:+.1} % | {:+.1} % |",
                p[0],
                p[1],
                p[2],
                p[3],
                p[4],
                gain(p[3], p[0]),
                gain(p[3], p[1])
            );
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let _ = writeln!(
        out,
        "\nTime on 10K rows (ms, fastest of {repeats} runs; the machine is shared, so only large ratios mean \
         anything):\n\n| constraints | D | D∪ | N | C | P |\n| --- | ---: | ---: | ---: | ---: | ---: |"
    );
    let mut times = Vec::new();
    for size in [4, 8] {
        let w = paper000::load(dir.path(), 10 * 1024, 0, size)?;
        let r = paper000_row(&w, repeats)?;
        let t: Vec<f64> = r.iter().map(|x| x.1).collect();
        let _ = writeln!(
            out,
            "| C1..C{size} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} |",
            t[0], t[1], t[2], t[3], t[4]
        );
        times.push(t);
    }
    let _ = writeln!(
        out,
        "\nWhy the figures differ:\n\n\
         - The workload is not the paper's: it gives the attributes, their types, the sizes and the constraints, \
           not the domains or the hierarchies (Table 1 names types only). karc's choices are in \
           `tools/src/paper000.rs`; Precision depends on every hierarchy height, so absolute values do not \
           compare, only orderings.\n\
         - The Datafly baseline is ambiguous. The paper says Datafly was \"simply modified and ported\" to \
           constraint sets without saying how. Against karc's D, which enforces each constraint on its own QIs \
           and raises only constrained QIs, C gains {:+.1} % ({{C1, C2}}) and {:+.1} % ({{C1..C4}}) on average; \
           against D∪ (Datafly on the union constraint) it gains {:+.1} % and {:+.1} %. The paper's 10-20 % lies \
           between the two, so its Datafly was probably weaker than karc's D.\n\
         - N against D: the paper reports N above D for {{C1, C2}} and below for {{C1..C4}}, and explains the \
           second by the union constraint's K being \"much larger\" than each constraint's. With Table 2's \
           constraints the union K is 5 in both sets (max of 5, 3 and of 5, 3, 5, 3), so that explanation does \
           not hold for the published constraints. Here N is above D at {} of 3 sizes for {{C1, C2}} and {} of 3 \
           for {{C1..C4}}; N is always above D∪ (the same constraint, local against global recoding), which is \
           the comparison the paper's reasoning describes.\n\
         - C = P: identical releases on {} of {count} workloads here (Theorem 4); the pseudo-code (Algorithms 3 \
           and 4) was re-read line by line against `src/anonymize/classfly_plus.rs`, and paper 000's Figure 2 is a \
           unit test (naive raises t1..t4's ZIP, complete and partial release them raw).\n\
         - Time: the paper ran C++ on a Pentium 4 and counts tuple by tuple; karc checks a constraint with one \
           hashing pass over the working set. N is the cheapest per round here (one partition on the union \
           QIs) although it keeps more rows in W, so the paper's \"N much slower for {{C1..C4}}\" is not \
           reproduced; D, which re-checks every constraint on the whole table at each step, is not the fastest \
           at |CSet| = 8. P re-checks the earlier constraints whenever a longer prefix moves rows, so it costs \
           more than C as |CSet| grows; both now re-check a constraint only after some row moved since its \
           last check, which brought P from about 2.6 x C's time to the ratio above at |CSet| = 8 (it was \
           67 against 26 ms on 10K rows before).\n",
        mean(&over_d[0]),
        mean(&over_d[1]),
        mean(&over_u[0]),
        mean(&over_u[1]),
        n_above[0],
        n_above[1],
        if same { count } else { 0 },
    );
    let t4 = &times[0];
    let t8 = &times[1];
    claims.push(Claim::new(
        "000",
        "C and P Precision 10-20 % above Datafly on average ({C1, C2}, {C1..C4}; Figure 3)",
        "10-20 %",
        format!(
            "{:+.1} % / {:+.1} % over D; {:+.1} % / {:+.1} % over D∪",
            mean(&over_d[0]),
            mean(&over_d[1]),
            mean(&over_u[0]),
            mean(&over_u[1])
        ),
        "paper000",
        "the Datafly baseline is unspecified: karc's D enforces each constraint on its own QIs (stronger), D∪ uses the union constraint (weaker); the hierarchies are karc's",
    ));
    claims.push(Claim::new(
        "000",
        "N above Datafly for {C1, C2}, below for {C1..C4} (Figure 3)",
        "above / below",
        format!(
            "above D at {} / {} of 3 sizes; always above D∪",
            n_above[0], n_above[1]
        ),
        "paper000",
        "the paper's reason (a much larger union K) does not hold for its Table 2 (union K = 5 in both sets)",
    ));
    claims.push(Claim::new(
        "000",
        "C = P (Theorem 4); Precision grows with the data size (Figure 4)",
        "C = P; rising",
        format!(
            "C = P on {}/{count}; C {:.3} -> {:.3} ({{C1, C2}}), {:.3} -> {:.3} ({{C1..C4}}) from 1K to 10K",
            if same { count } else { 0 },
            c_by_size[0][0],
            c_by_size[0][2],
            c_by_size[1][0],
            c_by_size[1][2]
        ),
        "paper000",
        "reproduced",
    ));
    claims.push(Claim::new(
        "000",
        "Time: N much slower for {C1..C4}, C about P, D a little faster at \\|CSet\\| = 8 (Figures 5-6)",
        "N slowest; C = P; D fastest",
        format!(
            "10K rows, ms D/N/C/P: {:.1}/{:.1}/{:.1}/{:.1} ({{C1..C4}}), {:.1}/{:.1}/{:.1}/{:.1} (\\|CSet\\| = 8)",
            t4[0], t4[2], t4[3], t4[4], t8[0], t8[2], t8[3], t8[4]
        ),
        "paper000",
        "per-tuple checks (the paper's C++) against one hashing pass per constraint (karc): N's single union pass is cheap here",
    ));
    claims.push(Claim::new(
        "002",
        "the same paper as 000 (a noisier extraction): Precision between about 0.65 and 0.9 in Figures 3-4",
        "0.65-0.9",
        format!(
            "C {:.3}-{:.3}",
            c_by_size
                .iter()
                .flatten()
                .copied()
                .fold(f64::INFINITY, f64::min),
            c_by_size
                .iter()
                .flatten()
                .copied()
                .fold(0.0, f64::max)
        ),
        "paper000",
        "the same workload and reasons as paper 000",
    ));
    Ok(())
}

/// FADS' or CASTLE's average information loss and CPU ms on an Adult CSV.
fn stream_run(
    config: &Config,
    csv: &str,
    algorithm: StreamAlgorithm,
    p: &StreamParams,
) -> karc::Result<(f64, f64)> {
    let start = karc_tools::cpu_ms();
    let s = run_csv(
        config,
        csv.as_bytes(),
        algorithm,
        p.clone(),
        None,
        |_, _, _| {},
    )?;
    Ok((s.avg_infoloss, karc_tools::cpu_ms() - start))
}

/// The stream config (`fixtures/adult-raw/adult-stream.toml`) with only
/// `qis` as quasi-identifiers.
fn stream_config(qis: &[&str]) -> karc::Result<Config> {
    let mut c = Config::load(&root().join("fixtures/adult-raw/adult-stream.toml"))?;
    for col in &mut c.columns {
        if col.role == Some(Role::Quasi) && !qis.contains(&col.name.as_str()) {
            col.role = Some(Role::Insensitive);
        }
    }
    Ok(c)
}

fn paper003_section(out: &mut String, claims: &mut Vec<Claim>) -> karc::Result<()> {
    let (head, adult) = adult_clean(&root().join("fixtures/adult-raw/adult.csv"))
        .map_err(|e| karc::Error::io(root().join("fixtures/adult-raw/adult.csv"), e))?;
    let full = adult_clean_csv(&head, &adult, adult.len());
    let mixed = stream_config(&QIS)?;
    let numeric = stream_config(&QIS[..6])?;
    let params = |k: usize, delta: usize, tau: f64, c0: f64| {
        let mut p = StreamParams::new(k, delta);
        (p.tau, p.c0) = (tau, c0);
        p
    };
    let fads = StreamAlgorithm::Fads;
    let castle = StreamAlgorithm::Castle;
    let _ = writeln!(
        out,
        "## Paper 003: FADS against CASTLE\n\n\
         Adult without `?` ({} rows), the paper's 10 QIs (6 numeric, 4 categorical; \
         `fixtures/adult-raw/adult-stream.toml`) or its 6 numeric ones; defaults of its Table 3: K = 100, \
         delta = 10000, tau = 0.5, c0 = 1.0 (FADS), beta = 50, mu = 100 (CASTLE); seed 0. Loss: average \
         information loss (Definition 5); time: CPU ms of the anonymizer. The full sweeps (size, delta, K, \
         QIs, generated streams to 3M rows) are printed by `cargo run --release -p karc-tools --bin paper003`.\n\n\
         | workload | FADS loss | CASTLE loss | FADS ms | CASTLE ms |\n| --- | ---: | ---: | ---: | ---: |",
        adult.len()
    );
    let mut at = std::collections::BTreeMap::new();
    for (name, config, n, k) in [
        ("10 QIs, 5000 rows, K = 100", &mixed, 5000, 100),
        ("10 QIs, 10000 rows, K = 100", &mixed, 10_000, 100),
        ("10 QIs, all rows, K = 100", &mixed, adult.len(), 100),
        ("10 QIs, all rows, K = 10", &mixed, adult.len(), 10),
        (
            "6 numeric QIs, all rows, K = 100",
            &numeric,
            adult.len(),
            100,
        ),
        ("6 numeric QIs, all rows, K = 10", &numeric, adult.len(), 10),
    ] {
        let csv = if n == adult.len() {
            full.clone()
        } else {
            adult_clean_csv(&head, &adult, n)
        };
        let p = params(k, 10_000, 0.5, 1.0);
        let f = stream_run(config, &csv, fads, &p)?;
        let c = stream_run(config, &csv, castle, &p)?;
        let _ = writeln!(
            out,
            "| {name} | {:.4} | {:.4} | {:.0} | {:.0} |",
            f.0, c.0, f.1, c.1
        );
        at.insert(name, (f, c));
    }
    let _ = writeln!(
        out,
        "\nFADS' loss against its tau (10 QIs, all rows; CASTLE's own tau is the mean loss of its last mu \
         clusters):\n\n| tau | FADS loss, K = 10 | FADS loss, K = 100 |\n| ---: | ---: | ---: |"
    );
    let mut by_tau = Vec::new();
    for tau in [0.0, 0.15, 0.3, 0.5] {
        let f10 = stream_run(&mixed, &full, fads, &params(10, 10_000, tau, 1.0))?.0;
        let f100 = stream_run(&mixed, &full, fads, &params(100, 10_000, tau, 1.0))?.0;
        let _ = writeln!(out, "| {tau} | {f10:.4} | {f100:.4} |");
        by_tau.push((tau, f10, f100));
    }
    let _ = writeln!(
        out,
        "\nFADS' loss against c0 (10 QIs, all rows, delta = 1000, K = 10: the paper's Figure 10 setting):\n\n\
         | c0 | FADS loss |\n| ---: | ---: |"
    );
    let mut by_c0 = Vec::new();
    for c0 in [1.0, 2.0, 3.0] {
        let f = stream_run(&mixed, &full, fads, &params(10, 1000, 0.5, c0))?.0;
        let _ = writeln!(out, "| {c0} | {f:.4} |");
        by_c0.push(f);
    }
    let (f10, c10) = at["10 QIs, all rows, K = 10"];
    let (f100, c100) = at["10 QIs, all rows, K = 100"];
    let (n10, nc10) = at["6 numeric QIs, all rows, K = 10"];
    let (s5, c5) = at["10 QIs, 5000 rows, K = 100"];
    let (s10, cs10) = at["10 QIs, 10000 rows, K = 100"];
    let tau0 = by_tau[0].1;
    let _ = writeln!(
        out,
        "\nWhy the figures differ:\n\n\
         - The pseudo-code (Algorithm 1, outputWithWorkCluster, outputWithCondensation, greedyCondense) was \
           re-read line by line against `src/stream/fads.rs`: the batch at delta, the least-loss covering \
           reusable cluster (a covered tuple does not change a cluster's generalization, so the least loss \
           increment is the least cluster loss), clusters below tau kept, at most c0 * delta / K of them, oldest \
           evicted, K distinct pids per cluster, leftovers to the least-enlarged cluster. No deviation was found. \
           The paper's tuple distance (Definition 7) is degenerate; karc uses the loss of the smallest \
           generalization covering both (`ALGORITHMS.md`).\n\
         - K = 10: FADS loses {:.4} against CASTLE's {:.4} (numeric QIs: {:.4} against {:.4}). The cause is the \
           fixed tau = 0.5 of Table 3: at K = 10 a fresh cluster costs far less than 0.5, yet every cluster \
           below 0.5 is kept and reused first, so a tuple that some broad cluster covers goes out with that \
           cluster's loss instead of joining a tight new one; with 1000 reusable clusters (c0 * delta / K) \
           many tuples are covered. CASTLE's tau adapts (the mean loss of its last mu clusters), so it reuses \
           only clusters better than its recent average. With tau = 0 (no reuse) FADS loses {tau0:.4} at K = 10, \
           below CASTLE, while at K = 100 reuse helps ({:.4} without, {:.4} with). karc keeps the paper's \
           tau = 0.5 as the default and takes another with `karc stream --tau` (library: `StreamParams::tau`; `paper003 --tau`).\n\
         - The paper finds tau nearly irrelevant (FADS' loss within [0.18, 0.19] for every tau at K = 100, \
           Figure 11); here it moves the loss from {:.4} to {:.4}. The absolute losses also differ (the paper: \
           about 0.18 at K = 100; karc {:.4}): the paper's categorical DGHs (from its reference [3]) and its \
           export of Adult are not published, and capital-gain/capital-loss (mostly 0, a few values up to \
           99999) make numeric ranges costly under Definition 4.\n\
         - Time: the paper's Java CASTLE takes about a minute beyond 10K rows against FADS' 10 s at 30K; karc's \
           CASTLE is {:.1} x FADS' CPU time on all of Adult ({:.0} against {:.0} ms). Both grow as the paper \
           says (CASTLE with the stream, FADS flat per row, see `paper003`'s generated streams), but karc's \
           CASTLE scans its reusable set only for a tuple whose cluster is not k-anonymous when its delay \
           ends, and that set holds at most one cluster per K rows (301 at K = 100 on Adult), so the \
           quadratic term shows only on longer streams.\n\
         - FAANST (the paper's numeric-only third method) is not implemented in karc: its FADS-against-FAANST \
           comparison is not reproduced.\n",
        f10.0,
        c10.0,
        n10.0,
        nc10.0,
        by_tau[0].2,
        by_tau[3].2,
        by_tau[0].2,
        by_tau[3].2,
        f100.0,
        c100.1 / f100.1.max(1e-9),
        c100.1,
        f100.1,
    );
    claims.push(Claim::new(
        "003",
        "FADS' average loss equals CASTLE's up to 10K rows and is lower beyond (Figure 1a)",
        "equal, then lower",
        format!(
            "5K {:.3} / {:.3}, 10K {:.3} / {:.3}, 30K {:.3} / {:.3} (FADS / CASTLE)",
            s5.0, c5.0, s10.0, cs10.0, f100.0, c100.0
        ),
        "paper003",
        "reproduced",
    ));
    claims.push(Claim::new(
        "003",
        "FADS far faster than CASTLE: about 10 s at 30K rows against about 1 min (Figure 1b)",
        "about 6 x",
        format!(
            "{:.0} ms against {:.0} ms ({:.1} x)",
            f100.1,
            c100.1,
            c100.1 / f100.1.max(1e-9)
        ),
        "paper003",
        "Java on a 2010 laptop against Rust; CASTLE's quadratic term shows on longer streams (paper003's generated streams)",
    ));
    claims.push(Claim::new(
        "003",
        "FADS' loss below CASTLE's for every K, 10 to 200 (Figure 3a)",
        "lower at every K",
        format!(
            "K = 100: {:.3} / {:.3}; K = 10: {:.3} / {:.3} (higher; {tau0:.3} with tau = 0)",
            f100.0, c100.0, f10.0, c10.0
        ),
        "paper003",
        "the fixed tau = 0.5 makes FADS reuse broad clusters at small K; CASTLE's tau adapts",
    ));
    claims.push(Claim::new(
        "003",
        "tau barely matters: FADS' loss within [0.18, 0.19] for every tau (Figure 11, K = 100)",
        "0.18-0.19",
        format!("{:.3} (tau 0) to {:.3} (tau 0.5)", by_tau[0].2, by_tau[3].2),
        "paper003",
        "hierarchies and Adult export not published; reuse matters more on karc's data",
    ));
    claims.push(Claim::new(
        "003",
        "a larger c0 lowers the loss by less than 0.01 (Figure 10, delta = 1000, K = 10)",
        "< 0.01",
        format!(
            "c0 1 / 2 / 3: {:.4} / {:.4} / {:.4}",
            by_c0[0], by_c0[1], by_c0[2]
        ),
        "paper003",
        if (by_c0[0] - by_c0[2]).abs() < 0.01 {
            "reproduced"
        } else {
            "reuse matters more on karc's data (see tau)"
        },
    ));
    claims.push(Claim::new(
        "003",
        "numeric QIs: FADS below CASTLE and FAANST (Figures 6-9)",
        "FADS lowest",
        format!(
            "K = 100: {:.3} / {:.3}; K = 10: {:.3} / {:.3} (FADS / CASTLE); no FAANST",
            at["6 numeric QIs, all rows, K = 100"].0.0,
            at["6 numeric QIs, all rows, K = 100"].1.0,
            n10.0,
            nc10.0
        ),
        "paper003",
        "FAANST is not implemented; K = 10 as above",
    ));
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
         ## Why karc's percentages differ from paper 004's\n\n\
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
    let mut claims = Vec::new();
    let mut sections = String::new();
    paper004_section(&mut sections, &mut claims, repeats)?;
    paper001_section(&mut sections, &mut claims)?;
    paper000_section(&mut sections, &mut claims, repeats)?;
    paper003_section(&mut sections, &mut claims)?;
    let _ = writeln!(
        out,
        "## Every headline claim beside karc's figure\n\n\
         Each row: the paper's claim and number, karc's number on the same workload (the karc-tools binary \
         that prints the detail: `cargo run --release -p karc-tools --bin <it>`), and why they differ. \
         Papers 000 and 002 are the same paper (Yang et al. 2006) in two extractions.\n\n\
         | paper | claim | paper's figure | karc's figure | command | why they differ |\n\
         | --- | --- | --- | --- | --- | --- |"
    );
    claims.sort_by_key(|c| c.paper);
    for c in &claims {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | `{}` | {} |",
            c.paper, c.claim, c.paper_figure, c.karc_figure, c.command, c.why
        );
    }
    out.push('\n');
    out.push_str(&sections);
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

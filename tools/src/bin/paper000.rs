//! Reproduces paper 000's comparison (Figures 3-6): Precision and time of
//! Datafly (D), naive (N), complete IndepCSet (C) and partial IndepCSet (P)
//! Classfly+ on the synthetic workload, for |CSet| = 2..8 and 1K..10K rows,
//! printed as Markdown.
//!
//! Every release is checked by karc's verifier before it counts; times are
//! the fastest of `--repeat` runs of the algorithm alone, all methods in the
//! same process, so the ratios to Datafly compare like with like.
//!
//! Two Datafly baselines: D, karc's Datafly on the constraint set (a row
//! violates when it violates any constraint, each counted on its own QIs),
//! and D∪, Datafly on the set's union constraint (paper 000, Definition 5:
//! every constrained QI, the largest K), the "single-constraint method
//! simply ported" the paper's introduction compares against; its release
//! satisfies the set by Theorem 3, which the verifier checks here too.
//!
//! ```sh
//! cargo run --release -p karc-tools --bin paper000
//! ```

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use karc::anonymize::{self, Algorithm, ClassflyPlus, Outcome};
use karc::config::AlgorithmConfig;
use karc::metrics::measure;
use karc_tools::paper000::{self, Loaded};

#[derive(Debug, Parser)]
#[command(about = "Paper 000's Precision and time comparison of Datafly and Classfly+")]
struct Args {
    /// Table sizes in rows (default: the paper's 1K..10K, 1K = 1,024).
    #[arg(long, value_delimiter = ',')]
    rows: Vec<usize>,
    /// Constraint set sizes |CSet| (default 2..8).
    #[arg(long, value_delimiter = ',')]
    csets: Vec<usize>,
    /// Seed of the generated tables.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Timed runs per method (the fastest counts).
    #[arg(long, default_value_t = 3)]
    repeat: usize,
}

const METHODS: [Algorithm; 4] = [
    Algorithm::Datafly,
    Algorithm::ClassflyPlusNaive,
    Algorithm::ClassflyPlusComplete,
    Algorithm::ClassflyPlusPartial,
];

/// One method's result on one workload.
struct Measured {
    /// Precision (Sweeney) over the constrained QIs.
    precision: f64,
    ms: f64,
    suppressed: usize,
    outcome: Outcome,
}

fn run_once(w: &Loaded, a: Algorithm) -> karc::Result<Outcome> {
    let budget = a.suppression_budget(&w.model, w.data.rows());
    match a {
        Algorithm::Datafly => anonymize::datafly(&w.data, &w.model, budget),
        Algorithm::ClassflyPlusNaive => {
            anonymize::classfly_plus(&w.data, &w.model, budget, ClassflyPlus::Naive)
        }
        Algorithm::ClassflyPlusComplete => {
            anonymize::classfly_plus(&w.data, &w.model, budget, ClassflyPlus::Complete)
        }
        Algorithm::ClassflyPlusPartial => {
            anonymize::classfly_plus(&w.data, &w.model, budget, ClassflyPlus::Partial)
        }
        other => unreachable!("not compared: {}", other.name()),
    }
}

fn measure_method(w: &Loaded, a: Algorithm, repeat: usize) -> karc::Result<Measured> {
    // The checked run: karc's verifier and budget check, untimed.
    let config = AlgorithmConfig {
        name: a.name().to_owned(),
        ..AlgorithmConfig::default()
    };
    let outcome = anonymize::run(&w.data, &w.model, &config)?;
    let mut best = f64::INFINITY;
    for _ in 0..repeat.max(1) {
        let start = Instant::now();
        let timed = run_once(w, a)?;
        best = best.min(start.elapsed().as_secs_f64() * 1e3);
        assert!(
            timed.release == outcome.release,
            "{} is deterministic",
            a.name()
        );
    }
    let metrics = measure(&w.data, &outcome.release, &w.model);
    Ok(Measured {
        precision: metrics.precision.expect("hierarchy-based release"),
        ms: best,
        suppressed: karc::privacy::release_suppressed(&w.data, &outcome.release, &w.model)
            .iter()
            .filter(|&&s| s)
            .count(),
        outcome,
    })
}

/// Datafly on the union constraint of the workload's set (D∪), checked
/// against the set itself.
fn measure_union_datafly(w: &Loaded, repeat: usize) -> karc::Result<Measured> {
    let union = paper000::union_model(&w.model);
    let budget = Algorithm::Datafly.suppression_budget(&union, w.data.rows());
    let mut best = f64::INFINITY;
    let mut outcome = None;
    for _ in 0..repeat.max(1) {
        let start = Instant::now();
        let o = anonymize::datafly(&w.data, &union, budget)?;
        best = best.min(start.elapsed().as_secs_f64() * 1e3);
        outcome = Some(o);
    }
    let outcome = outcome.expect("at least one run");
    let report = karc::privacy::verify_release(&w.data, &outcome.release, &w.model);
    assert!(
        report.holds(),
        "D∪ satisfies the set (Theorem 3): {:?}",
        report.failures()
    );
    let metrics = measure(&w.data, &outcome.release, &w.model);
    Ok(Measured {
        precision: metrics.precision.expect("hierarchy-based release"),
        ms: best,
        suppressed: karc::privacy::release_suppressed(&w.data, &outcome.release, &w.model)
            .iter()
            .filter(|&&s| s)
            .count(),
        outcome,
    })
}

/// The relative gain of `x` over `base`, in percent.
fn gain(x: f64, base: f64) -> f64 {
    (x / base - 1.0) * 100.0
}

fn size_label(rows: usize) -> String {
    if rows.is_multiple_of(1024) {
        format!("{}K", rows / 1024)
    } else {
        rows.to_string()
    }
}

fn main() -> ExitCode {
    let mut args = Args::parse();
    if args.rows.is_empty() {
        args.rows = paper000::SIZES.to_vec();
    }
    if args.csets.is_empty() {
        args.csets = (2..=8).collect();
    }
    if let Some(&bad) = args.csets.iter().find(|&&c| !(1..=8).contains(&c)) {
        eprintln!("error: --csets: |CSet| is 1..=8, found {bad}");
        return ExitCode::from(2);
    }
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: temporary directory: {e}");
            return ExitCode::from(2);
        }
    };

    println!("## Paper 000: Datafly (D) and Classfly+ naive (N), complete (C), partial (P)\n");
    println!(
        "Synthetic uniform workload (karc-tools `paper000`), seed {}. Precision (Sweeney) over the \
         constrained attributes; time in ms, fastest of {} runs of the algorithm alone, release \
         build; every release passed karc's verifier. Suppressed rows as D/N/C/P.\n",
        args.seed,
        args.repeat.max(1)
    );
    println!(
        "| \\|CSet\\| | rows | Prec D | Prec D∪ | Prec N | Prec C | Prec P | C over D | C over D∪ | ms D | ms D∪ | ms N | ms C | ms P | suppressed (D/N/C/P) | C = P |"
    );
    println!(
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    );
    let mut failed = false;
    let mut ordering: Vec<String> = Vec::new();
    let mut largest: Option<(usize, usize, Vec<f64>)> = None;
    // Per |CSet| in {2, 4}: gains of C over D and over D∪, and N above D.
    let mut gains: Vec<(usize, f64, f64, bool)> = Vec::new();
    for &cset in &args.csets {
        for &rows in &args.rows {
            let w = match paper000::load(dir.path(), rows, args.seed, cset) {
                Ok(w) => w,
                Err(e) => {
                    eprintln!("error: workload {rows} rows, |CSet| = {cset}: {e}");
                    return ExitCode::from(2);
                }
            };
            let mut results = Vec::new();
            for a in METHODS {
                match measure_method(&w, a, args.repeat) {
                    Ok(m) => results.push(m),
                    Err(e) => {
                        eprintln!("error: {} on {rows} rows, |CSet| = {cset}: {e}", a.name());
                        return ExitCode::from(1);
                    }
                }
            }
            let union = match measure_union_datafly(&w, args.repeat) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!(
                        "error: datafly on the union constraint, {rows} rows, |CSet| = {cset}: {e}"
                    );
                    return ExitCode::from(1);
                }
            };
            let same = results[2].outcome.release == results[3].outcome.release;
            failed |= !same;
            let p: Vec<f64> = results.iter().map(|m| m.precision).collect();
            let ms: Vec<f64> = results.iter().map(|m| m.ms).collect();
            let sup: Vec<String> = results.iter().map(|m| m.suppressed.to_string()).collect();
            println!(
                "| {cset} | {} | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} | {:+.1} % | {:+.1} % | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {} | {} |",
                size_label(rows),
                p[0],
                union.precision,
                p[1],
                p[2],
                p[3],
                gain(p[2], p[0]),
                gain(p[2], union.precision),
                ms[0],
                union.ms,
                ms[1],
                ms[2],
                ms[3],
                sup.join("/"),
                if same { "yes" } else { "**no**" }
            );
            if cset == 2 || cset == 4 {
                gains.push((
                    cset,
                    gain(p[2], p[0]),
                    gain(p[2], union.precision),
                    p[1] > p[0],
                ));
                let holds = same && p[2] >= p[1] && p[2] >= p[0];
                if !holds {
                    ordering.push(format!("|CSet| = {cset}, {}", size_label(rows)));
                }
            }
            if largest
                .as_ref()
                .is_none_or(|&(r, c, _)| (rows, cset) >= (r, c))
            {
                largest = Some((rows, cset, ms));
            }
        }
    }

    println!("\n### The paper's ordering (Figure 3)\n");
    let checked: Vec<usize> = args
        .csets
        .iter()
        .copied()
        .filter(|&c| c == 2 || c == 4)
        .collect();
    if checked.is_empty() {
        println!("Not measured: give --csets with 2 or 4.");
    } else if ordering.is_empty() {
        println!("Precision C = P >= N and C >= D for every size of |CSet| in {checked:?}: holds.");
    } else {
        println!(
            "Precision C = P >= N and C >= D fails for: {}.",
            ordering.join("; ")
        );
    }
    for cset in [2, 4] {
        let g: Vec<&(usize, f64, f64, bool)> = gains.iter().filter(|g| g.0 == cset).collect();
        if g.is_empty() {
            continue;
        }
        let mean = |f: fn(&(usize, f64, f64, bool)) -> f64| {
            g.iter().map(|&x| f(x)).sum::<f64>() / g.len() as f64
        };
        println!(
            "\n|CSet| = {cset}: C over D {:+.1} % on average, over D∪ {:+.1} % (the paper: 10-20 % over Datafly); N above D at {} of {} sizes (the paper: above at |CSet| = 2, below at 4).",
            mean(|x| x.1),
            mean(|x| x.2),
            g.iter().filter(|x| x.3).count(),
            g.len()
        );
    }
    if let Some((rows, cset, ms)) = largest {
        println!("\n### Speed on the largest workload ({rows} rows, |CSet| = {cset})\n");
        println!("| method | ms | ratio to Datafly |");
        println!("| --- | --- | --- |");
        for (a, t) in METHODS.iter().zip(&ms) {
            println!("| {} | {t:.1} | {:.2} |", a.name(), t / ms[0]);
        }
    }
    if failed {
        eprintln!("error: complete and partial IndepCSet releases differ (Theorem 4)");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

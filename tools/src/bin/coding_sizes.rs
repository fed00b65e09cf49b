//! Column payload sizes of every difference mode, beside the entropy bounds.
//!
//! For Adult (9 QIs, `fixtures/adult/adult.toml`) at k in {5, 10, 50, 100} and
//! each registered algorithm: the public part's QI columns (paper 004's
//! Algorithm 2) and the private part's original QI columns in every mode,
//! beside the order-0 entropy of the original columns, of the released
//! columns, and of the originals given their released value (the least a
//! per-value code can reach). Column blobs only: the archive adds its
//! metadata, hierarchies and section table (`karc inspect --json` shows the
//! whole parts).
//!
//! `cargo run --release -p karc-tools --bin coding_sizes [CONFIG.toml CSV]`

use std::collections::HashMap;
use std::path::PathBuf;

use karc::anonymize::{self, Algorithm};
use karc::codec::{DiffMode, QiOriginal, ReleasedColumn, encode_originals, encode_released};
use karc::config::Config;
use karc::dataset::Dataset;
use karc::privacy::PrivacyModel;

/// Order-0 entropy of a sequence, in bytes.
fn entropy_bytes<T: std::hash::Hash + Eq>(items: impl Iterator<Item = T>) -> f64 {
    let mut counts: HashMap<T, u64> = HashMap::new();
    let mut n = 0u64;
    for x in items {
        *counts.entry(x).or_default() += 1;
        n += 1;
    }
    let n = n as f64;
    counts
        .values()
        .map(|&c| {
            let p = c as f64 / n;
            -(c as f64) * p.log2()
        })
        .sum::<f64>()
        / 8.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (config_path, csv_path) = match args.as_slice() {
        [] => (
            root.join("fixtures/adult/adult.toml"),
            root.join("fixtures/adult/adult.csv"),
        ),
        [c, d] => (PathBuf::from(c), PathBuf::from(d)),
        _ => return Err("usage: coding_sizes [CONFIG.toml CSV]".into()),
    };
    let mut config = Config::load(&config_path)?;
    let base = Dataset::load(&config, &csv_path)?;
    let rows = base.rows();
    let h_original: f64 = (0..base.qis.len())
        .map(|q| entropy_bytes(base.qi_codes(q).iter()))
        .sum();
    println!(
        "{} rows, {} QIs; order-0 entropy of the original QI columns: {:.0} B",
        rows,
        base.qis.len(),
        h_original
    );
    println!(
        "{:<12} {:>4} {:>9} {:>9} {:>9} {:>9} {:>11} {:>11} {:>9}",
        "algorithm", "k", "H(rel)", "public", "H(x|g)", "paper", "per-value", "pub+paper", "pub+pv"
    );
    for k in [5usize, 10, 50, 100] {
        config.privacy.k = Some(k);
        config.privacy.constraints.clear();
        let model = PrivacyModel::from_config(&config, &base)?;
        for a in Algorithm::ALL {
            config.algorithm.name = a.name().to_owned();
            let outcome = match anonymize::run(&base, &model, &config.algorithm) {
                Ok(o) => o,
                Err(e) => {
                    println!("{:<12} {k:>4} failed: {e}", a.name());
                    continue;
                }
            };
            let release = &outcome.release;
            let released: Vec<ReleasedColumn> = base
                .qis
                .iter()
                .enumerate()
                .map(|(q, qi)| {
                    ReleasedColumn::from_palette(
                        qi,
                        &base.table.columns[qi.column].dict,
                        &release.qis[q],
                    )
                })
                .collect();
            let public: usize = released.iter().map(|c| encode_released(c).len()).sum();
            let h_release: f64 = released.iter().map(|c| entropy_bytes(c.rows.iter())).sum();
            // H(x | g) = H(x, g) - H(g), per column.
            let h_cond: f64 = released
                .iter()
                .enumerate()
                .map(|(q, c)| {
                    entropy_bytes(c.rows.iter().zip(base.qi_codes(q)))
                        - entropy_bytes(c.rows.iter())
                })
                .sum();
            let originals: Vec<QiOriginal<'_>> = QiOriginal::of_dataset(&base);
            let size = |mode| encode_originals(mode, &originals, &released).bytes.len();
            let paper = size(DiffMode::Paper);
            let per_value = size(DiffMode::PerValue);
            let context = size(DiffMode::Context);
            println!(
                "{:<12} {k:>4} {:>9.0} {:>9} {:>9.0} {:>9} {:>10} {:>9} {:>10} {:>10}",
                a.name(),
                h_release,
                public,
                h_cond,
                paper,
                per_value,
                context,
                public + paper,
                public + context
            );
        }
    }
    Ok(())
}

//! Measuring karc against general-purpose compressors: paper 004's
//! comparison with zip (its "compression rate" is compressed bytes over the
//! bytes of the table compressed), made a first-class, repeatable measurement.
//!
//! For each algorithm and k the input is anonymized once; then, for each
//! difference mode, the archive is packed and restored (the restore is
//! checked byte for byte) and set beside zip of the original CSV and zip of
//! the release CSV, all in the same process on the same bytes. Times are the
//! fastest of `repeats` runs, which is the least noisy estimate on a shared
//! machine.

pub mod baseline;
pub mod chart;
pub mod models;

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::anonymize::Algorithm;
use crate::archive::reader::{Archive, ClaimCheck};
use crate::archive::seal::{Key, Seal};
use crate::archive::writer::{Anonymization, PackOptions, pack, released_columns};
use crate::codec::DiffMode;
use crate::config::Config;
use crate::dataset::Dataset;
use crate::io::Input;
use crate::privacy::PrivacyModel;
use crate::pseudonym::Pseudonyms;
use crate::report::Report;
use crate::table::Table;
use crate::{Error, Result};
use baseline::{Compressor, Measurement, measure};

/// What to compare.
#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// The algorithms, in the rows' order.
    pub algorithms: Vec<Algorithm>,
    /// The k values, each algorithm's rows in this order.
    pub ks: Vec<usize>,
    /// The private part's difference modes, each (algorithm, k) in this order.
    pub modes: Vec<DiffMode>,
    /// Also measure zstd and xz.
    pub baselines: bool,
    /// Timed runs of each step; the fastest counts.
    pub repeats: usize,
}

/// Another compressor on the original and the release.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BaselineRow {
    /// The compressor and its level (`zstd-19`, `xz-9e`).
    pub compressor: &'static str,
    /// The original CSV compressed.
    pub original_bytes: u64,
    /// The release CSV compressed.
    pub release_bytes: u64,
    /// Compressing the original.
    pub compress_ms: f64,
    /// Decompressing the original.
    pub decompress_ms: f64,
}

/// One (algorithm, k, mode) measurement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompareRow {
    /// The algorithm's name.
    pub algorithm: String,
    /// Its k.
    pub k: usize,
    /// The private part's difference mode.
    pub mode: String,
    /// Rows of the table.
    pub rows: usize,
    /// The original CSV.
    pub original_bytes: u64,
    /// The release as CSV (`karc export`).
    pub release_csv_bytes: u64,
    /// zip of the original CSV.
    pub zip_original_bytes: u64,
    /// zip of the release CSV.
    pub zip_release_bytes: u64,
    /// karc's public part (the release, its claim, hierarchies, metadata).
    pub public_bytes: u64,
    /// karc's private part before encryption.
    pub private_bytes: u64,
    /// public + private.
    pub total_bytes: u64,
    /// The private part after sealing for one X25519 recipient.
    pub sealed_bytes: u64,
    /// The whole `.karc` file, sealed.
    pub file_bytes: u64,
    /// Paper 004's rates: private / original and public / release CSV.
    pub rate_original: f64,
    /// public / release CSV.
    pub rate_release: f64,
    /// zip's rate on the original.
    pub zip_rate_original: f64,
    /// zip's rate on the release.
    pub zip_rate_release: f64,
    /// 1 - private / zip of the original.
    pub reduction_original_vs_zip: f64,
    /// 1 - public / zip of the release.
    pub reduction_release_vs_zip: f64,
    /// The anonymization.
    pub anonymize_ms: f64,
    /// Writing the archive (encoding, sealing), without the anonymization.
    pub karc_pack_ms: f64,
    /// zip of the original.
    pub zip_ms: f64,
    /// karc_pack_ms / zip_ms.
    pub pack_vs_zip: f64,
    /// Opening (integrity and claim checks), unsealing, decoding, rendering.
    pub karc_restore_ms: f64,
    /// unzip of the original.
    pub unzip_ms: f64,
    /// karc_restore_ms / unzip_ms.
    pub restore_vs_unzip: f64,
    /// The other compressors (`--baselines`; empty without).
    pub baselines: Vec<BaselineRow>,
}

/// The fastest of `repeats` runs of `f`, with its last result. Each run's
/// result is dropped before the next starts, as the zip baselines' are:
/// kept, a run's output (2.5 MB for Adult) would come from fresh pages.
fn fastest<T>(repeats: usize, mut f: impl FnMut() -> Result<T>) -> Result<(f64, T)> {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..repeats.max(1) {
        drop(last.take());
        let start = Instant::now();
        let value = f()?;
        best = best.min(start.elapsed().as_secs_f64() * 1e3);
        last = Some(value);
    }
    Ok((best, last.expect("at least one run")))
}

fn fastest_measure(c: Compressor, data: &[u8], entry: &str, repeats: usize) -> Result<Measurement> {
    let mut best: Option<Measurement> = None;
    for _ in 0..repeats.max(1) {
        let m = measure(c, data, entry).map_err(|e| Error::io(entry, e))?;
        best = Some(match best {
            None => m,
            Some(b) => Measurement {
                compress_ms: b.compress_ms.min(m.compress_ms),
                decompress_ms: b.decompress_ms.min(m.decompress_ms),
                ..m
            },
        });
    }
    Ok(best.expect("at least one run"))
}

/// Runs the comparison on `input` with `config`; `progress` hears of each
/// finished row.
pub fn compare(
    config: &Config,
    input: &Path,
    options: &CompareOptions,
    progress: &mut dyn FnMut(&CompareRow),
) -> Result<Vec<CompareRow>> {
    compare_bytes(config, input, &Input::open(input)?, options, progress)
}

// Long: one straight sequence per algorithm and k: anonymize, zip the release, pack and seal,
// inspect the archive, and collect the sizes into one row
/// [`compare`] on the input's bytes (`input` names it).
pub fn compare_bytes(
    config: &Config,
    input: &Path,
    original: &[u8],
    options: &CompareOptions,
    progress: &mut dyn FnMut(&CompareRow),
) -> Result<Vec<CompareRow>> {
    let table = Table::from_bytes(input, original, &config.csv_options()?)?;
    let data = Dataset::bind(config, table)?;
    let entry = input
        .file_name()
        .map_or("table.csv".to_owned(), |n| n.to_string_lossy().into_owned());
    let zip_original = fastest_measure(Compressor::Zip, original, &entry, options.repeats)?;
    let other_original: Vec<Measurement> = if options.baselines {
        [Compressor::Zstd, Compressor::Xz]
            .into_iter()
            .map(|c| fastest_measure(c, original, &entry, 1))
            .collect::<Result<_>>()?
    } else {
        Vec::new()
    };
    let identity = age::x25519::Identity::generate();
    let seal = Seal::Recipients(vec![identity.to_public()]);
    let key = Key::Identities(vec![Box::new(identity)]);

    let mut rows = Vec::new();
    for &algorithm in &options.algorithms {
        for &k in &options.ks {
            let mut config = config.clone();
            config.algorithm.name = algorithm.name().to_owned();
            config.privacy.k = Some(k);
            config.privacy.constraints.clear();
            let model = PrivacyModel::from_config(&config, &data)?;
            let (outcome, report) = Report::anonymize(&data, &model, &config.algorithm)?;
            let anonymize_ms = report.elapsed_ms;
            let mut release_csv = Vec::new();
            // Pseudonymized identifiers as a pack publishes them.
            let pseudonyms = Pseudonyms::of_config(&config, &data.table.names(), false)?;
            outcome
                .release
                .write_csv(&data, &pseudonyms, &mut release_csv)
                .map_err(|e| Error::io(input, e))?;
            let release_entry = format!("release-{}-k{k}.csv", algorithm.name());
            let zip_release = fastest_measure(Compressor::Zip, &release_csv, &release_entry, 1)?;
            let baselines: Vec<BaselineRow> = other_original
                .iter()
                .map(|o| {
                    let r = fastest_measure(o.compressor, &release_csv, &release_entry, 1)?;
                    Ok(BaselineRow {
                        compressor: o.compressor.name(),
                        original_bytes: o.bytes,
                        release_bytes: r.bytes,
                        compress_ms: o.compress_ms,
                        decompress_ms: o.decompress_ms,
                    })
                })
                .collect::<Result<_>>()?;
            let released = released_columns(&data, &outcome);
            let a = Anonymization {
                classes: None,
                config: &config,
                data: &data,
                model: &model,
                released: &released,
                report: &report,
            };
            for &mode in &options.modes {
                let pack_options = PackOptions {
                    mode,
                    seal: &seal,
                    groups: Default::default(),
                };
                let (karc_pack_ms, archive) =
                    fastest(options.repeats, || pack(&a, original, &pack_options))?;
                let (karc_restore_ms, restored) = fastest(options.repeats, || {
                    Archive::from_bytes_and_restore(
                        input,
                        archive.clone(),
                        ClaimCheck::Enforce,
                        Some(&key),
                    )
                    .map(|(_, restored)| restored)
                })?;
                if restored[..] != original[..] {
                    return Err(Error::ReleaseCheck {
                        algorithm: algorithm.name().to_owned(),
                        detail: format!(
                            "{} mode: restore did not reproduce the input",
                            mode.name()
                        ),
                    });
                }
                let inspection = Archive::from_bytes(input, archive.clone(), ClaimCheck::Enforce)?
                    .inspect(Some(&key))?;
                let public_bytes = inspection.public_bytes;
                let private_bytes = inspection.private_bytes.unwrap_or(0);
                let original_bytes = original.len() as u64;
                let release_bytes = release_csv.len() as u64;
                let row = CompareRow {
                    algorithm: algorithm.name().to_owned(),
                    k,
                    mode: mode.name().to_owned(),
                    rows: data.rows(),
                    original_bytes,
                    release_csv_bytes: release_bytes,
                    zip_original_bytes: zip_original.bytes,
                    zip_release_bytes: zip_release.bytes,
                    public_bytes,
                    private_bytes,
                    total_bytes: public_bytes + private_bytes,
                    sealed_bytes: inspection.sealed_bytes.unwrap_or(private_bytes),
                    file_bytes: archive.len() as u64,
                    rate_original: private_bytes as f64 / original_bytes as f64,
                    rate_release: public_bytes as f64 / release_bytes as f64,
                    zip_rate_original: zip_original.bytes as f64 / original_bytes as f64,
                    zip_rate_release: zip_release.bytes as f64 / release_bytes as f64,
                    reduction_original_vs_zip: 1.0
                        - private_bytes as f64 / zip_original.bytes as f64,
                    reduction_release_vs_zip: 1.0 - public_bytes as f64 / zip_release.bytes as f64,
                    anonymize_ms,
                    karc_pack_ms,
                    zip_ms: zip_original.compress_ms,
                    pack_vs_zip: karc_pack_ms / zip_original.compress_ms,
                    karc_restore_ms,
                    unzip_ms: zip_original.decompress_ms,
                    restore_vs_unzip: karc_restore_ms / zip_original.decompress_ms,
                    baselines: baselines.clone(),
                };
                progress(&row);
                rows.push(row);
            }
        }
    }
    Ok(rows)
}

/// The chart of `rows`' sizes: one group per (algorithm, k) in their
/// order, one bar per karc mode, then zip and the other baselines.
pub fn size_chart(rows: &[CompareRow], title: &str) -> chart::SizeChart {
    let mut modes: Vec<&str> = Vec::new();
    let mut keys: Vec<(&str, usize)> = Vec::new();
    for r in rows {
        if !modes.contains(&r.mode.as_str()) {
            modes.push(&r.mode);
        }
        if !keys.contains(&(r.algorithm.as_str(), r.k)) {
            keys.push((&r.algorithm, r.k));
        }
    }
    let baselines: Vec<&str> = rows
        .first()
        .map(|r| r.baselines.iter().map(|b| b.compressor).collect())
        .unwrap_or_default();
    let mut series: Vec<String> = modes.iter().map(|m| format!("karc {m}")).collect();
    series.push("zip".to_owned());
    series.extend(baselines.iter().map(|b| b.to_string()));
    let groups = keys
        .iter()
        .map(|&(algorithm, k)| {
            let of = |r: &&CompareRow| r.algorithm == algorithm && r.k == k;
            let mut bars: Vec<Option<chart::Stack>> = modes
                .iter()
                .map(|m| {
                    rows.iter()
                        .filter(of)
                        .find(|r| r.mode == *m)
                        .map(|r| chart::Stack {
                            original: r.private_bytes,
                            release: r.public_bytes,
                        })
                })
                .collect();
            let first = rows.iter().find(of);
            bars.push(first.map(|r| chart::Stack {
                original: r.zip_original_bytes,
                release: r.zip_release_bytes,
            }));
            for b in &baselines {
                bars.push(first.and_then(|r| {
                    let row = r.baselines.iter().find(|x| x.compressor == *b)?;
                    Some(chart::Stack {
                        original: row.original_bytes,
                        release: row.release_bytes,
                    })
                }));
            }
            chart::Group {
                algorithm: algorithm.to_owned(),
                k,
                bars,
            }
        })
        .collect();
    let default = DiffMode::default().name();
    chart::SizeChart {
        title: title.to_owned(),
        karc_series: modes.iter().position(|m| *m == default).unwrap_or(0),
        zip_series: modes.len(),
        xz_series: (baselines.iter())
            .position(|b| b.starts_with("xz"))
            .map(|i| modes.len() + 1 + i),
        series,
        groups,
    }
}

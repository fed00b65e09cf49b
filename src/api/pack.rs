//! Packing: an anonymization into a `.karc` file, or a CSV stream row
//! group by row group.

use std::path::Path;

use super::{Anonymized, TableInput, anonymize};
use crate::archive::batch_groups::GroupSize;
use crate::archive::seal::Seal;
use crate::archive::stream_pack::{self, StreamPackReport};
use crate::archive::writer::{self, Anonymization};
use crate::arrow::TableFormat;
use crate::codec::{DiffMode, ReleasedClasses};
use crate::config::Config;
use crate::io::Output;
use crate::privacy::PrivacyModel;
use crate::report::Report;
use crate::stream::{StreamAlgorithm, StreamParams};
use crate::{Error, Result};

/// How an anonymization is packed.
pub struct PackOptions {
    /// The private part's difference coding (`spec/CODING.md`).
    pub mode: DiffMode,
    /// The private part's envelope.
    pub seal: Seal,
    /// Rows per row group (default: one group), so that the coding and
    /// every reader hold one group at a time (`spec/FORMAT.md` §2; the
    /// groups share one class table, but each private part codes a local
    /// recoding's classes without the other groups' rows, which costs
    /// size).
    pub group_rows: Option<usize>,
}

/// A packed archive.
pub struct Packed {
    /// The whole `.karc` file.
    pub bytes: Vec<u8>,
    /// The anonymization's report.
    pub report: Report,
}

/// Packs an anonymization of `input` (whose table it anonymized) into a
/// `.karc` file: the release and the sealed original (an Arrow input's
/// canonical CSV and the layout that rebuilds it).
pub fn pack(
    config: &Config,
    mut a: Anonymized,
    input: &TableInput,
    options: &PackOptions,
) -> Result<Packed> {
    let config = &*input.config(config);
    let model = PrivacyModel::from_config(config, &a.data)?;
    // The released columns replace the outcome's cells, which would
    // otherwise stay beside the pack's own memory.
    let mut released = writer::released_columns(&a.data, &a.outcome);
    a.outcome.release.qis = Vec::new();
    // In row groups, each group's table is read again from the original
    // and its released rows are taken from the classes: the whole table's
    // rows (15 columns of 10M rows: 600 MB) and the released columns' (ten
    // QIs: 400 MB) are freed, but a sensitive column's, whose values the
    // file's hierarchy of it is pruned to.
    let size = options
        .group_rows
        .map_or_else(GroupSize::default, GroupSize::rows);
    let grouped = size.rows_per_group(a.data.rows(), input.csv.len()) < a.data.rows();
    let classes = (grouped && input.arrow.is_none()).then(|| {
        let roles = &a.data.roles;
        (a.data.table).forget_rows(|c| roles[c] == crate::config::Role::Sensitive);
        let classes = ReleasedClasses::from_columns(&released);
        for column in &mut released {
            column.rows = Vec::new();
        }
        classes
    });
    crate::io::release_freed_memory();
    let bytes = writer::pack_with_arrow(
        &Anonymization {
            config,
            data: &a.data,
            model: &model,
            released: &released,
            classes: classes.as_ref(),
            report: &a.report,
        },
        input.csv.original(),
        input.arrow.as_ref(),
        &writer::PackOptions {
            mode: options.mode,
            seal: &options.seal,
            groups: size,
        },
    )?;
    Ok(Packed {
        bytes,
        report: a.report,
    })
}

/// Anonymizes a table input and packs it: [`anonymize()`] then [`pack`].
pub fn pack_input(
    config: &Config,
    name: &Path,
    input: &TableInput,
    options: &PackOptions,
) -> Result<Packed> {
    let a = anonymize(config, name, input)?;
    pack(config, a, input, options)
}

/// How a stream is packed, beside [`PackOptions`].
#[derive(Debug, Clone, Default)]
pub struct StreamPackOptions {
    /// `[algorithm]` name of the config must be fads or castle.
    pub params: StreamOverrides,
    /// The person-id column (rows sharing a pid count once toward k).
    pub pid: Option<String>,
    /// Rows per row group (default [`stream_pack::DEFAULT_GROUP_ROWS`]).
    pub group_rows: Option<usize>,
    /// The publisher's key: the file is signed as it is written.
    pub sign: Option<super::Signer>,
}

/// What a streamed pack did.
pub struct StreamPacked {
    /// FADS or CASTLE.
    pub algorithm: StreamAlgorithm,
    /// The stream's figures and the release's report.
    pub report: StreamPackReport,
}

/// Anonymizes the CSV at `input` (`-`: standard input) as a stream (FADS
/// or CASTLE) and packs it into `output` row group by row group, in memory
/// bounded by the group size and the delay, not by the input.
pub fn pack_stream(
    config: &Config,
    input: &Path,
    output: &Output,
    options: &PackOptions,
    stream: &StreamPackOptions,
) -> Result<StreamPacked> {
    if TableFormat::from_path(input) != TableFormat::Csv {
        return Err(Error::Options(format!(
            "{}: --stream reads CSV files: pack a Parquet or Arrow IPC table without --stream",
            input.display()
        )));
    }
    let algorithm = StreamAlgorithm::from_name(&config.algorithm.name)?;
    let params = stream_params(config, &stream.params)?;
    let report = stream_pack::pack_stream(
        config,
        input,
        output,
        &stream_pack::StreamPackOptions {
            mode: options.mode,
            seal: &options.seal,
            algorithm,
            params,
            pid: stream.pid.as_deref(),
            group_rows: stream.group_rows.unwrap_or(stream_pack::DEFAULT_GROUP_ROWS),
            sign: stream.sign.as_ref(),
        },
    )?;
    Ok(StreamPacked { algorithm, report })
}

/// The streaming anonymizers' parameters a front end may give; the rest
/// come from the config's `[algorithm]` keys, then the defaults.
#[derive(Debug, Clone, Default)]
pub struct StreamOverrides {
    /// Distinct persons per released class (`[privacy] k`).
    pub k: Option<usize>,
    /// The seed of random choices (`[algorithm] seed`).
    pub seed: Option<u64>,
    /// The delay bound delta (`[algorithm] delay`).
    pub delay: Option<usize>,
    /// FADS: the loss bound of reusable clusters.
    pub tau: Option<f64>,
    /// FADS: reusable clusters kept, as c0 * delay / k.
    pub c0: Option<f64>,
    /// CASTLE: most clusters under construction.
    pub beta: Option<usize>,
    /// CASTLE: published clusters whose mean loss is its tau.
    pub mu: Option<usize>,
}

/// Reads a numeric `[algorithm]` parameter of the config.
fn param(config: &Config, name: &str) -> Result<Option<f64>> {
    match config.algorithm.params.get(name) {
        None => Ok(None),
        Some(v) => v
            .as_float()
            .or_else(|| v.as_integer().map(|i| i as f64))
            .map(Some)
            .ok_or_else(|| {
                Error::Options(format!(
                    "{}: [algorithm] {name}: expected a number, found {v:?}",
                    config.path.display()
                ))
            }),
    }
}

/// Reads a count (a whole number from 1 up) of the config's `[algorithm]`.
fn count(config: &Config, name: &str) -> Result<Option<usize>> {
    match config.algorithm.params.get(name) {
        None => Ok(None),
        Some(v) => v
            .as_integer()
            .and_then(|i| usize::try_from(i).ok())
            .filter(|&i| i >= 1)
            .map(Some)
            .ok_or_else(|| {
                let found = v
                    .as_integer()
                    .map_or_else(|| format!("{v:?}"), |i| i.to_string());
                Error::Options(format!(
                    "{}: [algorithm] {name}: expected a whole number from 1 up, found {found}",
                    config.path.display()
                ))
            }),
    }
}

/// The stream parameters from the overrides, then the config's
/// `[algorithm]` keys, then the defaults.
pub fn stream_params(config: &Config, o: &StreamOverrides) -> Result<StreamParams> {
    let k =
        o.k.or(config.privacy.k)
            .ok_or_else(|| Error::Options("no k: give --k or [privacy] k".to_owned()))?;
    let delta = match o.delay {
        Some(d) => d,
        None => count(config, "delay")?.ok_or_else(|| {
            Error::Options("no delay: give --delay or [algorithm] delay".to_owned())
        })?,
    };
    let mut params = StreamParams::new(k, delta);
    params.tau = o.tau.or(param(config, "tau")?).unwrap_or(params.tau);
    params.c0 = o.c0.or(param(config, "c0")?).unwrap_or(params.c0);
    params.beta = o.beta.or(count(config, "beta")?).unwrap_or(params.beta);
    params.mu = o.mu.or(count(config, "mu")?).unwrap_or(params.mu);
    params.seed = o.seed.unwrap_or(config.algorithm.seed);
    params.validate()?;
    Ok(params)
}

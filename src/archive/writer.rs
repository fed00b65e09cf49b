//! Writing an archive from an anonymized table (`karc pack`): the whole
//! table is one row group of the pack pipeline (`archive::pipeline`, internal), whose
//! `META` states the anonymization's claim, algorithm and metrics.

use super::ArchiveError;
use super::batch_groups::{self, GroupSize};
use super::checks::ColumnChecksMeta;
use super::meta::{
    self, AlgorithmMeta, Claim, ConstraintMeta, Dialect, HierarchyRecord, MetricsMeta, PublicMeta,
    SealedMetrics,
};
use super::models::ModelsClaim;
use super::pipeline::{ArrowSections, Group, GroupWriter, Scratch};
use super::seal::Seal;
use super::{Original, TableInput};
use crate::Result;
use crate::anonymize::Outcome;
use crate::arrow::ArrowLayout;
use crate::codec::{
    DiffMode, QiOriginal, ReleasedClasses, ReleasedColumn, ReleasedSymbol, RowClasses,
};
use crate::config::{Config, Role};
use crate::dataset::{Dataset, QuasiIdentifier};
use crate::hierarchy::Hierarchy;
use crate::privacy::{Distance, PrivacyModel};
use crate::pseudonym::Pseudonyms;
use crate::report::Report;
use crate::table::{LineEnding, Table};
use std::path::Path;

/// What `pack` needs beyond the anonymization.
pub struct PackOptions<'a> {
    /// The private part's difference coding (`spec/CODING.md`).
    pub mode: DiffMode,
    /// Who can open the private part.
    pub seal: &'a Seal,
    /// How the table is cut into row groups (`spec/FORMAT.md` §2).
    pub groups: GroupSize,
}

/// An anonymization ready to be archived.
pub struct Anonymization<'a> {
    /// The config the release was made with (stored in the public part).
    pub config: &'a Config,
    /// The original table, restored byte for byte from the private part.
    pub data: &'a Dataset,
    /// The privacy claim, checked again by every reader.
    pub model: &'a PrivacyModel,
    /// The released QI columns ([`released_columns`] of the outcome): the
    /// outcome's cells can be dropped before the pack.
    pub released: &'a [ReleasedColumn],
    /// The released columns' classes when made beforehand (a pack in row
    /// groups, whose `released` then need hold their symbols only: ten
    /// QIs of 10M rows free 400 MB); `None`: made from `released`.
    pub classes: Option<&'a ReleasedClasses>,
    /// The anonymization's report (metrics stored in the public part).
    pub report: &'a Report,
}

/// The released QI columns as the public sees them, in claim order, made
/// on two threads when the release is large (ten QIs of 10M rows: 2 s on
/// one).
pub fn released_columns(data: &Dataset, outcome: &Outcome) -> Vec<ReleasedColumn> {
    let column = |q: usize| {
        let qi = &data.qis[q];
        let dict = &data.table.columns[qi.column].dict;
        ReleasedColumn::from_palette(qi, dict, &outcome.release.qis[q])
    };
    crate::jobs::on_two_threads(data.qis.len(), data.rows() >= PARALLEL_ROWS, column)
}

/// Rows from which [`released_columns`] makes the columns on two threads.
const PARALLEL_ROWS: usize = 1 << 16;

/// Builds the whole archive, the one-row-group case of the pack pipeline
/// (`archive::pipeline`, internal): the public sections, then the private part
/// (sealed as `options.seal` says). `original` is the input file's bytes,
/// from which the table was read.
pub fn pack(a: &Anonymization<'_>, original: &[u8], options: &PackOptions<'_>) -> Result<Vec<u8>> {
    pack_with_arrow(a, Original::Bytes(original), None, options)
}

/// [`pack`] of one part of a distributed pack: every configured hierarchy
/// is kept, so that the parts of one table agree on `HIERARCHIES` (a
/// fragment may release a numeric QI's hierarchy nodes where another does
/// not) and the merge can take one copy for the whole file.
pub fn pack_part(
    a: &Anonymization<'_>,
    original: &[u8],
    options: &PackOptions<'_>,
) -> Result<Vec<u8>> {
    pack_group(
        a,
        Original::Bytes(original),
        None,
        options,
        Hierarchies::Configured,
    )
}

/// Which configured hierarchies a file stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hierarchies {
    /// Every one.
    Configured,
    /// Those its release needs ([`needs_hierarchy`]).
    Used,
}

/// Whether the file must store QI `q`'s hierarchy: a categorical QI's
/// always (its leaves are the values a private part may number, and its
/// levels the domain a reader shows), a numeric QI's only when a released
/// cell is one of its nodes. A numeric QI released as intervals and values
/// (Mondrian; Top-down without a hierarchy for it) does not need one, whose leaves
/// are then nothing but the column's distinct values: published, they would
/// tell every exact value the release generalized (a built `intervals`
/// hierarchy over 100,000 distinct decimals also took a quarter of the file).
fn needs_hierarchy(qi: &QuasiIdentifier, released: &ReleasedColumn) -> bool {
    !qi.value_type.is_numeric()
        || released
            .symbols
            .iter()
            .any(|s| matches!(s, ReleasedSymbol::Node { .. }))
}

/// [`pack`] of an input's original (its bytes, or the file read again a
/// row group at a time) and, for an Arrow input (Parquet, IPC), whose
/// original is its canonical CSV ([`TableInput`]), `arrow` its exact
/// layout, whose schema goes into the `ARROW_SCHEMA` section and whose
/// null rows and NaN bits end the private part (`spec/FORMAT.md` §7.6).
pub fn pack_with_arrow(
    a: &Anonymization<'_>,
    original: Original<'_>,
    arrow: Option<&ArrowLayout>,
    options: &PackOptions<'_>,
) -> Result<Vec<u8>> {
    pack_group(a, original, arrow, options, Hierarchies::Used)
}

fn pack_group(
    a: &Anonymization<'_>,
    original: Original<'_>,
    arrow: Option<&ArrowLayout>,
    options: &PackOptions<'_>,
    hierarchies: Hierarchies,
) -> Result<Vec<u8>> {
    let arrow = arrow
        .map(|l| arrow_sections(l, &a.data.table))
        .transpose()?;
    let data = a.data;
    // The hierarchy each QI's coding and `HIERARCHIES` see.
    let kept: Vec<bool> = (data.qis.iter().zip(a.released))
        .map(|(qi, r)| hierarchies == Hierarchies::Configured || needs_hierarchy(qi, r))
        .collect();
    let mut qis = QiOriginal::of_dataset(data);
    for (qi, &kept) in qis.iter_mut().zip(&kept) {
        if !kept {
            qi.hierarchy = None;
        }
    }
    let trim = a.config.input.trim;
    let mut writer = GroupWriter::new(
        options.mode,
        options.seal,
        &data.roles,
        trim,
        Scratch::Memory,
        true,
    )?;
    let names = data.table.names();
    let shared = hierarchies == Hierarchies::Configured;
    writer.pseudonyms(Pseudonyms::of_config(a.config, &names, shared)?);
    // An Arrow input's file, and a part of a distributed pack (merged as
    // one group), have one row group.
    let size = match arrow.is_some() || shared {
        true => GroupSize::whole(),
        false => options.groups,
    };
    write_groups(&mut writer, a, original, &qis, size)?;
    let (public, hierarchies) = public_meta(a, &kept);
    if let Some(arrow) = arrow {
        writer.arrow(arrow);
    }
    if a.model.models.any() {
        let distances: Vec<Distance> = (a.model.sensitive.iter())
            .map(|&c| {
                let m = &public.columns[c];
                Distance::declared(m.value_type, m.hierarchy.is_some())
            })
            .collect();
        writer.models(&ModelsClaim::new(
            &a.model.sensitive,
            &a.model.models,
            &distances,
        ));
    }
    if let Some(checks) = &a.report.column_checks {
        let names = a.data.table.names();
        writer.column_checks(&ColumnChecksMeta::new(checks, &names));
    }
    let sealed = SealedMetrics::from(&a.report.metrics);
    writer.finish(&public, &hierarchies, sealed)?.into_bytes()
}

/// Hands the table to `writer` in row groups of `size` (one group when
/// it fits in one): each group's bytes of `original` read (a file's, again
/// from the file, one group at a time), its table read again from them,
/// its QIs coded as `qis` says (hierarchies kept or not) and its released
/// rows renumbered (`archive::batch_groups`, internal).
fn write_groups(
    writer: &mut GroupWriter,
    a: &Anonymization<'_>,
    original: Original<'_>,
    qis: &[QiOriginal<'_>],
    size: GroupSize,
) -> Result<()> {
    let table = &a.data.table;
    let groups = match original {
        Original::Bytes(bytes) => batch_groups::plan(bytes, table, size),
        Original::File(file) => batch_groups::plan_file(file, table, size)?,
    };
    let Some(groups) = groups else {
        return write_whole(writer, a, original, qis);
    };
    let trim = a.config.input.trim;
    // One class table for every group: a local recoding's classes have
    // rows all over the file, and a table per group would repeat them.
    let made;
    let classes = match a.classes {
        Some(classes) => classes,
        None => {
            made = ReleasedClasses::from_columns(a.released);
            &made
        }
    };
    writer.class_table(classes);
    let mut opened = 0u32;
    for bounds in &groups {
        let rows = &classes.rows[bounds.rows.clone()];
        let group_classes = RowClasses {
            rows,
            classes: classes.classes(),
            opened,
        };
        opened = opened.max(rows.iter().max().map_or(0, |&c| c + 1));
        let bytes = original.range(bounds.bytes.clone())?;
        let group = batch_groups::group_table(&bytes, table, trim, bounds)?;
        let released = classes.group_columns(bounds.rows.clone());
        writer.write_group(&Group {
            bytes: &bytes,
            table: &group,
            qis: &group_qis(a, qis, &group),
            released: &released,
            classes: Some(group_classes),
        })?;
    }
    original.check_unchanged()
}

/// Hands the whole table to `writer` as one group. A table whose rows a
/// pack in groups freed (its records did not split into the groups asked
/// for) is read again whole from `original`, and released columns that
/// hold their symbols only get their rows again from the classes.
fn write_whole(
    writer: &mut GroupWriter,
    a: &Anonymization<'_>,
    original: Original<'_>,
    qis: &[QiOriginal<'_>],
) -> Result<()> {
    let table = &a.data.table;
    let bytes = original.bytes()?;
    let rebuilt;
    let released = match a.classes {
        Some(classes) if a.released.iter().any(|r| r.rows.len() != table.rows) => {
            rebuilt = classes.to_columns();
            &rebuilt[..]
        }
        _ => a.released,
    };
    if table.holds_rows() {
        return writer.write_group(&Group {
            bytes: &bytes,
            table,
            qis,
            released,
            classes: None,
        });
    }
    let whole = batch_groups::Bounds {
        bytes: 0..bytes.len(),
        rows: 0..table.rows,
    };
    let table = batch_groups::group_table(&bytes, table, a.config.input.trim, &whole)?;
    writer.write_group(&Group {
        bytes: &bytes,
        table: &table,
        qis: &group_qis(a, qis, &table),
        released,
        classes: None,
    })
}

/// `qis` with a group's table's columns.
fn group_qis<'a>(
    a: &Anonymization<'_>,
    qis: &[QiOriginal<'a>],
    group: &'a Table,
) -> Vec<QiOriginal<'a>> {
    (a.data.qis.iter().zip(qis))
        .map(|(qi, q)| QiOriginal {
            column: &group.columns[qi.column],
            ..*q
        })
        .collect()
}

/// The `ARROW_SCHEMA` section and the private part's `ArrowExtras` of an
/// Arrow input's layout, which must describe the table's columns.
fn arrow_sections(layout: &ArrowLayout, table: &Table) -> Result<ArrowSections> {
    let names = layout.schema.fields().iter().map(|f| f.name().as_str());
    let extras = layout.extras.as_deref().unwrap_or_default();
    if !names.eq(table.columns.iter().map(|c| c.name.as_str()))
        || extras.len() != table.columns.len()
    {
        return Err(ArchiveError::Layout {
            path: table.source.clone(),
            detail: "the Arrow layout's columns are not the table's".to_owned(),
        }
        .into());
    }
    // The public schema without the input's custom metadata (pandas'
    // index and statistics, a writer's key-value pairs may hold values of
    // the data); the private part keeps it for a restore (FORMAT §2.1).
    let public = layout.without_metadata();
    let sealed_schema = match public.schema == layout.schema {
        true => Vec::new(),
        false => layout.schema_bytes(),
    };
    Ok(ArrowSections {
        schema: public.schema_bytes(),
        extras: meta::arrow_extras_to_bytes(extras),
        sealed_schema,
    })
}

/// A sensitive column's hierarchy as the file publishes it: when t is
/// claimed (its hierarchical distance needs it), over the leaves the
/// release shows and their ancestors, the height kept (which keeps every
/// EMD: `spec/FORMAT.md` §6). Its values are released as they are, so
/// those nodes disclose nothing the release hides.
fn sensitive_hierarchy(a: &Anonymization<'_>, column: usize) -> Option<Hierarchy> {
    let data = a.data;
    a.model.models.t?;
    let (_, h) = data
        .sensitive_hierarchies
        .iter()
        .find(|(c, _)| *c == column)?;
    let values = &data.table.columns[column];
    let mut held = vec![false; values.dict.len()];
    for &c in &values.codes {
        held[c as usize] = true;
    }
    let mut leaves: Vec<u32> = (0..values.dict.len() as u32)
        .filter(|&c| held[c as usize])
        .filter_map(|c| h.leaf(values.dict.value(c)))
        .collect();
    leaves.sort_unstable();
    let r = HierarchyRecord::over_leaves(h, &leaves);
    Some(
        r.into_hierarchy(&h.source)
            .expect("a hierarchy over some of its leaves is a hierarchy"),
    )
}

/// The public metadata of an anonymization, the whole hierarchies of its
/// QIs that `kept` says (one flag per QI), which the file prunes to the
/// nodes its release uses, and those of its sensitive columns that
/// t-closeness measures with one.
fn public_meta(a: &Anonymization<'_>, kept: &[bool]) -> (PublicMeta, Vec<HierarchyRecord>) {
    let data = a.data;
    let table = &data.table;
    let sensitive: Vec<Option<Hierarchy>> = (0..table.columns.len())
        .map(|i| {
            (data.roles[i] == Role::Sensitive)
                .then(|| sensitive_hierarchy(a, i))
                .flatten()
        })
        .collect();
    let (columns, hierarchies) =
        meta::columns_and_hierarchies(table.columns.iter().enumerate().map(|(i, c)| {
            let qi = data.qis.iter().position(|q| q.column == i);
            (
                c.name.clone(),
                data.roles[i],
                data.types[i],
                qi.filter(|&q| kept[q])
                    .and_then(|q| data.qis[q].hierarchy.as_ref())
                    .or(sensitive[i].as_ref()),
            )
        }));
    let public = PublicMeta {
        writer: meta::WRITER.to_owned(),
        rows: data.rows() as u64,
        columns,
        qis: data.qis.iter().map(|q| q.column as u32).collect(),
        claim: claim(a),
        algorithm: AlgorithmMeta {
            name: a.report.algorithm.clone(),
            seed: a.report.seed,
            params: if a.config.algorithm.params.is_empty() {
                String::new()
            } else {
                serde_json::to_string(&a.config.algorithm.params).unwrap_or_default()
            },
            levels: a.report.levels.as_ref().map(|l| to_u32(l)),
        },
        metrics: MetricsMeta::from(&a.report.metrics),
        dialect: Dialect {
            delimiter: table.delimiter,
            header: table.header,
            crlf: table.line_ending == LineEnding::CrLf,
        },
        missing: data.missing.clone(),
    };
    (public, hierarchies)
}

/// The privacy claim of an anonymization, as `META` states it.
fn claim(a: &Anonymization<'_>) -> Claim {
    Claim {
        constraints: a
            .model
            .constraints
            .iter()
            .map(|c| ConstraintMeta {
                qis: c.qis.iter().map(|&q| q as u32).collect(),
                k: c.k as u64,
            })
            .collect(),
        policy: a.model.policy,
        suppression_limit: a.model.suppression_limit,
        suppression_budget: a.report.suppression_budget as u64,
        l_diversity: a.model.l_diversity.map(|(c, l)| (c as u32, l as u64)),
    }
}

fn to_u32(levels: &[usize]) -> Vec<u32> {
    levels.iter().map(|&x| x as u32).collect()
}

/// Loads `input` with `config`, anonymizes it and packs it: `karc pack`
/// without the command line (tests, tools and test-vector generation).
pub fn pack_file(config: &Config, input: &Path, options: &PackOptions<'_>) -> Result<Vec<u8>> {
    // Read once: the table and the sealed original are the same bytes.
    let original = TableInput::open(input)?;
    let config = &*original.config(config);
    let table = original.csv.table(input, &config.csv_options()?)?;
    let data = Dataset::bind(config, table)?;
    let model = PrivacyModel::from_config(config, &data)?;
    let (outcome, report) = Report::anonymize_checked(config, &data, &model)?;
    let released = released_columns(&data, &outcome);
    drop(outcome);
    pack_with_arrow(
        &Anonymization {
            config,
            data: &data,
            model: &model,
            released: &released,
            classes: None,
            report: &report,
        },
        original.csv.original(),
        original.arrow.as_ref(),
        options,
    )
}

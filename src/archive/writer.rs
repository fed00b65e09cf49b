//! Writing an archive from an anonymized dataset (`karc pack`).

use super::ArchiveError;
use super::digest::PublicDigest;
use super::format::{self, SectionKind};
use super::layout::Layout;
use super::meta::{
    self, AlgorithmMeta, Claim, ConstraintMeta, Dialect, IdentifierColumn, MetricsMeta,
    PrivatePart, PublicMeta,
};
use super::seal::{self, Seal};
use crate::Result;
use crate::anonymize::Outcome;
use crate::arrow::{ArrowLayout, TableInput};
use crate::codec::{self, DiffMode, QiOriginal, ReleasedClasses, ReleasedColumn};
use crate::config::{Config, Role};
use crate::dataset::Dataset;
use crate::privacy::PrivacyModel;
use crate::report::Report;
use crate::table::{LineEnding, Table};
use std::path::Path;

/// What `pack` needs beyond the anonymization.
pub struct PackOptions<'a> {
    /// The private part's difference coding (`spec/CODING.md`).
    pub mode: DiffMode,
    pub seal: &'a Seal,
}

/// An anonymization ready to be archived.
pub struct Anonymization<'a> {
    pub config: &'a Config,
    pub data: &'a Dataset,
    pub model: &'a PrivacyModel,
    /// The released QI columns ([`released_columns`] of the outcome): the
    /// outcome's cells, a dozen bytes a row and QI, can be dropped before
    /// the pack, which is where its memory peaks.
    pub released: &'a [ReleasedColumn],
    pub report: &'a Report,
}

/// The released QI columns as the public sees them, in claim order.
pub fn released_columns(data: &Dataset, outcome: &Outcome) -> Vec<ReleasedColumn> {
    data.qis
        .iter()
        .enumerate()
        .map(|(q, qi)| {
            ReleasedColumn::from_cells(
                qi,
                &data.table.columns[qi.column].dict,
                &outcome.release.cells[q],
            )
        })
        .collect()
}

/// Builds the whole archive: public sections, then the private part
/// (sealed as `options.seal` says). `original` is the input file's bytes,
/// from which the table was read.
pub fn pack(a: &Anonymization<'_>, original: &[u8], options: &PackOptions<'_>) -> Result<Vec<u8>> {
    pack_with_arrow(a, original, None, options)
}

/// [`pack`] of an Arrow input (Parquet, IPC): `original` is its canonical
/// CSV ([`crate::arrow::TableInput`]), `arrow` its exact layout, whose
/// schema goes into the `ARROW_SCHEMA` section and whose null rows and NaN
/// bits end the private part (`spec/FORMAT.md` §7.6).
pub fn pack_with_arrow(
    a: &Anonymization<'_>,
    original: &[u8],
    arrow: Option<&ArrowLayout>,
    options: &PackOptions<'_>,
) -> Result<Vec<u8>> {
    let arrow = arrow
        .map(|l| arrow_sections(l, &a.data.table))
        .transpose()?;
    let data = a.data;
    let table = &data.table;
    // Three independent pieces of work, overlapped on the machine's
    // threads: the original's checksum and layout (the file and the table
    // only), the public sections, and the original QI columns (which
    // `encode_originals` spreads over threads itself).
    let (public, originals, (layout, digest)) = std::thread::scope(|scope| {
        let side = scope.spawn(|| {
            let digest = format::crc32(original);
            let layout = Layout::capture(
                original,
                table,
                table.delimiter,
                table.header,
                a.config.input.trim,
            );
            (layout, digest)
        });
        // The private part codes against the QI columns as a reader decodes
        // them from the classes: the same columns, since both number the
        // symbols in order of first use by the rows (a class's first row is
        // where its symbols first occur). The classes are built beside.
        let released = a.released;
        let (public, originals) = std::thread::scope(|scope| {
            let public = scope.spawn(|| {
                let classes = ReleasedClasses::from_columns(released);
                debug_assert!(
                    classes.to_columns() == released,
                    "symbols in first-use order"
                );
                public_sections(a, &classes)
            });
            let originals =
                codec::encode_originals(options.mode, &QiOriginal::of_dataset(data), released);
            let public = public
                .join()
                .expect("coding the public part does not panic");
            (public, originals)
        });
        let side = side.join().expect("capturing the layout does not panic");
        (public, originals, side)
    });
    let layout = layout.map_err(|e| ArchiveError::Layout {
        path: table.source.clone(),
        detail: e.to_string(),
    })?;
    let private = PrivatePart {
        digest,
        original_len: original.len() as u64,
        layout,
        originals_columns: originals.column_bytes.iter().map(|(_, b)| *b).collect(),
        originals: originals.bytes,
        identifiers: identifier_columns(table, &data.roles),
    };
    let mut sections: Vec<(SectionKind, &[u8])> = Vec::with_capacity(public.columns.len() + 4);
    sections.push((SectionKind::Meta, &public.meta));
    sections.push((SectionKind::Hierarchies, &public.hierarchies));
    if let Some((schema, _)) = &arrow {
        sections.push((SectionKind::ArrowSchema, schema));
    }
    sections.push((SectionKind::QiClasses, &public.classes));
    sections.extend(
        public
            .columns
            .iter()
            .map(|b| (SectionKind::Column, b.as_slice())),
    );
    // The plaintext ends with the public part's digest (§7.5).
    let mut public_digest = PublicDigest::new(format::VERSION_MAJOR, format::VERSION_MINOR);
    for (kind, body) in &sections {
        public_digest.section(kind.code(), 0, body);
    }
    let mut private_bytes = meta::to_bytes(&private);
    if let Some((_, extras)) = &arrow {
        private_bytes.extend_from_slice(extras);
    }
    private_bytes.extend_from_slice(&public_digest.finish());
    let sealed = seal::seal(&private_bytes, options.seal)?;
    match &sealed {
        Some(s) => sections.push((SectionKind::PrivateSealed, s)),
        None => sections.push((SectionKind::PrivatePlain, &private_bytes)),
    }
    Ok(format::assemble(&sections))
}

/// The `ARROW_SCHEMA` section and the private part's `ArrowExtras` of an
/// Arrow input's layout, which must describe the table's columns.
fn arrow_sections(layout: &ArrowLayout, table: &Table) -> Result<(Vec<u8>, Vec<u8>)> {
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
    Ok((layout.schema_bytes(), meta::arrow_extras_to_bytes(extras)))
}

/// The public part's sections, as `pack` assembles them.
struct PublicSections {
    meta: Vec<u8>,
    hierarchies: Vec<u8>,
    classes: Vec<u8>,
    /// The released non-QI columns.
    columns: Vec<Vec<u8>>,
}

fn public_sections(a: &Anonymization<'_>, classes: &ReleasedClasses) -> PublicSections {
    let data = a.data;
    let table = &data.table;
    let mut qi_of_column = vec![None; table.columns.len()];
    for (q, qi) in data.qis.iter().enumerate() {
        qi_of_column[qi.column] = Some(q);
    }
    let (columns, hierarchies) =
        meta::columns_and_hierarchies(table.columns.iter().enumerate().map(|(i, c)| {
            let hierarchy = qi_of_column[i].and_then(|q| data.qis[q].hierarchy.as_ref());
            (c.name.clone(), data.roles[i], data.types[i], hierarchy)
        }));
    let budget = a.report.suppression_budget as u64;
    let public = PublicMeta {
        writer: meta::WRITER.to_owned(),
        rows: data.rows() as u64,
        columns,
        qis: data.qis.iter().map(|q| q.column as u32).collect(),
        claim: Claim {
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
            suppression_budget: budget,
            l_diversity: a.model.l_diversity.map(|(c, l)| (c as u32, l as u64)),
        },
        algorithm: AlgorithmMeta {
            name: a.report.algorithm.clone(),
            seed: a.report.seed,
            params: if a.config.algorithm.params.is_empty() {
                String::new()
            } else {
                serde_json::to_string(&a.config.algorithm.params).unwrap_or_default()
            },
            levels: a
                .report
                .levels
                .as_ref()
                .map(|l| l.iter().map(|&x| x as u32).collect()),
            minimal_levels: a.report.minimal_levels.as_ref().map(|m| {
                m.iter()
                    .map(|l| l.iter().map(|&x| x as u32).collect())
                    .collect()
            }),
        },
        metrics: MetricsMeta::from(&a.report.metrics),
        dialect: Dialect {
            delimiter: table.delimiter,
            header: table.header,
            crlf: table.line_ending == LineEnding::CrLf,
        },
        missing: data.missing.clone(),
    };
    PublicSections {
        meta: meta::to_bytes(&public),
        hierarchies: meta::hierarchies_to_bytes(&hierarchies),
        classes: codec::encode_classes(classes),
        columns: table
            .columns
            .iter()
            .enumerate()
            .filter(|&(i, _)| data.roles[i] != Role::Identifier && qi_of_column[i].is_none())
            .map(|(_, c)| codec::encode_plain(c))
            .collect(),
    }
}

/// The identifier columns of `table` (never released), as the private part
/// stores them.
pub(crate) fn identifier_columns(table: &Table, roles: &[Role]) -> Vec<IdentifierColumn> {
    table
        .columns
        .iter()
        .enumerate()
        .filter(|&(i, _)| roles[i] == Role::Identifier)
        .map(|(i, c)| IdentifierColumn {
            column: i as u32,
            bytes: codec::encode_plain(c),
        })
        .collect()
}

/// Loads `input` with `config`, anonymizes it and packs it: `karc pack`
/// without the command line (tests, tools and test-vector generation).
pub fn pack_file(config: &Config, input: &Path, options: &PackOptions<'_>) -> Result<Vec<u8>> {
    // Read once: the table and the sealed original are the same bytes.
    let original = TableInput::open(input)?;
    let config = &*original.config(config);
    let table = Table::from_bytes(input, &original.csv, &config.csv_options()?)?;
    let data = Dataset::bind(config, table)?;
    let model = PrivacyModel::from_config(config, &data)?;
    let (outcome, report) = Report::anonymize(&data, &model, &config.algorithm)?;
    let released = released_columns(&data, &outcome);
    drop(outcome);
    pack_with_arrow(
        &Anonymization {
            config,
            data: &data,
            model: &model,
            released: &released,
            report: &report,
        },
        &original.csv,
        original.arrow.as_ref(),
        options,
    )
}

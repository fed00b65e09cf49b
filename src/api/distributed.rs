//! Entry points of a distributed run (`karc.spark`): workers anonymize and
//! code their fragment of the table as a part, one process merges the
//! parts into one `.karc` file (`crate::archive::parts`).

use std::path::Path;

use arrow_array::{Array, RecordBatch};
use arrow_schema::Schema;

use super::{Anonymized, arrow_table};
use crate::Result;
use crate::archive::parts;
pub use crate::archive::parts::{Domain, Reference, Whole};
use crate::archive::seal::Seal;
use crate::arrow::{ArrowLayout, ArrowTableError};
use crate::codec::DiffMode;
use crate::config::{ColumnConfig, Config, Role};
use crate::io::{Access, Output};
use crate::pseudonym::Pseudonyms;
use crate::report::Report;

pub use crate::archive::parts::{Merged, Merger, PartFile, Totals};

/// Anonymizes and codes one fragment (an Arrow table) as a part sealed for
/// `recipient` (from [`part_key`]); the first fragment's part holds the
/// header row. Returns the part's bytes and its report.
pub fn encode_part(
    config: &Config,
    schema: &Schema,
    batches: &[RecordBatch],
    first: bool,
    whole: &Whole,
    mode: DiffMode,
    recipient: &str,
) -> Result<(Vec<u8>, Report)> {
    super::check_algorithm(config)?;
    refuse_models(config, whole)?;
    let (table, config, _) = arrow_table(config, schema, batches)?;
    parts::encode_part(
        &config,
        table,
        first,
        whole,
        mode,
        &parts::part_seal(recipient)?,
    )
}

/// Anonymizes one fragment (an Arrow table) as the `whole` table would be
/// (see [`parts::anonymize_fragment`]); returns it with the layout that
/// types its release ([`Anonymized::release_batch`]).
pub fn anonymize_fragment(
    config: &Config,
    schema: &Schema,
    batches: &[RecordBatch],
    whole: &Whole,
) -> Result<(Anonymized, ArrowLayout)> {
    super::check_algorithm(config)?;
    refuse_models(config, whole)?;
    let (table, config, layout) = arrow_table(config, schema, batches)?;
    let (data, _, outcome, report) = parts::anonymize_fragment(&config, table, whole)?;
    // Fragments must agree on the pseudonyms: a key file is required.
    let pseudonyms = Pseudonyms::of_config(&config, &data.table.names(), true)?;
    let a = Anonymized {
        data,
        outcome,
        report,
        pseudonyms,
    };
    Ok((a, layout))
}

/// Refuses t-closeness, δ-disclosure and β-likeness on a fragment not
/// told the whole table's distribution of every sensitive column: they
/// compare a class with the table's p, which a fragment does not see. The
/// other models (ℓ in its three forms, α) hold class by class, and a
/// union of classes that hold them holds them.
fn refuse_models(config: &Config, whole: &Whole) -> Result<()> {
    let models = config.privacy.models();
    if models.t.is_none() && models.delta.is_none() && models.beta.is_none() {
        return Ok(());
    }
    let told = |name: &String| whole.sensitive.iter().any(|(n, _)| n == name);
    match config.privacy.sensitive.iter().find(|s| !told(s)) {
        None => Ok(()),
        Some(name) => Err(crate::Error::Options(format!(
            "{}: [privacy] claims t, delta or beta, which compare a class with the whole table's distribution of {name:?}, but the fragment was not given it",
            config.path.display()
        ))),
    }
}

/// Generalizes the quasi-identifiers of one fragment (an Arrow table) as
/// the `whole` table would be: the rows' QI columns as labels
/// (strings), in the rows' order, and the report.
///
/// Only the columns the privacy model and the derived-column check read
/// (quasi-identifiers and the released columns) are turned into karc's
/// table; identifiers are left out, and a caller passes the input's Arrow
/// arrays of the other columns through untouched.
pub fn generalize_fragment(
    config: &Config,
    schema: &Schema,
    batches: &[RecordBatch],
    whole: &Whole,
) -> Result<(RecordBatch, Report)> {
    super::check_algorithm(config)?;
    // Insensitive columns too: the derived-column check measures every
    // released column against the QIs before the fragment is released.
    let read = |c: &ColumnConfig| {
        matches!(
            c.role,
            Some(Role::Quasi | Role::Sensitive | Role::Insensitive)
        ) || config.privacy.sensitive.contains(&c.name)
    };
    let mut reduced = config.clone();
    reduced.columns.retain(read);
    let keep: Vec<usize> = (0..schema.fields().len())
        .filter(|&i| {
            reduced
                .columns
                .iter()
                .any(|c| c.name == *schema.field(i).name())
        })
        .collect();
    let projected = schema.project(&keep).map_err(layout_error)?;
    let batches = batches
        .iter()
        .map(|b| b.project(&keep).map_err(layout_error))
        .collect::<Result<Vec<_>>>()?;
    let (a, layout) = anonymize_fragment(&reduced, &projected, &batches, whole)?;
    let release = a.release_batch(Some(&layout))?;
    let schema = release.schema();
    let is_qi = |i: &usize| {
        a.data
            .qis
            .iter()
            .any(|q| q.name == *schema.field(*i).name())
    };
    let qis: Vec<usize> = (0..schema.fields().len()).filter(is_qi).collect();
    Ok((release.project(&qis).map_err(layout_error)?, a.report))
}

/// A sensitive column's whole-table distribution from an Arrow table of
/// two columns: its distinct values (any type; each read as a fragment's
/// cell of that type is read, so both give the same text) and their rows
/// (64-bit integers).
pub fn reference(schema: &Schema, batches: &[RecordBatch]) -> Result<Reference> {
    let bad = |detail: String| -> crate::Error { ArrowTableError::Layout { detail }.into() };
    if schema.fields().len() != 2 {
        return Err(bad(format!(
            "a distribution: expected 2 columns (values, rows), found {}",
            schema.fields().len()
        )));
    }
    let values_only = schema.project(&[0]).map_err(layout_error)?;
    let value_batches = (batches.iter())
        .map(|b| b.project(&[0]).map_err(layout_error))
        .collect::<Result<Vec<_>>>()?;
    let (table, _) = crate::arrow::table_from_arrow(&values_only, &value_batches)?;
    let mut rows = Vec::with_capacity(table.rows);
    for b in batches {
        let counts = (b.column(1).as_any())
            .downcast_ref::<arrow_array::Int64Array>()
            .ok_or_else(|| bad("a distribution's rows: expected 64-bit integers".to_owned()))?;
        if counts.null_count() > 0 || counts.values().iter().any(|&n| n < 0) {
            return Err(bad(
                "a distribution's rows: expected no null, none negative".to_owned(),
            ));
        }
        rows.extend(counts.values().iter().map(|&n| n as u64));
    }
    let column = &table.columns[0];
    let values = (0..table.rows)
        .map(|r| (column.text(r).to_owned(), rows[r]))
        .collect();
    Ok(Reference { values })
}

/// Whether each whole fragment could stand as one class under the
/// config's models beyond k (distinct ℓ too) on sensitive column `column`,
/// measured against its whole-table distribution `reference`:
/// `fragments[f]` holds fragment f's rows per value of `reference`, in its
/// order. The driver merges a fragment that could not with its sibling
/// before any worker starts. `schema` and `batches` are a few rows of the
/// table (the driver's sample), which bind the config: they give the
/// column's declaration (type, hierarchy, missing tokens).
pub fn fragments_hold(
    config: &Config,
    schema: &Schema,
    batches: &[RecordBatch],
    column: &str,
    reference: &Reference,
    fragments: &[Vec<u64>],
) -> Result<Vec<bool>> {
    let (table, config, _) = arrow_table(config, schema, batches)?;
    let data = crate::dataset::Dataset::bind(&config, table)?;
    let c = (data.table.column_index(column))
        .filter(|&c| data.roles[c] == Role::Sensitive)
        .ok_or_else(|| {
            crate::Error::Options(format!("{column:?}: no sensitive column has that name"))
        })?;
    let mut values = crate::table::Column::new(column);
    for (v, _) in &reference.values {
        values.push(v);
    }
    if values.dict.len() != reference.values.len() {
        return Err(crate::Error::Options(format!(
            "the whole table's distribution of {column:?} lists a value twice"
        )));
    }
    let declared = crate::privacy::sensitive::declared(&data, c);
    let s = crate::privacy::Sensitive::with_reference(
        &values,
        &data.missing,
        declared,
        Some(reference),
    )?;
    Ok(crate::privacy::classes_hold(
        &s,
        &config.privacy.models(),
        fragments,
    ))
}

fn layout_error(e: arrow_schema::ArrowError) -> crate::Error {
    ArrowTableError::Layout {
        detail: e.to_string(),
    }
    .into()
}

/// A one-off key for the parts of one pack: `(identity, recipient)`.
pub fn part_key() -> (String, String) {
    parts::part_key()
}

/// Merges `parts` (in order) into `output`, sealed as `seal` says; the
/// parts open with `identity` (from [`part_key`]).
pub fn merge_parts(
    parts: &[PartFile],
    identity: &str,
    seal: Seal,
    output: &Path,
    params: &str,
) -> Result<Merged> {
    merge_with(parts, identity, seal, output, params, None)
}

/// [`merge_parts`] for the parts of a global recoding
/// (`crate::api::global`), whose classes span parts: `totals`, counted on
/// the whole table's frequency set, replace the parts' sums.
pub fn merge_recoded_parts(
    parts: &[PartFile],
    identity: &str,
    seal: Seal,
    output: &Path,
    params: &str,
    totals: &Totals,
) -> Result<Merged> {
    merge_with(parts, identity, seal, output, params, Some(totals))
}

fn merge_with(
    parts: &[PartFile],
    identity: &str,
    seal: Seal,
    output: &Path,
    params: &str,
    totals: Option<&Totals>,
) -> Result<Merged> {
    let key = parts::part_identity(identity)?;
    let out = Output::new(output, Access::Private)?;
    let inputs: Vec<&Path> = parts.iter().map(|p| p.path.as_path()).collect();
    crate::io::refuse_same_files(&inputs, &[&out])?;
    parts::merge(parts, key, seal, out, params, totals)
}

/// A merge fed one part at a time, as bytes (`karc.spark.pack` streams
/// them from the workers through Spark): parts open with `identity` (from
/// [`part_key`]), the file is sealed as `seal` says and written to `output`.
pub fn merger(identity: &str, seal: Seal, output: &Path, params: &str) -> Result<Merger> {
    let key = parts::part_identity(identity)?;
    let out = Output::new(output, Access::Private)?;
    Ok(Merger::new(key, seal, out, params))
}

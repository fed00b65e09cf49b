//! Entry points of a distributed run (`karc.spark`): workers anonymize and
//! code their fragment of the table as a part, one process merges the
//! parts into one `.karc` file (`crate::archive::parts`).

use std::path::Path;

use arrow_array::RecordBatch;
use arrow_schema::Schema;

use super::{Anonymized, arrow_table};
use crate::Result;
use crate::archive::parts;
pub use crate::archive::parts::Domain;
use crate::archive::seal::Seal;
use crate::arrow::{ArrowLayout, ArrowTableError};
use crate::codec::DiffMode;
use crate::config::{ColumnConfig, Config, Role};
use crate::io::{Access, Output};
use crate::pseudonym::Pseudonyms;
use crate::report::Report;

pub use crate::archive::parts::{Merged, PartFile, Totals};

/// Anonymizes and codes one fragment (an Arrow table) as a part sealed for
/// `recipient` (from [`part_key`]); the first fragment's part holds the
/// header row. Returns the part's bytes and its report.
pub fn encode_part(
    config: &Config,
    schema: &Schema,
    batches: &[RecordBatch],
    first: bool,
    domains: &[Domain],
    mode: DiffMode,
    recipient: &str,
) -> Result<(Vec<u8>, Report)> {
    super::check_algorithm(config)?;
    refuse_models(config)?;
    let (table, config, _) = arrow_table(config, schema, batches)?;
    parts::encode_part(
        &config,
        table,
        first,
        domains,
        mode,
        &parts::part_seal(recipient)?,
    )
}

/// Anonymizes one fragment (an Arrow table) with the whole table's numeric
/// `domains` (see [`parts::anonymize_fragment`]); returns it with the layout
/// that types its release ([`Anonymized::release_batch`]).
pub fn anonymize_fragment(
    config: &Config,
    schema: &Schema,
    batches: &[RecordBatch],
    domains: &[Domain],
) -> Result<(Anonymized, ArrowLayout)> {
    super::check_algorithm(config)?;
    refuse_models(config)?;
    let (table, config, layout) = arrow_table(config, schema, batches)?;
    let (data, _, outcome, report) = parts::anonymize_fragment(&config, table, domains)?;
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

/// Refuses the models beyond distinct ℓ on fragments: t-closeness,
/// δ-disclosure and β-likeness compare a class with the whole table's
/// distribution, which a fragment does not see, and the other models are not
/// counted by the driver's final check. Distinct ℓ holds class by class, a
/// union of ℓ-diverse classes is ℓ-diverse, and the driver merges fragments
/// below ℓ and checks the union (python/karc/spark.py).
fn refuse_models(config: &Config) -> Result<()> {
    let mut beyond_l = config.privacy.models();
    beyond_l.l = None;
    if beyond_l.any() || config.privacy.sensitive.len() > 1 {
        return Err(crate::Error::Options(format!(
            "{}: [privacy] claims models beyond k and distinct l (entropy_l, recursive_cl, t, alpha, delta, beta) or more than one sensitive column, which a distributed pack does not enforce: anonymize on one machine (karc pack, karc.anonymize)",
            config.path.display()
        )));
    }
    Ok(())
}

/// Generalizes the quasi-identifiers of one fragment (an Arrow table) with
/// the whole table's numeric `domains`: the rows' QI columns as labels
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
    domains: &[Domain],
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
    let (a, layout) = anonymize_fragment(&reduced, &projected, &batches, domains)?;
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
    seal: &Seal,
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
    seal: &Seal,
    output: &Path,
    params: &str,
    totals: &Totals,
) -> Result<Merged> {
    merge_with(parts, identity, seal, output, params, Some(totals))
}

fn merge_with(
    parts: &[PartFile],
    identity: &str,
    seal: &Seal,
    output: &Path,
    params: &str,
    totals: Option<&Totals>,
) -> Result<Merged> {
    let key = parts::part_identity(identity)?;
    let out = Output::new(output, Access::Private)?;
    let inputs: Vec<&Path> = parts.iter().map(|p| p.path.as_path()).collect();
    crate::io::refuse_same_files(&inputs, &[&out])?;
    parts::merge(parts, &key, seal, &out, params, totals)
}

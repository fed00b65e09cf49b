//! Entry points of a distributed run (`karc.spark`): workers anonymize and
//! code their fragment of the table as a part, one process merges the
//! parts into one `.karc` file (`crate::archive::parts`).

use std::path::Path;

use arrow_array::RecordBatch;
use arrow_schema::Schema;

use super::{Anonymized, TableInput};
use crate::Result;
use crate::archive::parts;
pub use crate::archive::parts::Domain;
use crate::archive::seal::Seal;
use crate::arrow::ArrowLayout;
use crate::arrow::table_from_arrow;
use crate::codec::DiffMode;
use crate::config::Config;
use crate::io::{Access, Output};
use crate::report::Report;

pub use crate::archive::parts::{Merged, PartFile};

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
    let (table, layout) = table_from_arrow(schema, batches)?;
    let input = TableInput {
        csv: Vec::new(),
        arrow: Some(layout),
    };
    let config = input.config(config);
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
    let (table, layout) = table_from_arrow(schema, batches)?;
    let input = TableInput {
        csv: Vec::new(),
        arrow: Some(layout),
    };
    let (data, _, outcome, report) =
        parts::anonymize_fragment(&input.config(config), table, domains)?;
    let a = Anonymized {
        data,
        outcome,
        report,
    };
    Ok((a, input.arrow.expect("set above")))
}

/// Refuses the models beyond k on fragments: each would be held to its
/// own fragment's distribution, not the whole table's, and the classes of
/// two fragments may merge into one that breaks them.
fn refuse_models(config: &Config) -> Result<()> {
    if config.privacy.beyond_k() {
        return Err(crate::Error::Options(format!(
            "{}: [privacy] claims models beyond k (sensitive, l, t, ...), which a distributed pack does not enforce: anonymize on one machine (karc pack, karc.anonymize)",
            config.path.display()
        )));
    }
    Ok(())
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
    let key = parts::part_identity(identity)?;
    let out = Output::new(output, Access::Private)?;
    let inputs: Vec<&Path> = parts.iter().map(|p| p.path.as_path()).collect();
    crate::io::refuse_same_files(&inputs, &[&out])?;
    parts::merge(parts, &key, seal, &out, params)
}

//! The derived-column check ([`crate::derived`]) run on init's draft, so
//! that the config it writes packs: `karc pack` refuses a released column
//! that pins a quasi-identifier beside its generalization (a code of an
//! age, a date's year kept beside the generalized date), and a recoding
//! that is not one-to-one on the sample ([`super::roles`]) is found only
//! by anonymizing. The draft is anonymized as pack would anonymize it, on
//! at most [`CHECK_ROWS`] evenly spaced rows, and each column the check
//! refuses becomes a QI too (with `--qi`: is left out of the release), until
//! the check passes.

use std::path::Path;

use super::{Column, InitOptions};
use crate::config::Config;
use crate::dataset::Dataset;
use crate::dictionary::Dictionary;
use crate::report::Report;
use crate::table::{self, Table};

/// Rows the draft is anonymized on, at most: bounded cost on a table of
/// any size, and enough rows for the check's shares (it needs 30 hidden
/// rows a pair).
pub const CHECK_ROWS: usize = 100_000;

/// Rounds of draft, anonymize and check, at most: each round moves every
/// refused column, so a second round only finds what the first one's new
/// QIs changed.
const ROUNDS: usize = 4;

/// Moves the columns the derived-column check refuses out of the released
/// as-is columns. `draft` writes the config text of `columns` (hierarchies
/// inline). A draft that cannot be anonymized (a k above what the table
/// allows, an algorithm's own refusal) is left as it is: `karc pack` names
/// the reason.
pub(super) fn settle(
    columns: &mut [Column],
    input: &Path,
    table: &Table,
    options: &InitOptions,
    draft: impl Fn(&[Column]) -> crate::Result<String>,
) -> crate::Result<()> {
    let sample = sample_table(table);
    for _ in 0..ROUNDS {
        let text = draft(columns)?;
        let Ok(refused) = refused_pairs(input, &text, &sample) else {
            return Ok(());
        };
        if refused.is_empty() {
            return Ok(());
        }
        for (column, qi, share, test) in refused {
            let Some(c) = columns.iter_mut().find(|c| c.name == column) else {
                continue;
            };
            if matches!(c.role, "quasi" | "identifier") {
                continue;
            }
            let pins = format!(
                "derived from QI {qi:?}: released as it is it pins {qi:?} on {:.1} % of the rows \
                 the release hides ({test} test), which `karc pack` refuses",
                share * 100.0
            );
            if options.qi.is_empty() {
                c.role = "quasi";
                c.why = format!("{pins}; generalized as a QI instead");
            } else {
                c.role = "identifier";
                c.why = format!(
                    "{pins}; left out of the release (kept in the private part): make it quasi \
                     to release it generalized, or allow it with allow_derived = [{qi:?}]"
                );
            }
        }
    }
    Ok(())
}

/// The (column, QI, share, test) pairs the check refuses on `table`
/// anonymized by the config `text`.
fn refused_pairs(
    input: &Path,
    text: &str,
    table: &Table,
) -> crate::Result<Vec<(String, String, f64, &'static str)>> {
    let config = Config::parse_generated(input, text)?;
    let data = Dataset::bind(&config, table.clone())?;
    let model = super::super::privacy_model(&config, &data)?;
    let (_, _, labels) = Report::anonymize_labelled(&data, &model, &config.algorithm)?;
    let checks = crate::derived::check_release(&config, &data, labels);
    let pairs = checks.map(|c| c.pairs).unwrap_or_default();
    Ok(pairs
        .into_iter()
        .filter(|p| p.refused())
        .map(|p| {
            let test = if p.test == "order" { "order" } else { "values" };
            (p.column, p.qi, p.share, test)
        })
        .collect())
}

/// At most [`CHECK_ROWS`] evenly spaced rows of `table` (all of a smaller
/// one), each column's dictionary holding only the values of those rows:
/// the hierarchies the draft's builders make are built from it, so their
/// size follows the sample, not the table (a timestamp of 10 million
/// distinct values would make a hierarchy of as many leaves).
fn sample_table(table: &Table) -> Table {
    let rows = table.rows.min(CHECK_ROWS);
    let pick = |i: usize| (i as u128 * table.rows as u128 / rows.max(1) as u128) as usize;
    Table {
        source: table.source.clone(),
        columns: (table.columns.iter())
            .map(|c| {
                let mut dict = Dictionary::new();
                let codes = (0..rows)
                    .map(|i| dict.intern(c.dict.value(c.codes[pick(i)])))
                    .collect();
                table::Column {
                    name: c.name.clone(),
                    dict,
                    codes,
                }
            })
            .collect(),
        rows,
        delimiter: table.delimiter,
        header: table.header,
        line_ending: table.line_ending,
    }
}

//! Checking the privacy claim of a release made by anyone.

use std::path::{Path, PathBuf};

use crate::arrow::{TableFormat, read_table_bytes};
use crate::config::SuppressionPolicy;
use crate::hierarchy::Hierarchy;
use crate::number::NumberFormat;
use crate::privacy::{
    ClaimReport, Constraint, Declared, Models, Sensitive, check_k, models, verify_columns,
};
use crate::table::{Column, CsvOptions, Table, ValueType};
use crate::{Error, Result};

/// A privacy claim to check on a release made by anyone: k over `qi`,
/// constraints on their own columns, the models beyond k on each sensitive
/// column.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// The quasi-identifier columns k is checked over.
    pub qi: Vec<String>,
    /// k over all the `qi` columns.
    pub k: Option<usize>,
    /// Constraints, each checked on its own columns.
    pub constraints: Vec<ConstraintSpec>,
    /// How all-`*` rows count.
    pub suppressed: SuppressionPolicy,
    /// Sensitive columns: every model is measured on each. `NAME` reads
    /// a table's column as pandas would (numbers ordered, else categories;
    /// a `.karc` file's as it declares it), `NAME:categorical`,
    /// `NAME:numeric` and `NAME:hierarchy=FILE` as said: the ground
    /// distance of t-closeness ([`SensitiveType`]).
    pub sensitive: Vec<String>,
    /// The models claimed beyond k (distinct l, entropy l, ...).
    pub models: Models,
    /// The tokens that stand for a missing sensitive value: a cell holding
    /// one holds no value for the models (`privacy::sensitive`).
    pub missing: Vec<String>,
}

/// The tokens a config's `[input] missing` defaults to.
pub fn default_missing() -> Vec<String> {
    vec![String::new(), "?".to_owned()]
}

/// How `--sensitive NAME:TYPE` reads a sensitive column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SensitiveType {
    /// Categories: equal distance.
    Categorical,
    /// Numbers: ordered distance.
    Numeric,
    /// Leaves of an ARX hierarchy file: hierarchical distance.
    Hierarchy(PathBuf),
}

/// Splits `--sensitive` text into a column name and its type: the whole
/// text when `is_column` says it names one, else `NAME:categorical`,
/// `NAME:numeric` or `NAME:hierarchy=FILE` (split at the first `:` that
/// such a type follows).
pub fn parse_sensitive(
    text: &str,
    is_column: impl Fn(&str) -> bool,
) -> Result<(String, Option<SensitiveType>)> {
    if is_column(text) {
        return Ok((text.to_owned(), None));
    }
    for (at, _) in text.match_indices(':') {
        let (name, kind) = (&text[..at], &text[at + 1..]);
        let kind = match kind {
            "categorical" => SensitiveType::Categorical,
            "numeric" => SensitiveType::Numeric,
            _ => match kind.strip_prefix("hierarchy=") {
                Some(file) if !file.is_empty() => SensitiveType::Hierarchy(file.into()),
                _ => continue,
            },
        };
        return Ok((name.to_owned(), Some(kind)));
    }
    if text.contains(':') {
        return Err(Error::Options(format!(
            "--sensitive {text:?}: expected NAME, NAME:categorical, NAME:numeric or NAME:hierarchy=FILE"
        )));
    }
    Ok((text.to_owned(), None))
}

/// `column` read as `kind` says (`missing`: the tokens of no value).
fn typed<'t>(
    column: &'t Column,
    kind: &SensitiveType,
    missing: &[String],
    delimiter: u8,
) -> Result<Sensitive<'t>> {
    Ok(match kind {
        SensitiveType::Categorical => Sensitive::new(column, missing, Declared::Categorical)?,
        SensitiveType::Numeric => Sensitive::new(
            column,
            missing,
            Declared::Numeric(ValueType::Decimal, NumberFormat::for_delimiter(delimiter)),
        )?,
        SensitiveType::Hierarchy(file) => {
            let h = Hierarchy::load(file)?;
            Sensitive::new(column, missing, Declared::Hierarchy(&h))?
        }
    })
}

/// One k over some columns.
#[derive(Debug, Clone, PartialEq)]
pub struct ConstraintSpec {
    /// The constrained columns.
    pub columns: Vec<String>,
    /// Rows each class over them must hold.
    pub k: usize,
}

impl std::str::FromStr for ConstraintSpec {
    type Err = Error;

    /// Parses "a,b:5".
    fn from_str(text: &str) -> Result<ConstraintSpec> {
        let bad = |why: String| Error::Options(format!("--constraint {text:?}: {why}"));
        let (cols, k) = text
            .rsplit_once(':')
            .ok_or_else(|| bad("expected \"col,col:K\"".to_owned()))?;
        let k = k
            .trim()
            .parse()
            .map_err(|_| bad(format!("expected a whole number after ':', found {k:?}")))?;
        let columns: Vec<String> = cols.split(',').map(|c| c.trim().to_owned()).collect();
        if columns.iter().any(String::is_empty) {
            return Err(bad("empty column name".to_owned()));
        }
        Ok(ConstraintSpec { columns, k })
    }
}

/// Reads a release for [`verify_table`]: a Parquet or Arrow IPC table
/// (by `name`'s extension or the bytes' magic), else a CSV file with a
/// header line, the delimiter given or detected, cells as they are.
pub fn read_release(name: &Path, bytes: Vec<u8>, delimiter: Option<u8>) -> Result<Table> {
    let format = TableFormat::of_input(name, &bytes);
    if format != TableFormat::Csv {
        return read_table_bytes(name, bytes, format).map(|(table, _)| table);
    }
    Table::from_bytes(
        name,
        &bytes,
        &CsvOptions {
            delimiter,
            header: true,
            trim: false,
        },
    )
}

/// Checks a release's privacy claim, whoever made it. A sensitive column
/// named without a type reads as pandas would read it (pyCANON's choice).
pub fn verify_table(table: &Table, o: &VerifyOptions) -> Result<ClaimReport> {
    verify_with(table, o, &|column| {
        Ok(Sensitive::new(column, &o.missing, Declared::Inferred)?)
    })
}

/// [`verify_table`], the sensitive columns named without a type read by
/// `undeclared`.
fn verify_with<'t>(
    table: &'t Table,
    o: &VerifyOptions,
    undeclared: &dyn Fn(&'t Column) -> Result<Sensitive<'t>>,
) -> Result<ClaimReport> {
    let (names, specs) = claimed_constraints(o)?;
    let find = |name: &str| -> Result<&Column> {
        table.column(name).ok_or_else(|| {
            let available: Vec<&str> = table.columns.iter().map(|c| c.name.as_str()).collect();
            Error::Options(format!(
                "{}: no column {name:?} (columns: {})",
                table.source.display(),
                available.join(", ")
            ))
        })
    };
    let qi: Vec<&Column> = names.iter().map(|n| find(n)).collect::<Result<_>>()?;
    let mut constraints = Vec::new();
    for (i, (cols, k)) in specs.iter().enumerate() {
        check_k(*k, usize::MAX, (specs.len() > 1).then_some(i + 1))?;
        let qis = cols
            .iter()
            .map(|c| names.iter().position(|n| n == c).expect("collected above"))
            .collect();
        constraints.push(Constraint { qis, k: *k });
    }
    o.models.check().map_err(Error::Options)?;
    if o.models.any() && o.sensitive.is_empty() {
        return Err(Error::Options(
            "the models beyond k need --sensitive: name the sensitive column(s)".to_owned(),
        ));
    }
    let sensitive: Vec<Sensitive> = o
        .sensitive
        .iter()
        .map(|text| {
            let (name, kind) = parse_sensitive(text, |n| table.column(n).is_some())?;
            let column = find(&name)?;
            match kind {
                Some(kind) => typed(column, &kind, &o.missing, table.delimiter),
                None => undeclared(column),
            }
        })
        .collect::<Result<_>>()?;
    // Distinct l on the first attribute also decides whether the all-`*`
    // rows stand as a class (FORMAT §5); the models report covers them all.
    let legacy_l = sensitive.first().zip(o.models.l);
    let mut report = verify_columns(&qi, &constraints, o.suppressed, legacy_l);
    if !sensitive.is_empty() {
        let classes: Vec<&Column> = if o.qi.is_empty() {
            qi.clone()
        } else {
            qi[..o.qi.len()].to_vec()
        };
        let exempt = report.policy == SuppressionPolicy::Mask && report.suppressed_rows > 0;
        report.models = Some(models::measure_columns(
            &classes, exempt, &sensitive, &o.models,
        ));
    }
    Ok(report)
}

/// A constraint as `--qi`/`--k` or `--constraint` names it: columns, k.
type ClaimedConstraint = (Vec<String>, usize);

/// The columns a claim of `o` reads (the QIs, then each constraint's
/// others) and its constraints (columns, k): `--qi`/`--k` first.
fn claimed_constraints(o: &VerifyOptions) -> Result<(Vec<String>, Vec<ClaimedConstraint>)> {
    let mut names: Vec<String> = o.qi.clone();
    let mut specs: Vec<ClaimedConstraint> = Vec::new();
    for c in &o.constraints {
        for col in &c.columns {
            if !names.contains(col) {
                names.push(col.clone());
            }
        }
        specs.push((c.columns.clone(), c.k));
    }
    // The models alone (no k claimed) are measured over the QIs' classes,
    // which k = 1 names.
    let k =
        o.k.or((specs.is_empty() && !o.sensitive.is_empty()).then_some(1));
    if let Some(k) = k {
        if o.qi.is_empty() {
            return Err(Error::Options(
                "--k needs --qi: name the quasi-identifier columns".to_owned(),
            ));
        }
        specs.insert(0, (o.qi.clone(), k));
    }
    if specs.is_empty() {
        return Err(Error::Options(
            "no claim to check: give --qi with --k or --sensitive, or --constraint \"col,col:K\""
                .to_owned(),
        ));
    }
    Ok((names, specs))
}

/// The models beyond k on a `.karc` file's release: classes on its QIs,
/// its suppression policy, each of `sensitive` (released columns).
pub fn verify_archive_models(
    name: &Path,
    archive: &super::Archive,
    sensitive: &[String],
    models: &Models,
) -> Result<ClaimReport> {
    let reader = archive.reader();
    let meta = &reader.meta;
    let qi: Vec<String> = meta
        .qis
        .iter()
        .map(|&q| meta.columns[q as usize].name.clone())
        .collect();
    let columns = archive.release()?;
    let rows = columns.first().map_or(0, |c| c.codes.len());
    let table = Table {
        source: name.to_path_buf(),
        columns,
        rows,
        delimiter: b',',
        header: true,
        line_ending: crate::table::LineEnding::Lf,
    };
    let options = VerifyOptions {
        qi,
        k: None,
        constraints: Vec::new(),
        suppressed: meta.claim.policy,
        sensitive: sensitive.to_vec(),
        models: models.clone(),
        missing: meta.missing.clone(),
    };
    // A column named without a type reads as the file declares it.
    verify_with(&table, &options, &|column| {
        let at = (meta.columns.iter())
            .position(|c| c.name == column.name)
            .expect("a released column of the file");
        reader.sensitive(at, column)
    })
}

//! A table bound to its config: roles, types, and each quasi-identifier's
//! hierarchy mapped onto the column's dictionary codes.

use std::path::{Path, PathBuf};

use crate::config::{Config, ConfigError, HierarchySource, Role, ValueType};
use crate::hierarchy::{Hierarchy, counted, name_some};
use crate::number::NumberFormat;
use crate::table::Table;
use crate::{Error, Result};

/// A table that does not fit its config.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// Values of a quasi-identifier that its hierarchy has no leaf for.
    #[error("{}: column {column:?}: {} absent from the hierarchy {}: {names}", csv.display(), counted(*count, "value is", "values are"), hierarchy.display())]
    AbsentFromHierarchy {
        /// The CSV file.
        csv: PathBuf,
        /// The hierarchy's source.
        hierarchy: PathBuf,
        /// The column.
        column: String,
        /// How many distinct values are absent.
        count: usize,
        /// The first few of them, quoted.
        names: String,
    },
    /// A value of a numeric column that is not a number. `row` counts data rows from 1 (the header is not a row); a line
    /// number would be wrong as soon as a quoted field spans lines.
    #[error("{}: row {row}, column {column:?}: expected {expected}, found {found:?}", csv.display())]
    NotNumeric {
        /// The CSV file.
        csv: PathBuf,
        /// The data row, from 1.
        row: usize,
        /// The column.
        column: String,
        /// The kind of number expected.
        expected: &'static str,
        /// The text found.
        found: String,
    },
    #[error(
        "column {column:?} is a categorical quasi-identifier without a hierarchy: give it `hierarchy = \"...\"` in the config"
    )]
    /// A categorical quasi-identifier with no hierarchy to generalize it.
    NoHierarchy {
        /// The column.
        column: String,
    },
    #[error(
        "{algorithm} generalizes by hierarchy, but quasi-identifier {column:?} has none: give it a hierarchy file or use an interval method (mondrian, basic-mondrian, topdown)"
    )]
    /// A hierarchy-based anonymizer given a quasi-identifier without one.
    NeedsHierarchy {
        /// The anonymizer.
        algorithm: String,
        /// The column.
        column: String,
    },
    #[error("{} has no rows", csv.display())]
    /// A table with a header but no data row.
    NoRows {
        /// The CSV file.
        csv: PathBuf,
    },
    #[error("the config has no quasi-identifier: give at least one column role = \"quasi\"")]
    /// A config where no column has the quasi-identifier role.
    NoQuasiIdentifier,
}

impl crate::error::AreaError for DataError {}

/// One quasi-identifier column with its generalization data.
#[derive(Debug, Clone)]
pub struct QuasiIdentifier {
    /// Position of the column in the table.
    pub column: usize,
    /// The column's header name.
    pub name: String,
    /// Its declared type.
    pub value_type: ValueType,
    /// Its generalization hierarchy; `None` for a numeric column given none
    /// (interval methods cut it).
    pub hierarchy: Option<Hierarchy>,
    /// The hierarchy leaf of each dictionary code (empty without hierarchy).
    pub leaf_of: Vec<u32>,
    /// The number of each dictionary code (empty for categorical columns;
    /// `None` for a missing-value token).
    pub numbers: Vec<Option<f64>>,
}

impl QuasiIdentifier {
    /// Each dictionary code's node at `level` (a ready generalization map).
    pub fn level_map(&self, level: usize) -> Vec<u32> {
        let h = self
            .hierarchy
            .as_ref()
            .expect("level_map needs a hierarchy");
        let map = h.level_map(level);
        self.leaf_of
            .iter()
            .map(|&leaf| map[leaf as usize])
            .collect()
    }

    /// The hierarchy height, or `None` when the column has no hierarchy.
    pub fn height(&self) -> Option<usize> {
        self.hierarchy.as_ref().map(Hierarchy::height)
    }

    /// The smallest and largest number in the column, if it is numeric.
    pub fn domain(&self) -> Option<(f64, f64)> {
        let mut it = self.numbers.iter().flatten();
        let first = *it.next()?;
        Some(it.fold((first, first), |(lo, hi), &x| (lo.min(x), hi.max(x))))
    }
}

/// A table with its roles and quasi-identifiers.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// The dictionary-encoded table.
    pub table: Table,
    /// Role of each table column.
    pub roles: Vec<Role>,
    /// Type of each table column.
    pub types: Vec<ValueType>,
    /// The quasi-identifiers, in config order (as reports and level vectors list them).
    pub qis: Vec<QuasiIdentifier>,
    /// Missing-value tokens.
    pub missing: Vec<String>,
    /// The hierarchy of each sensitive column the config gives one (by
    /// table column): t-closeness's hierarchical distance.
    pub sensitive_hierarchies: Vec<(usize, Hierarchy)>,
    /// The whole table's distribution of each sensitive column (by table
    /// column) when this dataset is one fragment of it (`karc.spark`):
    /// what the models beyond k measure the fragment's classes against.
    pub sensitive_reference: Vec<(usize, Reference)>,
}

/// The whole table's distribution of a sensitive column, given to a
/// column that holds one fragment of the table (a part of `karc.spark`):
/// each of the table's known values, as text, with the rows holding it.
/// The models beyond k then measure a fragment's classes against the
/// table's p, as a single-process run measures them, and t-closeness's
/// ordered and hierarchical distances span the table's values, not the
/// fragment's. (The table's values are counted by one aggregation over
/// the whole table; every one of them is released in some part.)
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reference {
    /// Each known value of the table with its rows, in any order.
    pub values: Vec<(String, u64)>,
}

impl Dataset {
    /// Reads `csv` and binds it to `config`.
    pub fn load(config: &Config, csv: &Path) -> Result<Dataset> {
        let table = Table::read(csv, &config.csv_options()?)?;
        Dataset::bind(config, table)
    }

    // Long: binds every column of the table to its role and type in one pass, so the error names
    // the column and value
    /// Binds a table to the config: every column must be listed with a role;
    /// QI values must parse as their type and appear in their hierarchy.
    pub fn bind(config: &Config, mut table: Table) -> Result<Dataset> {
        let cfg_path = || config.path.clone();
        if !table.header {
            // Without a header, the config lists the columns in file order.
            if config.columns.len() != table.columns.len() {
                return Err(ConfigError::ColumnCount {
                    path: cfg_path(),
                    csv: table.source.clone(),
                    listed: config.columns.len(),
                    found: table.columns.len(),
                }
                .into());
            }
            for (col, c) in table.columns.iter_mut().zip(&config.columns) {
                col.name = c.name.clone();
            }
        }
        for c in &config.columns {
            if table.column_index(&c.name).is_none() {
                let available = table
                    .columns
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ");
                return Err(ConfigError::UnknownColumn {
                    path: cfg_path(),
                    csv: table.source.clone(),
                    name: c.name.clone(),
                    available,
                    hint: wrong_delimiter_hint(&table, config),
                }
                .into());
            }
        }
        let mut roles = Vec::with_capacity(table.columns.len());
        let mut types = Vec::with_capacity(table.columns.len());
        let mut column_configs = Vec::with_capacity(table.columns.len());
        for col in &table.columns {
            let Some(c) = config.columns.iter().find(|c| c.name == col.name) else {
                return Err(ConfigError::UnlistedColumn {
                    path: cfg_path(),
                    csv: table.source.clone(),
                    name: col.name.clone(),
                }
                .into());
            };
            roles.push(c.role.expect("validated on load"));
            types.push(c.value_type);
            column_configs.push(c);
        }
        if table.rows == 0 {
            return Err(DataError::NoRows {
                csv: table.source.clone(),
            }
            .into());
        }

        let missing = config.input.missing.clone();
        let format = NumberFormat::for_delimiter(table.delimiter);
        let mut qis = Vec::new();
        // QIs in config order, as reports and level vectors list them.
        for c in &config.columns {
            if c.role != Some(Role::Quasi) {
                continue;
            }
            let column = table.column_index(&c.name).expect("checked above");
            let numbers = if c.value_type.is_numeric() {
                parse_numbers(&table, column, c.value_type, &missing, format)?
            } else {
                Vec::new()
            };
            let hierarchy = match config.hierarchy_source(c) {
                Some(HierarchySource::File(path)) => Some(load_hierarchy(config, &c.name, &path)?),
                Some(HierarchySource::Build(builder)) => {
                    let values: Vec<&str> = table.columns[column].dict.values().collect();
                    let what = format!("{}: column {:?}", config.path.display(), c.name);
                    Some(builder.build(&what, &values, c.value_type, format, &missing)?)
                }
                None if c.value_type.is_numeric() => None,
                None => {
                    return Err(DataError::NoHierarchy {
                        column: c.name.clone(),
                    }
                    .into());
                }
            };
            let leaf_of = match &hierarchy {
                Some(h) => leaves_of_column(&table, column, h, &[])?,
                None => Vec::new(),
            };
            qis.push(QuasiIdentifier {
                column,
                name: c.name.clone(),
                value_type: c.value_type,
                hierarchy,
                leaf_of,
                numbers,
            });
        }
        if qis.is_empty() {
            return Err(DataError::NoQuasiIdentifier.into());
        }
        let sensitive_hierarchies = bind_sensitive(config, &table, &missing, format)?;
        Ok(Dataset {
            table,
            roles,
            types,
            qis,
            missing,
            sensitive_hierarchies,
            sensitive_reference: Vec::new(),
        })
    }

    /// The number of data rows.
    pub fn rows(&self) -> usize {
        self.table.rows
    }

    /// The position among the QIs of the column named `name`.
    pub fn qi_index(&self, name: &str) -> Option<usize> {
        self.qis.iter().position(|q| q.name == name)
    }

    /// The codes of QI `q`, one per row.
    pub fn qi_codes(&self, q: usize) -> &[u32] {
        &self.table.columns[self.qis[q].column].codes
    }

    /// Refuses a hierarchy-based algorithm when a QI has no hierarchy.
    pub fn require_hierarchies(&self, algorithm: &str) -> Result<()> {
        match self.qis.iter().find(|q| q.hierarchy.is_none()) {
            Some(q) => Err(DataError::NeedsHierarchy {
                algorithm: algorithm.to_owned(),
                column: q.name.clone(),
            }
            .into()),
            None => Ok(()),
        }
    }
}

/// A table read as one column whose name holds another delimiter was most
/// likely read with the wrong one: say which it seems to be.
fn wrong_delimiter_hint(table: &Table, config: &Config) -> String {
    let [only] = table.columns.as_slice() else {
        return String::new();
    };
    match crate::table::delimiter_hint([only.name.as_bytes()], table.delimiter) {
        Some(d) => format!(
            ": the table was read as one column; is the delimiter {:?}? (set [input] delimiter = {:?} in {})",
            char::from(d),
            char::from(d),
            config.path.display()
        ),
        None => String::new(),
    }
}

/// Loads the hierarchy of column `name`, naming the config in I/O errors.
pub(crate) fn load_hierarchy(config: &Config, name: &str, path: &Path) -> Result<Hierarchy> {
    Hierarchy::load(path).map_err(|e| match e {
        Error::Io {
            path: hierarchy,
            source,
        } => ConfigError::HierarchyFile {
            path: config.path.clone(),
            name: name.to_owned(),
            hierarchy,
            source,
        }
        .into(),
        other => other,
    })
}

/// Checks a sensitive column's values against its declaration, as the
/// models beyond k read them (missing-value tokens hold no value): a
/// numeric column's values are numbers; a column given a hierarchy has
/// each value as a leaf, and keeps the hierarchy (`Dataset::sensitive_hierarchies`).
fn bind_sensitive(
    config: &Config,
    table: &Table,
    missing: &[String],
    format: NumberFormat,
) -> Result<Vec<(usize, Hierarchy)>> {
    let mut hierarchies = Vec::new();
    for c in &config.columns {
        if c.role != Some(Role::Sensitive) {
            continue;
        }
        let column = table.column_index(&c.name).expect("checked above");
        let hierarchy = match config.hierarchy_source(c) {
            Some(HierarchySource::File(path)) => load_hierarchy(config, &c.name, &path)?,
            Some(HierarchySource::Build(builder)) => {
                let values: Vec<&str> = table.columns[column].dict.values().collect();
                let what = format!("{}: column {:?}", config.path.display(), c.name);
                builder.build(&what, &values, c.value_type, format, missing)?
            }
            None => {
                if c.value_type.is_numeric() {
                    parse_numbers(table, column, c.value_type, missing, format)?;
                }
                continue;
            }
        };
        leaves_of_column(table, column, &hierarchy, missing)?;
        hierarchies.push((column, hierarchy));
    }
    Ok(hierarchies)
}

/// Maps each dictionary code of `column` to its hierarchy leaf, naming the
/// values the hierarchy lacks (`u32::MAX` for the `skip` tokens, which
/// need none).
fn leaves_of_column(
    table: &Table,
    column: usize,
    h: &Hierarchy,
    skip: &[String],
) -> Result<Vec<u32>> {
    let col = &table.columns[column];
    let mut leaf_of = Vec::with_capacity(col.dict.len());
    let mut absent = Vec::new();
    for value in col.dict.values() {
        if skip.iter().any(|m| m == value) {
            leaf_of.push(u32::MAX);
            continue;
        }
        match h.leaf(value) {
            Some(leaf) => leaf_of.push(leaf),
            None => {
                absent.push(format!("{value:?}"));
                leaf_of.push(u32::MAX);
            }
        }
    }
    if absent.is_empty() {
        Ok(leaf_of)
    } else {
        let count = absent.len();
        Err(DataError::AbsentFromHierarchy {
            csv: table.source.clone(),
            hierarchy: h.source.clone(),
            column: col.name.clone(),
            count,
            names: name_some(absent, count),
        }
        .into())
    }
}

/// Parses every distinct value of a numeric column (spelled as `format`
/// says); a missing-value token parses as `None`. The first offending row
/// is named by its number.
fn parse_numbers(
    table: &Table,
    column: usize,
    value_type: ValueType,
    missing: &[String],
    format: NumberFormat,
) -> Result<Vec<Option<f64>>> {
    let col = &table.columns[column];
    let mut numbers = Vec::with_capacity(col.dict.len());
    for (code, value) in col.dict.values().enumerate() {
        if missing.iter().any(|m| m == value) {
            numbers.push(None);
            continue;
        }
        match format.number(value, value_type) {
            Some(v) => numbers.push(Some(v)),
            None => {
                let row = col
                    .codes
                    .iter()
                    .position(|&c| c as usize == code)
                    .unwrap_or(0);
                return Err(DataError::NotNumeric {
                    csv: table.source.clone(),
                    row: row + 1,
                    column: col.name.clone(),
                    expected: if value_type == ValueType::Integer {
                        "an integer"
                    } else {
                        "a decimal number"
                    },
                    found: value.to_owned(),
                }
                .into());
            }
        }
    }
    Ok(numbers)
}

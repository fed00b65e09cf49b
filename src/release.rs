//! A release: the generalized QI cells of every row, and how it is written.

use std::io::Write;

use rustc_hash::FxHashMap;

use crate::cell::Cell;
use crate::config::Role;
use crate::dataset::Dataset;
use crate::dictionary::Dictionary;
use crate::table::{Column, LineEnding};

/// Generalized QI cells, `cells[q][row]`, for every row in input order.
/// Non-QI columns are released as they are (identifiers not at all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    pub cells: Vec<Vec<Cell>>,
}

impl Release {
    /// Global recoding: QI `q` at `levels[q]` in every row; rows marked in
    /// `suppressed` get `*` in every QI.
    pub fn from_levels(data: &Dataset, levels: &[usize], suppressed: &[bool]) -> Release {
        let cells = data
            .qis
            .iter()
            .enumerate()
            .map(|(q, qi)| {
                // One cell per dictionary code, then a lookup per row.
                let per_code: Vec<Cell> = (0..qi.leaf_of.len() as u32)
                    .map(|code| Cell::at_level(qi, levels[q], code))
                    .collect();
                data.qi_codes(q)
                    .iter()
                    .zip(suppressed)
                    .map(|(&code, &s)| {
                        if s {
                            Cell::Suppressed
                        } else {
                            per_code[code as usize]
                        }
                    })
                    .collect()
            })
            .collect();
        Release { cells }
    }

    pub fn rows(&self) -> usize {
        self.cells.first().map_or(0, Vec::len)
    }

    /// Whether every QI cell of `row` is `*`.
    pub fn is_suppressed(&self, row: usize) -> bool {
        self.cells.iter().all(|c| c[row] == Cell::Suppressed)
    }

    /// The suppressed flag of every row.
    pub fn suppressed_mask(&self) -> Vec<bool> {
        (0..self.rows()).map(|r| self.is_suppressed(r)).collect()
    }

    pub fn suppressed_rows(&self) -> usize {
        (0..self.rows()).filter(|&r| self.is_suppressed(r)).count()
    }

    /// QI `q` as the public sees it: a column of labels. Cells are interned
    /// first, so each label is made once, not once per row.
    pub fn qi_column(&self, data: &Dataset, q: usize) -> Column {
        let qi = &data.qis[q];
        let source = &data.table.columns[qi.column];
        let mut cell_codes: FxHashMap<Cell, u32> = FxHashMap::default();
        let mut dict = Dictionary::new();
        let codes = self.cells[q]
            .iter()
            .map(|cell| {
                *cell_codes
                    .entry(*cell)
                    .or_insert_with(|| dict.intern(&cell.label(qi, &source.dict)))
            })
            .collect();
        Column {
            name: qi.name.clone(),
            dict,
            codes,
        }
    }

    /// Every released column in input order (identifiers left out).
    pub fn columns(&self, data: &Dataset) -> Vec<Column> {
        data.table
            .columns
            .iter()
            .enumerate()
            .filter(|&(i, _)| data.roles[i] != Role::Identifier)
            .map(
                |(i, col)| match data.qis.iter().position(|q| q.column == i) {
                    Some(q) => self.qi_column(data, q),
                    None => col.clone(),
                },
            )
            .collect()
    }

    /// Writes the release as CSV with the input's delimiter, header and line
    /// ending, quoting only where needed.
    pub fn write_csv(&self, data: &Dataset, out: &mut dyn Write) -> std::io::Result<()> {
        let columns = self.columns(data);
        write_columns_csv(
            &columns,
            data.rows(),
            data.table.delimiter,
            data.table.line_ending,
            data.table.header,
            out,
        )
    }
}

/// Writes columns as CSV (`karc anonymize` and `karc export` share it, so
/// their bytes are equal): the names as a header row when `header`, then
/// each row, quoting only where needed.
pub fn write_columns_csv(
    columns: &[Column],
    rows: usize,
    delimiter: u8,
    line_ending: LineEnding,
    header: bool,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut w = csv::WriterBuilder::new()
        .delimiter(delimiter)
        .terminator(line_ending.terminator())
        .from_writer(out);
    if header {
        w.write_record(columns.iter().map(|c| c.name.as_bytes()))?;
    }
    let mut record: Vec<&str> = Vec::with_capacity(columns.len());
    for row in 0..rows {
        record.clear();
        record.extend(columns.iter().map(|c| c.text(row)));
        w.write_record(&record)?;
    }
    w.flush()?;
    Ok(())
}

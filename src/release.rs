//! A release: the generalized QI cells of every row, and how it is written.

use std::io::Write;

use rustc_hash::FxHashMap;

use crate::cell::Cell;
use crate::config::Role;
use crate::dataset::Dataset;
use crate::dictionary::Dictionary;
use crate::pseudonym::Pseudonyms;
use crate::table::{Column, LineEnding};

/// Rows from which [`Release::qi_columns`] makes the columns on two threads.
const PARALLEL_ROWS: usize = 1 << 16;

/// Generalized QI cells, `cells[q][row]`, for every row in input order.
/// Non-QI columns are released as they are (identifiers not at all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// Per QI (config order): each row's generalized cell.
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

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.cells.first().map_or(0, Vec::len)
    }

    /// Whether every QI cell of `row` is `*`. Such rows are suppressed
    /// unless together they form an ordinary class
    /// (`privacy::release_suppressed` decides).
    pub fn is_star(&self, row: usize) -> bool {
        self.cells.iter().all(|c| c[row] == Cell::Suppressed)
    }

    /// The all-`*` flag of every row.
    pub fn star_mask(&self) -> Vec<bool> {
        (0..self.rows()).map(|r| self.is_star(r)).collect()
    }

    /// How many rows are `*` in every QI.
    pub fn star_rows(&self) -> usize {
        (0..self.rows()).filter(|&r| self.is_star(r)).count()
    }

    /// QI `q` as the public sees it: a column of labels. Cells are interned
    /// first, so each label is made once, not once per row. Raw values, the
    /// most common cells, find their code in an array by dictionary code;
    /// only generalized cells go through a hash map.
    pub fn qi_column(&self, data: &Dataset, q: usize) -> Column {
        let qi = &data.qis[q];
        let source = &data.table.columns[qi.column];
        let mut value_codes = vec![u32::MAX; source.dict.len()];
        let mut cell_codes: FxHashMap<Cell, u32> = FxHashMap::default();
        let mut dict = Dictionary::new();
        let mut intern = |cell: &Cell| dict.intern(&cell.label(qi, &source.dict));
        let codes = self.cells[q]
            .iter()
            .map(|cell| match *cell {
                Cell::Value(c) => {
                    let code = &mut value_codes[c as usize];
                    if *code == u32::MAX {
                        *code = intern(cell);
                    }
                    *code
                }
                _ => *cell_codes.entry(*cell).or_insert_with(|| intern(cell)),
            })
            .collect();
        Column {
            name: qi.name.clone(),
            dict,
            codes,
        }
    }

    /// Every QI as the public sees it ([`Release::qi_column`], claim
    /// order), made on the machine's cores when the release is large: what
    /// the release's check, its report and the derived-column check share
    /// (each made them again: ten QIs of 10M rows, 1.6 s a time).
    pub fn qi_columns(&self, data: &Dataset) -> Vec<Column> {
        let column = |q: usize| self.qi_column(data, q);
        crate::jobs::on_two_threads(data.qis.len(), self.rows() >= PARALLEL_ROWS, column)
    }

    /// Every released column in input order: identifiers left out, but
    /// for those `pseudonyms` releases as keyed pseudonyms (as a pack
    /// publishes them).
    pub fn columns(&self, data: &Dataset, pseudonyms: &Pseudonyms) -> Vec<Column> {
        data.table
            .columns
            .iter()
            .enumerate()
            .filter_map(|(i, col)| {
                match (data.roles[i], pseudonyms.key(i)) {
                    (Role::Identifier, None) => return None,
                    (Role::Identifier, Some(key)) => {
                        return Some(key.pseudonymize(col, &pseudonyms.missing));
                    }
                    _ => {}
                }
                Some(match data.qis.iter().position(|q| q.column == i) {
                    Some(q) => self.qi_column(data, q),
                    None => col.clone(),
                })
            })
            .collect()
    }

    /// Writes the release as CSV with the input's delimiter, header and line
    /// ending, quoting only where needed.
    pub fn write_csv(
        &self,
        data: &Dataset,
        pseudonyms: &Pseudonyms,
        out: &mut dyn Write,
    ) -> std::io::Result<()> {
        let columns = self.columns(data, pseudonyms);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    /// Raw values, hierarchy nodes (one of whose labels may equal a value's),
    /// intervals and `*` mixed in one column get the codes of interning
    /// every row's label in row order.
    #[test]
    fn qi_column_codes_are_the_labels_interned_in_row_order() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/adult");
        let config = Config::load(format!("{dir}/adult.toml").as_ref()).unwrap();
        let data = Dataset::load(&config, format!("{dir}/adult.csv").as_ref()).unwrap();
        let cells = (0..data.qis.len())
            .map(|q| {
                let qi = &data.qis[q];
                let codes = data.qi_codes(q);
                let height = qi.height().unwrap();
                (0..data.rows().min(3000))
                    .map(|r| {
                        let code = codes[r];
                        match (r * 7 + q) % 5 {
                            0 | 1 => Cell::Value(code),
                            2 => Cell::at_level(qi, 1 + r % (height - 1).max(1), code),
                            3 => Cell::interval(code, codes[r / 2]),
                            _ => Cell::Suppressed,
                        }
                    })
                    .collect()
            })
            .collect();
        let release = Release { cells };
        for q in 0..data.qis.len() {
            let qi = &data.qis[q];
            let source = &data.table.columns[qi.column].dict;
            let mut dict = Dictionary::new();
            let expected: Vec<u32> = release.cells[q]
                .iter()
                .map(|cell| dict.intern(&cell.label(qi, source)))
                .collect();
            let column = release.qi_column(&data, q);
            assert_eq!(column.codes, expected, "{}", qi.name);
            assert!(column.dict.values().eq(dict.values()), "{}", qi.name);
        }
    }
}

//! A release: the generalized QI cells of every row, and how it is written.

use std::io::Write;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::cell::Cell;
use crate::config::Role;
use crate::dataset::Dataset;
use crate::dictionary::Dictionary;
use crate::pseudonym::Pseudonyms;
use crate::table::{Column, LineEnding};

/// Rows from which [`Release::qi_columns`] makes the columns on two threads.
const PARALLEL_ROWS: usize = 1 << 16;

/// One QI's released cells, held as a palette: the cells the rows use and
/// each row's index among them, four bytes a row instead of a cell's
/// twelve (ten QIs of ten million rows: 0.4 GB, or 40 MB when the QIs of
/// one partition share its rows' classes, against 1.2 GB).
#[derive(Debug, Clone)]
pub struct QiCells {
    /// The cells the rows point to; a cell may be listed more than once
    /// (a class's cell, per class).
    pub palette: Vec<Cell>,
    /// Each row's index into `palette`, shared between QIs that index the
    /// same partition.
    pub rows: Arc<Vec<u32>>,
}

impl QiCells {
    /// Raw values: each row's cell is its dictionary code (`dict_len`
    /// codes).
    pub fn raw(codes: &[u32], dict_len: usize) -> QiCells {
        QiCells {
            palette: (0..dict_len as u32).map(Cell::Value).collect(),
            rows: Arc::new(codes.to_vec()),
        }
    }

    /// One cell per row, gathered into a palette of the distinct cells.
    pub fn from_cells(cells: &[Cell]) -> QiCells {
        let mut index: FxHashMap<Cell, u32> = FxHashMap::default();
        let mut palette = Vec::new();
        let rows = cells
            .iter()
            .map(|cell| {
                *index.entry(*cell).or_insert_with(|| {
                    palette.push(*cell);
                    palette.len() as u32 - 1
                })
            })
            .collect();
        QiCells {
            palette,
            rows: Arc::new(rows),
        }
    }

    /// The cell of `row`.
    pub fn cell(&self, row: usize) -> Cell {
        self.palette[self.rows[row] as usize]
    }

    /// Every row's cell, in row order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Cell> + '_ {
        self.rows.iter().map(|&p| self.palette[p as usize])
    }
}

/// The generalized QI cells of every row, in input order, per QI (config
/// order). Non-QI columns are released as they are (identifiers not at
/// all).
#[derive(Debug, Clone)]
pub struct Release {
    /// Per QI: each row's generalized cell.
    pub qis: Vec<QiCells>,
}

/// Two releases are equal when every row has the same cells, however their
/// palettes list them.
impl PartialEq for Release {
    fn eq(&self, other: &Release) -> bool {
        self.qis.len() == other.qis.len()
            && (self.qis.iter().zip(&other.qis)).all(|(a, b)| a.iter().eq(b.iter()))
    }
}

impl Eq for Release {}

impl Release {
    /// A release from one cell per row and QI, `cells[q][row]`.
    pub fn from_cells(cells: &[Vec<Cell>]) -> Release {
        Release {
            qis: cells.iter().map(|c| QiCells::from_cells(c)).collect(),
        }
    }

    /// Global recoding: QI `q` at `levels[q]` in every row; rows marked in
    /// `suppressed` get `*` in every QI.
    pub fn from_levels(data: &Dataset, levels: &[usize], suppressed: &[bool]) -> Release {
        let qis = data
            .qis
            .iter()
            .enumerate()
            .map(|(q, qi)| {
                // One cell per dictionary code, then `*` after them.
                let mut palette: Vec<Cell> = (0..qi.leaf_of.len() as u32)
                    .map(|code| Cell::at_level(qi, levels[q], code))
                    .collect();
                let star = palette.len() as u32;
                palette.push(Cell::Suppressed);
                let rows = (data.qi_codes(q).iter().zip(suppressed))
                    .map(|(&code, &s)| if s { star } else { code })
                    .collect();
                QiCells {
                    palette,
                    rows: Arc::new(rows),
                }
            })
            .collect();
        Release { qis }
    }

    /// The cell of QI `q` in `row`.
    pub fn cell(&self, q: usize, row: usize) -> Cell {
        self.qis[q].cell(row)
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.qis.first().map_or(0, |q| q.rows.len())
    }

    /// Whether every QI cell of `row` is `*`. Such rows are suppressed
    /// unless together they form an ordinary class
    /// (`privacy::release_suppressed` decides).
    pub fn is_star(&self, row: usize) -> bool {
        self.qis.iter().all(|c| c.cell(row) == Cell::Suppressed)
    }

    /// The all-`*` flag of every row.
    pub fn star_mask(&self) -> Vec<bool> {
        (0..self.rows()).map(|r| self.is_star(r)).collect()
    }

    /// How many rows are `*` in every QI.
    pub fn star_rows(&self) -> usize {
        (0..self.rows()).filter(|&r| self.is_star(r)).count()
    }

    /// QI `q` as the public sees it: a column of labels, each made once
    /// per palette entry and interned in row order.
    pub fn qi_column(&self, data: &Dataset, q: usize) -> Column {
        let qi = &data.qis[q];
        let source = &data.table.columns[qi.column];
        let cells = &self.qis[q];
        let mut of_palette = vec![u32::MAX; cells.palette.len()];
        let mut cell_codes: FxHashMap<Cell, u32> = FxHashMap::default();
        let mut dict = Dictionary::new();
        let codes = cells
            .rows
            .iter()
            .map(|&p| {
                let code = &mut of_palette[p as usize];
                if *code == u32::MAX {
                    // A cell listed twice in the palette has one label.
                    let cell = cells.palette[p as usize];
                    *code = *cell_codes
                        .entry(cell)
                        .or_insert_with(|| dict.intern(&cell.label(qi, &source.dict)));
                }
                *code
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
        let cells: Vec<Vec<Cell>> = (0..data.qis.len())
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
        let release = Release::from_cells(&cells);
        for (q, column_cells) in cells.iter().enumerate() {
            let qi = &data.qis[q];
            let source = &data.table.columns[qi.column].dict;
            let mut dict = Dictionary::new();
            let expected: Vec<u32> = column_cells
                .iter()
                .map(|cell| dict.intern(&cell.label(qi, source)))
                .collect();
            let column = release.qi_column(&data, q);
            assert_eq!(column.codes, expected, "{}", qi.name);
            assert!(column.dict.values().eq(dict.values()), "{}", qi.name);
        }
    }
}

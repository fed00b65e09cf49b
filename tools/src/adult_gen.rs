//! A scaled Adult: a table of any size drawn from Adult's joint
//! distribution, for scaling benchmarks.
//!
//! Each output row resamples a whole input row uniformly (so the joint
//! distribution of every column is kept); then each numeric quasi-identifier
//! with a hierarchy is perturbed within its finest hierarchy interval: the
//! value is replaced by a uniformly drawn leaf of its level-1 node (age 37
//! becomes one of 36..40, the leaves ARX's hierarchy files under `35-39`).
//! Every generated value is thus a leaf of the same hierarchy, and the output
//! loads with the input's config. Other columns are copied as they are.
//!
//! The stream is ChaCha8 seeded with the given seed: the same input, size and
//! seed give the same bytes. Rows are written as they are drawn, so memory
//! does not grow with the output size.

use std::io::Write;

use karc::dataset::Dataset;
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// A file of the bundled Adult fixture (`fixtures/adult/NAME`).
pub fn adult_fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/adult")
        .join(name)
}

/// A uniform draw in `0..n` (n > 0) by Lemire's multiply-shift, without the
/// bias of a plain modulo.
fn below(rng: &mut ChaCha8Rng, n: usize) -> usize {
    ((u128::from(rng.next_u64()) * n as u128) >> 64) as usize
}

/// Writes `rows` rows drawn from `data` (header, delimiter and line ending
/// as the input) to `out`.
pub fn generate(data: &Dataset, rows: usize, seed: u64, out: impl Write) -> csv::Result<()> {
    let table = &data.table;
    // For every column, each dictionary code's replacement choices: the
    // texts of the leaves under its level-1 node (numeric QIs with a
    // hierarchy), or nothing (copied as is).
    let mut choices: Vec<Vec<Vec<String>>> = vec![Vec::new(); table.columns.len()];
    for qi in &data.qis {
        let Some(h) = qi.hierarchy.as_ref().filter(|_| qi.value_type.is_numeric()) else {
            continue;
        };
        if h.height() < 2 {
            continue;
        }
        let dict = &table.columns[qi.column].dict;
        choices[qi.column] = (0..dict.len())
            .map(|code| {
                let node = h.node_of(1, qi.leaf_of[code]);
                h.leaves_of(1, node)
                    .map(|leaf| h.label(0, leaf).to_owned())
                    .collect()
            })
            .collect();
    }
    let mut w = csv::WriterBuilder::new()
        .delimiter(table.delimiter)
        .terminator(table.line_ending.terminator())
        .from_writer(out);
    if table.header {
        w.write_record(table.columns.iter().map(|c| c.name.as_bytes()))?;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut record: Vec<&str> = Vec::with_capacity(table.columns.len());
    for _ in 0..rows {
        let source = below(&mut rng, table.rows);
        record.clear();
        for (c, column) in table.columns.iter().enumerate() {
            let code = column.codes[source] as usize;
            match choices[c].get(code) {
                Some(leaves) if !leaves.is_empty() => {
                    record.push(&leaves[below(&mut rng, leaves.len())]);
                }
                _ => record.push(column.text(source)),
            }
        }
        w.write_record(&record)?;
    }
    w.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::path::Path;

    use karc::config::Config;
    use karc::table::Table;

    use super::*;

    fn adult() -> (Config, Dataset) {
        let config = Config::load(&adult_fixture("adult.toml")).unwrap();
        let data = Dataset::load(&config, &adult_fixture("adult.csv")).unwrap();
        (config, data)
    }

    #[test]
    fn draws_source_tuples_and_loads_with_the_same_config() {
        let (config, data) = adult();
        let mut bytes = Vec::new();
        generate(&data, 3000, 9, &mut bytes).unwrap();
        let mut again = Vec::new();
        generate(&data, 3000, 9, &mut again).unwrap();
        assert_eq!(bytes, again, "same seed, same bytes");
        let mut other = Vec::new();
        generate(&data, 3000, 10, &mut other).unwrap();
        assert_ne!(bytes, other);

        // Every value is a leaf of its hierarchy: the table binds.
        let table = Table::from_bytes(Path::new("gen.csv"), &bytes, &config.csv_options().unwrap())
            .unwrap();
        let generated = Dataset::bind(&config, table).unwrap();
        assert_eq!(generated.rows(), 3000);

        // Without age, every generated row is a row of Adult; age stays in
        // the 5-year node of some Adult row with that tuple.
        let age = data.table.column_index("age").unwrap();
        let qi = &data.qis[data.qi_index("age").unwrap()];
        let h = qi.hierarchy.as_ref().unwrap();
        let key = |t: &Table, row: usize, with_age: Option<u32>| {
            let mut k: Vec<String> = (0..t.columns.len())
                .filter(|&c| c != age)
                .map(|c| t.columns[c].text(row).to_owned())
                .collect();
            if let Some(node) = with_age {
                k.push(node.to_string());
            }
            k
        };
        let node = |text: &str| h.node_of(1, h.leaf(text).unwrap());
        let source: HashSet<Vec<String>> = (0..data.rows())
            .map(|r| key(&data.table, r, Some(node(data.table.columns[age].text(r)))))
            .collect();
        let t = &generated.table;
        for r in 0..t.rows {
            let k = key(t, r, Some(node(t.columns[age].text(r))));
            assert!(source.contains(&k), "row {r}: {k:?}");
        }
    }
}

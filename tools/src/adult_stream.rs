//! An Adult-like stream of any length for paper 003's scale runs: rows of
//! raw UCI Adult (without the rows holding `?`) drawn at random, with seeded
//! noise on the numeric columns, so a stream of millions of rows keeps
//! Adult's joint distribution of categories and roughly its numeric ranges.
//!
//! Noise: age and hours-per-week move by up to 2 (clipped to Adult's range),
//! fnlwgt and non-zero capital gains and losses by up to 10 % (rounded);
//! education-num stays tied to education.

use std::path::Path;

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// Paper 003's ten quasi-identifiers: six numeric, then four categorical.
pub const QIS: [&str; 10] = [
    "age",
    "fnlwgt",
    "education-num",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "education",
    "marital-status",
    "occupation",
    "native-country",
];

/// The raw Adult rows without `?`, fields trimmed, and the header.
pub fn adult_clean(path: &Path) -> std::io::Result<(Vec<String>, Vec<Vec<String>>)> {
    let text = std::fs::read_to_string(path)?;
    let mut lines = text.lines();
    let split = |l: &str| {
        l.split(',')
            .map(|f| f.trim().to_owned())
            .collect::<Vec<_>>()
    };
    let header = split(lines.next().unwrap_or_default());
    let rows = lines
        .filter(|l| !l.is_empty() && !l.contains('?'))
        .map(split)
        .collect();
    Ok((header, rows))
}

/// The rows of `adult_clean` as CSV text (header first), `n` rows at most.
pub fn adult_clean_csv(header: &[String], rows: &[Vec<String>], n: usize) -> String {
    let mut out = header.join(",");
    out.push('\n');
    for r in rows.iter().take(n) {
        out.push_str(&r.join(","));
        out.push('\n');
    }
    out
}

/// A seeded endless stream of Adult-like rows.
pub struct AdultStream<'a> {
    rows: &'a [Vec<String>],
    rng: ChaCha8Rng,
    /// Positions of the noisy columns in the header.
    age: usize,
    fnlwgt: usize,
    gain: usize,
    loss: usize,
    hours: usize,
}

impl<'a> AdultStream<'a> {
    pub fn new(header: &[String], rows: &'a [Vec<String>], seed: u64) -> AdultStream<'a> {
        let at = |name: &str| {
            header
                .iter()
                .position(|h| h == name)
                .unwrap_or_else(|| panic!("Adult has a column {name}"))
        };
        AdultStream {
            rows,
            rng: ChaCha8Rng::seed_from_u64(seed),
            age: at("age"),
            fnlwgt: at("fnlwgt"),
            gain: at("capital-gain"),
            loss: at("capital-loss"),
            hours: at("hours-per-week"),
        }
    }

    fn below(&mut self, n: u64) -> u64 {
        ((self.rng.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// The next row's fields.
    pub fn next_row(&mut self) -> Vec<String> {
        let i = self.below(self.rows.len() as u64) as usize;
        let mut row = self.rows[i].clone();
        let shift = |s: &mut Self, v: &str, by: i64, lo: i64, hi: i64| {
            let x: i64 = v.parse().unwrap_or(lo);
            let d = s.below(2 * by as u64 + 1) as i64 - by;
            (x + d).clamp(lo, hi).to_string()
        };
        let scale = |s: &mut Self, v: &str| {
            let x: f64 = v.parse().unwrap_or(0.0);
            if x == 0.0 {
                return v.to_owned();
            }
            let f = 0.9 + 0.2 * (s.below(1 << 20) as f64 / (1u64 << 20) as f64);
            ((x * f).round() as i64).to_string()
        };
        row[self.age] = shift(self, &row[self.age], 2, 17, 90);
        row[self.hours] = shift(self, &row[self.hours], 2, 1, 99);
        row[self.fnlwgt] = scale(self, &row[self.fnlwgt]);
        row[self.gain] = scale(self, &row[self.gain]);
        row[self.loss] = scale(self, &row[self.loss]);
        row
    }
}

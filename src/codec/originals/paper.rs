//! Paper mode ([`DiffMode::Paper`]): paper 004's difference coding exactly
//! as `ALGORITHMS.md` states it (unchanged, interval and rank rules), kept
//! for the reproduction of its figures.

use super::{
    ByteReader, CodecError, Column, ColumnBuilder, FxHashMap, QiOriginal, QiSchema, RULE_INTERVAL,
    RULE_RANK, RULE_UNCHANGED, ReleasedColumn, ReleasedRows, ReleasedSymbol, ValueTable,
    canonical_integer, interval_start, put_coded, put_varint, ranked, unzigzag, value_counts,
    zigzag,
};

pub(super) fn paper_encode(
    qi: &QiOriginal<'_>,
    rel: &ReleasedColumn,
    values: &ValueTable,
    out: &mut Vec<u8>,
) {
    let counts = value_counts(rel, values);
    // Per symbol: its rule, and for ranks the rank of each value.
    let mut rank_of: Vec<FxHashMap<u32, u32>> = vec![FxHashMap::default(); rel.symbols.len()];
    let mut rules = vec![RULE_RANK; rel.symbols.len()];
    let mut starts = vec![0i64; rel.symbols.len()];
    for (g, symbol) in rel.symbols.iter().enumerate() {
        let unchanged = match symbol {
            ReleasedSymbol::Value(t) => counts[g]
                .iter()
                .all(|&(x, _)| values.texts[x as usize] == *t),
            _ => false,
        };
        // An interval whose rows' differences all fit 64 bits (numbers near
        // both ends of `i64` are ranked instead).
        let start = interval_start(symbol, qi.value_type, qi.hierarchy).filter(|&a| {
            counts[g].iter().all(|&(x, _)| {
                canonical_integer(&values.texts[x as usize])
                    .is_some_and(|v| v.checked_sub(a).is_some())
            })
        });
        if unchanged {
            rules[g] = RULE_UNCHANGED;
            out.push(RULE_UNCHANGED);
        } else if let Some(a) = start {
            rules[g] = RULE_INTERVAL;
            starts[g] = a;
            out.push(RULE_INTERVAL);
        } else {
            out.push(RULE_RANK);
            let ranking = ranked(&counts[g]);
            put_varint(out, ranking.len() as u64);
            for (rank, &x) in ranking.iter().enumerate() {
                put_varint(out, u64::from(x));
                rank_of[g].insert(x, rank as u32);
            }
        }
    }
    let integers: Vec<Option<i64>> = values.texts.iter().map(|t| canonical_integer(t)).collect();
    let deltas: Vec<i64> = rel
        .rows
        .iter()
        .zip(&values.rows)
        .map(|(&g, &x)| match rules[g as usize] {
            RULE_UNCHANGED => 0,
            RULE_INTERVAL => integers[x as usize].expect("checked") - starts[g as usize],
            _ => i64::from(rank_of[g as usize][&x]),
        })
        .collect();
    // The delta alphabet: distinct deltas ascending, zigzag varints.
    let mut alphabet: Vec<i64> = deltas
        .iter()
        .copied()
        .collect::<rustc_hash::FxHashSet<i64>>()
        .into_iter()
        .collect();
    alphabet.sort_unstable();
    put_varint(out, alphabet.len() as u64);
    for &d in &alphabet {
        put_varint(out, zigzag(d));
    }
    let symbols: Vec<u32> = deltas
        .iter()
        .map(|d| {
            alphabet
                .binary_search(d)
                .expect("every delta is in the alphabet") as u32
        })
        .collect();
    put_coded(out, alphabet.len(), &symbols);
}

/// How paper mode turns decoded deltas into rows, and how per-value mode
/// decodes its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::codec) enum PaperRows {
    /// Paper mode: the decoder writes the codes itself when one symbol is
    /// released and ranked; else through a table of each (released symbol,
    /// delta symbol) pair's code when it has at most
    /// `max(rows, PAIR_TABLE_MIN)` cells (by released symbol alone when
    /// there is one delta), else row by row. Per-value mode: by released
    /// symbol alone when every one is unchanged; one stream decoded at
    /// once when one symbol is released; else one table lookup a row
    /// yielding its code.
    PairTable,
    /// Every row on its own, one Huffman step and one mapping at a time
    /// (the tests' reference for the tables).
    #[cfg(test)]
    RowByRow,
}

/// Pair tables up to this many cells are used whatever the row count.
const PAIR_TABLE_MIN: usize = 1 << 12;

// Long: one match over paper 004's difference rules (unchanged, interval, rank) kept literal as
// ALGORITHMS.md states them, for the reproduction
pub(super) fn paper_decode(
    qi: &QiSchema<'_>,
    rel: &ReleasedRows<'_>,
    texts: Vec<String>,
    s: &mut ByteReader<'_>,
    paper_rows: PaperRows,
) -> Result<Column, CodecError> {
    let m = rel.symbols.len();
    let mut rules = Vec::with_capacity(m);
    let mut starts = vec![0i64; m];
    let mut dictionaries: Vec<Vec<u32>> = vec![Vec::new(); m];
    for (g, symbol) in rel.symbols.iter().enumerate() {
        let rule = s.byte("difference rule")?;
        match rule {
            RULE_UNCHANGED => {
                if !matches!(symbol, ReleasedSymbol::Value(_)) {
                    return Err(CodecError::Invalid {
                        what: "difference rule",
                        detail: format!("released symbol {g} is generalized but marked unchanged"),
                    });
                }
            }
            RULE_INTERVAL => {
                starts[g] = interval_start(symbol, qi.value_type, qi.hierarchy).ok_or_else(
                    || CodecError::Invalid {
                        what: "difference rule",
                        detail: format!(
                            "released symbol {g} is marked as an interval but does not read as one"
                        ),
                    },
                )?;
            }
            RULE_RANK => {
                let c = s.count("rank dictionary size", 1)?;
                dictionaries[g] = (0..c)
                    .map(|_| s.index("rank dictionary value", texts.len()))
                    .collect::<Result<_, _>>()?;
            }
            id => {
                return Err(CodecError::UnknownLayout {
                    what: "difference rule",
                    id,
                    known: "0 unchanged, 1 interval, 2 rank",
                });
            }
        }
        rules.push(rule);
    }
    let d = s.count("delta alphabet size", 1)?;
    let alphabet: Vec<i64> = (0..d)
        .map(|_| s.varint("delta").map(unzigzag))
        .collect::<Result<_, _>>()?;
    let n = rel.rows.len();
    let mut b = ColumnBuilder::new(qi.name, &texts, n, m);
    // The code of a row released as symbol `g` with delta symbol `sym`
    // (formatting and interning a text at its first use).
    let code_of = |b: &mut ColumnBuilder, g: usize, sym: u32| {
        let delta = alphabet[sym as usize];
        match rules[g] {
            RULE_UNCHANGED => {
                if delta != 0 {
                    return Err(CodecError::Invalid {
                        what: "delta",
                        detail: format!("delta {delta} for a cell released unchanged (expected 0)"),
                    });
                }
                Ok(b.unchanged_symbol_code(rel.symbols, g))
            }
            RULE_INTERVAL => {
                let x = starts[g]
                    .checked_add(delta)
                    .ok_or_else(|| CodecError::Invalid {
                        what: "delta",
                        detail: format!("{} + {delta} leaves the 64-bit range", starts[g]),
                    })?;
                Ok(b.integer_code(x))
            }
            _ => {
                let dict = &dictionaries[g];
                let v = usize::try_from(delta)
                    .ok()
                    .and_then(|r| dict.get(r))
                    .ok_or(CodecError::IndexOutOfRange {
                        what: "rank",
                        index: delta as u64,
                        len: dict.len() as u64,
                    })?;
                Ok(b.codes_of_values[*v as usize])
            }
        }
    };
    if paper_rows == PaperRows::PairTable && rules[..] == [RULE_RANK] {
        // One released symbol, ranked: each delta symbol stands for one
        // code, worked out for all of them first (a rank names a value of
        // the table, interned already: nothing is interned out of order),
        // and the decoder writes the codes directly. A delta symbol whose
        // rank errs leaves it to the rows below, which meet the error at
        // its first row.
        let values: Result<Vec<u32>, _> =
            (0..d as u32).map(|sym| code_of(&mut b, 0, sym)).collect();
        if let Ok(values) = values {
            s.coded_mapped("deltas", d, n, &values, &mut b.column.codes)?;
            return Ok(b.column);
        }
    }
    let pairs = m.checked_mul(d).filter(|&cells| {
        paper_rows == PaperRows::PairTable && cells <= rel.rows.len().max(PAIR_TABLE_MIN)
    });
    let symbols = s.coded("deltas", d, n)?;
    if d == 1 && pairs.is_some() {
        // One delta: a row's code depends on its released symbol only.
        b.column.codes = codes_by_symbol(rel.rows, m, |g| code_of(&mut b, g, 0))?;
        return Ok(b.column);
    }
    if let Some(cells) = pairs {
        // A row's code depends on its pair (released symbol, delta symbol)
        // only: worked out at the pair's first row, it is one lookup for
        // the others. Texts are interned, and errors met, at the same row
        // as row by row (a pair errs at its first row).
        let mut table = vec![u32::MAX; cells];
        let mut codes = std::mem::take(&mut b.column.codes);
        codes.resize(n, 0);
        let mut done = 0;
        loop {
            done += map_known_pairs(
                &table,
                d,
                &rel.rows[done..],
                &symbols[done..],
                &mut codes[done..],
            );
            if done == n {
                break;
            }
            let (g, sym) = (rel.rows[done] as usize, symbols[done]);
            let code = code_of(&mut b, g, sym)?;
            table[g * d + sym as usize] = code;
            codes[done] = code;
            done += 1;
        }
        b.column.codes = codes;
    } else {
        for (&g, &sym) in rel.rows.iter().zip(&symbols) {
            let code = code_of(&mut b, g as usize, sym)?;
            b.column.codes.push(code);
        }
    }
    Ok(b.column)
}

/// Writes the code of each row whose pair (released symbol `g`, delta
/// symbol) has one in `table` (`table[g * d + symbol]`, `u32::MAX` for a
/// pair not met yet) to `out`, up to the first row whose pair has none;
/// returns how many rows it wrote. The hot loop of paper mode: a load and a
/// compare per row, the first use of a pair left to the caller.
fn map_known_pairs(
    table: &[u32],
    d: usize,
    rows: &[u32],
    symbols: &[u32],
    out: &mut [u32],
) -> usize {
    for (i, ((o, &g), &sym)) in out.iter_mut().zip(rows).zip(symbols).enumerate() {
        let code = table[g as usize * d + sym as usize];
        if code == u32::MAX {
            return i;
        }
        *o = code;
    }
    out.len()
}

/// Each row's code when it depends on the row's released symbol only
/// (`rows` below `m`): `code_of(g)` is called once per symbol, in the order
/// of their first rows, so texts are interned, and errors met, as row by
/// row; then one lookup a row.
pub(super) fn codes_by_symbol(
    rows: &[u32],
    m: usize,
    mut code_of: impl FnMut(usize) -> Result<u32, CodecError>,
) -> Result<Vec<u32>, CodecError> {
    let mut codes = vec![u32::MAX; m];
    let mut unseen = m;
    for &g in rows {
        if unseen == 0 {
            break;
        }
        let slot = &mut codes[g as usize];
        if *slot == u32::MAX {
            *slot = code_of(g as usize)?;
            unseen -= 1;
        }
    }
    Ok(rows.iter().map(|&g| codes[g as usize]).collect())
}

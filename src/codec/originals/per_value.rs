//! Per-value mode ([`DiffMode::PerValue`]): no bits for a cell released
//! unchanged, and one Huffman code per released value over the original
//! values it covers; the covers ([`Candidates`]) and rules are shared with
//! context and per-value-rans modes.

use bitstream_io::BitWrite;

use super::{
    BitWindow, ByteReader, CodecError, Column, ColumnBuilder, Decoder, FxHashMap, Hierarchy,
    HuffmanCode, HuffmanError, LOOKUPS_PER_TOP_UP, MISS, PaperRows, QiOriginal, QiSchema, RULE_ANY,
    RULE_COVERED, RULE_UNCHANGED, ReleasedColumn, ReleasedRows, ReleasedSymbol, TableSet,
    ValueTable, codes_by_symbol, huffman, number, value_counts,
};

/// The value-table entries each released symbol of a section may stand
/// for, in value-table order: known to encoder and decoder alike, so only
/// code lengths or frequencies are stored.
pub(super) struct Candidates<'a> {
    hierarchy: Option<&'a Hierarchy>,
    leaves: bool,
    texts: &'a [String],
    /// The value table's numbers with their indices, ascending, parsed
    /// once a section: a release of thousands of intervals (Mondrian) would
    /// otherwise parse the whole table once per interval.
    numbers: std::cell::OnceCell<Vec<(f64, u32)>>,
}

impl<'a> Candidates<'a> {
    pub(super) fn new(hierarchy: Option<&'a Hierarchy>, leaves: bool, texts: &'a [String]) -> Self {
        Candidates {
            hierarchy,
            leaves,
            texts,
            numbers: std::cell::OnceCell::new(),
        }
    }

    /// How many values [`Candidates::of`] lists, without listing them.
    pub(super) fn size(&self, symbol: &ReleasedSymbol) -> usize {
        match symbol {
            ReleasedSymbol::Value(_) => 1,
            ReleasedSymbol::Interval { lo, hi } => match (number(lo), number(hi)) {
                (Some(a), Some(b)) => {
                    let numbers = self.numbers();
                    let from = numbers.partition_point(|&(x, _)| x < a);
                    numbers.partition_point(|&(x, _)| x <= b).max(from) - from
                }
                _ => self.texts.len(),
            },
            ReleasedSymbol::Node { level, node } if self.leaves => match self.hierarchy {
                Some(h)
                    if (*level as usize) < h.height()
                        && (*node as usize) < h.nodes(*level as usize) =>
                {
                    h.leaves_of(*level as usize, *node).count()
                }
                _ => self.texts.len(),
            },
            _ => self.texts.len(),
        }
    }

    /// The value table's numbers with their indices, ascending.
    fn numbers(&self) -> &[(f64, u32)] {
        self.numbers.get_or_init(|| {
            let mut n: Vec<(f64, u32)> = (0..self.texts.len() as u32)
                .filter_map(|i| Some((number(&self.texts[i as usize])?, i)))
                .collect();
            n.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
            n
        })
    }

    fn of(&self, symbol: &ReleasedSymbol) -> Vec<u32> {
        let all = || (0..self.texts.len() as u32).collect();
        match symbol {
            ReleasedSymbol::Node { level, node } if self.leaves => match self.hierarchy {
                Some(h)
                    if (*level as usize) < h.height()
                        && (*node as usize) < h.nodes(*level as usize) =>
                {
                    h.leaves_of(*level as usize, *node).collect()
                }
                _ => all(),
            },
            ReleasedSymbol::Interval { lo, hi } => match (number(lo), number(hi)) {
                (Some(a), Some(b)) => {
                    let numbers = self.numbers();
                    // The values x with a <= x <= b.
                    let from = numbers.partition_point(|&(x, _)| x < a);
                    let to = numbers.partition_point(|&(x, _)| x <= b).max(from);
                    let mut covered: Vec<u32> = numbers[from..to].iter().map(|&(_, i)| i).collect();
                    covered.sort_unstable();
                    covered
                }
                _ => all(),
            },
            _ => all(),
        }
    }
}

/// The rule of each released symbol in the modes that code a value among
/// those its symbol covers (per-value, context and per-value-rans): rule 0
/// when every row of the symbol holds its text (`None`: nothing coded),
/// else rule 2 and the symbol's cover, or rule 3 and all of `V` when some
/// row's value lies outside the cover (a release that does not cover its
/// originals).
pub(super) fn coded_alphabets(
    qi: &QiOriginal<'_>,
    rel: &ReleasedColumn,
    values: &ValueTable,
    counts: &[Vec<(u32, u64)>],
) -> (Vec<u8>, Vec<Option<Vec<u32>>>) {
    let candidates = Candidates::new(qi.hierarchy, values.leaves, &values.texts);
    rel.symbols
        .iter()
        .enumerate()
        .map(|(g, symbol)| {
            let unchanged = match symbol {
                ReleasedSymbol::Value(t) => counts[g]
                    .iter()
                    .all(|&(x, _)| values.texts[x as usize] == *t),
                _ => false,
            };
            if unchanged {
                return (RULE_UNCHANGED, None);
            }
            let cands = candidates.of(symbol);
            if counts[g]
                .iter()
                .all(|(x, _)| cands.binary_search(x).is_ok())
            {
                (RULE_COVERED, Some(cands))
            } else {
                (RULE_ANY, Some((0..values.texts.len() as u32).collect()))
            }
        })
        .unzip()
}

/// Reads a section's rule byte per released symbol (per-value, context
/// and per-value-rans modes; `what` names them in errors): per symbol, `None`
/// for unchanged, else its alphabet (cover or all of `V`).
pub(super) fn symbol_alphabets(
    what: &'static str,
    s: &mut ByteReader<'_>,
    symbols: &[ReleasedSymbol],
    hierarchy: Option<&Hierarchy>,
    leaves: bool,
    texts: &[String],
) -> Result<Vec<Option<Vec<u32>>>, CodecError> {
    let rules = s.take(symbols.len() as u64, what)?;
    let candidates = Candidates::new(hierarchy, leaves, texts);
    symbols
        .iter()
        .zip(rules)
        .enumerate()
        .map(|(g, (symbol, &rule))| match rule {
            RULE_UNCHANGED => {
                if matches!(symbol, ReleasedSymbol::Value(_)) {
                    Ok(None)
                } else {
                    Err(CodecError::Invalid {
                        what,
                        detail: format!("released symbol {g} is generalized but marked unchanged"),
                    })
                }
            }
            RULE_COVERED => Ok(Some(candidates.of(symbol))),
            RULE_ANY => Ok(Some((0..texts.len() as u32).collect())),
            id => Err(CodecError::UnknownLayout {
                what,
                id,
                known: "0 unchanged, 2 covered values, 3 any value",
            }),
        })
        .collect()
}

pub(super) fn per_value_encode(
    qi: &QiOriginal<'_>,
    rel: &ReleasedColumn,
    values: &ValueTable,
    out: &mut Vec<u8>,
) {
    let counts = value_counts(rel, values);
    let (rules, alphabets) = coded_alphabets(qi, rel, values, &counts);
    out.extend_from_slice(&rules);
    let mut codes: Vec<Option<(HuffmanCode, FxHashMap<u32, u32>)>> =
        Vec::with_capacity(rel.symbols.len());
    let mut w = huffman::writer();
    for (g, cands) in alphabets.into_iter().enumerate() {
        let Some(cands) = cands else {
            codes.push(None);
            continue;
        };
        let freqs: Vec<u64> = cands
            .iter()
            .map(|x| {
                counts[g]
                    .binary_search_by_key(x, |&(y, _)| y)
                    .map_or(0, |i| counts[g][i].1)
            })
            .collect();
        let code = HuffmanCode::from_frequencies(&freqs);
        code.write_table(&mut w).expect("writing to memory");
        let index = cands
            .iter()
            .enumerate()
            .map(|(i, &x)| (x, i as u32))
            .collect();
        codes.push(Some((code, index)));
    }
    for (&g, &x) in rel.rows.iter().zip(&values.rows) {
        if let Some((code, index)) = &codes[g as usize] {
            code.write_symbols(&mut w, [index[&x]])
                .expect("writing to memory");
        }
    }
    w.byte_align().expect("writing to memory");
    out.extend_from_slice(&w.into_writer());
}

// Long: the general row-by-row decode with its fast paths beside it (every symbol unchanged, one
// coded symbol, table lookups), so one reads which input takes which path
pub(super) fn per_value_decode(
    qi: &QiSchema<'_>,
    rel: &ReleasedRows<'_>,
    texts: Vec<String>,
    leaves: bool,
    s: &mut ByteReader<'_>,
    paper_rows: PaperRows,
) -> Result<Column, CodecError> {
    let m = rel.symbols.len();
    let alphabets = symbol_alphabets(
        "per-value rules",
        s,
        rel.symbols,
        qi.hierarchy,
        leaves,
        &texts,
    )?;
    let rest = s.take(s.remaining() as u64, "per-value codes")?;
    let available = rest.len() as u64 * 8;
    let mut r = huffman::reader(rest);
    let huff = |source| CodecError::Huffman {
        what: "per-value codes",
        source,
    };
    let mut b = ColumnBuilder::new(qi.name, &texts, rel.rows.len(), m);
    // Per symbol: the codes of its candidates and the decoder of its code.
    let mut decoders: Vec<Option<(Vec<u32>, Decoder)>> = Vec::with_capacity(m);
    for cands in alphabets {
        let Some(cands) = cands else {
            decoders.push(None);
            continue;
        };
        let code = HuffmanCode::read_table(&mut r, cands.len(), available).map_err(huff)?;
        let codes = cands
            .iter()
            .map(|&v| b.codes_of_values[v as usize])
            .collect();
        decoders.push(Some((codes, code.decoder())));
    }
    let start = r.position_in_bits().expect("cursor position");
    #[cfg(test)]
    if paper_rows == PaperRows::RowByRow {
        return per_value_rows(rel, &decoders, b, rest, start);
    }
    let _ = paper_rows;
    if decoders.iter().all(Option::is_none) {
        // Every symbol released unchanged: no bits, a row's code is its
        // symbol's.
        let codes = codes_by_symbol(rel.rows, m, |g| Ok(b.unchanged_symbol_code(rel.symbols, g)))?;
        per_value_end(&BitWindow::new(rest, start), rest)?;
        b.column.codes = codes;
        return Ok(b.column);
    }
    if let [Some((codes, decoder))] = &decoders[..] {
        // One released symbol, coded: the rows are one stream of one code,
        // which the decoder takes several symbols a lookup. A stream that
        // fails goes the row-by-row way below, which names the row's error.
        let end = decoder.decode_mapped(rest, start, rel.rows.len(), codes, &mut b.column.codes);
        if end.is_ok_and(|end| end.div_ceil(8) == rest.len() as u64) {
            return Ok(b.column);
        }
        b.column.codes.clear();
    }
    // Table `g` yields the column code of a row released as `g` in one
    // lookup; a miss (a code longer than the table, an empty code, or the
    // first row of an unchanged symbol, whose text is interned then) goes
    // the long way, as row by row would.
    let mut tables = TableSet::default();
    for entry in &decoders {
        match entry {
            None => tables.push_fixed(MISS),
            Some((codes, decoder)) => tables.push_code(decoder, |s| codes[s as usize]),
        };
    }
    let mut w = BitWindow::new(rest, start);
    let mut codes = std::mem::take(&mut b.column.codes);
    codes.resize(rel.rows.len(), 0);
    for (i, (out, &g)) in codes.iter_mut().zip(rel.rows).enumerate() {
        if i % LOOKUPS_PER_TOP_UP == 0 {
            w.top_up();
        }
        let mut code = tables.lookup_topped(g as usize, &mut w);
        if code == MISS {
            code = per_value_row(&mut b, rel, &decoders, g as usize, &mut w)?;
            if decoders[g as usize].is_none() {
                tables.set_fixed(g as usize, code);
            }
            // The long way may have taken up to 32 bits.
            w.top_up();
        }
        *out = code;
        per_value_within(&w, available)?;
    }
    per_value_end(&w, rest)?;
    b.column.codes = codes;
    Ok(b.column)
}

/// The code of a row released as symbol `g`, decoded on its own: the long
/// way of the tables, and the whole of row by row.
fn per_value_row(
    b: &mut ColumnBuilder,
    rel: &ReleasedRows<'_>,
    decoders: &[Option<(Vec<u32>, Decoder)>],
    g: usize,
    w: &mut BitWindow<'_>,
) -> Result<u32, CodecError> {
    Ok(match &decoders[g] {
        None => b.unchanged_symbol_code(rel.symbols, g),
        Some((codes, decoder)) => {
            let s = decoder.next(w).map_err(|source| CodecError::Huffman {
                what: "per-value codes",
                source,
            })?;
            codes[s as usize]
        }
    })
}

/// Refuses a row whose code ran past the end of per-value mode's stream.
#[inline]
fn per_value_within(w: &BitWindow<'_>, available: u64) -> Result<(), CodecError> {
    if w.position() > available {
        return Err(CodecError::Huffman {
            what: "per-value codes",
            source: HuffmanError::Truncated {
                needed: w.position(),
                available,
            },
        });
    }
    Ok(())
}

/// Refuses whole bytes left after per-value mode's last code.
fn per_value_end(w: &BitWindow<'_>, rest: &[u8]) -> Result<(), CodecError> {
    if w.position().div_ceil(8) != rest.len() as u64 {
        return Err(CodecError::TrailingBytes {
            what: "per-value codes",
            count: rest.len() as u64 - w.position().div_ceil(8),
        });
    }
    Ok(())
}

/// Per-value mode's rows one at a time: the reference of the tables.
#[cfg(test)]
fn per_value_rows(
    rel: &ReleasedRows<'_>,
    decoders: &[Option<(Vec<u32>, Decoder)>],
    mut b: ColumnBuilder,
    rest: &[u8],
    start: u64,
) -> Result<Column, CodecError> {
    let available = rest.len() as u64 * 8;
    let mut w = BitWindow::new(rest, start);
    for &g in rel.rows {
        let code = per_value_row(&mut b, rel, decoders, g as usize, &mut w)?;
        b.column.codes.push(code);
        per_value_within(&w, available)?;
    }
    per_value_end(&w, rest)?;
    Ok(b.column)
}

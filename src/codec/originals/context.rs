//! Context mode ([`DiffMode::Context`]): each changed cell range-coded among
//! the values its released value covers, conditioned on that value and the
//! originals of up to two earlier QIs of the row (the choice of those
//! parents is `contexts`, shared with per-value-rans mode).

use super::{
    Block, ByteReader, CodecError, CodedRows, Column, ColumnBuilder, ContextKeys, Models,
    QiOriginal, QiSchema, RangeDecoder, RangeEncoder, ReleasedColumn, ReleasedRows, ReleasedSymbol,
    ValueTable, coded_alphabets, decode_symbol, encode_symbol, parents, put_varint,
    symbol_alphabets, value_counts, width,
};

/// The range-coded rows of one QI under the given parents.
#[inline(never)]
fn context_stream(coded: &CodedRows, keys: &ContextKeys<'_>) -> Vec<u8> {
    let mut enc = RangeEncoder::default();
    let mut models = Models::new(keys.space.unwrap_or(u64::MAX));
    let widths: Vec<u32> = coded.sizes.iter().map(|&n| width(n)).collect();
    keys.each_key(coded, |i, key| {
        let (g, s) = (coded.symbols[i] as usize, coded.positions[i]);
        let size = coded.sizes[g];
        // A dense block is coded by the slice's own (monomorphic) loop.
        match models.block(key, widths[g]) {
            Block::Dense(block) => encode_symbol(&mut enc, block, s, size),
            mut wide => encode_symbol(&mut enc, &mut wide, s, size),
        }
    });
    enc.finish()
}

pub(super) fn context_encode(
    qi: &QiOriginal<'_>,
    rel: &ReleasedColumn,
    values: &ValueTable,
    earlier: &[ValueTable],
    logs: &parents::SharedLogs,
    out: &mut Vec<u8>,
) {
    let counts = value_counts(rel, values);
    let (rules, alphabets) = coded_alphabets(qi, rel, values, &counts);
    // Per symbol: each value's position in its alphabet (dense over `V`).
    let mut positions: Vec<Option<Vec<u32>>> = Vec::with_capacity(rel.symbols.len());
    let mut sizes = Vec::with_capacity(rel.symbols.len());
    for cands in alphabets {
        let Some(cands) = cands else {
            positions.push(None);
            sizes.push(0);
            continue;
        };
        let mut index = vec![u32::MAX; values.texts.len()];
        for (i, &x) in cands.iter().enumerate() {
            index[x as usize] = i as u32;
        }
        sizes.push(cands.len() as u32);
        positions.push(Some(index));
    }
    let mut coded = CodedRows {
        rows: Vec::new(),
        symbols: Vec::new(),
        positions: Vec::new(),
        sizes,
    };
    for (row, (&g, &x)) in rel.rows.iter().zip(&values.rows).enumerate() {
        if let Some(index) = &positions[g as usize] {
            coded.rows.push(row as u32);
            coded.symbols.push(g);
            coded.positions.push(index[x as usize]);
        }
    }
    let parent = |p: u32| {
        (
            &earlier[p as usize].rows[..],
            earlier[p as usize].texts.len() as u64,
        )
    };
    let chosen = parents::choose(
        logs,
        &coded,
        rel.symbols.len(),
        earlier.len() as u32,
        &parent,
    );
    let keys = ContextKeys::new(
        rel.symbols.len(),
        chosen.iter().map(|&p| parent(p)).collect(),
    );
    out.push(chosen.len() as u8);
    for &p in &chosen {
        put_varint(out, u64::from(p));
    }
    out.extend_from_slice(&rules);
    out.extend_from_slice(&context_stream(&coded, &keys));
}

/// The parents a context section of QI `q` names.
pub(super) fn context_parents(s: &mut ByteReader<'_>, q: usize) -> Result<Vec<usize>, CodecError> {
    let p = s.byte("context parent count")?;
    if p > 2 {
        return Err(CodecError::IndexOutOfRange {
            what: "context parent count",
            index: u64::from(p),
            len: 3,
        });
    }
    (0..p)
        .map(|_| s.index("context parent", q).map(|i| i as usize))
        .collect()
}

pub(super) fn context_decode(
    qi: &QiSchema<'_>,
    rel: &ReleasedRows<'_>,
    texts: Vec<String>,
    leaves: bool,
    parents: &[&Column],
    s: &mut ByteReader<'_>,
) -> Result<Column, CodecError> {
    // A decoded column's codes are below its dictionary's size: that is
    // the radix (the encoder's is |V|; any injective numbering of the
    // contexts names the same models).
    let parents: Vec<(&[u32], u64)> = parents
        .iter()
        .map(|c| (&c.codes[..], c.dict.len() as u64))
        .collect();
    let keys = ContextKeys::new(rel.symbols.len(), parents);
    let alphabets = symbol_alphabets(
        "context rules",
        s,
        rel.symbols,
        qi.hierarchy,
        leaves,
        &texts,
    )?;
    let widths: Vec<u32> = alphabets
        .iter()
        .map(|a| a.as_ref().map_or(0, |c| width(c.len() as u32)))
        .collect();
    let stream = s.take(s.remaining() as u64, "context stream")?;
    let mut dec = RangeDecoder::new(stream);
    let mut models = Models::new(keys.space.unwrap_or(u64::MAX));
    let mut b = ColumnBuilder::new(qi.name, &texts, rel.rows.len(), rel.symbols.len());
    for (row, &g) in rel.rows.iter().enumerate() {
        match &alphabets[g as usize] {
            None => {
                let ReleasedSymbol::Value(t) = &rel.symbols[g as usize] else {
                    unreachable!("checked by symbol_alphabets")
                };
                b.push_unchanged(g as usize, t);
            }
            Some(cands) => {
                if cands.is_empty() {
                    return Err(CodecError::Invalid {
                        what: "context stream",
                        detail: format!("released symbol {g} covers no value"),
                    });
                }
                let size = cands.len() as u32;
                // Dense blocks through the slice path (one dispatch per
                // value, not per bit).
                let i = match models.block(keys.key(g, row), widths[g as usize]) {
                    Block::Dense(block) => decode_symbol(&mut dec, block, size),
                    mut wide => decode_symbol(&mut dec, &mut wide, size),
                };
                b.push_value(cands[i as usize]);
            }
        }
    }
    dec.finish("context stream")?;
    Ok(b.column)
}

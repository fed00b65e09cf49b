use bitstream_io::BitWrite;
use proptest::prelude::*;

use super::*;

/// The cost in bits of an optimal (unlimited) Huffman code: the sum of the
/// merged weights, computed independently with a binary heap.
fn optimal_cost(freqs: &[u64]) -> u64 {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut heap: BinaryHeap<Reverse<u64>> = freqs
        .iter()
        .copied()
        .filter(|&f| f > 0)
        .map(Reverse)
        .collect();
    if heap.len() < 2 {
        return 0;
    }
    let mut cost = 0;
    while heap.len() > 1 {
        let Reverse(a) = heap.pop().unwrap();
        let Reverse(b) = heap.pop().unwrap();
        cost += a + b;
        heap.push(Reverse(a + b));
    }
    cost
}

fn encode(code: &HuffmanCode, symbols: &[u32]) -> Vec<u8> {
    let mut w = writer();
    code.write_symbols(&mut w, symbols.iter().copied()).unwrap();
    w.byte_align().unwrap();
    w.into_writer()
}

#[test]
fn canonical_codes_of_the_papers_example() {
    // Paper 004, Table 1: A 11, B 100, C 0, D 101 (lengths 2, 3, 1, 3). The
    // canonical code with the same lengths: C 0, A 10, B 110, D 111.
    let code = HuffmanCode::from_lengths(&[2, 3, 1, 3]).unwrap();
    assert_eq!(code.code(0), (0b10, 2));
    assert_eq!(code.code(1), (0b110, 3));
    assert_eq!(code.code(2), (0b0, 1));
    assert_eq!(code.code(3), (0b111, 3));
    // "ACDB" -> 10 0 111 110 -> 1001 1111 0(000 0000)
    assert_eq!(encode(&code, &[0, 2, 3, 1]), vec![0b1001_1111, 0b0000_0000]);
}

#[test]
fn frequencies_give_huffman_lengths() {
    // Frequencies with a unique optimal length multiset.
    let code = HuffmanCode::from_frequencies(&[10, 1, 30, 2, 0]);
    assert_eq!(code.lengths(), &[2, 3, 1, 3, 0]);
}

#[test]
fn single_symbol_costs_no_bits() {
    let code = HuffmanCode::from_frequencies(&[0, 0, 7]);
    assert_eq!(code.lengths(), &[0, 0, 1]);
    assert_eq!(code.single(), Some(2));
    assert!(encode(&code, &[2; 1000]).is_empty());
    let mut out = Vec::new();
    assert_eq!(code.decoder().decode(&[], 0, 5, &mut out), Ok(0));
    assert_eq!(out, vec![2; 5]);
}

#[test]
fn invalid_lengths_are_refused() {
    assert_eq!(
        HuffmanCode::from_lengths(&[1, 2]),
        Err(HuffmanError::NotComplete {
            sum_scaled: 3 << 30
        })
    );
    assert!(matches!(
        HuffmanCode::from_lengths(&[1, 1, 1]),
        Err(HuffmanError::NotComplete { .. })
    ));
    assert_eq!(
        HuffmanCode::from_lengths(&[0, 2]),
        Err(HuffmanError::SingleSymbolLength {
            symbol: 1,
            length: 2
        })
    );
    assert_eq!(
        HuffmanCode::from_lengths(&[1, 33]),
        Err(HuffmanError::LengthTooLong {
            symbol: 1,
            length: 33
        })
    );
}

#[test]
fn lengths_are_limited_on_fibonacci_frequencies() {
    // Fibonacci weights make the deepest Huffman tree: n - 1 levels.
    let mut freqs = vec![1u64, 1];
    while freqs.len() < 45 {
        let n = freqs.len();
        freqs.push(freqs[n - 1] + freqs[n - 2]);
    }
    let code = HuffmanCode::from_frequencies(&freqs);
    assert_eq!(code.lengths().iter().copied().max(), Some(MAX_CODE_LENGTH));
    // Still a valid complete code, and it round-trips, long codes included.
    let symbols: Vec<u32> = (0..45).chain((0..45).rev()).collect();
    let bytes = encode(&code, &symbols);
    let mut out = Vec::new();
    code.decoder()
        .decode(&bytes, 0, symbols.len(), &mut out)
        .unwrap();
    assert_eq!(out, symbols);
}

#[test]
fn truncated_stream_is_an_error() {
    let code = HuffmanCode::from_frequencies(&[5, 3, 2, 1]);
    let symbols = [3u32, 3, 3, 3, 3, 3];
    let bytes = encode(&code, &symbols);
    let mut out = Vec::new();
    let err = code
        .decoder()
        .decode(&bytes[..bytes.len() - 1], 0, symbols.len(), &mut out)
        .unwrap_err();
    assert!(matches!(err, HuffmanError::Truncated { .. }), "{err}");
}

proptest! {
    #[test]
    fn round_trip_and_optimal(freqs in prop::collection::vec(0u64..1000, 1..300), seed in any::<u64>()) {
        let code = HuffmanCode::from_frequencies(&freqs);
        let used: Vec<u32> = (0..freqs.len() as u32).filter(|&s| freqs[s as usize] > 0).collect();
        prop_assume!(!used.is_empty());
        prop_assert!(code.lengths().iter().all(|&l| l <= MAX_CODE_LENGTH));
        for (s, &f) in freqs.iter().enumerate() {
            prop_assert_eq!(f > 0, code.lengths()[s] > 0);
        }
        // Optimal: the cost equals Huffman's (no limit binds at these sizes).
        prop_assert_eq!(code.cost(&freqs), optimal_cost(&freqs));
        // A symbol sequence drawn from the used symbols round-trips through
        // the table, both decoders agreeing.
        let mut x = seed;
        let symbols: Vec<u32> = (0..500).map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            used[(x >> 33) as usize % used.len()]
        }).collect();
        let mut w = writer();
        code.write_table(&mut w).unwrap();
        w.byte_align().unwrap();
        let table_bytes = w.into_writer();
        let mut r = reader(&table_bytes);
        let read = HuffmanCode::read_table(&mut r, freqs.len(), table_bytes.len() as u64 * 8).unwrap();
        prop_assert_eq!(&read, &code);
        let bytes = encode(&read, &symbols);
        let mut fast = Vec::new();
        let end = read.decoder().decode(&bytes, 0, symbols.len(), &mut fast).unwrap();
        prop_assert_eq!(end, code.cost(&count(&symbols, freqs.len())));
        prop_assert_eq!(&fast, &symbols);
        let mut slow = Vec::new();
        decode_bitwise(&read, &mut reader(&bytes), symbols.len(), &mut slow).unwrap();
        prop_assert_eq!(&slow, &symbols);
    }

    #[test]
    fn decoding_at_a_bit_offset(lengths_seed in 2usize..40, offset in 0u64..20) {
        let freqs: Vec<u64> = (1..=lengths_seed as u64).collect();
        let code = HuffmanCode::from_frequencies(&freqs);
        let symbols: Vec<u32> = (0..lengths_seed as u32).collect();
        let mut w = writer();
        w.write_var::<u32>(offset as u32, 0).unwrap();
        code.write_symbols(&mut w, symbols.iter().copied()).unwrap();
        w.byte_align().unwrap();
        let bytes = w.into_writer();
        let mut out = Vec::new();
        code.decoder().decode(&bytes, offset, symbols.len(), &mut out).unwrap();
        prop_assert_eq!(out, symbols);
    }

    /// Arbitrary bytes as a table and a stream: an error or a result, never
    /// a panic, never an allocation the input cannot back.
    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200), alphabet in 0usize..70, n in 0usize..1_000_000) {
        let mut r = reader(&bytes);
        if let Ok(code) = HuffmanCode::read_table(&mut r, alphabet, bytes.len() as u64 * 8) {
            let mut out = Vec::new();
            let _ = code.decoder().decode(&bytes, 0, n, &mut out);
            let mut out = Vec::new();
            let _ = decode_bitwise(&code, &mut reader(&bytes), n.min(2000), &mut out);
        }
    }
}

/// The decoder's contract, one table step per symbol (`Decoder::next`):
/// the reference of the multi-symbol path of `Decoder::decode`. The checks
/// before decoding are stated here again on purpose, not shared with the
/// decoder: shared, a rule dropped or changed there would change here too.
fn one_by_one(
    code: &HuffmanCode,
    bytes: &[u8],
    offset: u64,
    n: usize,
) -> Result<(Vec<u32>, u64), HuffmanError> {
    let available = bytes.len() as u64 * 8;
    if code.single().is_none() && n > 0 {
        if code.lengths().iter().all(|&l| l == 0) {
            return Err(HuffmanError::EmptyCode { count: n });
        }
        if offset > available {
            return Err(HuffmanError::Truncated {
                needed: offset,
                available,
            });
        }
        if n as u64 > available - offset {
            return Err(HuffmanError::Truncated {
                needed: offset + n as u64,
                available,
            });
        }
    }
    let decoder = code.decoder();
    let mut w = BitWindow::new(bytes, offset.min(available));
    let symbols = (0..n)
        .map(|_| decoder.next(&mut w))
        .collect::<Result<Vec<u32>, _>>()?;
    if w.position() > available {
        return Err(HuffmanError::Truncated {
            needed: w.position(),
            available,
        });
    }
    Ok((symbols, w.position()))
}

/// Lengths from random exponents of frequencies: skewed codes, long ones
/// (past the 11-bit table) included.
fn skewed_code(exponents: &[u8]) -> HuffmanCode {
    let freqs: Vec<u64> = exponents.iter().map(|&e| 1u64 << e).collect();
    HuffmanCode::from_frequencies(&freqs)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Thousands of symbols (enough for the multi-symbol table) of random
    /// skewed codes over up to 300 symbols (the table takes at most 256),
    /// at a bit offset: the same symbols as the bit-by-bit reference, the
    /// end right after the last code, including a stream that ends on a
    /// byte edge; cut short, the same error as one step per symbol.
    #[test]
    fn multi_symbol_decoding_matches_the_reference(
        exponents in prop::collection::vec(0u8..24, 2..300),
        n in 4096usize..6000,
        offset in 0u64..16,
        seed in any::<u64>(),
        cut in any::<prop::sample::Index>(),
    ) {
        let code = skewed_code(&exponents);
        let mut x = seed;
        let symbols: Vec<u32> = (0..n).map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) as u32 % exponents.len() as u32
        }).collect();
        // The longest prefix whose codes end on a byte edge, if any.
        let bits = |k: usize| offset + symbols[..k].iter().map(|&s| u64::from(code.code(s).1)).sum::<u64>();
        let edge = (n - 64..=n).rev().find(|&k| bits(k) % 8 == 0);
        for k in [Some(n), edge].into_iter().flatten() {
            let mut w = writer();
            w.write_var::<u32>(offset as u32, 0).unwrap();
            code.write_symbols(&mut w, symbols[..k].iter().copied()).unwrap();
            w.byte_align().unwrap();
            let bytes = w.into_writer();
            let mut fast = Vec::new();
            let end = code.decoder().decode(&bytes, offset, k, &mut fast).unwrap();
            prop_assert_eq!(end, bits(k));
            prop_assert_eq!(&fast[..], &symbols[..k]);
            let mut r = reader(&bytes);
            r.skip(offset as u32).unwrap();
            let mut slow = Vec::new();
            decode_bitwise(&code, &mut r, k, &mut slow).unwrap();
            prop_assert_eq!(&slow, &fast);
            // Cut short: one byte less, and anywhere.
            for len in [bytes.len() - 1, cut.index(bytes.len())] {
                let mut out = Vec::new();
                let got = code.decoder().decode(&bytes[..len], offset, k, &mut out);
                prop_assert!(got.is_err());
                prop_assert_eq!(got.map(|_| ()), one_by_one(&code, &bytes[..len], offset, k).map(|_| ()));
            }
        }
    }

    /// Decoding to values (bytes, and some past a byte, which the table
    /// cannot hold) yields the values of what plain decoding yields: the
    /// same end, the same error when cut short.
    #[test]
    fn mapped_decoding_is_decoding_then_mapping(
        exponents in prop::collection::vec(0u8..24, 2..300),
        n in 4096usize..6000,
        wide in any::<bool>(),
        seed in any::<u64>(),
        cut in any::<prop::sample::Index>(),
    ) {
        let code = skewed_code(&exponents);
        let mut x = seed;
        let mut next = move || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) as u32
        };
        let symbols: Vec<u32> = (0..n).map(|_| next() % exponents.len() as u32).collect();
        let values: Vec<u32> = (0..exponents.len()).map(|_| next() % if wide { 1000 } else { 256 }).collect();
        let bytes = encode(&code, &symbols);
        let decoder = code.decoder();
        for len in [bytes.len(), bytes.len() - 1, cut.index(bytes.len())] {
            let (mut plain, mut mapped) = (Vec::new(), vec![7]);
            let a = decoder.decode(&bytes[..len], 0, n, &mut plain);
            let b = decoder.decode_mapped(&bytes[..len], 0, n, &values, &mut mapped);
            prop_assert_eq!(&a, &b);
            if a.is_ok() {
                prop_assert_eq!(mapped[0], 7);
                prop_assert!(plain.iter().map(|&s| values[s as usize]).eq(mapped[1..].iter().copied()));
            }
        }
    }

    /// Random bytes long enough for thousands of symbols: the multi-symbol
    /// path yields what one step per symbol does, symbols, end or error.
    #[test]
    fn random_streams_decode_as_one_step_per_symbol(
        exponents in prop::collection::vec(0u8..24, 2..260),
        bytes in prop::collection::vec(any::<u8>(), 500..1200),
        n in 4096usize..9000,
        offset in 0u64..12,
    ) {
        let code = skewed_code(&exponents);
        let mut out = Vec::new();
        let got = code.decoder().decode(&bytes, offset, n, &mut out).map(|end| (out, end));
        prop_assert_eq!(got, one_by_one(&code, &bytes, offset, n));
    }
}

fn count(symbols: &[u32], n: usize) -> Vec<u64> {
    let mut c = vec![0u64; n];
    for &s in symbols {
        c[s as usize] += 1;
    }
    c
}

/// The worked examples of `spec/CODING.md`, 2.4, down to the bytes.
#[test]
fn spec_worked_examples() {
    let code = HuffmanCode::from_lengths(&[2, 3, 1, 3]).unwrap();
    let mut w = writer();
    code.write_table(&mut w).unwrap();
    code.write_symbols(&mut w, [0, 2, 3, 1]).unwrap();
    w.byte_align().unwrap();
    assert_eq!(w.into_writer(), vec![0x56, 0xf3, 0xe0]);

    let single = HuffmanCode::from_lengths(&[0, 0, 1]).unwrap();
    let mut w = writer();
    single.write_table(&mut w).unwrap();
    single.write_symbols(&mut w, [2; 100]).unwrap();
    w.byte_align().unwrap();
    assert_eq!(w.into_writer(), vec![0x24]);
}

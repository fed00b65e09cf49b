//! Per-value-rans context parents (`spec/CODING.md` 6.5): forced and chosen
//! parents round trip, a dependent QI takes one and shrinks, corrupted
//! parents are refused.

use super::*;

use originals::contexts::Parent;

/// `g` cut to the same rows (QIs of one table).
fn same_rows(g: Vec<Generated>) -> Vec<Generated> {
    let rows = g.iter().map(|g| g.original.codes.len()).min().unwrap_or(0);
    g.into_iter()
        .map(|mut g| {
            g.original.codes.truncate(rows);
            g.released.rows.truncate(rows);
            g
        })
        .collect()
}

fn originals_of(g: &[Generated]) -> Vec<QiOriginal<'_>> {
    g.iter()
        .map(|g| QiOriginal {
            name: "q",
            value_type: g.value_type,
            hierarchy: g.hierarchy.as_ref(),
            column: &g.original,
        })
        .collect()
}

/// The blob of `g` in per-value-rans mode with `parents` forced.
fn forced(g: &[Generated], parents: &[Vec<Parent>]) -> Vec<u8> {
    let released: Vec<ReleasedColumn> = g.iter().map(|g| g.released.clone()).collect();
    originals::encode_with_parents(&originals_of(g), &released, parents)
}

/// Decodes `bytes` listed and by class, and checks both give `g`'s
/// originals.
fn assert_restores(bytes: &[u8], g: &[Generated]) {
    let back = decode_all(bytes, g).unwrap();
    for (b, g) in back.iter().zip(g) {
        assert_eq!(texts(b), texts(&g.original));
    }
    let (classes, table) = by_class(g);
    let back = decode_all_by_class(bytes, g, &classes, &table).unwrap();
    for (b, g) in back.iter().zip(g) {
        assert_eq!(texts(b), texts(&g.original));
    }
}

/// Every parent set a section of three QIs can have without a cycle: QI 2
/// takes QI 0 and 1's originals or released values (alone or paired), QI 1
/// takes QI 0's.
fn parent_sets() -> Vec<Vec<Vec<Parent>>> {
    use Parent::{Original as O, Released as R};
    vec![
        vec![vec![], vec![O(0)], vec![O(1)]],
        vec![vec![], vec![R(0)], vec![R(1), O(0)]],
        vec![vec![R(2)], vec![O(0)], vec![O(0), O(1)]],
        vec![vec![O(2)], vec![R(2), O(0)], vec![R(0), R(1)]],
    ]
}

/// A QI over `n_leaves` leaves whose row `r` holds `value(r)`, released
/// by `kind(r)` (0 value, 1 node, 2 `*`).
fn qi_of(
    n_leaves: usize,
    rows: usize,
    value: impl Fn(usize) -> usize,
    kind: impl Fn(usize) -> u8,
) -> Generated {
    let rows: Vec<(usize, u8, usize)> = (0..rows).map(|r| (value(r), kind(r), r)).collect();
    build(false, true, n_leaves, 3, &rows, 0)
}

proptest! {
    #[test]
    fn forced_parents_round_trip(g in prop::collection::vec(generated(), 3..4)) {
        let g = same_rows(g);
        for parents in parent_sets() {
            let bytes = forced(&g, &parents);
            assert_restores(&bytes, &g);
        }
    }

    #[test]
    fn parents_chosen_by_the_encoder_round_trip(
        n_leaves in 2usize..40,
        rows in 0usize..400,
        noise in 1usize..20,
        seed in any::<u64>(),
    ) {
        // QI 1 mostly follows QI 0; QI 2 follows QI 1's release; all
        // released as `*` or nodes.
        let mix = |r: usize| (r as u64).wrapping_mul(seed | 1).rotate_left(17) as usize;
        let g = vec![
            qi_of(n_leaves, rows, mix, |r| (r % 2) as u8),
            qi_of(n_leaves, rows, |r| if mix(r) % noise == 0 { r } else { mix(r) * 7 }, |_| 2),
            qi_of(5, rows, |r| mix(r) % 3, |r| if mix(r) % 2 == 0 { 2 } else { 1 }),
        ];
        let enc = encode_all(DiffMode::PerValueRans, &g);
        assert_restores(&enc.bytes, &g);
    }

    /// A corrupted section with parents is an error or other columns,
    /// never a panic.
    #[test]
    fn corrupted_parents_never_panic(
        g in prop::collection::vec(generated(), 3..4),
        set in 0usize..4,
        at in any::<prop::sample::Index>(),
        xor in 1u8..=255,
    ) {
        let g = same_rows(g);
        let mut bytes = forced(&g, &parent_sets()[set]);
        let i = at.index(bytes.len());
        bytes[i] ^= xor;
        let _ = decode_all(&bytes, &g);
    }
}

/// Correlated columns: the encoder gives one QI the other as a parent,
/// and the blob is smaller than without parents.
#[test]
fn a_dependent_qi_takes_a_parent_and_shrinks() {
    let rows = 4000;
    let mix = |r: usize| {
        (r as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(23) as usize
    };
    let g = vec![
        qi_of(30, rows, mix, |_| 2),
        qi_of(
            30,
            rows,
            |r| if mix(r) % 16 == 0 { r } else { mix(r) + 1 },
            |_| 2,
        ),
    ];
    let chosen = encode_all(DiffMode::PerValueRans, &g);
    let none = forced(&g, &[vec![], vec![]]);
    assert!(
        chosen.bytes.len() + 1000 < none.len(),
        "{} vs {}",
        chosen.bytes.len(),
        none.len()
    );
    assert_restores(&chosen.bytes, &g);
    // The sections: leaves (kind 0), then the parents: one of the two QIs
    // takes the other's original values (either way round).
    let sections = split_sections(&chosen.bytes);
    let firsts: Vec<&[u8]> = sections.iter().map(|s| &s[..3]).collect();
    assert!(
        firsts == [&[0, 0, 2][..], &[0, 1, 0][..]] || firsts[0][..3] == [0, 1, 2],
        "{firsts:?}"
    );
}

/// Parents that are constant, all distinct (a radix as large as the rows),
/// one row, no row, and many released values.
#[test]
fn edge_parents_round_trip() {
    use Parent::{Original as O, Released as R};
    for rows in [0usize, 1, 2, 7, 300] {
        let g = vec![
            qi_of(1, rows, |_| 0, |_| 0),
            qi_of(rows.max(1), rows, |r| r, |r| (r % 3) as u8),
            qi_of(40, rows, |r| r * 7 % 40, |r| (r % 2) as u8),
        ];
        for parents in [
            vec![vec![], vec![O(0)], vec![O(0), O(1)]],
            vec![vec![R(1)], vec![], vec![O(1), R(0)]],
            vec![vec![], vec![R(2)], vec![O(1)]],
        ] {
            assert_restores(&forced(&g, &parents), &g);
        }
        assert_restores(&encode_all(DiffMode::PerValueRans, &g).bytes, &g);
    }
}

/// A blob's sections (without their lengths).
fn split_sections(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut r = bytes::ByteReader::new(&bytes[1..]);
    let q = r.varint("q").unwrap();
    (0..q)
        .map(|_| {
            let len = r.varint("len").unwrap();
            r.take(len, "section").unwrap().to_vec()
        })
        .collect()
}

fn join_sections(sections: &[Vec<u8>]) -> Vec<u8> {
    let mut out = vec![DiffMode::PerValueRans.id()];
    bytes::put_varint(&mut out, sections.len() as u64);
    for s in sections {
        bytes::put_varint(&mut out, s.len() as u64);
        out.extend_from_slice(s);
    }
    out
}

/// A corrupted model description is refused with its own error: a parent
/// that is the QI itself, a cycle of original parents, an original parent
/// without a value table's index, three parents, a refined context beyond
/// the context space.
#[test]
fn corrupted_parents_are_refused() {
    let rows = 500;
    let g = vec![
        qi_of(12, rows, |r| r % 12, |_| 2),
        qi_of(12, rows, |r| (r % 12 + r / 100) % 12, |_| 2),
    ];
    let good = forced(&g, &[vec![], vec![Parent::Original(0)]]);
    assert_restores(&good, &g);
    let sections = split_sections(&good);
    // Both sections are leaves (kind 0), then the parents.
    assert_eq!(&sections[0][..2], &[0, 0]);
    assert_eq!(&sections[1][..3], &[0, 1, 0]);
    let with_parents = |first: &[u8], second: &[u8]| {
        let mut a = vec![0u8];
        a.extend_from_slice(first);
        a.extend_from_slice(&sections[0][2..]);
        let mut b = vec![0u8];
        b.extend_from_slice(second);
        b.extend_from_slice(&sections[1][3..]);
        join_sections(&[a, b])
    };
    let refused = |bytes: &[u8], what: &str| {
        let err = decode_all(bytes, &g).unwrap_err().to_string();
        assert!(err.contains(what), "{err}");
    };
    // Itself.
    refused(&with_parents(&[0], &[1, 2]), "is not another QI's");
    // QI 2 of 2.
    refused(&with_parents(&[0], &[1, 4]), "is not another QI's");
    // The same parent twice.
    refused(&with_parents(&[0], &[2, 0, 0]), "is not another QI's");
    // A cycle: QI 0 takes QI 1's original, which takes QI 0's.
    refused(&with_parents(&[1, 2], &[1, 0]), "closes a cycle");
    // Three parents.
    refused(&with_parents(&[0], &[3, 0, 1, 3]), "context parent count");
    // A refined context beyond the space: QI 1 has one released value and
    // 12 parent values, so 12 contexts; its rules byte, then `R`.
    let mut b = sections[1].clone();
    let refined_at = 3 + 1;
    assert!(b[refined_at] >= 1, "QI 1 refines a context");
    b[refined_at + 1] = 12;
    refused(
        &join_sections(&[sections[0].clone(), b]),
        "beyond the 12 contexts",
    );
}

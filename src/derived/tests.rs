//! The derived-column check: transforms caught, honest columns passed,
//! the shortcuts (moved rows, bitsets, two threads) equal to the plain measure.

use super::*;

fn column(name: &str, values: &[String]) -> Column {
    let mut c = Column::new(name);
    for v in values {
        c.push(v);
    }
    c
}

/// Ages 20..80, each 5 times; released as decades.
fn ages() -> (Vec<String>, Vec<u32>) {
    let ages: Vec<u32> = (0..300).map(|i| 20 + (i * 7) % 60).collect();
    (ages.iter().map(u32::to_string).collect(), ages)
}

fn check(values: &[String], ages: &[u32], other: &[String]) -> PairMeasure {
    let age = column("age", values);
    let numbers: Vec<Option<f64>> = age.dict.values().map(|v| v.parse().ok()).collect();
    let qi = QiSubject {
        name: "age",
        original: &age.codes,
        released: ages.iter().map(|a| a / 10).collect::<Vec<_>>().into(),
        numbers: Some(&numbers),
    };
    let other = column("other", other);
    let subject = ColumnSubject {
        numbers: column_numbers(&other, &[String::new()], |t| t.parse().ok()),
        column: &other,
        allowed: &[],
    };
    ColumnChecks::measure(vec!["age".into()], [qi], &[subject])
        .pairs
        .remove(0)
}

/// Pseudo-random codes below `m` (an LCG).
fn codes(n: usize, m: u32, seed: u64) -> Vec<u32> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32 % m
        })
        .collect()
}

/// The chance baseline on the QI's rows moved once is the test on the
/// column's values shuffled, row for row; the dense and the hashed
/// pairs count alike.
#[test]
fn moving_the_qi_rows_equals_shuffling_the_column() {
    for (n, qvals, values) in [(1000, 7, 5), (5000, 300, 40), (20_000, 5000, 3000)] {
        let original = codes(n, qvals, 1);
        // Cells of about three original values each, some of one.
        let released: Vec<u32> = original.iter().map(|q| q / 3).collect();
        let qi = QiSubject {
            name: "q",
            original: &original,
            released: released.into(),
            numbers: None,
        };
        let cells = CellCandidates::of(&qi);
        let rows = Rows::of(&qi);
        let column = codes(n, values, 2);
        let targets = shuffled(&(0..n as u32).collect::<Vec<_>>());
        let moved = rows.moved(&targets);
        let expected = values_test(&rows, &cells, &shuffled(&column), values as usize);
        assert_eq!(
            values_test(&moved, &cells, &column, values as usize),
            expected
        );
        let dense = values_test(&rows, &cells, &column, values as usize);
        let sparse_rows = Rows {
            originals: DENSE_PAIRS + 1,
            ..Rows::of(&qi)
        };
        assert_eq!(
            values_test(&sparse_rows, &cells, &column, values as usize),
            dense
        );
    }
}

/// A table large enough for two threads measures what one thread does.
#[test]
fn two_threads_measure_what_one_does() {
    let n = PARALLEL_ROWS + 1000;
    let original = codes(n, 90, 3);
    let released: Vec<u32> = original.iter().map(|q| q / 10).collect();
    let numbers: Vec<Option<f64>> = (0..90).map(|q| Some(f64::from(q))).collect();
    let qi = QiSubject {
        name: "age",
        original: &original,
        released: released.into(),
        numbers: Some(&numbers),
    };
    let copy = column(
        "copy",
        &original.iter().map(|q| format!("c{q}")).collect::<Vec<_>>(),
    );
    let noise = column(
        "noise",
        &codes(n, 50, 4)
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>(),
    );
    let subjects: Vec<ColumnSubject<'_>> = [&copy, &noise]
        .into_iter()
        .map(|column| ColumnSubject {
            numbers: column_numbers(column, &[], |t| t.parse().ok()),
            column,
            allowed: &[],
        })
        .collect();
    let cells = CellCandidates::of(&qi);
    let targets = shuffled(&(0..n as u32).collect::<Vec<_>>());
    let moved = Rows::of(&qi).moved(&targets);
    let rows = Rows::of(&qi);
    let both = measure_columns(&qi, &rows, &moved, &cells, &subjects, true);
    let one: Vec<PairMeasure> = subjects
        .iter()
        .map(|c| measure_pair(&qi, &rows, &moved, &cells, c))
        .collect();
    assert_eq!(both, one);
    assert!(both[0].refused() && !both[1].refused(), "{both:?}");
}

#[test]
fn copies_recodings_and_transforms_are_caught() {
    let (values, ages) = ages();
    let affine: Vec<String> = ages.iter().map(|a| (2 * a + 1000).to_string()).collect();
    let square: Vec<String> = ages.iter().map(|a| (a * a).to_string()).collect();
    let log: Vec<String> = ages
        .iter()
        .map(|&a| format!("{:.2}", f64::from(a).ln()))
        .collect();
    let code: Vec<String> = ages.iter().map(|a| format!("A{}", 97 - a)).collect();
    let half: Vec<String> = ages.iter().map(|a| (a / 2).to_string()).collect();
    for derived in [&values, &affine, &square, &log, &code, &half] {
        let m = check(&values, &ages, derived);
        assert!(m.share >= 0.99, "{m:?}");
    }
}

#[test]
fn a_monotone_column_of_unique_values_is_caught_by_its_order() {
    let (values, ages) = ages();
    let noisy: Vec<String> = ages
        .iter()
        .enumerate()
        .map(|(i, a)| format!("{}.{i:03}", a * 3))
        .collect();
    let m = check(&values, &ages, &noisy);
    assert_eq!((m.test.as_str(), m.share), ("order", 1.0), "{m:?}");
}

#[test]
fn independent_columns_pass() {
    let (values, ages) = ages();
    let mut state = 12345u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state >> 33
    };
    let weight: Vec<String> = ages.iter().map(|_| (next() % 100000).to_string()).collect();
    let sex: Vec<String> = ages
        .iter()
        .map(|_| ["M", "F"][next() as usize % 2].into())
        .collect();
    let hours: Vec<String> = ages.iter().map(|_| (next() % 60).to_string()).collect();
    for honest in [&weight, &sex, &hours] {
        let m = check(&values, &ages, honest);
        assert!(m.share < DERIVED_SHARE / 2.0, "{m:?}");
    }
}

#[test]
fn nothing_hidden_is_nothing_to_pin() {
    let (values, _) = ages();
    let age = column("age", &values);
    let qi = QiSubject {
        name: "age",
        original: &age.codes,
        released: age.codes.clone().into(),
        numbers: None,
    };
    let copy = column("copy", &values);
    let subject = ColumnSubject {
        column: &copy,
        numbers: None,
        allowed: &[],
    };
    let checks = ColumnChecks::measure(vec!["age".into()], [qi], &[subject]);
    assert_eq!(checks.pairs[0].hidden_rows, 0);
    assert!(checks.passed);
    checks.enforce("").unwrap();
}

#[test]
fn an_allowed_pair_passes_and_is_listed() {
    let (values, ages) = ages();
    let age = column("age", &values);
    let copy = column("copy", &values);
    let allowed = vec!["age".to_owned()];
    let subject = |allowed| ColumnSubject {
        column: &copy,
        numbers: None,
        allowed,
    };
    let qi = || QiSubject {
        name: "age",
        original: &age.codes,
        released: ages.iter().map(|a| a / 10).collect::<Vec<_>>().into(),
        numbers: None,
    };
    let refused = ColumnChecks::measure(vec!["age".into()], [qi()], &[subject(&[])]);
    let err = refused.enforce("t.csv: ").unwrap_err();
    assert_eq!(err.exit_code(), 1);
    let text = err.to_string();
    assert!(
        text.starts_with("t.csv: column \"copy\" pins quasi-identifier \"age\" on 100.0%"),
        "{text}"
    );
    let allowed = ColumnChecks::measure(vec!["age".into()], [qi()], &[subject(&allowed)]);
    assert!(allowed.passed);
    assert_eq!(allowed.allowed, vec![("copy".to_owned(), "age".to_owned())]);
    allowed.enforce("").unwrap();
}

/// Several QIs measured a QI per thread give the pairs one thread gives,
/// in QI order.
#[test]
fn qis_on_two_threads_measure_what_one_does() {
    let n = PARALLEL_ROWS + 1000;
    let ages = codes(n, 90, 3);
    let zips = codes(n, 400, 5);
    let released: Vec<Vec<u32>> = vec![
        ages.iter().map(|q| q / 10).collect(),
        zips.iter().map(|q| q / 100).collect(),
    ];
    let numbers: Vec<Option<f64>> = (0..400).map(|q| Some(f64::from(q))).collect();
    let subject = |name, original, q: usize| QiSubject {
        name,
        original,
        released: released[q].clone().into(),
        numbers: Some(&numbers),
    };
    let copy = column(
        "copy",
        &zips.iter().map(|q| format!("z{q}")).collect::<Vec<_>>(),
    );
    let subjects: Vec<ColumnSubject<'_>> = vec![ColumnSubject {
        numbers: column_numbers(&copy, &[], |t| t.parse().ok()),
        column: &copy,
        allowed: &[],
    }];
    let qis = || vec![subject("age", &ages[..], 0), subject("zip", &zips[..], 1)];
    let checks = ColumnChecks::measure(vec!["age".into(), "zip".into()], qis(), &subjects);
    let targets = shuffled(&(0..n as u32).collect::<Vec<_>>());
    let one: Vec<PairMeasure> = qis()
        .iter()
        .flat_map(|qi| measure_qi(qi, &targets, &subjects, false))
        .collect();
    assert_eq!(checks.pairs, one);
    assert_eq!(checks.pairs.len(), 2);
    assert!(
        !checks.pairs[0].refused() && checks.pairs[1].refused(),
        "{:?}",
        checks.pairs
    );
}

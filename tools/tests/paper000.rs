//! Classfly+ on paper 000's workload: soundness, the paper's Theorem 4
//! (complete and partial IndepCSet give identical releases) and its
//! Precision ordering (Figure 3).

use karc::anonymize::{self, Algorithm, Outcome};
use karc::config::AlgorithmConfig;
use karc::metrics::measure;
use karc_tools::paper000::{self, Loaded};

fn workload(rows: usize, seed: u64, cset: usize) -> (tempfile::TempDir, Loaded) {
    let dir = tempfile::tempdir().unwrap();
    let w = paper000::load(dir.path(), rows, seed, cset).unwrap();
    (dir, w)
}

/// Runs `a` through karc's checked entry point (verifier, row count, budget)
/// and checks that every released cell covers its original value.
fn checked(w: &Loaded, a: Algorithm) -> Outcome {
    let config = AlgorithmConfig {
        name: a.name().to_owned(),
        ..AlgorithmConfig::default()
    };
    let outcome =
        anonymize::run(&w.data, &w.model, &config).unwrap_or_else(|e| panic!("{}: {e}", a.name()));
    for (q, qi) in w.data.qis.iter().enumerate() {
        let codes = w.data.qi_codes(q);
        for (row, cell) in outcome.release.qis[q].iter().enumerate() {
            assert!(
                cell.covers(qi, codes[row]),
                "{} row {row} {}",
                a.name(),
                qi.name
            );
        }
    }
    outcome
}

fn precision(w: &Loaded, o: &Outcome) -> f64 {
    measure(&w.data, &o.release, &w.model).precision.unwrap()
}

#[test]
fn complete_and_partial_release_identical_tables() {
    for cset in 2..=8 {
        for (rows, seed) in [(1024, 0), (2048, 11)] {
            let (_dir, w) = workload(rows, seed, cset);
            let complete = checked(&w, Algorithm::ClassflyPlusComplete);
            let partial = checked(&w, Algorithm::ClassflyPlusPartial);
            assert!(
                complete.release == partial.release,
                "|CSet| = {cset}, {rows} rows, seed {seed}"
            );
        }
    }
}

#[test]
fn every_algorithm_is_sound_on_every_constraint_set() {
    for cset in 1..=8 {
        let (_dir, w) = workload(1024, 5, cset);
        for &a in Algorithm::ALL {
            checked(&w, a);
        }
    }
}

/// Figure 3: for {C1, C2} and {C1..C4}, complete/partial IndepCSet keep at
/// least the Precision of the naive method and of Datafly.
#[test]
fn precision_ordering_of_the_paper() {
    for cset in [2, 4] {
        for rows in [1024, 3072] {
            let (_dir, w) = workload(rows, 0, cset);
            let d = precision(&w, &checked(&w, Algorithm::Datafly));
            let n = precision(&w, &checked(&w, Algorithm::ClassflyPlusNaive));
            let c = precision(&w, &checked(&w, Algorithm::ClassflyPlusComplete));
            let p = precision(&w, &checked(&w, Algorithm::ClassflyPlusPartial));
            let label = format!("|CSet| = {cset}, {rows} rows: D {d} N {n} C {c} P {p}");
            assert_eq!(c, p, "{label}");
            assert!(c >= n && c >= d, "{label}");
        }
    }
}

/// QIs outside every constraint stay raw (except in suppressed rows): all
/// nine attributes are QIs, the constraint set is {C1, C2}.
#[test]
fn attributes_outside_the_constraints_stay_raw() {
    let dir = tempfile::tempdir().unwrap();
    let files = paper000::write(dir.path(), 1024, 3, 2, "classfly-plus-complete").unwrap();
    let mut config = karc::config::Config::load(&files.config).unwrap();
    for c in &mut config.columns {
        c.role = Some(karc::config::Role::Quasi);
        c.hierarchy = Some(format!("hierarchies/{}.csv", c.name).into());
    }
    let data = karc::dataset::Dataset::load(&config, &files.table).unwrap();
    let model = karc::privacy::PrivacyModel::from_config(&config, &data).unwrap();
    let w = Loaded {
        config,
        data,
        model,
    };
    for a in [
        Algorithm::ClassflyPlusNaive,
        Algorithm::ClassflyPlusComplete,
        Algorithm::ClassflyPlusPartial,
    ] {
        let o = checked(&w, a);
        for name in ["Height", "Weight", "Work_Hrs", "Salary", "Edu"] {
            let q = w.data.qi_index(name).unwrap();
            let codes = w.data.qi_codes(q);
            for (row, cell) in o.release.qis[q].iter().enumerate() {
                assert!(
                    o.release.is_star(row) || cell == karc::cell::Cell::Value(codes[row]),
                    "{} {name} row {row}: {cell:?}",
                    a.name()
                );
            }
        }
        // Local recoding: Birth is released at several levels across rows
        // (a global recoding has one).
        let q = w.data.qi_index("Birth").unwrap();
        let qi = &w.data.qis[q];
        let distinct_levels: std::collections::BTreeSet<usize> = (0..w.data.rows())
            .filter(|&r| !o.release.is_star(r))
            .map(|r| o.release.cell(q, r).level(qi).unwrap())
            .collect();
        assert!(
            distinct_levels.len() > 1,
            "{}: {distinct_levels:?}",
            a.name()
        );
    }
}

/// With a suppression limit of 0, or under the strict policy, leftovers are
/// generalized into released groups instead of suppressed: still sound, no
/// row suppressed, and complete = partial.
#[test]
fn leftovers_are_absorbed_when_they_may_not_be_suppressed() {
    use karc::config::SuppressionPolicy;
    for cset in [2, 4, 5, 8] {
        for (limit, policy) in [
            (Some(0.0), SuppressionPolicy::Mask),
            (None, SuppressionPolicy::Strict),
        ] {
            let (_dir, mut w) = workload(2048, 1, cset);
            w.model.suppression_limit = limit;
            w.model.policy = policy;
            let label = format!("|CSet| = {cset}, {limit:?}, {policy:?}");
            let mut releases = Vec::new();
            for a in [
                Algorithm::Classfly,
                Algorithm::ClassflyPlusNaive,
                Algorithm::ClassflyPlusComplete,
                Algorithm::ClassflyPlusPartial,
            ] {
                let o = checked(&w, a);
                assert_eq!(o.release.star_rows(), 0, "{label} {}", a.name());
                releases.push(o.release);
            }
            assert!(releases[2] == releases[3], "{label}");
        }
    }
}

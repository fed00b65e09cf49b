//! The verifier against external reference results.

use crate::common::{fixture, karc, outcome};

/// pyCANON's suppression-only releases: QIs the first 6 columns, all-`*`
/// rows one class (strict). Expected k and class counts from pyCANON.
#[test]
fn agrees_with_pycanon_fixtures() {
    for (file, k, classes) in [
        ("adult_anonymized_3.csv", 3, 2838),
        ("adult_anonymized_10.csv", 10, 463),
        ("adult_anonymized_20.csv", 20, 90),
    ] {
        let path = fixture(&format!("pycanon/{file}"));
        let qi = "age,education,occupation,relationship,sex,native-country";
        let o = karc(&[
            "verify",
            path.to_str().unwrap(),
            "--qi",
            qi,
            "--k",
            &k.to_string(),
            "--suppressed",
            "strict",
            "--json",
        ]);
        let (code, stdout, stderr) = outcome(&o);
        assert_eq!(code, 0, "{file}: {stderr}");
        let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let c = &report["constraints"][0];
        assert_eq!(c["min_class"], k, "{file}");
        assert_eq!(c["classes"], classes, "{file}");
        // one more than the true k fails, exit 1
        let o = karc(&[
            "verify",
            path.to_str().unwrap(),
            "--qi",
            qi,
            "--k",
            &(k + 1).to_string(),
            "--suppressed",
            "strict",
        ]);
        assert_eq!(outcome(&o).0, 1, "{file} with k+1");
    }
}

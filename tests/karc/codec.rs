//! Column blobs on real releases: every algorithm on Adult, each released QI
//! column and the original QI columns (every difference mode) round-trip.

use karc::anonymize::{self, Algorithm};
use karc::codec::{
    DiffMode, QiOriginal, QiSchema, ReleasedColumn, decode_originals, decode_plain,
    decode_released, encode_originals, encode_plain, encode_released,
};
use karc::table::Column;

use crate::common::adult;

fn texts(col: &Column) -> Vec<&str> {
    (0..col.codes.len()).map(|r| col.text(r)).collect()
}

#[test]
fn adult_releases_round_trip_in_every_mode() {
    for k in [5, 50] {
        let (mut c, data, model) = adult("adult", k);
        for a in Algorithm::ALL {
            c.algorithm.name = a.name().to_owned();
            let what = format!("{} k={k}", a.name());
            let outcome = anonymize::run(&data, &model, &c.algorithm).unwrap();
            let release = &outcome.release;
            let released: Vec<ReleasedColumn> = data
                .qis
                .iter()
                .enumerate()
                .map(|(q, qi)| {
                    let col = ReleasedColumn::from_palette(
                        qi,
                        &data.table.columns[qi.column].dict,
                        &release.qis[q],
                    );
                    let back = decode_released(&encode_released(&col), data.rows()).unwrap();
                    assert_eq!(back, col, "{what} {}", qi.name);
                    let labels = back.to_column(&qi.name, qi.hierarchy.as_ref()).unwrap();
                    assert_eq!(
                        texts(&labels),
                        texts(&release.qi_column(&data, q)),
                        "{what} {}",
                        qi.name
                    );
                    back
                })
                .collect();
            let originals: Vec<QiOriginal<'_>> = QiOriginal::of_dataset(&data);
            let schema: Vec<QiSchema<'_>> = data
                .qis
                .iter()
                .map(|qi| QiSchema {
                    name: &qi.name,
                    value_type: qi.value_type,
                    hierarchy: qi.hierarchy.as_ref(),
                })
                .collect();
            for &mode in DiffMode::ALL {
                let enc = encode_originals(mode, &originals, &released);
                let back = decode_originals(&enc.bytes, &schema, &released).unwrap();
                for (b, o) in back.iter().zip(&originals) {
                    assert_eq!(texts(b), texts(o.column), "{what} {mode} {}", o.name);
                }
            }
        }
    }
}

#[test]
fn adult_columns_round_trip_as_plain() {
    let (_, data, _) = adult("adult", 5);
    for col in &data.table.columns {
        let back = decode_plain(&encode_plain(col), &col.name, data.rows()).unwrap();
        assert_eq!(texts(&back), texts(col), "{}", col.name);
    }
}

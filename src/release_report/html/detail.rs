//! The page's sizes section and its internal section (the smallest
//! classes, the sensitive values in them, the rows at the highest risk).

use std::fmt::Write;

use super::{escape, number};
use crate::release_report::content::{ClassDetail, ReleaseReport, Sizes};
use crate::release_report::svg::{self, COLOURS, Series};

/// Bytes as the charts write them (`12.3 KiB`).
fn bytes(v: f64) -> String {
    if v >= 1024.0 * 1024.0 {
        format!("{:.2} MiB", v / 1024.0 / 1024.0)
    } else if v >= 1024.0 {
        format!("{:.1} KiB", v / 1024.0)
    } else {
        format!("{v:.0} B")
    }
}

impl ReleaseReport {
    pub(super) fn sizes(&self, out: &mut String) {
        out.push_str("<section id=\"sizes\">\n<h2>Sizes</h2>\n");
        let Some(s) = &self.sizes else {
            let size = (self.source.bytes).map_or(String::new(), |b| {
                format!("The release table is {b} bytes. ")
            });
            let _ = write!(
                out,
                "<p>{size}Per-column sizes describe a .karc archive's public and private parts; a release \
                 table has neither.</p>\n</section>\n"
            );
            return;
        };
        let names: Vec<String> = s.columns.iter().map(|c| c.name.clone()).collect();
        let mut series = vec![Series {
            name: "public part",
            colour: COLOURS[0],
            values: s
                .columns
                .iter()
                .map(|c| Some(c.public_bytes as f64))
                .collect(),
        }];
        if s.columns.iter().any(|c| c.private_bytes.is_some()) {
            series.push(Series {
                name: "private part (before sealing)",
                colour: COLOURS[1],
                values: (s.columns.iter())
                    .map(|c| c.private_bytes.map(|b| b as f64))
                    .collect(),
            });
        }
        let chart = svg::bars(
            "Bytes per column",
            &names,
            &series,
            &|_, v| bytes(v),
            "bytes per column (the QIs' public share includes the rows' classes)",
        );
        let _ = write!(
            out,
            "<figure>\n{chart}\n<figcaption>Each column's bytes in the file.</figcaption>\n</figure>\n"
        );
        whole_file(out, s);
        out.push_str("</section>\n");
    }

    pub(super) fn internal(&self, out: &mut String) {
        let Some(d) = &self.internal_detail else {
            return;
        };
        out.push_str(
            "<section id=\"internal\">\n<h2>Internal: the smallest classes</h2>\n<p class=\"scope internal\">For the \
             publisher only.</p>\n<table>\n<tr><th class=\"n\">Rows</th><th>Released QI values</th><th>Sensitive values (rows)</th></tr>\n",
        );
        for c in &d.smallest_classes {
            class_row(out, c);
        }
        out.push_str("</table>\n");
        let r = &d.rows_at_highest_risk;
        let rows: Vec<String> = r.first.iter().map(usize::to_string).collect();
        let _ = write!(
            out,
            "<h2>Internal: rows at the highest risk</h2>\n<p>{} rows sit in classes of {} rows (risk {}); \
             data rows of the release{}: <span class=\"mono\">{}</span>.</p>\n</section>\n",
            r.rows,
            r.class_size.map_or("-".to_owned(), |s| s.to_string()),
            r.class_size
                .map_or("-".to_owned(), |s| number(1.0 / s as f64)),
            if r.rows > r.first.len() {
                format!(", the first {}", r.first.len())
            } else {
                String::new()
            },
            rows.join(", ")
        );
    }
}

/// The whole file beside zip and xz of the original (with the key).
fn whole_file(out: &mut String, s: &Sizes) {
    let original = [
        ("original", s.original_bytes),
        ("zip of the original", s.zip_bytes),
        ("xz -9e of the original", s.xz_bytes),
    ];
    let mut rows: Vec<(String, u64)> = (original.iter())
        .filter_map(|(n, v)| Some(((*n).to_owned(), (*v)?)))
        .collect();
    rows.extend([
        ("karc file, whole".to_owned(), s.file_bytes),
        ("karc public part (the release)".to_owned(), s.public_bytes),
        (
            "karc private part, stored".to_owned(),
            s.private_stored_bytes,
        ),
    ]);
    let names: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    let chart = svg::bars(
        "The file beside general-purpose compressors",
        &names,
        &[Series {
            name: "bytes",
            colour: COLOURS[2],
            values: rows.iter().map(|r| Some(r.1 as f64)).collect(),
        }],
        &|_, v| bytes(v),
        "bytes",
    );
    let verdict = match (s.xz_bytes, s.original_bytes) {
        (Some(xz), Some(_)) => {
            let ratio = s.file_bytes as f64 / xz as f64;
            if s.file_bytes <= xz {
                format!(
                    "The karc file (release and original together) is {:.2} × the size of xz of the original alone: smaller.",
                    ratio
                )
            } else {
                format!(
                    "The karc file (release and original together) is {:.2} × the size of xz of the original alone: LARGER than xz.",
                    ratio
                )
            }
        }
        _ => "zip and xz of the original need the original: an internal report with the key adds them. \
              Without it, only the file's own parts are known."
            .to_owned(),
    };
    let _ = write!(
        out,
        "<figure>\n{chart}\n<figcaption>{}</figcaption>\n</figure>\n",
        escape(&verdict)
    );
}

fn class_row(out: &mut String, c: &ClassDetail) {
    let values: Vec<String> = c.values.iter().map(|v| escape(v)).collect();
    let sensitive: Vec<String> = (c.sensitive.iter())
        .map(|s| {
            let counts: Vec<String> = (s.counts.iter())
                .map(|(v, n)| format!("{} ({n})", escape(v)))
                .collect();
            format!(
                "<span class=\"mono\">{}</span>: {}",
                escape(&s.column),
                counts.join(", ")
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "<tr><td class=\"n\">{}</td><td class=\"mono\">{}</td><td>{}</td></tr>",
        c.size,
        values.join(" | "),
        sensitive.join("<br>")
    );
}

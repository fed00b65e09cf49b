//! A [`ReleaseReport`] as one self-contained HTML page: inline CSS and SVG,
//! no script, no fetch, laid out to print on A4 from a browser. Every text
//! that comes from a file (names, labels, comments) goes through
//! [`escape`], which also makes control characters visible.

use std::fmt::Write;

use super::content::{Check, ReleaseReport};
pub use super::escape::escape;
use super::generalization::LabelKind;
use super::svg::{self, COLOURS, Series};

const STYLE: &str = "
:root { --ok: #1b7837; --bad: #b2182b; --ink: #222; --muted: #666; --rule: #ddd; }
body { font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; color: var(--ink);
  max-width: 60rem; margin: 2rem auto; padding: 0 1.5rem; }
h1 { font-size: 1.6rem; margin: 0 0 .3rem; } h2 { font-size: 1.2rem; margin: 2rem 0 .5rem;
  border-bottom: 1px solid var(--rule); padding-bottom: .2rem; }
.scope { padding: .5rem .8rem; border-radius: 4px; background: #eef3f8; }
.scope.internal { background: #fde0dd; border: 2px solid var(--bad); font-weight: 600; }
.verdict { font-size: 1.15rem; font-weight: 600; }
.pass { color: var(--ok); font-weight: 600; } .fail { color: var(--bad); font-weight: 600; }
table { border-collapse: collapse; margin: .4rem 0 1rem; }
th, td { text-align: left; padding: .25rem .7rem .25rem 0; border-bottom: 1px solid var(--rule);
  vertical-align: top; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
code, .mono { font-family: ui-monospace, 'SFMono-Regular', Menlo, monospace; font-size: .9em;
  overflow-wrap: anywhere; }
.muted { color: var(--muted); }
svg.chart { max-width: 100%; height: auto; display: block; margin: .5rem 0; }
svg.chart text { font: 12px system-ui, sans-serif; fill: var(--ink); }
svg.chart text.c { text-anchor: end; } svg.chart text.in { fill: #fff; font-size: 11px; }
svg.chart line.ax { stroke: #888; } svg.chart text.ax { fill: var(--muted); }
figure { margin: .5rem 0 1rem; }
td.mono:first-child, th.mono { white-space: nowrap; }
figcaption { color: var(--muted); font-size: .9rem; }
footer { margin-top: 2.5rem; color: var(--muted); font-size: .85rem; }
@page { size: A4; margin: 16mm; }
@media print { body { margin: 0; max-width: none; font-size: 11pt; }
  section, figure, table { break-inside: avoid; } h2 { break-after: avoid; } }
";

impl ReleaseReport {
    /// The report as one HTML page.
    pub fn to_html(&self) -> String {
        let mut out = String::with_capacity(64 * 1024);
        let title = format!("karc report: {}", self.source.file);
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
            escape(&title)
        );
        self.header(&mut out);
        self.released(&mut out);
        self.claim(&mut out);
        self.models(&mut out);
        self.risk(&mut out);
        self.class_sizes(&mut out);
        self.generalization(&mut out);
        self.loss(&mut out);
        self.column_checks(&mut out);
        self.sizes(&mut out);
        self.internal(&mut out);
        let _ = write!(
            out,
            "<footer>Written by {} at {}. Definitions and every figure: docs/REPORT.md of karc.</footer>\n</body>\n</html>\n",
            escape(&self.generated.karc),
            escape(&self.generated.time)
        );
        out
    }

    fn header(&self, out: &mut String) {
        let _ = write!(
            out,
            "<header>\n<h1>Release report</h1>\n<p class=\"mono\">{}</p>\n",
            escape(&self.source.file)
        );
        if self.internal {
            out.push_str(
                "<p class=\"scope internal\">INTERNAL REPORT, for the publisher only: it lists released \
                 values of the smallest classes, the sensitive values in them and the rows at the \
                 highest risk. Do not publish it with the release.</p>\n",
            );
        } else {
            out.push_str(
                "<p class=\"scope\">Non-disclosive report: every figure on this page comes from what \
                 the release itself shows; no value the release hides, and no identifier, is on it.</p>\n",
            );
        }
        let verdict = match self.claim.holds {
            true => "<span class=\"pass\">holds</span>",
            false => "<span class=\"fail\">FAILS</span>",
        };
        let smallest = self
            .class_sizes
            .first()
            .map_or("-".to_owned(), |c| c.0.to_string());
        let classes: u32 = self.class_sizes.iter().map(|c| c.1).sum();
        let _ = write!(
            out,
            "<p class=\"verdict\">The privacy claim {verdict}: {} rows in {} classes, the smallest of {} rows; \
             {} rows suppressed.</p>\n</header>\n",
            self.rows, classes, smallest, self.claim.suppressed_rows
        );
    }

    fn released(&self, out: &mut String) {
        out.push_str("<section id=\"release\">\n<h2>What was released</h2>\n<table>\n<tr><th>Column</th><th>Role</th><th>Type</th></tr>\n");
        for c in &self.columns {
            let role = match c.role.as_str() {
                "identifier" => "identifier (removed)",
                "pseudonym" => "identifier released as keyed pseudonyms",
                r => r,
            };
            let _ = writeln!(
                out,
                "<tr><td class=\"mono\">{}</td><td>{}</td><td>{}</td></tr>",
                escape(&c.name),
                escape(role),
                escape(c.value_type.as_deref().unwrap_or("as read"))
            );
        }
        out.push_str("</table>\n<table>\n");
        let s = &self.source;
        let mut row = |k: &str, v: String| {
            let _ = writeln!(out, "<tr><th>{k}</th><td class=\"mono\">{v}</td></tr>");
        };
        let kind = match s.kind {
            "archive" => "a .karc archive",
            _ => "a release table",
        };
        let size = s.bytes.map_or(String::new(), |b| format!("{b} bytes, "));
        row("File", format!("{} ({size}{kind})", escape(&s.file)));
        if let Some(sha) = &s.sha256 {
            row("SHA-256", escape(sha));
        }
        if let Some(b) = &s.public_blake3 {
            row("Public part, BLAKE3", escape(b));
        }
        if let Some(f) = &s.format {
            row("Format", escape(f));
        }
        if let Some(p) = &s.private {
            row("Private part", escape(p));
        }
        row("Signature", self.signature_text());
        if let Some(a) = &self.algorithm {
            let params = if a.params.is_empty() {
                String::new()
            } else {
                format!(", parameters {}", escape(&a.params))
            };
            let levels = a.levels.as_ref().map_or(String::new(), |l| {
                format!(", levels {}", escape(&format!("{l:?}")))
            });
            row(
                "Algorithm",
                format!("{}, seed {}{params}{levels}", escape(&a.name), a.seed),
            );
        }
        out.push_str("</table>\n</section>\n");
    }

    fn signature_text(&self) -> String {
        let s = &self.signature;
        let id = escape(s.key_id.as_deref().unwrap_or(""));
        let comment = escape(s.trusted_comment.as_deref().unwrap_or(""));
        match s.state {
            "valid" => format!(
                "<span class=\"pass\">valid</span>, by key id {id} (a key the reader trusts): {comment}"
            ),
            "not_checked" => format!(
                "signed by key id {id}, not checked against a trusted key (give --signer): {comment}"
            ),
            "unsigned" => "unsigned".to_owned(),
            _ => "not applicable (a table carries no signature)".to_owned(),
        }
    }

    fn claim(&self, out: &mut String) {
        out.push_str(
            "<section id=\"claim\">\n<h2>The claim, check by check</h2>\n<table>\n<tr><th>Model</th><th>On</th>\
             <th>Claimed</th><th class=\"n\">Measured</th><th class=\"n\">Margin</th><th>Result</th></tr>\n",
        );
        for c in &self.claim.checks {
            check_row(out, c);
        }
        let _ = write!(
            out,
            "</table>\n<p>Suppressed rows: {} (policy {}: {}).</p>\n</section>\n",
            self.claim.suppressed_rows,
            format!("{:?}", self.claim.policy).to_lowercase(),
            match self.claim.policy {
                crate::config::SuppressionPolicy::Mask =>
                    "rows with * in every QI are released and exempt from the classes",
                crate::config::SuppressionPolicy::Strict =>
                    "rows with * in every QI form one class",
            }
        );
    }

    fn models(&self, out: &mut String) {
        let Some(m) = &self.models else {
            return;
        };
        out.push_str("<section id=\"models\">\n<h2>Every model, measured</h2>\n<p class=\"muted\">The release's value of each model \
             (the worst over its sensitive columns), named as pyCANON's report names them; a model not claimed is measured all the same.</p>\n<table>\n");
        let num = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.4}"));
        let int = |v: Option<usize>| v.map_or("-".to_owned(), |v| v.to_string());
        let rows = [
            ("k_anonymity", int(m.k_anonymity)),
            (
                "alpha_k_anonymity",
                format!(
                    "alpha {}, k {}",
                    num(m.alpha_k_anonymity.alpha),
                    int(m.alpha_k_anonymity.k)
                ),
            ),
            ("l_diversity", int(m.l_diversity)),
            ("entropy_l_diversity", num(m.entropy_l_diversity)),
            (
                "recursive_c_l_diversity",
                format!(
                    "c {}, l {}",
                    num(m.recursive_c_l_diversity.c),
                    int(m.recursive_c_l_diversity.l)
                ),
            ),
            ("basic_beta_likeness", num(m.basic_beta_likeness)),
            ("enhanced_beta_likeness", num(m.enhanced_beta_likeness)),
            ("t_closeness", num(m.t_closeness)),
            ("delta_disclosure", num(m.delta_disclosure)),
        ];
        for (k, v) in rows {
            let _ = writeln!(
                out,
                "<tr><th class=\"mono\">{k}</th><td class=\"n\">{v}</td></tr>"
            );
        }
        let names: Vec<String> = m.sensitive.iter().map(|s| escape(&s.sensitive)).collect();
        let _ = write!(
            out,
            "</table>\n<p>Sensitive columns: <span class=\"mono\">{}</span>; definitions: {}.</p>\n</section>\n",
            names.join(", "),
            escape(&format!("{:?}", m.definitions))
        );
    }

    fn risk(&self, out: &mut String) {
        let Some(r) = &self.risk else {
            return;
        };
        let pct = |v: f64| format!("{:.3} %", v * 100.0);
        let _ = write!(
            out,
            "<section id=\"risk\">\n<h2>Re-identification risk</h2>\n<p class=\"muted\">From the class sizes alone, \
             the release's rows taken as the population (ARX's sample-based models): the journalist's risk is \
             then the prosecutor's.</p>\n<table>\n<tr><th>Attacker</th><th class=\"n\">Highest risk</th>\
             <th class=\"n\">Records at it</th><th class=\"n\">Success rate</th></tr>\n\
             <tr><td>Prosecutor</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>\n\
             <tr><td>Journalist</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>\n\
             <tr><td>Marketer</td><td class=\"n\">-</td><td class=\"n\">-</td><td class=\"n\">{}</td></tr>\n</table>\n\
             <p>Average risk over the classes (pyCANON's <code>average_rir</code>): {}.</p>\n</section>\n",
            pct(r.prosecutor.highest_risk),
            pct(r.prosecutor.records_at_highest_risk),
            pct(r.prosecutor.success_rate),
            pct(r.journalist.highest_risk),
            pct(r.journalist.records_at_highest_risk),
            pct(r.journalist.success_rate),
            pct(r.marketer),
            pct(r.average_rir)
        );
    }

    fn class_sizes(&self, out: &mut String) {
        if self.class_sizes.is_empty() {
            return;
        }
        let bins = size_bins(&self.class_sizes);
        let total: u64 = bins.iter().map(|b| b.rows).sum();
        let categories: Vec<String> = bins.iter().map(|b| b.label.clone()).collect();
        let rows = Series {
            name: "rows",
            colour: COLOURS[0],
            values: bins.iter().map(|b| Some(b.rows as f64)).collect(),
        };
        let classes: Vec<u64> = bins.iter().map(|b| b.classes).collect();
        let text = |i: usize, v: f64| {
            format!(
                "{} rows, {:.1} %, {} class{}",
                v,
                v * 100.0 / total.max(1) as f64,
                classes[i],
                if classes[i] == 1 { "" } else { "es" }
            )
        };
        let chart = svg::bars(
            "Rows by the size of their class",
            &categories,
            &[rows],
            &text,
            "rows in classes of that size",
        );
        let _ = write!(
            out,
            "<section id=\"classes\">\n<h2>Class sizes</h2>\n<figure>\n{chart}\n<figcaption>How many rows sit in classes of each size \
             (a row's risk is 1 / its class's size). Classes over all the QIs, suppressed rows left out.</figcaption>\n</figure>\n</section>\n"
        );
    }
}

/// A check's table row.
fn check_row(out: &mut String, c: &Check) {
    let value = c.value.map_or("-".to_owned(), number);
    let margin = c.margin.map_or("-".to_owned(), |m| {
        if m >= 0.0 {
            format!("+{}", number(m))
        } else {
            number(m)
        }
    });
    let on: Vec<String> = c.on.iter().map(|n| escape(n)).collect();
    let _ = writeln!(
        out,
        "<tr><td class=\"mono\">{}</td><td class=\"mono\">{}</td><td>{}</td><td class=\"n\">{value}</td>\
         <td class=\"n\">{margin}</td><td>{}</td></tr>",
        escape(&c.model),
        on.join(", "),
        escape(&c.parameter),
        if c.holds {
            "<span class=\"pass\">pass</span>"
        } else {
            "<span class=\"fail\">FAIL</span>"
        }
    );
}

/// A number as a table shows it: whole, or with 4 decimals.
pub fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.4}")
    }
}

/// One bar of the class-size chart.
struct SizeBin {
    label: String,
    classes: u64,
    rows: u64,
}

/// Class sizes in at most about a dozen bars: each size when there are
/// few, else sizes doubling from the smallest ([5, 10), [10, 20), ...).
fn size_bins(histogram: &[(u32, u32)]) -> Vec<SizeBin> {
    if histogram.len() <= 12 {
        return (histogram.iter())
            .map(|&(s, n)| SizeBin {
                label: format!("size {s}"),
                classes: u64::from(n),
                rows: u64::from(s) * u64::from(n),
            })
            .collect();
    }
    let mut bins: Vec<SizeBin> = Vec::new();
    let mut lo = u64::from(histogram[0].0);
    let max = u64::from(histogram[histogram.len() - 1].0);
    while lo <= max {
        let hi = lo * 2;
        let (classes, rows) = (histogram.iter())
            .filter(|&&(s, _)| (lo..hi).contains(&u64::from(s)))
            .fold((0, 0), |(c, r), &(s, n)| {
                (c + u64::from(n), r + u64::from(s) * u64::from(n))
            });
        if classes > 0 {
            bins.push(SizeBin {
                label: format!("size {lo} to {}", hi - 1),
                classes,
                rows,
            });
        }
        lo = hi;
    }
    bins
}

impl ReleaseReport {
    fn generalization(&self, out: &mut String) {
        if self.generalization.is_empty() {
            return;
        }
        out.push_str("<section id=\"generalization\">\n<h2>Generalization of each quasi-identifier</h2>\n<table>\n<tr><th>QI</th><th>In words</th><th>Levels used (cells)</th></tr>\n");
        for g in &self.generalization {
            let levels: Vec<String> = (g.levels.iter())
                .map(|l| {
                    format!(
                        "{}: {} ({:.1} %)",
                        escape(&l.words),
                        l.cells,
                        l.share * 100.0
                    )
                })
                .collect();
            let _ = writeln!(
                out,
                "<tr><td class=\"mono\">{}</td><td>{}</td><td>{}</td></tr>",
                escape(&g.name),
                escape(&g.words),
                levels.join("<br>")
            );
        }
        out.push_str("</table>\n");
        // One stacked bar per QI: its cells by level, exact first.
        let mut kinds: Vec<LabelKind> = (self.generalization.iter())
            .flat_map(|g| g.levels.iter().map(|l| l.kind))
            .collect();
        kinds.sort_unstable();
        kinds.dedup();
        let keys: Vec<(String, &str)> = (kinds.iter().enumerate())
            .map(|(i, k)| (kind_name(*k), kind_colour(*k, i)))
            .collect();
        let segments: Vec<Vec<(usize, f64)>> = (self.generalization.iter())
            .map(|g| {
                let mut s: Vec<(usize, f64)> = (g.levels.iter())
                    .map(|l| {
                        (
                            kinds.iter().position(|k| *k == l.kind).unwrap_or(0),
                            l.share,
                        )
                    })
                    .collect();
                s.sort_unstable_by_key(|&(k, _)| k);
                s
            })
            .collect();
        let names: Vec<String> = self.generalization.iter().map(|g| g.name.clone()).collect();
        let chart = svg::stacked(
            "Cells of each QI by generalization level",
            &names,
            &keys,
            &segments,
        );
        let _ = write!(
            out,
            "<figure>\n{chart}\n<figcaption>Each QI's cells by the level they were released at: exact values, \
             hierarchy levels, intervals, masks, suppressed.</figcaption>\n</figure>\n</section>\n"
        );
    }

    fn loss(&self, out: &mut String) {
        let l = &self.information_loss;
        out.push_str("<section id=\"loss\">\n<h2>Information loss</h2>\n<table>\n<tr><th>QI</th><th class=\"n\">Exact</th>\
             <th class=\"n\">Generalized</th><th class=\"n\">Suppressed</th><th class=\"n\">Height loss</th><th class=\"n\">Labels</th></tr>\n");
        let pct = |v: f64| format!("{:.1} %", v * 100.0);
        for a in &l.attributes {
            let _ = writeln!(
                out,
                "<tr><td class=\"mono\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
                 <td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                escape(&a.name),
                pct(a.exact),
                pct(a.generalized),
                pct(a.suppressed),
                a.height_loss.map_or("-".to_owned(), |h| format!("{h:.3}")),
                a.labels
            );
        }
        let opt = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.4}"));
        let sealed = if l.ncp.is_some() {
            "measured against the original's domain, read from the sealed private part"
        } else {
            "sealed in the private part: measured against the original's domain, they would disclose \
             what the release hides (an internal report with the key shows them)"
        };
        let _ = write!(
            out,
            "</table>\n<p class=\"muted\">Height loss: the mean hierarchy level of the column's cells over the \
             hierarchy's height (0 exact, 1 the root); the column's share of 1 − Precision.</p>\n<table>\n\
             <tr><th>Precision</th><td class=\"n\">{}</td></tr>\n<tr><th>Discernibility (DM)</th><td class=\"n\">{:.0}</td></tr>\n\
             <tr><th>C<sub>avg</sub></th><td class=\"n\">{:.3}</td></tr>\n<tr><th>NCP</th><td class=\"n\">{}</td></tr>\n\
             <tr><th>GLM</th><td class=\"n\">{}</td></tr>\n</table>\n<p class=\"muted\">NCP and GLM: {sealed}.</p>\n</section>\n",
            opt(l.precision),
            l.discernibility,
            l.cavg,
            opt(l.ncp),
            opt(l.glm)
        );
    }

    fn column_checks(&self, out: &mut String) {
        out.push_str("<section id=\"derived\">\n<h2>Derived-column check</h2>\n");
        match &self.column_checks {
            None if self.source.kind == "table" => out.push_str(
                "<p>Not available for a release table: the check measures how far a released column \
                 pins a QI's hidden values, which needs the original.</p>\n",
            ),
            None => out.push_str("<p>No column besides the QIs is released: nothing to check.</p>\n"),
            Some(c) => {
                let cols: Vec<String> = c.columns.iter().map(|n| escape(n)).collect();
                let allowed: Vec<String> = (c.allowed.iter())
                    .map(|(a, b)| format!("{} → {}", escape(a), escape(b)))
                    .collect();
                let _ = writeln!(
                    out,
                    "<p>Released columns <span class=\"mono\">{}</span> checked against the QIs at share {}: {}.{}</p>",
                    cols.join(", "),
                    c.threshold,
                    if c.passed {
                        "<span class=\"pass\">passed</span>"
                    } else {
                        "<span class=\"fail\">FAILED</span>"
                    },
                    if allowed.is_empty() {
                        String::new()
                    } else {
                        format!(" Allowed by the config: {}.", allowed.join(", "))
                    }
                );
            }
        }
        out.push_str("</section>\n");
    }
}

fn kind_name(k: LabelKind) -> String {
    match k {
        LabelKind::Exact => "exact".to_owned(),
        LabelKind::Level(l) => format!("level {l}"),
        LabelKind::Interval => "interval".to_owned(),
        LabelKind::Masked => "masked".to_owned(),
        LabelKind::Label => "as released".to_owned(),
        LabelKind::Suppressed => "suppressed (*)".to_owned(),
    }
}

fn kind_colour(k: LabelKind, i: usize) -> &'static str {
    match k {
        LabelKind::Exact => "#009E73",
        LabelKind::Suppressed => "#777777",
        _ => COLOURS[[0, 1, 3, 4, 5][i % 5]],
    }
}

mod detail;

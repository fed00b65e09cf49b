//! The scan of a published copy for the QI values its release hides
//! (issue 30), shared by the suite (`public_bytes`, `init`, `report`) and
//! by `karc-tools`' `public_scan` binary (`#[path]`), which scans files
//! packed elsewhere, by `karc.spark` on a cluster among them. It reads
//! karc's public API only.
//!
//! A value is *hidden* when it is an original value of a QI that is
//! neither a released label of that QI nor a bound of one (`20` and `24`
//! of `20-24`, `lo` and `hi` of `lo~hi`). Decoded texts are scanned for
//! every hidden value; binary bytes (compressed, postcard, the column
//! blobs) only for hidden values of at least 3 characters (metadata
//! sections) or 6 (the whole file), where a shorter token could be two
//! bytes of binary that happen to be digits.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;

use karc::archive::compressed;
use karc::archive::format::{self, SectionKind};
use karc::archive::meta;
use karc::archive::reader::{Archive, ClaimCheck};
use karc::hierarchy::NodeLabels;

/// Splits `text` into tokens: runs of letters, digits and `._+-`; each
/// token also split at `-` after its first character (`20-24` gives `20`
/// and `24`).
pub fn tokens(text: &str, into: &mut HashSet<String>) {
    let keep = |c: char| c.is_alphanumeric() || "._+-".contains(c);
    for t in text.split(|c: char| !keep(c)).filter(|t| !t.is_empty()) {
        into.insert(t.to_owned());
        let cut = t
            .char_indices()
            .skip(1)
            .find(|&(_, c)| c == '-')
            .map(|(i, _)| i);
        if let Some(i) = cut {
            tokens(&t[..i], into);
            tokens(&t[i + 1..], into);
        }
    }
}

/// The original values of each QI (claim order) that the release hides:
/// neither a label the release shows (of any QI: a text the release shows
/// is public wherever else it appears, as `Other` is both a race and an
/// occupation of Adult) nor a bound of one, nor a bound of a node above a
/// released node in the whole hierarchy (`packed`'s private part): those
/// the public part keeps, and a release of `80-84` shows that someone is
/// in `80-89` (a row aged 89 elsewhere in `80-99` does not make the
/// hierarchy's `80-89` a leak).
pub fn hidden_values(
    archive: &Archive,
    packed: &Path,
    original: &Path,
) -> Vec<(String, BTreeSet<String>)> {
    let m = &archive.meta;
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(m.dialect.delimiter)
        .has_headers(m.dialect.header)
        .trim(csv::Trim::All)
        .from_path(original)
        .unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let whole = Archive::open(packed, ClaimCheck::Enforce)
        .unwrap()
        .private_parts(None)
        .unwrap()
        .sealed
        .map(|s| meta::hierarchies_from_bytes(&s.hierarchies).unwrap());
    let mut shown = HashSet::new();
    for q in 0..m.qis.len() {
        let c = m.qis[q] as usize;
        let h = (m.columns[c].hierarchy)
            .zip(whole.as_ref())
            .map(|(h, w)| w[h as usize].clone().into_hierarchy(packed).unwrap());
        for label in archive.qi_labels(q).unwrap().dict.values() {
            shown.insert(label.to_owned());
            tokens(label, &mut shown);
            let Some(h) = &h else { continue };
            for level in 1..h.height() {
                let Some(mut node) = h.node(level, label) else {
                    continue;
                };
                for up in level..h.height() {
                    node = h.parent(up, node);
                    tokens(h.label(up + 1, node), &mut shown);
                }
            }
        }
    }
    (0..m.qis.len())
        .map(|q| {
            let c = m.qis[q] as usize;
            let hidden = rows
                .iter()
                .map(|r| r[c].to_owned())
                .filter(|v| !v.is_empty() && v != "*" && !m.missing.contains(v))
                .filter(|v| !shown.contains(v))
                .collect();
            (m.columns[c].name.clone(), hidden)
        })
        .collect()
}

/// Every public byte of a published copy, as texts to scan: decoded (every
/// hidden value must be absent), binary metadata (values of 3 characters
/// and more) and the whole file (6 and more).
pub struct PublicTexts {
    /// Per `HIERARCHIES` record, its labels' tokens: scanned for its own
    /// QI's values (`47***`, a zip code's ancestor, is not an age of 47).
    labels: Vec<HashSet<String>>,
    /// The metadata's strings.
    decoded: HashSet<String>,
    decoded_text: String,
    metadata: HashSet<String>,
    file: HashSet<String>,
}

pub fn public_texts(archive: &Archive, bytes: &[u8]) -> PublicTexts {
    let mut decoded_text = String::new();
    let mut labels = Vec::new();
    for h in &archive.hierarchies {
        let (levels, _) = h.to_tree();
        assert_eq!(levels.len(), h.height() + 1);
        let mut set = HashSet::new();
        for label in levels.iter().flatten() {
            set.insert(label.clone());
            tokens(label, &mut set);
        }
        labels.push(set);
    }
    let m = &archive.meta;
    let a = &m.algorithm;
    let x = &m.metrics;
    // The metrics' numbers are the release's (precision of its levels, DM
    // and Cavg of its classes' sizes): a number equal to a hidden value
    // there is a coincidence, not a disclosure.
    let _ = (x.precision, x.dm, x.cavg, m.rows);
    decoded_text += &format!(
        "{}\n{}\n{}\n{}\n",
        m.writer,
        a.name,
        params_strings(&a.params),
        m.missing.join("\n")
    );
    for c in &m.columns {
        decoded_text += &c.name;
        decoded_text.push('\n');
    }
    if let Some(schema) = archive.arrow_schema() {
        decoded_text += &format!("{schema:?}");
    }
    let mut decoded = HashSet::new();
    tokens(&decoded_text, &mut decoded);

    let container = format::parse(Path::new("published"), bytes).unwrap();
    let mut metadata_text = String::new();
    for e in &container.entries {
        let body = &bytes[e.range()];
        let plain = match e.kind() {
            Some(SectionKind::Meta) => compressed::decompress(body, meta::MAX_META_BYTES).unwrap(),
            Some(SectionKind::Hierarchies) => {
                compressed::decompress(body, meta::MAX_HIERARCHIES_BYTES).unwrap()
            }
            Some(SectionKind::QiClasses | SectionKind::Column) => continue,
            _ => body.to_vec(),
        };
        metadata_text += &String::from_utf8_lossy(&plain);
        metadata_text.push('\n');
    }
    let mut metadata = HashSet::new();
    tokens(&metadata_text, &mut metadata);
    let mut file = HashSet::new();
    tokens(&String::from_utf8_lossy(bytes), &mut file);
    PublicTexts {
        labels,
        decoded,
        decoded_text,
        metadata,
        file,
    }
}

/// The keys and string values of the algorithm's parameters (a JSON
/// object): its numbers are the configuration's (`"delay": 50`), not the
/// data's.
fn params_strings(params: &str) -> String {
    fn walk(v: &serde_json::Value, out: &mut String) {
        match v {
            serde_json::Value::String(s) => *out += &format!("{s}\n"),
            serde_json::Value::Array(a) => a.iter().for_each(|v| walk(v, out)),
            serde_json::Value::Object(o) => o.iter().for_each(|(k, v)| {
                *out += &format!("{k}\n");
                walk(v, out);
            }),
            _ => {}
        }
    }
    let mut out = String::new();
    match serde_json::from_str(params) {
        Ok(v) => walk(&v, &mut out),
        Err(_) => out += params,
    }
    out
}

/// Scans `bytes`, the published copy of `packed` (unsealed, so that the
/// whole hierarchies can be read), for the values of `original`'s QIs its
/// release hides; returns the findings, each naming `case` (empty when
/// nothing leaks), and how many values were hidden.
pub fn scan_published(
    case: &str,
    packed: &Path,
    published: &Path,
    bytes: Vec<u8>,
    original: &Path,
) -> (Vec<String>, usize) {
    let archive = Archive::from_bytes(published, bytes.clone(), ClaimCheck::Enforce)
        .unwrap_or_else(|e| panic!("{case}: {e}"));
    let texts = public_texts(&archive, &bytes);
    let mut findings = Vec::new();
    let mut count = 0;
    for (q, (qi, hidden)) in hidden_values(&archive, packed, original)
        .into_iter()
        .enumerate()
    {
        count += hidden.len();
        let c = archive.meta.qis[q] as usize;
        let own = archive.meta.columns[c]
            .hierarchy
            .map(|h| &texts.labels[h as usize]);
        for v in hidden {
            let spaced = v.contains(|c: char| !c.is_alphanumeric() && !"._+-".contains(c));
            let where_ = if own
                .is_some_and(|l| l.contains(&v) || (spaced && l.iter().any(|t| t.contains(&v))))
            {
                Some("public hierarchy's labels")
            } else if (spaced && texts.decoded_text.contains(&v)) || texts.decoded.contains(&v) {
                Some("decoded metadata")
            } else if v.len() >= 3 && texts.metadata.contains(&v) {
                Some("metadata sections' bytes")
            } else if v.len() >= 6 && texts.file.contains(&v) {
                Some("the file's bytes")
            } else {
                None
            };
            if let Some(w) = where_ {
                findings.push(format!("{case}: {qi} value {v:?} (hidden) in the {w}"));
            }
        }
    }
    (findings, count)
}

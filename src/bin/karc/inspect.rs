//! `karc inspect`: sections, sizes per part and column, claim, algorithm, metrics.

use std::process::ExitCode;

use anyhow::Result;
use karc::api::{InspectResult, Inspection};

use crate::cli::InspectArgs;
use crate::files::open_archive;
use crate::json::Json;
use crate::keys::{claim_check, key_options};
use crate::shown::{all_shown, shown};

pub fn run(args: InspectArgs, json: Json) -> Result<ExitCode> {
    let key = key_options(&args.key)?.key()?;
    let archive = open_archive(&args.input, claim_check(args.no_privacy_check))?;
    let info = archive.inspect(key.as_ref())?;
    if json.on() {
        json.print(&InspectResult(info))?;
    } else {
        print_text(&info);
    }
    Ok(ExitCode::SUCCESS)
}

fn opt(v: Option<u64>) -> String {
    v.map_or("-".to_owned(), |v| v.to_string())
}

/// The inspection as lines, in display order: the file's sizes and
/// digests, its columns, its claim, its metrics and sections.
fn print_text(i: &Inspection) {
    print_sizes(i);
    print_columns(i);
    print_claim(i);
    print_metrics(i);
    print_sections(i);
}

/// The file, its parts' sizes, the private part's state and the digests.
fn print_sizes(i: &Inspection) {
    let m = &i.meta;
    println!(
        "{}: karc format {}, {} rows, {} columns",
        i.file,
        i.version,
        i.rows,
        m.columns.len()
    );
    println!(
        "bytes: file {}  public {} (metadata {}, hierarchies {})  private {}  sealed {}  container {}",
        i.file_bytes,
        i.public_bytes,
        i.metadata_bytes,
        i.hierarchies_bytes,
        opt(i.private_bytes),
        opt(i.sealed_bytes),
        i.container_bytes
    );
    println!("private part: {}", i.private);
    println!("{}", crate::verify::signature_line(i.signature.as_ref()));
    if let Some(mode) = &i.difference_mode {
        println!("difference mode: {mode}");
    }
    if let (Some(len), Some(digest)) = (i.original_bytes, &i.original_digest) {
        println!("original: {len} bytes, {} {digest}", i.digest);
    }
    if let Some(public) = &i.public_digest {
        println!("public part: BLAKE3 {public}, as the private part expects");
    }
}

/// Each column's role and bytes, the hierarchies' public nodes, the rows'
/// classes.
fn print_columns(i: &Inspection) {
    println!(
        "{:<24} {:<12} {:>12} {:>12}",
        "column", "role", "public", "private"
    );
    for c in &i.columns {
        println!(
            "{:<24} {:<12} {:>12} {:>12}",
            shown(&c.name),
            match c.pseudonym {
                true => "pseudonym".to_owned(),
                false => format!("{:?}", c.role).to_lowercase(),
            },
            c.public_bytes,
            opt(c.private_bytes)
        );
    }
    for c in &i.columns {
        if let Some(public) = c.hierarchy_public_nodes {
            match c.hierarchy_sealed_nodes {
                Some(sealed) => println!(
                    "hierarchy of {}: {public} nodes public (used by the release, and above), {sealed} sealed in the private part",
                    shown(&c.name)
                ),
                None => println!(
                    "hierarchy of {}: {public} nodes public (used by the release, and above), the rest sealed in the private part",
                    shown(&c.name)
                ),
            }
        }
    }
    if let Some(rows) = i.class_rows_bytes {
        println!("{:<24} {:<12} {:>12}", "(rows' classes)", "all QIs", rows);
    }
}

/// The algorithm, the claim (constraints, models, derived columns,
/// suppression) and its re-check on open.
fn print_claim(i: &Inspection) {
    let m = &i.meta;
    let a = &m.algorithm;
    println!(
        "algorithm: {} seed {}{}{}",
        shown(&a.name),
        a.seed,
        a.levels
            .as_ref()
            .map_or(String::new(), |l| format!(", levels {l:?}")),
        if a.params.is_empty() {
            String::new()
        } else {
            format!(", params {}", shown(&a.params))
        }
    );
    let qi_names: Vec<&str> = m
        .qis
        .iter()
        .map(|&c| m.columns[c as usize].name.as_str())
        .collect();
    for c in &m.claim.constraints {
        let names = all_shown(c.qis.iter().map(|&q| qi_names[q as usize]));
        println!("claim: k={} on ({})", c.k, names.join(", "));
    }
    if let Some(models) = &i.models {
        println!(
            "claim: models beyond k on ({}), {:?} definitions",
            all_shown(models.names(m)).join(", "),
            models.definitions
        );
    }
    if let Some(c) = &i.column_checks {
        let allowed: Vec<String> = c
            .allowed
            .iter()
            .map(|(c, q)| format!("{} <- {}", shown(c), shown(q)))
            .collect();
        println!(
            "derived columns: ({}) checked against ({}) at share {}: {}{}",
            all_shown(c.columns.iter().map(String::as_str)).join(", "),
            all_shown(c.qis.iter().map(String::as_str)).join(", "),
            c.threshold,
            if c.passed { "passed" } else { "FAILED" },
            match allowed.is_empty() {
                true => String::new(),
                false => format!(", allowed by the config: {}", allowed.join(", ")),
            }
        );
    }
    println!(
        "suppression: policy {:?}, budget {} rows",
        m.claim.policy, m.claim.suppression_budget
    );
    match &i.claim {
        Some(r) => {
            println!(
                "claim re-checked on open: {} ({} rows suppressed)",
                if r.holds() { "holds" } else { "FAILS" },
                r.suppressed_rows
            );
            for c in r.models.iter().flat_map(|m| &m.checks) {
                let value = c
                    .value
                    .map_or("unbounded".to_owned(), |v| format!("{v:.6}"));
                println!(
                    "  {} ({}) on {}: {value}",
                    c.model,
                    c.parameter,
                    shown(&c.sensitive)
                );
            }
        }
        None => println!("claim NOT checked (--no-privacy-check)"),
    }
}

/// The re-identification risk and the utility metrics (those the release
/// alone gives, and the sealed ones when the key was given).
fn print_metrics(i: &Inspection) {
    if let Some(r) = &i.risk {
        let p = &r.prosecutor;
        println!(
            "risk: prosecutor (= journalist) highest {:.6} ({:.4} of rows at it), success {:.6}; marketer {:.6}; average RIR {:.6}",
            p.highest_risk, p.records_at_highest_risk, p.success_rate, r.marketer, r.average_rir
        );
    }
    let x = &i.meta.metrics;
    let sealed = i.sealed_metrics.map_or(
        "  ncp, ncp_kaylode, glm sealed (give the key)".to_owned(),
        |s| {
            format!(
                "  ncp {:.4}  ncp_kaylode {:.4}  glm {:.4}",
                s.ncp, s.ncp_kaylode, s.glm
            )
        },
    );
    println!(
        "metrics: precision {}  dm {:.0}  cavg {:.3}{sealed}",
        x.precision.map_or("n/a".to_owned(), |p| format!("{p:.4}")),
        x.dm,
        x.cavg
    );
}

/// The section table.
fn print_sections(i: &Inspection) {
    println!("sections:");
    for s in &i.sections {
        println!(
            "  {:>2} {:<28} offset {:>9} length {:>9} crc {}",
            s.index,
            match &s.column {
                Some(c) => format!("{} {c:?}", s.kind),
                None => s.kind.clone(),
            },
            s.offset,
            s.length,
            s.crc
        );
    }
}

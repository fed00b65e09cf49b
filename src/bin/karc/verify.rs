//! `karc verify`: checks the privacy claim of a release CSV.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use karc::archive::format::hex_head;
use karc::arrow::{TableFormat, read_table_bytes};
use karc::config::SuppressionPolicy;
use karc::io::{Input, input_name};
use karc::privacy::{ClaimReport, Constraint, check_k, verify_columns};
use karc::table::{Column, CsvOptions, Table};

use crate::cli::VerifyArgs;

/// Parses "a,b:5".
fn parse_constraint(text: &str) -> Result<(Vec<String>, usize)> {
    let (cols, k) = text
        .rsplit_once(':')
        .with_context(|| format!("--constraint {text:?}: expected \"col,col:K\""))?;
    let k = k.trim().parse().with_context(|| {
        format!("--constraint {text:?}: expected a whole number after ':', found {k:?}")
    })?;
    let cols: Vec<String> = cols.split(',').map(|c| c.trim().to_owned()).collect();
    if cols.iter().any(String::is_empty) {
        bail!("--constraint {text:?}: empty column name");
    }
    Ok((cols, k))
}

pub fn run(args: VerifyArgs) -> Result<ExitCode> {
    let name = input_name(&args.input);
    let bytes = Input::open_arg(&args.input)?;
    if looks_like_karc(&args.input, &bytes) {
        return verify_archive(&args, &name, bytes.into_vec());
    }
    let format = TableFormat::of_input(&args.input, &bytes);
    if format != TableFormat::Csv {
        let (table, _) = read_table_bytes(&name, bytes.into_vec(), format)?;
        return verify_and_report(&table, &args, &name);
    }
    if let Some(what) = binary(&bytes) {
        bail!(
            "{}: neither a karc file (it starts with {}, not the magic {}) nor a CSV table ({what})",
            name.display(),
            hex_head(&bytes),
            hex_head(&karc::archive::format::MAGIC)
        );
    }
    let delimiter = match args.delimiter {
        Some(d) if d.is_ascii() => Some(d as u8),
        Some(d) => bail!("--delimiter: expected one ASCII character, found {d:?}"),
        None => None,
    };
    let table = Table::from_bytes(
        &name,
        &bytes,
        &CsvOptions {
            delimiter,
            header: true,
            trim: false,
        },
    )?;
    verify_and_report(&table, &args, &name)
}

/// Checks a table's claim and reports it: exit 1 when it fails.
fn verify_and_report(table: &Table, args: &VerifyArgs, name: &std::path::Path) -> Result<ExitCode> {
    let report = verify_table(table, args)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&name.display().to_string(), &report);
    }
    Ok(if report.holds() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn verify_table(table: &Table, args: &VerifyArgs) -> Result<ClaimReport> {
    let mut names: Vec<String> = args.qi.clone();
    let mut specs: Vec<(Vec<String>, usize)> = Vec::new();
    for c in &args.constraints {
        let (cols, k) = parse_constraint(c)?;
        for col in &cols {
            if !names.contains(col) {
                names.push(col.clone());
            }
        }
        specs.push((cols, k));
    }
    if let Some(k) = args.k {
        if args.qi.is_empty() {
            bail!("--k needs --qi: name the quasi-identifier columns");
        }
        specs.insert(0, (args.qi.clone(), k));
    }
    if specs.is_empty() {
        bail!("no claim to check: give --qi with --k, or --constraint \"col,col:K\"");
    }
    let find = |name: &str| -> Result<&Column> {
        table.column(name).with_context(|| {
            let available: Vec<&str> = table.columns.iter().map(|c| c.name.as_str()).collect();
            format!(
                "{}: no column {name:?} (columns: {})",
                table.source.display(),
                available.join(", ")
            )
        })
    };
    let qi: Vec<&Column> = names.iter().map(|n| find(n)).collect::<Result<_>>()?;
    let mut constraints = Vec::new();
    for (i, (cols, k)) in specs.iter().enumerate() {
        check_k(*k, usize::MAX, (specs.len() > 1).then_some(i + 1))?;
        let qis = cols
            .iter()
            .map(|c| names.iter().position(|n| n == c).expect("collected above"))
            .collect();
        constraints.push(Constraint { qis, k: *k });
    }
    let sensitive = match (&args.sensitive, args.l) {
        (Some(s), Some(l)) => {
            if l == 0 {
                bail!("--l must be at least 1");
            }
            Some((find(s)?, l))
        }
        _ => None,
    };
    Ok(verify_columns(
        &qi,
        &constraints,
        args.suppressed,
        sensitive,
    ))
}

fn print_report(source: &str, r: &ClaimReport) {
    let policy = match r.policy {
        SuppressionPolicy::Mask => "mask: exempt",
        SuppressionPolicy::Strict => "strict: one class",
    };
    println!(
        "{source}: {} rows, {} suppressed ({policy})",
        r.rows, r.suppressed_rows
    );
    for c in &r.constraints {
        println!(
            "  k={} on ({}): {} classes, smallest {}: {}",
            c.k,
            c.qi.join(", "),
            c.classes,
            c.min_class.map_or("-".to_owned(), |m| m.to_string()),
            if c.holds { "holds" } else { "FAILS" }
        );
        if !c.holds {
            println!(
                "    {} classes ({} rows) below k; smallest:",
                c.violating_classes, c.violating_rows
            );
            for v in &c.examples {
                println!("      {} rows: {}", v.size, v.values.join(" | "));
            }
        }
    }
    if let Some(l) = &r.l_diversity {
        println!(
            "  distinct l={} on {}: fewest {} distinct: {}",
            l.l,
            l.sensitive,
            l.min_distinct.map_or("-".to_owned(), |m| m.to_string()),
            if l.holds { "holds" } else { "FAILS" }
        );
    }
    println!("claim {}", if r.holds() { "holds" } else { "FAILS" });
}

/// Whether to read the input as a karc file: it has the magic, or most of
/// it (a damaged magic is reported as such, not as a CSV error), or the
/// `.karc` extension.
fn looks_like_karc(path: &Path, bytes: &[u8]) -> bool {
    let magic = &karc::archive::format::MAGIC;
    let same = bytes.iter().zip(magic).filter(|(a, b)| a == b).count();
    same >= 5
        || path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("karc"))
}

/// Why `bytes` cannot be a CSV table: a NUL byte, or a first line that is
/// not UTF-8 (the start of a binary file).
fn binary(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(4096)];
    if let Some(at) = head.iter().position(|&b| b == 0) {
        return Some(format!("a NUL byte at offset {at}"));
    }
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    match std::str::from_utf8(line) {
        // A line cut at 4 KiB may end inside a character.
        Err(e) if e.error_len().is_some() => Some(format!(
            "its first line is not UTF-8 at offset {}",
            e.valid_up_to()
        )),
        _ => None,
    }
}

/// `karc verify FILE.karc`: integrity (every section's CRC, structure),
/// then the claim recomputed from the released QI columns.
fn verify_archive(args: &VerifyArgs, name: &Path, bytes: Vec<u8>) -> Result<ExitCode> {
    use karc::archive::reader::{Archive, ClaimCheck};
    if !args.qi.is_empty() || args.k.is_some() || !args.constraints.is_empty() {
        bail!("--qi, --k and --constraint apply to CSV files; a .karc file carries its own claim");
    }
    // Integrity errors end here with exit 1; the claim is reported, not refused.
    let archive = Archive::from_bytes(name, bytes, ClaimCheck::Skip)?;
    let report = archive.check_claim()?;
    let budget = archive.meta.claim.suppression_budget;
    let within_budget = report.suppressed_rows as u64 <= budget;
    let holds = report.holds() && within_budget;
    if args.json {
        let out = serde_json::json!({
            "file": name.display().to_string(),
            "format": format!("{}.{}", archive.version().0, archive.version().1),
            "integrity": "ok",
            "suppression_budget": budget,
            "within_budget": within_budget,
            "holds": holds,
            "claim": report,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        let (major, minor) = archive.version();
        println!(
            "{}: karc format {major}.{minor}, integrity ok (every section's CRC-32)",
            name.display()
        );
        print_report(&name.display().to_string(), &report);
        println!(
            "suppressed rows {} of at most {budget}: {}",
            report.suppressed_rows,
            if within_budget { "holds" } else { "FAILS" }
        );
    }
    Ok(if holds {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

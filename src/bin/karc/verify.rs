//! `karc verify`: checks the privacy claim of a release CSV.

use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use karc::config::SuppressionPolicy;
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
    let delimiter = match args.delimiter {
        Some(d) if d.is_ascii() => Some(d as u8),
        Some(d) => bail!("--delimiter: expected one ASCII character, found {d:?}"),
        None => None,
    };
    let table = Table::read(
        &args.input,
        &CsvOptions {
            delimiter,
            header: true,
            trim: false,
        },
    )?;
    let report = verify_table(&table, &args)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&args.input.display().to_string(), &report);
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

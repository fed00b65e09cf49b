//! `karc verify`: checks the privacy claim of a release CSV.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Result, bail};
use karc::api::ClaimReport;
use karc::api::SuppressionPolicy;
use karc::api::TableFormat;
use karc::api::hex_head;
use karc::api::{self, ArchiveFigures, ClaimCheck, VerifyOptions, VerifyResult};
use karc::api::{Input, SignatureStatus, input_name};

use crate::cli::{ClaimArgs, VerifyArgs};
use crate::json::Json;
use crate::shown::{all_shown, shown};

pub fn run(args: VerifyArgs, json: Json) -> Result<ExitCode> {
    let name = input_name(&args.input);
    let bytes = Input::open_arg(&args.input)?;
    if looks_like_karc(&args.input, &bytes) {
        return verify_archive(&args, &name, bytes.into_vec(), json);
    }
    let csv = TableFormat::of_input(&args.input, &bytes) == TableFormat::Csv;
    if let Some(what) = binary(&bytes).filter(|_| csv) {
        bail!(
            "{}: neither a karc file (it starts with {}, not the magic {}) nor a CSV table ({what})",
            name.display(),
            hex_head(&bytes),
            hex_head(&karc::api::MAGIC)
        );
    }
    let delimiter = delimiter(&args.claim, csv)?;
    let table = api::read_release(&name, bytes.into_vec(), delimiter)?;
    let options = claim_options(&args.claim)?;
    let report = api::verify_table(&table, &options)?;
    let holds = report.holds();
    if json.on() {
        json.print(&VerifyResult {
            file: name.display().to_string(),
            kind: "table",
            holds,
            claim: report,
            archive: None,
        })?;
    } else {
        print_report(&name.display().to_string(), &report);
    }
    Ok(if holds {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The claim the flags ask to check.
pub(crate) fn claim_options(args: &ClaimArgs) -> Result<VerifyOptions> {
    Ok(VerifyOptions {
        qi: args.qi.clone(),
        k: args.k,
        constraints: args
            .constraints
            .iter()
            .map(|c| c.parse())
            .collect::<karc::api::Result<_>>()?,
        suppressed: args.suppressed.unwrap_or(SuppressionPolicy::Mask),
        sensitive: args.models.sensitive.clone(),
        models: args.models.models(args.definitions),
        missing: if args.missing.is_empty() {
            karc::api::default_missing()
        } else {
            args.missing.clone()
        },
    })
}

/// `--delimiter` of a CSV release (ignored for Parquet and Arrow IPC).
pub(crate) fn delimiter(args: &ClaimArgs, csv: bool) -> Result<Option<u8>> {
    Ok(match args.delimiter.filter(|_| csv) {
        Some(d) if d.is_ascii() && karc::api::is_delimiter(d as u8) => Some(d as u8),
        Some(d) => bail!(
            "--delimiter: expected one ASCII character other than a quote, CR, LF or NUL, found {d:?}"
        ),
        None => None,
    })
}

/// A .karc file carries its own claim: the table flags are refused.
pub(crate) fn refuse_table_flags(args: &ClaimArgs) -> Result<()> {
    if !args.qi.is_empty()
        || args.k.is_some()
        || !args.constraints.is_empty()
        || args.delimiter.is_some()
        || args.suppressed.is_some()
        || !args.missing.is_empty()
    {
        bail!(
            "--qi, --k, --constraint, --suppressed, --delimiter and --missing apply to release tables; \
             a .karc file carries its own claim"
        );
    }
    Ok(())
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
            all_shown(c.qi.iter().map(String::as_str)).join(", "),
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
                let values = all_shown(v.values.iter().map(String::as_str));
                println!("      {} rows: {}", v.size, values.join(" | "));
            }
        }
    }
    if let Some(l) = r.l_diversity.as_ref().filter(|_| r.models.is_none()) {
        println!(
            "  distinct l={} on {}: fewest {} distinct: {}",
            l.l,
            shown(&l.sensitive),
            l.min_distinct.map_or("-".to_owned(), |m| m.to_string()),
            if l.holds { "holds" } else { "FAILS" }
        );
    }
    if let Some(m) = &r.models {
        print_models(m);
    }
    println!("claim {}", if r.holds() { "holds" } else { "FAILS" });
}

/// The models beyond k (worst over the sensitive attributes), the risk and
/// each claimed model's check.
fn print_models(m: &karc::api::ModelsReport) {
    let num = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.6}"));
    let int = |v: Option<usize>| v.map_or("-".to_owned(), |v| v.to_string());
    let names: Vec<String> = (m.sensitive.iter())
        .map(|s| format!("{} ({} distance)", shown(&s.sensitive), s.distance.name()))
        .collect();
    println!(
        "  models on ({}), {:?} definitions:",
        names.join(", "),
        m.definitions
    );
    println!(
        "    k {}  alpha {}  l {}  entropy l {}  recursive c {}",
        int(m.k_anonymity),
        num(m.alpha_k_anonymity.alpha),
        int(m.l_diversity),
        num(m.entropy_l_diversity),
        num(m.recursive_c_l_diversity.c)
    );
    println!(
        "    t {}  delta {}  beta {}  enhanced beta {}",
        num(m.t_closeness),
        num(m.delta_disclosure),
        num(m.basic_beta_likeness),
        num(m.enhanced_beta_likeness)
    );
    if let Some(r) = &m.risk {
        println!(
            "    risk: prosecutor highest {:.6} (rows at it {:.4}), success {:.6}; marketer {:.6}; average {:.6}",
            r.prosecutor.highest_risk,
            r.prosecutor.records_at_highest_risk,
            r.prosecutor.success_rate,
            r.marketer,
            r.average_rir
        );
    }
    for c in &m.checks {
        println!(
            "  {} ({}) on {}: {} {}",
            c.model,
            c.parameter,
            shown(&c.sensitive),
            num(c.value),
            if c.holds { "holds" } else { "FAILS" }
        );
    }
}

/// Whether to read the input as a karc file: it has the magic, or most of
/// it (a damaged magic is reported as such, not as a CSV error), or the
/// `.karc` extension.
pub fn looks_like_karc(path: &Path, bytes: &[u8]) -> bool {
    let magic = &karc::api::MAGIC;
    let same = bytes.iter().zip(magic).filter(|(a, b)| a == b).count();
    same >= 5
        || path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("karc"))
}

/// Why `bytes` cannot be a CSV table: a NUL byte, or a first line that is
/// not UTF-8 (the start of a binary file).
pub fn binary(bytes: &[u8]) -> Option<String> {
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
fn verify_archive(args: &VerifyArgs, name: &Path, bytes: Vec<u8>, json: Json) -> Result<ExitCode> {
    refuse_table_flags(&args.claim)?;
    // Integrity errors end here with exit 1; the claim is reported, not refused.
    let archive = api::open(name, bytes, ClaimCheck::Skip)?;
    // With --signer, a signature that fails ends here with exit 1.
    let signature = match args.signer.signers.is_empty() {
        true => archive.signature(),
        false => {
            let keys = crate::sign::trusted(&args.signer)?;
            Some(SignatureStatus::from(&archive.verify_signature(&keys)?))
        }
    };
    let mut check = archive.verify()?;
    // The models beyond k, measured on the release when --sensitive names columns.
    if !args.claim.models.sensitive.is_empty() {
        let m = args.claim.models.models(args.claim.definitions);
        check.claim.models =
            api::verify_archive_models(name, &archive, &args.claim.models.sensitive, &m)?.models;
    }
    let holds = check.holds && check.claim.models.as_ref().is_none_or(|m| m.holds());
    if json.on() {
        json.print(&VerifyResult {
            file: name.display().to_string(),
            kind: "archive",
            holds,
            claim: check.claim,
            archive: Some(ArchiveFigures {
                format: check.format,
                integrity: "ok",
                suppression_budget: check.suppression_budget,
                within_budget: check.within_budget,
                signature,
            }),
        })?;
    } else {
        println!(
            "{}: karc format {}, integrity ok (every section's CRC-32)",
            name.display(),
            check.format
        );
        println!("{}", signature_line(signature.as_ref()));
        print_report(&name.display().to_string(), &check.claim);
        println!(
            "suppressed rows {} of at most {}: {}",
            check.claim.suppressed_rows,
            check.suppression_budget,
            if check.within_budget {
                "holds"
            } else {
                "FAILS"
            }
        );
    }
    Ok(if holds {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// How `verify` and `inspect` tell a file's signature.
pub fn signature_line(status: Option<&SignatureStatus>) -> String {
    match status {
        None => "signature: unsigned".to_owned(),
        Some(s) if s.checked => format!(
            "signature: valid, by key id {} (a key you trust){}: {}",
            s.key_id,
            if s.private_absent == Some(true) {
                "; covers the public part, the signed private part is absent (a published copy)"
            } else {
                ""
            },
            shown(&s.trusted_comment)
        ),
        Some(s) => format!(
            "signature: signed by key id {} (not checked against a key you trust; give --signer): {}",
            s.key_id,
            shown(&s.trusted_comment)
        ),
    }
}

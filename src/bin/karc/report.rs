//! `karc report`: a release's report as one HTML page, or with `--json`
//! as one JSON document (`karc.report/1`), written to `-o`.

use std::process::ExitCode;

use anyhow::{Result, bail};
use karc::api::{self, Access, Input, Output, ReportOptions, TableFormat, input_name};
use karc::api::{SuppressionPolicy, VerifyOptions};

use crate::cli::ReportArgs;
use crate::files::refuse_overwriting;
use crate::json::Json;
use crate::keys::key_options;

pub fn run(args: ReportArgs, json: Json) -> Result<ExitCode> {
    // An internal report names released values of the smallest classes
    // and the rows at risk: it is created readable by its owner only.
    let access = if args.internal {
        Access::Private
    } else {
        Access::Public
    };
    let output = Output::new(&args.output, access)?;
    let mut inputs = vec![args.input.clone()];
    inputs.extend(args.key.identities.iter().cloned());
    refuse_overwriting(&inputs, &[Some(&output)])?;
    let name = input_name(&args.input);
    let bytes = Input::open_arg(&args.input)?.into_vec();
    let options = ReportOptions {
        internal: args.internal,
        key: key_options(&args.key)?.key()?,
        signers: crate::sign::trusted(&args.signer)?,
        sensitive: args.models.sensitive.clone(),
        models: args.models.models(args.definitions),
        time: report_time()?,
    };
    let report = if crate::verify::looks_like_karc(&args.input, &bytes) {
        refuse_table_flags(&args)?;
        api::report_archive(&name, bytes, &options)?
    } else {
        let csv = TableFormat::of_input(&args.input, &bytes) == TableFormat::Csv;
        if let Some(what) = crate::verify::binary(&bytes).filter(|_| csv) {
            bail!(
                "{}: neither a karc file nor a CSV table ({what})",
                name.display()
            );
        }
        let delimiter = match args.delimiter.filter(|_| csv) {
            Some(d) if d.is_ascii() && api::is_delimiter(d as u8) => Some(d as u8),
            Some(d) => bail!(
                "--delimiter: expected one ASCII character other than a quote, CR, LF or NUL, found {d:?}"
            ),
            None => None,
        };
        let table = api::read_release(&name, bytes.clone(), delimiter)?;
        api::report_table(&name, &table, Some(&bytes), &claim(&args)?, &options)?
    };
    let page = if json.on() {
        let mut text = serde_json::to_string_pretty(&report)?;
        text.push('\n');
        text
    } else {
        report.to_html()
    };
    output.write_bytes(page.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// The time a report states: `SOURCE_DATE_EPOCH` when set (a reproducible
/// report, as reproducible builds use it), else now.
fn report_time() -> Result<i64> {
    match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(text) => match text.trim().parse::<i64>() {
            Ok(t) => Ok(t),
            Err(_) => bail!("SOURCE_DATE_EPOCH: expected whole seconds since 1970, found {text:?}"),
        },
        Err(_) => Ok(std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64)),
    }
}

/// A .karc file carries its own claim: the table flags are refused.
fn refuse_table_flags(args: &ReportArgs) -> Result<()> {
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

/// The claim a release table is reported under.
fn claim(args: &ReportArgs) -> Result<VerifyOptions> {
    Ok(VerifyOptions {
        qi: args.qi.clone(),
        k: args.k,
        constraints: (args.constraints.iter())
            .map(|c| c.parse())
            .collect::<karc::api::Result<_>>()?,
        suppressed: args.suppressed.unwrap_or(SuppressionPolicy::Mask),
        sensitive: args.models.sensitive.clone(),
        models: args.models.models(args.definitions),
        missing: if args.missing.is_empty() {
            api::default_missing()
        } else {
            args.missing.clone()
        },
    })
}

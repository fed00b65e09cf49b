//! `karc report`: a release's report as one HTML page, or with `--json`
//! as one JSON document (`karc.report/1`), written to `-o`.

use std::process::ExitCode;

use anyhow::{Result, bail};
use karc::api::{self, Access, Input, Output, ReportOptions, TableFormat, input_name};

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
        sensitive: args.claim.models.sensitive.clone(),
        models: args.claim.models.models(args.claim.definitions),
        time: report_time()?,
    };
    let report = if crate::verify::looks_like_karc(&args.input, &bytes) {
        crate::verify::refuse_table_flags(&args.claim)?;
        api::report_archive(&name, bytes, &options)?
    } else {
        let csv = TableFormat::of_input(&args.input, &bytes) == TableFormat::Csv;
        if let Some(what) = crate::verify::binary(&bytes).filter(|_| csv) {
            bail!(
                "{}: neither a karc file nor a CSV table ({what})",
                name.display()
            );
        }
        let delimiter = crate::verify::delimiter(&args.claim, csv)?;
        let table = api::read_release(&name, bytes.clone(), delimiter)?;
        api::report_table(
            &name,
            &table,
            Some(&bytes),
            &crate::verify::claim_options(&args.claim)?,
            &options,
        )?
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

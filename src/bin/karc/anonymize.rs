//! `karc anonymize`: CSV + config -> release CSV and report.

use std::process::ExitCode;

use anyhow::Result;
use karc::api::{self, ConfigSource, Overrides};
use karc::arrow::{TableFormat, TableInput, write_batch};
use karc::config::Config;
use karc::io::{Access, Output, input_name};
use karc::report::Report;

use crate::cli::{AnonymizeArgs, AnonymizerArgs};
use crate::files::refuse_overwriting;

/// Loads the config and applies the command-line overrides.
pub fn load_config(args: &AnonymizerArgs) -> Result<Config> {
    Ok(api::load_config(
        &ConfigSource::File(args.config.clone()),
        &Overrides {
            algorithm: args.algorithm.clone(),
            k: args.k,
            seed: args.seed,
            suppression_limit: args.suppression_limit,
        },
    )?)
}

pub fn run(args: AnonymizeArgs) -> Result<ExitCode> {
    let mut config = load_config(&args.anonymizer)?;
    if args.models.definitions != karc::privacy::Definitions::default() {
        anyhow::bail!(
            "--definitions applies to karc verify: the anonymizers enforce the models as README's \"Privacy models\" says"
        );
    }
    args.models.apply(&mut config);
    let output = Output::new(&args.output, Access::Public)?;
    let report_json = report_output(args.report_json.as_deref())?;
    let mut inputs = api::config_files(&config);
    inputs.push(args.input.clone());
    refuse_overwriting(&inputs, &[Some(&output), report_json.as_ref()])?;
    api::check_algorithm(&config)?;
    let input = TableInput::open(&args.input)?;
    let a = api::anonymize(&config, &input_name(&args.input), &input)?;
    match TableFormat::from_path(&args.output) {
        TableFormat::Csv => output.write(|w| {
            a.write_csv(w)
                .map_err(|e| karc::Error::io(output.name(), e))
        })?,
        format => {
            let batch = a.release_batch(input.arrow.as_ref())?;
            output.write(|w| write_batch(w, &output.name(), format, &batch))?
        }
    }
    tell_report(&a.report, report_json.as_ref())?;
    Ok(ExitCode::SUCCESS)
}

/// The `--report-json` output, if asked for.
pub fn report_output(path: Option<&std::path::Path>) -> Result<Option<Output>> {
    Ok(path.map(|p| Output::new(p, Access::Public)).transpose()?)
}

/// Writes the report as JSON when asked (`--report-json`) and its summary
/// on stderr: the end of `anonymize` and of `pack`.
pub fn tell_report(report: &Report, json: Option<&Output>) -> Result<()> {
    if let Some(out) = json {
        write_json(out, report)?;
    }
    eprintln!("{}", report.summary());
    Ok(())
}

/// Writes `value` as pretty JSON and a newline.
pub fn write_json(out: &Output, value: &impl serde::Serialize) -> Result<()> {
    out.write(|w| {
        serde_json::to_writer_pretty(&mut *w, value)
            .map_err(std::io::Error::from)
            .and_then(|()| w.write_all(b"\n"))
            .map_err(|e| karc::Error::io(out.name(), e))
    })?;
    Ok(())
}

//! `karc anonymize`: CSV + config -> release CSV and report.

use std::process::ExitCode;

use anyhow::Result;
use karc::api::Config;
use karc::api::Report;
use karc::api::{self, AnonymizeResult, ConfigSource, Overrides, format_name};
use karc::api::{Access, Output, input_name};
use karc::api::{TableFormat, TableInput, write_batch};

use crate::cli::{AnonymizeArgs, AnonymizerArgs, ConfigArgs};
use crate::files::refuse_overwriting;
use crate::json::Json;

/// Loads the config and applies the command-line overrides.
pub fn load_config(args: &AnonymizerArgs) -> Result<Config> {
    load_config_with(&args.config, args.algorithm.clone(), args.k)
}

/// Loads the config and applies the overrides of `args`, `algorithm` and `k`.
pub fn load_config_with(
    args: &ConfigArgs,
    algorithm: Option<String>,
    k: Option<usize>,
) -> Result<Config> {
    Ok(api::load_config(
        &ConfigSource::File(args.config.clone()),
        &Overrides {
            algorithm,
            k,
            seed: args.seed,
            suppression_limit: args.suppression_limit,
        },
    )?)
}

pub fn run(args: AnonymizeArgs, json: Json) -> Result<ExitCode> {
    let mut config = load_config(&args.anonymizer)?;
    args.models.apply(&mut config);
    let output = Output::new(&args.output, Access::Public)?;
    let report_json = report_output(args.report_json.as_deref())?;
    let mut inputs = api::config_files(&config);
    inputs.push(args.input.clone());
    refuse_overwriting(&inputs, &[Some(&output), report_json.as_ref()])?;
    api::check_algorithm(&config)?;
    let spinner = crate::progress::spinner("anonymizing");
    let input = TableInput::open(&args.input)?;
    let a = api::anonymize(&config, &input_name(&args.input), &input)?;
    spinner.set_message("writing the release");
    let format = TableFormat::from_path(&args.output);
    match format {
        TableFormat::Csv => output.write(|w| {
            a.write_csv(w)
                .map_err(|e| karc::api::Error::io(output.name(), e))
        })?,
        format => {
            let batch = a.release_batch(input.arrow.as_ref())?;
            output.write(|w| write_batch(w, &output.name(), format, &batch))?
        }
    }
    spinner.finish_and_clear();
    tell_report(&a.report, report_json.as_ref(), json)?;
    json.print(&AnonymizeResult {
        input: input_name(&args.input).display().to_string(),
        output: output.name().display().to_string(),
        format: format_name(format),
        report: a.report,
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The `--report-json` output, if asked for.
pub fn report_output(path: Option<&std::path::Path>) -> Result<Option<Output>> {
    Ok(path.map(|p| Output::new(p, Access::Public)).transpose()?)
}

/// Writes the report as JSON when asked (`--report-json`) and its summary
/// on stderr (unless `--json` tells it): the end of `anonymize` and of `pack`.
pub fn tell_report(report: &Report, report_json: Option<&Output>, json: Json) -> Result<()> {
    if let Some(out) = report_json {
        write_json(out, report)?;
    }
    if !json.on() {
        eprintln!("{}", report.summary());
    }
    Ok(())
}

/// Writes `value` as pretty JSON and a newline.
pub fn write_json(out: &Output, value: &impl serde::Serialize) -> Result<()> {
    out.write(|w| {
        serde_json::to_writer_pretty(&mut *w, value)
            .map_err(std::io::Error::from)
            .and_then(|()| w.write_all(b"\n"))
            .map_err(|e| karc::api::Error::io(out.name(), e))
    })?;
    Ok(())
}

//! `karc anonymize`: CSV + config -> release CSV and report.

use std::process::ExitCode;

use anyhow::Result;
use karc::anonymize::{self, Algorithm};
use karc::arrow::{TableFormat, TableInput, to_arrow, write_batch};
use karc::config::Config;
use karc::dataset::Dataset;
use karc::io::{Access, Output, input_name};
use karc::privacy::{ModelError, PrivacyModel};
use karc::report::Report;
use karc::table::Table;

use crate::cli::{AnonymizeArgs, AnonymizerArgs};
use crate::files::{config_files, refuse_overwriting};

/// Loads the config and applies the command-line overrides.
pub fn load_config(args: &AnonymizerArgs) -> Result<Config> {
    let mut config = Config::load(&args.config)?;
    if let Some(a) = &args.algorithm {
        config.algorithm.name = a.clone();
    }
    if let Some(seed) = args.seed {
        config.algorithm.seed = seed;
    }
    if let Some(k) = args.k {
        config.privacy.k = Some(k);
        config.privacy.constraints.clear();
    }
    if let Some(limit) = args.suppression_limit {
        config.privacy.suppression_limit = Some(limit);
    }
    Ok(config)
}

/// Everything an anonymization produced.
pub struct Anonymized {
    pub data: Dataset,
    pub outcome: anonymize::Outcome,
    pub report: Report,
}

/// Anonymizes the input's bytes (`input` names it) and measures the
/// release.
pub fn anonymize_input(
    config: &Config,
    input: &std::path::Path,
    bytes: &[u8],
) -> Result<Anonymized> {
    let table = Table::from_bytes(&input_name(input), bytes, &config.csv_options()?)?;
    let data = Dataset::bind(config, table)?;
    // Name where the model comes from: the table for a k it cannot reach,
    // the config's [privacy] section for the rest.
    let model = PrivacyModel::from_config(config, &data).map_err(|e| {
        let place = match &e {
            karc::Error::Model(ModelError::KTooLarge { .. }) => {
                data.table.source.display().to_string()
            }
            _ => format!("{}: [privacy]", config.path.display()),
        };
        anyhow::Error::new(e).context(place)
    })?;
    let (outcome, report) = Report::anonymize(&data, &model, &config.algorithm)?;
    Ok(Anonymized {
        data,
        outcome,
        report,
    })
}

pub fn run(args: AnonymizeArgs) -> Result<ExitCode> {
    let config = load_config(&args.anonymizer)?;
    let output = Output::new(&args.output, Access::Public)?;
    let report_json = report_output(args.report_json.as_deref())?;
    let mut inputs = config_files(&config);
    inputs.push(args.input.clone());
    refuse_overwriting(&inputs, &[Some(&output), report_json.as_ref()])?;
    // An unknown algorithm is refused before the table is read.
    Algorithm::from_name(&config.algorithm.name)?;
    let input = TableInput::open(&args.input)?;
    let config = input.config(&config);
    let a = anonymize_input(&config, &args.input, &input.csv)?;
    match TableFormat::from_path(&args.output) {
        TableFormat::Csv => output.write(|w| {
            a.outcome
                .release
                .write_csv(&a.data, w)
                .map_err(|e| karc::Error::io(output.name(), e))
        })?,
        format => {
            // The QIs are generalized labels; the other columns keep an
            // Arrow input's types.
            let qis: Vec<&str> = a
                .data
                .qis
                .iter()
                .map(|q| a.data.table.columns[q.column].name.as_str())
                .collect();
            let layout = input.arrow.as_ref().map(|l| l.release(&qis));
            let batch = to_arrow(&a.outcome.release.columns(&a.data), layout.as_ref())?;
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

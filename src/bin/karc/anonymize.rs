//! `karc anonymize`: CSV + config -> release CSV and report.

use std::process::ExitCode;

use anyhow::Result;
use karc::anonymize::{self, Algorithm};
use karc::config::Config;
use karc::dataset::Dataset;
use karc::io::write_atomically;
use karc::privacy::{ModelError, PrivacyModel};
use karc::report::Report;

use crate::cli::{AnonymizeArgs, AnonymizerArgs};

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
        if k == 0 {
            anyhow::bail!("--k 0: k must be at least 1");
        }
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

/// Loads the input, anonymizes it and measures the release.
pub fn anonymize_input(config: &Config, input: &std::path::Path) -> Result<Anonymized> {
    // An unknown algorithm is refused before the table is read.
    Algorithm::from_name(&config.algorithm.name)?;
    let data = Dataset::load(config, input)?;
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
    let a = anonymize_input(&config, &args.input)?;
    write_atomically(&args.output, |w| a.outcome.release.write_csv(&a.data, w))?;
    tell_report(&a.report, args.report_json.as_deref())?;
    Ok(ExitCode::SUCCESS)
}

/// Writes the report as JSON when asked (`--report-json`) and its summary
/// on stderr: the end of `anonymize` and of `pack`.
pub fn tell_report(report: &Report, json: Option<&std::path::Path>) -> Result<()> {
    if let Some(path) = json {
        write_atomically(path, |w| {
            serde_json::to_writer_pretty(&mut *w, report)?;
            w.write_all(b"\n")
        })?;
    }
    eprintln!("{}", report.summary());
    Ok(())
}

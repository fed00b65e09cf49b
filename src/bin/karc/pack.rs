//! `karc pack`: CSV + config -> `.karc` (release + sealed original).

use std::process::ExitCode;

use anyhow::{Result, anyhow};
use karc::archive::writer::{self, Anonymization, PackOptions};
use karc::codec::DiffMode;
use karc::io::{Input, write_atomically};
use karc::privacy::PrivacyModel;

use crate::anonymize::{anonymize_input, load_config};
use crate::cli::PackArgs;
use crate::keys::seal_from;

pub fn run(args: PackArgs) -> Result<ExitCode> {
    let seal = seal_from(&args.seal)?;
    let mode = match &args.mode {
        Some(m) => m.parse::<DiffMode>().map_err(|e| anyhow!("--mode: {e}"))?,
        None => DiffMode::default(),
    };
    let config = load_config(&args.anonymizer)?;
    let spinner = crate::progress::spinner("anonymizing");
    let a = anonymize_input(&config, &args.input)?;
    spinner.set_message("encoding and sealing");
    let model = PrivacyModel::from_config(&config, &a.data)?;
    let original = Input::open(&args.input)?;
    let bytes = writer::pack(
        &Anonymization {
            config: &config,
            data: &a.data,
            model: &model,
            outcome: &a.outcome,
            report: &a.report,
        },
        &original,
        &PackOptions { mode, seal: &seal },
    )?;
    write_atomically(&args.output, |w| w.write_all(&bytes))?;
    spinner.finish_and_clear();
    if let Some(path) = &args.report_json {
        write_atomically(path, |w| {
            serde_json::to_writer_pretty(&mut *w, &a.report)?;
            w.write_all(b"\n")
        })?;
    }
    eprintln!("{}", a.report.summary());
    eprintln!(
        "{}: {} bytes ({} mode) from {} bytes of CSV",
        args.output.display(),
        bytes.len(),
        mode,
        original.len()
    );
    if args.seal.no_encryption {
        eprintln!(
            "karc: warning: --no-encryption: the private part is NOT encrypted; anyone with {} can restore the original data",
            args.output.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

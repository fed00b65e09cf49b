//! `karc compare`: sizes and times against zip (and zstd, xz) for one or
//! many algorithms and k values, as a table, CSV or JSON, and a chart.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use karc::api::ChartFormat;
use karc::api::TableInput;
use karc::api::is_std;
use karc::api::{self, CompareOptions};
use karc::api::{Access, Output, input_name};
use karc::api::{CompareResult, Versioned};
use karc::api::{CompareRow, ModelRow, size_chart};

use crate::anonymize::load_config_with;
use crate::cli::{CompareArgs, OutputFormat};
use crate::json::Json;
use crate::progress;

fn percent(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The terminal table: bytes (karc's parts, zip's and any other
/// baseline's copies of the original and the release), reductions against
/// zip, time ratios.
fn table(rows: &[CompareRow], out: &mut dyn Write) -> std::io::Result<()> {
    let baselines: Vec<&str> = rows
        .first()
        .map(|r| r.baselines.iter().map(|b| b.compressor).collect())
        .unwrap_or_default();
    let mut header = format!(
        "{:<24} {:>4} {:<14} {:>9} {:>9} {:>9} {:>10} {:>9}",
        "algorithm", "k", "mode", "public", "private", "total", "zip(orig)", "zip(rel)"
    );
    // Each baseline's two columns are as wide as their names.
    let widths: Vec<(usize, usize)> = baselines
        .iter()
        .map(|b| (b.len() + 6, b.len() + 5))
        .collect();
    for (b, (wo, wr)) in baselines.iter().zip(&widths) {
        header.push_str(&format!(
            " {:>wo$} {:>wr$}",
            format!("{b}(orig)"),
            format!("{b}(rel)")
        ));
    }
    header.push_str(&format!(
        " {:>8} {:>8} {:>8} {:>10}",
        "-orig", "-rel", "pack/zip", "rest/unzip"
    ));
    writeln!(out, "{header}")?;
    for r in rows {
        let mut line = format!(
            "{:<24} {:>4} {:<14} {:>9} {:>9} {:>9} {:>10} {:>9}",
            r.algorithm,
            r.k,
            r.mode,
            r.public_bytes,
            r.private_bytes,
            r.total_bytes,
            r.zip_original_bytes,
            r.zip_release_bytes,
        );
        for (b, (wo, wr)) in r.baselines.iter().zip(&widths) {
            line.push_str(&format!(
                " {:>wo$} {:>wr$}",
                b.original_bytes, b.release_bytes
            ));
        }
        line.push_str(&format!(
            " {:>8} {:>8} {:>8.2} {:>10.2}",
            percent(r.reduction_original_vs_zip),
            percent(r.reduction_release_vs_zip),
            r.pack_vs_zip,
            r.restore_vs_unzip
        ));
        writeln!(out, "{line}")?;
    }
    writeln!(
        out,
        "bytes; (orig): the original compressed, (rel): the release compressed; \
         -orig: 1 - private / zip(orig); -rel: 1 - public / zip(rel); times are ratios (lower is faster)"
    )
}

/// The model rows: each set's information loss and its increase over k
/// alone, or the algorithm's refusal.
fn models_table(rows: &[ModelRow], out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "\n{:<24} {:>4} {:<24} {:>8} {:>8} {:>8} {:>8} {:>12} {:>8}",
        "algorithm", "k", "models", "NCP", "+NCP", "GLM", "+GLM", "DM", "C_avg"
    )?;
    let delta = |d: Option<f64>| d.map_or("-".to_owned(), |d| format!("{d:+.4}"));
    for r in rows {
        let head = format!("{:<24} {:>4} {:<24}", r.algorithm, r.k, r.models);
        match (&r.metrics, &r.refused) {
            (Some(m), _) => writeln!(
                out,
                "{head} {:>8.4} {:>8} {:>8.4} {:>8} {:>12.0} {:>8.2}",
                m.ncp,
                delta(r.ncp_increase),
                m.glm,
                delta(r.glm_increase),
                m.dm,
                m.cavg
            )?,
            (None, refused) => writeln!(
                out,
                "{head} refused: {}",
                refused.as_deref().unwrap_or("no release")
            )?,
        }
    }
    writeln!(
        out,
        "information loss per model set; +NCP, +GLM: the increase over k alone (the row `k`)"
    )
}

// Long: one column per CompareRow field in a flat list, header and rows side by side so they stay
// in step
/// The rows as CSV, one column per field, baselines flattened.
fn csv_rows(rows: &[CompareRow], out: &mut dyn Write) -> std::io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    let mut header: Vec<String> = [
        "algorithm",
        "k",
        "mode",
        "rows",
        "original_bytes",
        "release_csv_bytes",
        "zip_original_bytes",
        "zip_release_bytes",
        "public_bytes",
        "private_bytes",
        "total_bytes",
        "sealed_bytes",
        "file_bytes",
        "rate_original",
        "rate_release",
        "zip_rate_original",
        "zip_rate_release",
        "reduction_original_vs_zip",
        "reduction_release_vs_zip",
        "anonymize_ms",
        "karc_pack_ms",
        "zip_ms",
        "pack_vs_zip",
        "karc_restore_ms",
        "unzip_ms",
        "restore_vs_unzip",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if let Some(first) = rows.first() {
        for b in &first.baselines {
            header.push(format!("{}_original_bytes", b.compressor));
            header.push(format!("{}_release_bytes", b.compressor));
            header.push(format!("{}_ms", b.compressor));
        }
    }
    w.write_record(&header)?;
    for r in rows {
        let mut rec: Vec<String> = vec![
            r.algorithm.clone(),
            r.k.to_string(),
            r.mode.clone(),
            r.rows.to_string(),
            r.original_bytes.to_string(),
            r.release_csv_bytes.to_string(),
            r.zip_original_bytes.to_string(),
            r.zip_release_bytes.to_string(),
            r.public_bytes.to_string(),
            r.private_bytes.to_string(),
            r.total_bytes.to_string(),
            r.sealed_bytes.to_string(),
            r.file_bytes.to_string(),
        ];
        rec.extend(
            [
                r.rate_original,
                r.rate_release,
                r.zip_rate_original,
                r.zip_rate_release,
                r.reduction_original_vs_zip,
                r.reduction_release_vs_zip,
                r.anonymize_ms,
                r.karc_pack_ms,
                r.zip_ms,
                r.pack_vs_zip,
                r.karc_restore_ms,
                r.unzip_ms,
                r.restore_vs_unzip,
            ]
            .iter()
            .map(|x| format!("{x:.6}")),
        );
        for b in &r.baselines {
            rec.push(b.original_bytes.to_string());
            rec.push(b.release_bytes.to_string());
            rec.push(format!("{:.3}", b.compress_ms));
        }
        w.write_record(&rec)?;
    }
    w.flush()
}

/// The model rows as CSV: one row per algorithm, k and model set (k alone
/// first), the metrics flattened; a refused set has its message and empty
/// figures.
fn csv_models(rows: &[ModelRow], out: &mut dyn Write) -> std::io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record([
        "algorithm",
        "k",
        "models",
        "refused",
        "precision",
        "ncp",
        "ncp_kaylode",
        "glm",
        "dm",
        "cavg",
        "ncp_increase",
        "glm_increase",
        "suppressed",
        "anonymize_ms",
    ])?;
    let number = |x: Option<f64>| x.map_or(String::new(), |x| format!("{x:.6}"));
    for r in rows {
        let m = r.metrics.as_ref();
        w.write_record([
            r.algorithm.clone(),
            r.k.to_string(),
            r.models.clone(),
            r.refused.clone().unwrap_or_default(),
            number(m.and_then(|m| m.precision)),
            number(m.map(|m| m.ncp)),
            number(m.map(|m| m.ncp_kaylode)),
            number(m.map(|m| m.glm)),
            number(m.map(|m| m.dm)),
            number(m.map(|m| m.cavg)),
            number(r.ncp_increase),
            number(r.glm_increase),
            r.suppressed.map_or(String::new(), |s| s.to_string()),
            number(r.anonymize_ms),
        ])?;
    }
    w.flush()
}

/// The size chart of `rows`, titled with the input's file name (a long
/// path would push the title off the chart).
fn write_chart(
    chart: &Output,
    format: ChartFormat,
    name: &std::path::Path,
    rows: &[CompareRow],
) -> Result<()> {
    let mut against = vec!["zip"];
    against.extend(
        rows.first()
            .map_or(&[][..], |r| &r.baselines[..])
            .iter()
            .map(|b| b.compressor),
    );
    let against = match against.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    let title = format!(
        "karc vs {against} on {} ({} rows)",
        name.file_name()
            .map_or(name.as_os_str(), |f| f)
            .to_string_lossy(),
        rows.first().map_or(0, |r| r.rows)
    );
    let bytes = size_chart(rows, &title).render(format, &chart.name())?;
    chart.write_bytes(&bytes)?;
    Ok(())
}

pub fn run(args: CompareArgs, json: Json) -> Result<ExitCode> {
    let config = load_config_with(&args.config, None, None)?;
    let to_stdout = args.output.as_deref().is_none_or(is_std);
    let format = match (args.format, json.on() && to_stdout) {
        (None, true) | (Some(OutputFormat::Json), _) => OutputFormat::Json,
        (Some(_), true) => bail!(
            "--json prints the rows as JSON on standard output: drop --format, or write its rows to a file with -o"
        ),
        (format, false) => format.unwrap_or(OutputFormat::Table),
    };
    let output = Output::new(
        args.output.as_deref().unwrap_or(std::path::Path::new("-")),
        Access::Public,
    )?;
    let chart = crate::anonymize::report_output(args.chart.as_deref())?;
    let chart_format = args.chart.as_deref().map(ChartFormat::from_path);
    let mut inputs = api::config_files(&config);
    inputs.push(args.input.clone());
    crate::files::refuse_overwriting(&inputs, &[Some(&output), chart.as_ref()])?;
    let options = CompareOptions {
        algorithms: args.algorithms.clone(),
        ks: args.ks.clone(),
        modes: args.modes.clone(),
        baselines: args.baselines,
        repeats: args.repeats as usize,
        models: args.models.clone(),
        sensitive: args.sensitive.clone(),
    };
    // Checks the sets before anything is measured.
    api::model_sets(&options)?;
    let total = (api::compare_rows(&options)? + api::model_rows(&options)?) as u64;
    // An Arrow input is compared as its canonical CSV (what karc seals).
    let original = TableInput::open(&args.input)?;
    let name = input_name(&args.input);
    let bar = progress::bar(total, "compare");
    // The model rows first: a set that cannot be built fails before the long size rows.
    let models = api::compare_models(&config, &name, &original, &options, &mut |row| {
        bar.set_message(format!("{} k={} {}", row.algorithm, row.k, row.models));
        bar.inc(1);
    })?;
    let rows = api::compare(&config, &name, &original, &options, &mut |row| {
        bar.set_message(format!("{} k={} {}", row.algorithm, row.k, row.mode));
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    let result = CompareResult {
        input: name.display().to_string(),
        rows,
        models,
    };
    let render = |out: &mut dyn Write| -> std::io::Result<()> {
        match format {
            OutputFormat::Table => {
                table(&result.rows, out)?;
                if result.models.is_empty() {
                    return Ok(());
                }
                models_table(&result.models, out)
            }
            // One table per CSV: with --models, the model rows (the size rows
            // stay in the JSON document and the chart).
            OutputFormat::Csv if !result.models.is_empty() => csv_models(&result.models, out),
            OutputFormat::Csv => csv_rows(&result.rows, out),
            OutputFormat::Json => {
                serde_json::to_writer_pretty(&mut *out, &result.document())?;
                writeln!(out)
            }
        }
    };
    output.write(|w| render(w).map_err(|e| karc::api::Error::io(output.name(), e)))?;
    if let (Some(chart), Some(chart_format)) = (&chart, chart_format) {
        write_chart(chart, chart_format, &name, &result.rows)?;
    }
    // Rows already printed as the document are not printed twice.
    if !(to_stdout && format == OutputFormat::Json) {
        json.print(&result)?;
    }
    Ok(ExitCode::SUCCESS)
}

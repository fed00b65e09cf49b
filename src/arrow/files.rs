//! Parquet and Arrow IPC files read as karc tables, and record batches
//! written as either.
//!
//! A file is read one record batch at a time into the karc columns, so the
//! Arrow form of the whole table is never in memory at once.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::Path;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_ipc::writer::IpcWriteOptions;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use super::{ArrowLayout, ArrowTableError, TableBuilder};
use crate::io::{Access, Input, Output, input_name, is_std};
use crate::table::Table;
use crate::{Error, Result};

/// Rows per record batch read from a file: large enough that the per-batch
/// work is nothing beside the cells, small enough to stay out of memory.
const BATCH_ROWS: usize = 64 * 1024;

/// The kind of a table file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// Comma-separated text.
    Csv,
    /// Apache Parquet.
    Parquet,
    /// Arrow IPC: the file format (Feather v2) or the stream format.
    Ipc,
}

impl TableFormat {
    /// The format a path's extension names (`.parquet`, `.pq`; `.arrow`,
    /// `.feather`, `.ipc`, `.arrows`); CSV otherwise.
    pub fn from_path(path: &Path) -> TableFormat {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("parquet" | "pq") => TableFormat::Parquet,
            Some("arrow" | "feather" | "ipc" | "arrows") => TableFormat::Ipc,
            _ => TableFormat::Csv,
        }
    }

    /// The format of bytes by their magic (`PAR1`, `ARROW1`, or an IPC
    /// stream's continuation marker); CSV otherwise.
    pub fn sniff(bytes: &[u8]) -> TableFormat {
        if bytes.starts_with(b"PAR1") {
            TableFormat::Parquet
        } else if bytes.starts_with(b"ARROW1") || bytes.starts_with(&[0xff; 4]) {
            TableFormat::Ipc
        } else {
            TableFormat::Csv
        }
    }

    /// The format of a command-line input: by its extension, or by its
    /// first bytes for standard input (`-`), which `head` holds.
    pub fn of_input(path: &Path, head: &[u8]) -> TableFormat {
        if is_std(path) {
            TableFormat::sniff(head)
        } else {
            TableFormat::from_path(path)
        }
    }
}

fn file_error(path: &Path, e: impl std::fmt::Display) -> Error {
    ArrowTableError::File {
        path: input_name(path).display().to_string(),
        message: e.to_string(),
    }
    .into()
}

/// Reads a Parquet or Arrow IPC file (its format from its extension, else
/// from its first bytes) as a karc table and the layout that rebuilds it.
pub fn read_table(path: &Path) -> Result<(Table, ArrowLayout)> {
    if is_std(path) || TableFormat::from_path(path) == TableFormat::Csv {
        let bytes = Input::open_arg(path)?.into_vec();
        let format = TableFormat::sniff(&bytes);
        return read_table_bytes(path, bytes, format);
    }
    match TableFormat::from_path(path) {
        TableFormat::Parquet => {
            let file = File::open(path).map_err(|e| Error::io(path, e))?;
            check_parquet(path, file.try_clone().map_err(|e| Error::io(path, e))?)?;
            let reader = contained_open(path, || {
                ParquetRecordBatchReaderBuilder::try_new(file)
                    .and_then(|b| b.with_batch_size(BATCH_ROWS).build())
            })?;
            build(path, reader)
        }
        _ => {
            // Mapped, so that its sizes are checked before arrow-ipc reads it.
            let input = Input::open_arg(path)?;
            check_ipc(path, &input)?;
            read_ipc(
                path,
                std::io::Cursor::new(&input[..]),
                &input[..input.len().min(6)],
            )
        }
    }
}

/// Reads a Parquet or Arrow IPC table held in memory; `path` names it.
pub fn read_table_bytes(
    path: &Path,
    bytes: Vec<u8>,
    format: TableFormat,
) -> Result<(Table, ArrowLayout)> {
    match format {
        TableFormat::Parquet => {
            let bytes = bytes::Bytes::from(bytes);
            check_parquet(path, bytes.clone())?;
            let reader = contained_open(path, || {
                ParquetRecordBatchReaderBuilder::try_new(bytes)
                    .and_then(|b| b.with_batch_size(BATCH_ROWS).build())
            })?;
            build(path, reader)
        }
        TableFormat::Ipc => {
            check_ipc(path, &bytes)?;
            let head = bytes[..bytes.len().min(6)].to_vec();
            read_ipc(path, std::io::Cursor::new(bytes), &head)
        }
        TableFormat::Csv => Err(file_error(
            path,
            "not a Parquet or Arrow IPC file: expected PAR1 or ARROW1 at its start",
        )),
    }
}

/// An IPC file (which starts `ARROW1`) or stream.
fn read_ipc<R: Read + Seek>(path: &Path, reader: R, head: &[u8]) -> Result<(Table, ArrowLayout)> {
    if head.starts_with(b"ARROW1") {
        let reader = contained_open(path, || {
            arrow_ipc::reader::FileReader::try_new(reader, None)
        })?;
        build(path, reader)
    } else {
        let reader = contained_open(path, || {
            arrow_ipc::reader::StreamReader::try_new(reader, None)
        })?;
        build(path, reader)
    }
}

/// [`super::guard::check_ipc`], as this file's error.
fn check_ipc(path: &Path, bytes: &[u8]) -> Result<()> {
    super::guard::check_ipc(bytes).map_err(|m| file_error(path, format!("corrupt Arrow data: {m}")))
}

/// [`super::guard::check_parquet`], as this file's error (a panic of
/// parquet's page reader too: the column reader would meet it as well).
fn check_parquet<R: parquet::file::reader::ChunkReader + 'static>(
    path: &Path,
    reader: R,
) -> Result<()> {
    use super::guard::ParquetRefusal;
    let corrupt = |m: String| file_error(path, format!("corrupt Parquet data: {m}"));
    match crate::contain::contained(|| super::guard::check_parquet(reader)) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(ParquetRefusal::Codec(m))) => Err(file_error(path, m)),
        Ok(Err(ParquetRefusal::Corrupt(m))) | Err(m) => Err(corrupt(m)),
    }
}

/// Opens a reader with `open`, a dependency's error or panic (a corrupt
/// footer or schema) ending as this file's error.
fn contained_open<T, E: std::fmt::Display>(
    path: &Path,
    open: impl FnOnce() -> std::result::Result<T, E>,
) -> Result<T> {
    crate::contain::contained(open)
        .map_err(|m| file_error(path, format!("corrupt Arrow data: {m}")))?
        .map_err(|e| file_error(path, e))
}

fn build(path: &Path, mut reader: impl RecordBatchReader) -> Result<(Table, ArrowLayout)> {
    let name = input_name(path).display().to_string();
    let mut builder = TableBuilder::new(reader.schema(), &name)?;
    // A corrupt file can make the Arrow decoders panic (issue 32): every
    // batch is read and taken in under `contained`, so it ends as an error.
    let corrupt = |message: String| file_error(path, format!("corrupt Arrow data: {message}"));
    loop {
        let next = crate::contain::contained(|| reader.next()).map_err(corrupt)?;
        let Some(batch) = next else { break };
        let batch = batch.map_err(|e| file_error(path, e))?;
        crate::contain::contained(|| builder.push(&batch)).map_err(corrupt)??;
    }
    let (mut table, layout) = builder.finish();
    table.source = path.to_owned();
    Ok((table, layout))
}

/// Writes `batch` to `out` as a Parquet file (zstd-compressed pages, which
/// every current reader supports) or an Arrow IPC file (LZ4 frames, as
/// pyarrow's Feather writer does); `name` names the output in messages.
pub fn write_batch(
    out: &mut dyn Write,
    name: &Path,
    format: TableFormat,
    batch: &RecordBatch,
) -> Result<()> {
    write_batches(out, name, format, &mut std::iter::once(Ok(batch.clone())))
}

/// [`write_batch`] of batches made one after the other (a release read a
/// row group at a time), all of the first one's schema: one is in memory
/// at a time beside what the writer holds.
pub fn write_batches(
    out: &mut dyn Write,
    name: &Path,
    format: TableFormat,
    batches: &mut dyn Iterator<Item = Result<RecordBatch>>,
) -> Result<()> {
    let error = |e: &dyn std::fmt::Display| -> Error {
        ArrowTableError::File {
            path: name.display().to_string(),
            message: e.to_string(),
        }
        .into()
    };
    match format {
        TableFormat::Parquet => {
            let props = WriterProperties::builder()
                .set_compression(Compression::ZSTD(ZstdLevel::default()))
                .build();
            // The writer needs a `Send` sink: the file is built in memory
            // (compressed, it is smaller than the batch it holds).
            let Some(first) = batches.next().transpose()? else {
                return Err(error(&"no record batch to write"));
            };
            let mut writer = ArrowWriter::try_new(Vec::new(), first.schema(), Some(props))
                .map_err(|e| error(&e))?;
            writer.write(&first).map_err(|e| error(&e))?;
            drop(first);
            for batch in batches {
                writer.write(&batch?).map_err(|e| error(&e))?;
            }
            let bytes = writer.into_inner().map_err(|e| error(&e))?;
            out.write_all(&bytes).map_err(|e| Error::io(name, e))
        }
        TableFormat::Ipc => {
            let options = IpcWriteOptions::default()
                .try_with_compression(Some(arrow_ipc::CompressionType::LZ4_FRAME))
                .map_err(|e| error(&e))?;
            let Some(first) = batches.next().transpose()? else {
                return Err(error(&"no record batch to write"));
            };
            let schema = first.schema();
            let mut writer =
                arrow_ipc::writer::FileWriter::try_new_with_options(out, &schema, options)
                    .map_err(|e| error(&e))?;
            writer.write(&first).map_err(|e| error(&e))?;
            drop(first);
            for batch in batches {
                writer.write(&batch?).map_err(|e| error(&e))?;
            }
            writer.finish().map_err(|e| error(&e))?;
            Ok(())
        }
        TableFormat::Csv => Err(error(&"a record batch is written as Parquet or Arrow IPC")),
    }
}

/// Writes `batch` to `path` (its format from its extension; standard
/// output for `-`, as Parquet) atomically, readable as `access` says.
pub fn write_table(path: &Path, batch: &RecordBatch, access: Access) -> Result<()> {
    let format = match TableFormat::from_path(path) {
        TableFormat::Csv if is_std(path) => TableFormat::Parquet,
        f => f,
    };
    let output = Output::new(path, access)?;
    let name = output.name();
    output.write(|w| write_batch(w, &name, format, batch))
}

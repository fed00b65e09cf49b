"""The parts of a Spark pack, from the workers to one ``.karc`` file,
through Spark alone.

Each worker codes its rows as a *part*: a complete one-row-group ``.karc``
sealed for a one-off key that only the driver holds (in memory). A part is
a row of a DataFrame (its key, its bytes in a binary column, its report's
counts), so it travels as Spark moves any row, and no folder has to be
seen by both the driver and the workers:

- by default the parts stay in Spark's own storage (``persist``: each
  executor's memory, spilling to its own scratch disk), computed by all
  executors at once, then fetched by the driver one partition at a time
  (``toLocalIterator``);
- with ``parts="hdfs://…"`` (any URI Spark writes: ``file://``, ``s3a://``,
  ...), the workers write them there as Parquet through Hadoop's file-system
  layer, and the driver reads them back one at a time through Spark, then
  deletes the folder.

Either way the driver streams each part into the merge
(``_karc.PartMerger``) and drops it before it asks for the next: it never
holds more than one part. The merged file is written by the driver alone.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Tuple

import pyarrow as pa

from . import CheckFailedError, _karc

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

#: A part as a row: its key (fragment or partition), its bytes, its counts.
PART_TYPE = "key long, part binary, rows long, suppressed long, classes long"

_ARROW_TYPE = pa.schema(
    [
        ("key", pa.int64()),
        ("part", pa.binary()),
        ("rows", pa.int64()),
        ("suppressed", pa.int64()),
        ("classes", pa.int64()),
    ]
)


def part_batch(key: int, part: bytes, report: Dict[str, Any]) -> pa.RecordBatch:
    """One part as the one-row batch a worker returns."""
    return pa.RecordBatch.from_pylist(
        [
            {
                "key": key,
                "part": part,
                "rows": report["rows"],
                "suppressed": report["suppressed"],
                "classes": report.get("classes", 0),
            }
        ],
        schema=_ARROW_TYPE,
    )


def refuse_staging(staging: Any) -> None:
    """``staging=`` named a folder both the driver and the workers saw; the
    parts now travel through Spark. Refused in one line rather than
    ignored, since a caller passing it expects the files there."""
    if staging is not None:
        from . import BadInputError

        raise BadInputError(
            "staging= is gone: the parts travel through Spark and no folder needs sharing; "
            "drop it, or pass parts=\"hdfs://...\" (any URI Spark writes) to have the workers write them there"
        )


def merge(
    parts: "DataFrame",
    keys: List[int],
    output: str,
    identity: str,
    params: Dict[str, Any],
    seal: Dict[str, Any],
    where: Optional[str] = None,
    totals: Optional[Tuple[int, int, float, int]] = None,
) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    """Computes ``parts`` (a DataFrame of :data:`PART_TYPE`, one row per
    key) on the executors, then merges them in the order of ``keys`` into
    ``output``. Returns the merge's report and each part's counts."""
    if where is None:
        return _merge_persisted(parts, keys, output, identity, params, seal, totals)
    return _merge_written(parts, keys, output, identity, params, seal, where, totals)


def _counts(frame: "DataFrame", keys: List[int]) -> List[Dict[str, Any]]:
    """Every part's counts (not its bytes), checked against ``keys``."""
    from pyspark.sql import functions as F

    chosen = frame.select("key", "rows", "suppressed", "classes", F.length("part").alias("bytes"))
    found = sorted((r.asDict() for r in chosen.collect()), key=lambda r: r["key"])
    if [r["key"] for r in found] != sorted(keys):
        raise CheckFailedError(f"expected parts {sorted(keys)}, found {[r['key'] for r in found]}")
    return found


def _merge_persisted(
    parts: "DataFrame",
    keys: List[int],
    output: str,
    identity: str,
    params: Dict[str, Any],
    seal: Dict[str, Any],
    totals: Optional[Tuple[int, int, float, int]],
) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    from pyspark import StorageLevel

    parts = parts.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        counts = _counts(parts, keys)  # every executor codes its parts at once
        order = {k: i for i, k in enumerate(keys)}
        # Partition by partition: the driver holds one part at a time.
        rows = (r for r in parts.toLocalIterator(prefetchPartitions=False))
        stream = ((r["key"], r["part"], r["suppressed"], r["classes"]) for r in rows)
        merged = _merge_stream(_in_order(stream, order), output, identity, params, seal, totals)
    finally:
        parts.unpersist()
    return merged, counts


def _in_order(stream: Iterator[Tuple[int, bytes, int, int]], order: Dict[int, int]) -> Iterator[Tuple[int, bytes, int, int]]:
    """The parts as they come, refused when not in the planned order (a
    partition of Spark's holding another key than planned)."""
    for at, part in enumerate(stream):
        if order.get(part[0]) != at:
            raise CheckFailedError(f"part {part[0]} came in place {at}: the parts are not in their planned order")
        yield part


def _merge_written(
    parts: "DataFrame",
    keys: List[int],
    output: str,
    identity: str,
    params: Dict[str, Any],
    seal: Dict[str, Any],
    where: str,
    totals: Optional[Tuple[int, int, float, int]],
) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    from pyspark.sql import functions as F

    spark = parts.sparkSession
    parts.write.mode("errorifexists").parquet(where)
    try:
        written = spark.read.parquet(where)
        counts = _counts(written, keys)
        by_key = {r["key"]: r for r in counts}

        def fetch() -> Iterator[Tuple[int, bytes, int, int]]:
            for key in keys:
                # One small job per part: only its bytes reach the driver.
                (row,) = written.where(F.col("key") == F.lit(key)).select("part").collect()
                yield key, row["part"], by_key[key]["suppressed"], by_key[key]["classes"]

        merged = _merge_stream(fetch(), output, identity, params, seal, totals)
    finally:
        _delete(spark, where)
    return merged, counts


def _delete(spark: Any, where: str) -> None:
    """Deletes the parts' folder through Hadoop's file system (the parts
    are sealed for a key that no longer exists, but they are dead weight)."""
    jvm = spark.sparkContext._jvm
    path = jvm.org.apache.hadoop.fs.Path(where)
    path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()).delete(path, True)


def _merge_stream(
    stream: Iterator[Tuple[int, bytes, int, int]],
    output: str,
    identity: str,
    params: Dict[str, Any],
    seal: Dict[str, Any],
    totals: Optional[Tuple[int, int, float, int]],
) -> Dict[str, Any]:
    merger = _karc.PartMerger(output, identity, json.dumps(params), **seal)
    for key, part, suppressed, classes in stream:
        # Spark hands a binary cell over as a bytearray.
        merger.add(part if isinstance(part, bytes) else bytes(part), suppressed, classes, f"part {key}")
        del part
    return json.loads(merger.finish(totals))

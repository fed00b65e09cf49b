"""karc on Apache Spark: anonymize and pack a table too large for one machine.

The scheme is mosaicrown/mondrian's (PerCom 2021): the driver draws a seeded
sample of the quasi-identifiers, cuts the QI space into *fragments* with
Mondrian's median cuts on the sample, every row is sent to its fragment's
Spark partition (exactly one partition per fragment), and each fragment is
anonymized on a worker by karc's own anonymizer (Mondrian, Basic Mondrian,
Top-down, or any other karc algorithm) through Arrow (``mapInArrow``).
Only the QI and sensitive columns go through karc on a worker: the other
columns are released as they are, so the worker passes the input's Arrow
arrays through beside the generalized QIs (no text round trip, no pandas).

What it does that the reference does not:

- the sample is seeded and only its QI (and sensitive) columns reach the
  driver;
- fragments are counted on the whole table before anything is released, and
  a fragment below k rows (or below l distinct sensitive values) is merged
  with its sibling in the cut tree, never published as is;
- cuts are thresholds in a total order of each QI (numbers; categories in
  their hierarchy's leaf order, then as text), so a value absent from the
  sample falls on one side of every cut like any other;
- fragments are placed on partitions by a key whose Spark hash lands on the
  fragment's own partition, so no two fragments share a core by accident.

Every fragment holds at least k rows, so each is k-anonymous on its own
(and meets the config's l and constraint sets), and a class of the union is
a union of classes: the union is k-anonymous by construction. ``anonymize``
returns the release lazily, each worker checking the classes of the fragment
it returns (pyarrow's group-by, not karc's anonymizer), and
:func:`check_release` counts the union's classes with Spark for a caller
who wants an independent check of the whole; ``pack`` writes one
``.karc`` file, each fragment one row group, coded by the workers (see
:func:`pack`), which ``karc verify``, ``export`` and ``restore`` read like
any other.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import _karc
from . import BadInputError, ConfigLike, PathLike, _config_args, _seal_args
from . import spark_global, spark_parts
from .spark_claim import _check_fragment, check_release
from .spark_config import _column, _release_type, _Schema, _schema, ship
from .spark_cuts import (  # noqa: F401 - _numeric, _murmur3_long: names the tests use
    Plan,
    _cut,
    _Keys,
    _leaves,
    _merge_small,
    _murmur3_long,
    _numeric,
    _partition_keys,
    fragment_column,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["anonymize", "check_release", "fragment_column", "pack", "plan_fragments", "Plan"]

#: Column names karc adds while it works (taken off before anything is returned).
_FRAGMENT = "__karc_fragment"
_KEY = "__karc_key"
#: Full-domain algorithms, run by frequency sets (:mod:`karc.spark_global`).
_GLOBAL = spark_global.ALGORITHMS


@dataclass
class _Fragmented:
    """The table, its rows tagged with their fragment and partition key."""

    frame: "DataFrame"
    plan: Plan
    sizes: List[int]
    schema: _Schema
    #: What every fragment is told of the whole table.
    whole: "_Whole"


def _keys_of(schema: _Schema) -> Dict[str, _Keys]:
    return {q: _Keys(kind, schema.leaf_order.get(q)) for q, kind in schema.qis}


def plan_fragments(
    df: "DataFrame",
    config: ConfigLike,
    k: Optional[int] = None,
    fragments: Optional[int] = None,
    seed: int = 0,
    sample_rows: int = 20_000,
) -> Plan:
    """The cut tree of ``df``'s fragments, from a seeded sample of its QIs
    (only the sample's QI and sensitive columns reach the driver), before
    small fragments are merged. ``fragments`` defaults to four per core,
    fewer when the table is small (a fragment is planned for at least 50 k rows)."""
    return _plan(df, _schema(config, k), fragments, seed, sample_rows)[0]


def _plan(df: "DataFrame", schema: _Schema, fragments: Optional[int], seed: int, sample_rows: int) -> Tuple[Plan, int]:
    plan, rows, _ = _planned(df, schema, fragments, seed, sample_rows)
    return plan, rows


def _planned(
    df: "DataFrame", schema: _Schema, fragments: Optional[int], seed: int, sample_rows: int
) -> Tuple[Plan, int, pa.Table]:
    """The plan, the table's row count, and the sample it was cut from (its
    QI and sensitive columns)."""
    missing = [q for q in schema.columns if q not in df.columns]
    if missing:
        raise BadInputError(f"the DataFrame has no column {missing[0]!r} (listed in the config); it has {df.columns}")
    unlisted = [c for c in df.columns if c not in schema.columns]
    if unlisted:
        raise BadInputError(
            f'column "{unlisted[0]}" of the DataFrame is not listed in the config: every column needs a role'
        )
    if fragments is not None and fragments < 1:
        raise BadInputError(f"fragments: expected at least 1, found {fragments}")
    if sample_rows < 1:
        raise BadInputError(f"sample_rows: expected at least 1, found {sample_rows}")
    qis = [q for q, _ in schema.qis]
    keys = _keys_of(schema)
    # Two passes of Spark's own (no Python worker): the count (on Parquet,
    # no column decoded) and a seeded Bernoulli sample of the QIs (and the
    # sensitive columns, for the probe). One pass of a Python worker drawing
    # both was measured slower (2.6-4 s against 1.7 s at 1M rows): its rows
    # cross to Python and back.
    rows = df.count()
    if fragments is None:
        fragments = _default_fragments(df, rows, schema.k)
    fraction = min(1.0, sample_rows / rows) if rows else 1.0
    drawn = qis + [c for c in schema.read if c not in qis]
    sample = _collect_arrow(df.select(*[_column(c) for c in drawn]).sample(withReplacement=False, fraction=fraction, seed=seed))
    columns: Dict[str, List[Any]] = {}
    for q in qis:
        raw = sample.column(q).combine_chunks()
        if keys[q].numeric:
            columns[q] = [float(x) for x in _numeric(raw)]
        else:
            columns[q] = [keys[q].key(v) for v in raw.to_pylist()]
    # A sample leaf of at least this many rows stands for about 2k rows of the table.
    min_sample = max(1, int(2 * schema.k * fraction + 0.999))
    tree = _cut(columns, keys, qis, fragments, min_sample) if sample.num_rows else {"fragment": 0}
    if "fragment" not in tree and "qi" not in tree:
        tree = {"fragment": 0}
    return Plan(tree, len(_leaves(tree)), sample.num_rows), rows, sample


#: The most rows a default fragment is planned for: what one Python worker
#: holds at once (measured 0.8 GB at Adult's 15 columns), whatever the table's size.
_FRAGMENT_ROWS = 1_000_000


def _default_fragments(df: "DataFrame", rows: int, k: int) -> int:
    """Four fragments a core (one Spark partition each: a core that finishes
    early takes the next, so none idles behind a slow one), more when that
    would make a fragment larger than ``_FRAGMENT_ROWS``, fewer when the
    table is small (a fragment is planned for at least 50 k rows)."""
    cores = df.sparkSession.sparkContext.defaultParallelism
    wanted = max(4 * cores, -(-rows // _FRAGMENT_ROWS))
    return max(1, min(wanted, rows // (50 * k)))


def _collect_arrow(df: "DataFrame") -> pa.Table:
    """A small DataFrame's rows on the driver as one Arrow table (Spark's
    own Arrow collection where this pyspark has it, else its rows)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    schema = to_arrow_schema(df.schema)
    collect = getattr(df, "_collect_as_arrow", None)
    if collect is not None:
        batches = collect()
        return pa.Table.from_batches(batches) if batches else schema.empty_table()
    return pa.Table.from_pylist([r.asDict() for r in df.collect()], schema=schema)


#: The most sample rows the probe anonymizes on the driver.
_PROBE_ROWS = 2_000


def _probe_table(df: "DataFrame", sample: pa.Table, rows: int) -> pa.Table:
    """The sample's first ``rows`` rows in the DataFrame's schema: the
    columns drawn (QIs, sensitive) as drawn, the others null."""
    from pyspark.sql.pandas.types import to_arrow_schema

    schema = to_arrow_schema(df.schema)
    rows = min(sample.num_rows, rows)
    columns = [
        sample.column(f.name).slice(0, rows).cast(f.type) if f.name in sample.column_names else pa.nulls(rows, f.type)
        for f in schema
    ]
    return pa.Table.from_arrays(columns, schema=schema)


def _probe(df: "DataFrame", sample: pa.Table, config: ConfigLike, algorithm: str) -> None:
    """Anonymizes the sample's first rows (k = 1) on the driver: a config
    that does not fit the table (a type, a hierarchy) fails here, in one
    line, before any worker starts, and without a Spark job of its own."""
    probe = _probe_table(df, sample, _PROBE_ROWS)
    if probe.num_rows:
        _karc.anonymize(probe, **_config_args(config), algorithm=algorithm, k=1)


@dataclass
class _Whole:
    """What every fragment is told of the whole table: each numeric QI's
    (name, min, max), and each sensitive column the models hold on with
    its distribution (an Arrow table of values and rows)."""

    domains: List[Tuple[str, float, float]]
    sensitive: List[Tuple[str, pa.Table]]


def _fragment(
    df: "DataFrame",
    config: ConfigLike,
    k: Optional[int],
    fragments: Optional[int],
    seed: int,
    sample_rows: int,
    algorithm: str = "mondrian",
) -> _Fragmented:
    from pyspark.sql import functions as F

    schema = _schema(config, k)
    plan, _, sample = _planned(df, schema, fragments, seed, sample_rows)
    _probe(df, sample, config, algorithm)
    keys = _keys_of(schema)
    tagged = df.withColumn(_FRAGMENT, fragment_column(plan.tree, keys))
    # One aggregation: the rows of each fragment (by sensitive value, when
    # models hold on them: the table's distribution is their sum), and each
    # numeric QI's range over the whole table.
    numeric = [q for q, kind in schema.qis if kind in ("integer", "decimal")]
    ranges = []
    for i, q in enumerate(numeric):
        x = _column(q).cast("double")
        ranges += [F.min(x).alias(f"lo{i}"), F.max(x).alias(f"hi{i}")]
    by = [_FRAGMENT] + (schema.model_columns if schema.models else [])
    counted = _collect_arrow(tagged.groupBy(*[_column(c) for c in by]).agg(F.count(F.lit(1)).alias("rows"), *ranges))
    sums = counted.group_by(_FRAGMENT).aggregate([("rows", "sum")])
    counts = dict(zip(sums.column(_FRAGMENT).to_pylist(), sums.column("rows_sum").to_pylist()))
    domains = []
    for i, q in enumerate(numeric):
        lo, hi = pc.min(counted.column(f"lo{i}")).as_py(), pc.max(counted.column(f"hi{i}")).as_py()
        if lo is not None:
            domains.append((q, float(lo), float(hi)))
    references = {s: _distribution(counted, s) for s in schema.model_columns} if schema.models else {}
    holds = _holds(counted, references, _probe_table(df, sample, 1), config) if references else None
    tree, sizes = _merge_small(plan.tree, counts, schema, holds)
    plan = Plan(tree, len(sizes), plan.sample_rows)
    key_of = F.array(*[F.lit(x).cast("long") for x in _partition_keys(plan.fragments)])
    keyed = df.withColumn(_FRAGMENT, fragment_column(tree, keys)).withColumn(
        _KEY, F.element_at(key_of, F.col(_FRAGMENT).cast("int") + 1)
    )
    placed = keyed.repartition(plan.fragments, F.col(_KEY))
    return _Fragmented(placed, plan, sizes, schema, _Whole(domains, list(references.items())))


def _distribution(counted: pa.Table, column: str) -> pa.Table:
    """A sensitive column's whole-table distribution (values, rows), summed
    from the per-fragment counts."""
    summed = counted.group_by(column).aggregate([("rows", "sum")])
    return pa.table({"value": summed.column(column), "rows": pc.cast(summed.column("rows_sum"), pa.int64())})


def _holds(
    counted: pa.Table, references: Dict[str, pa.Table], probe: pa.Table, config: ConfigLike
) -> Callable[[List[List[int]]], List[bool]]:
    """Whether a group of fragments, as one class, meets the models beyond
    k (distinct l too) on every sensitive column, measured against the
    whole table's distributions by karc itself (``fragments_hold``)."""
    fragments = pc.max(counted.column(_FRAGMENT)).as_py() + 1
    matrices = {}
    for column, reference in references.items():
        at = pc.index_in(counted.column(column), value_set=reference.column("value"), skip_nulls=False)
        matrix = np.zeros((fragments, reference.num_rows), dtype=np.uint64)
        np.add.at(
            matrix,
            (counted.column(_FRAGMENT).to_numpy(), at.to_numpy(zero_copy_only=False)),
            counted.column("rows").to_numpy().astype(np.uint64),
        )
        matrices[column] = matrix
    args = _config_args(config)

    def holds(groups: List[List[int]]) -> List[bool]:
        met = [True] * len(groups)
        for column, matrix in matrices.items():
            classes = [matrix[g].sum(axis=0).tolist() for g in groups]
            found = _karc.fragments_hold(probe, column, references[column], classes, **args)
            met = [a and b for a, b in zip(met, found)]
        return met

    return holds


def _by_fragment(batches: Iterator[pa.RecordBatch]) -> Iterator[Tuple[int, pa.Table]]:
    """A partition's rows as one table per fragment (one, placed as planned),
    without karc's helper columns."""
    gathered = list(batches)
    if not gathered or sum(b.num_rows for b in gathered) == 0:
        return
    table = pa.Table.from_batches(gathered)
    fragment = table.column(_FRAGMENT)
    table = table.drop_columns([_FRAGMENT, _KEY])
    for f in pc.unique(fragment).to_pylist():
        rows = table.filter(pc.equal(fragment, f)) if len(pc.unique(fragment)) > 1 else table
        yield f, rows


def _overrides(algorithm: str, k: Optional[int], seed: int, suppression_limit: Optional[float]) -> Dict[str, Any]:
    return dict(algorithm=algorithm, k=k, seed=seed, suppression_limit=suppression_limit)


# ---------------------------------------------------------------------------
# anonymize


def anonymize(
    df: "DataFrame",
    config: ConfigLike,
    k: Optional[int] = None,
    algorithm: str = "mondrian",
    fragments: Optional[int] = None,
    seed: int = 0,
    *,
    sample_rows: int = 20_000,
    suppression_limit: Optional[float] = None,
    check: bool = True,
) -> "DataFrame":
    """Anonymize a Spark DataFrame fragment by fragment; returns the release.

    ``config`` is a TOML file's path or a dict (the Python package's); the
    driver reads it and the files it names, and ships them to the workers
    with the tasks (:mod:`karc.spark_config`). ``algorithm`` is any karc
    algorithm; local-recoding ones (``mondrian``, ``basic-mondrian``,
    ``topdown``) lose least by being cut; ``datafly`` and ``incognito`` run
    by frequency sets (:mod:`karc.spark_global`). ``fragments`` is the
    number planned (default: four per core); ``seed`` seeds the sample and
    the anonymizer. The release has every column but the identifiers, QIs
    as generalized labels.

    Every model of the config holds: k and its constraint sets, distinct,
    entropy and recursive ℓ and (α,k) class by class; t-closeness,
    δ-disclosure and β-likeness against the whole table's sensitive
    distribution, counted by the planning aggregation and given to every
    fragment. A fragment that could not meet them as one class is merged
    with its sibling in the cut tree before any worker starts.

    The call runs the plan's passes (the count, the sample, a probe of the
    config on the sample's rows on the driver, one aggregation counting each
    fragment) and returns a *lazy* DataFrame: the fragments are anonymized
    when an action (a write, a count) runs it, and again by each action
    unless the caller caches it. Unless ``check=False``, each worker checks
    the fragment it returns, on the very Arrow batches it returns, with
    pyarrow's group-by (not karc's anonymizer): every class over each
    constraint's QIs (rows of ``*`` in every QI aside) has at least k rows
    and l distinct sensitive values, else the action fails with a
    :class:`CheckFailedError` naming the fragment. :func:`check_release`
    counts the classes of the union itself, independently.
    """
    if algorithm in _GLOBAL:
        # Full-domain recoding: searched on the frequency set, not by fragments.
        return spark_global.anonymize(df, config, k, algorithm, seed=seed, suppression_limit=suppression_limit, check=check)
    frag = _fragment(df, config, k, fragments, seed, sample_rows, algorithm)
    release_type = _release_type(df, frag.schema)
    arrow_type = _arrow_schema(release_type)
    whole = frag.whole
    shipped = ship(config)
    overrides = _overrides(algorithm, k, seed, suppression_limit)
    schema = frag.schema if check else None
    qis = {q for q, _ in frag.schema.qis}

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for f, rows in _by_fragment(batches):
            # Only the QIs (and sensitive columns) go through karc; the
            # other columns are the input's Arrow arrays, passed through.
            labels, _ = _karc.generalize_fragment(rows, whole.domains, whole.sensitive, **shipped.args(), **overrides)
            columns = [labels.column(n) if n in qis else rows.column(n) for n in arrow_type.names]
            release = pa.Table.from_arrays(columns, schema=arrow_type)
            if schema is not None:
                _check_fragment(release, f, schema)
            yield from release.to_batches()

    return frag.frame.mapInArrow(run, release_type)


def _arrow_schema(spark_type: Any) -> pa.Schema:
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(spark_type)


# ---------------------------------------------------------------------------
# pack


def pack(
    df: "DataFrame",
    output: PathLike,
    config: ConfigLike,
    *,
    recipients: Optional[Sequence[str]] = None,
    recipients_files: Optional[Sequence[PathLike]] = None,
    passphrase: Optional[str] = None,
    work_factor: Optional[int] = None,
    no_encryption: bool = False,
    k: Optional[int] = None,
    algorithm: str = "mondrian",
    fragments: Optional[int] = None,
    seed: int = 0,
    sample_rows: int = 20_000,
    suppression_limit: Optional[float] = None,
    mode: Optional[str] = None,
    parts: Optional[str] = None,
    staging: Optional[PathLike] = None,
    sign: Optional[PathLike] = None,
    sign_passphrase: Optional[str] = None,
) -> Dict[str, Any]:
    """Anonymize ``df`` on the workers and write one ``.karc`` to ``output``
    (a path on the driver).

    Each fragment is anonymized and coded by its worker as a *part* (a
    one-row-group ``.karc`` sealed for a one-off key the driver makes and
    keeps in memory). The parts travel through Spark, never through a
    shared folder (:mod:`karc.spark_parts`): kept in Spark's storage by
    default, or written by the workers to ``parts`` (a URI: ``hdfs://``,
    ``s3a://``, ``file://`` ...) when given. The driver merges them in
    fragment order, one at a time: it copies their public sections,
    re-seals their private parts for ``recipients`` (or the
    ``passphrase``; exactly one way, as :func:`karc.pack`), and writes
    ``META`` for the whole table. The file's claim names every model of
    the config, which every reader re-checks on the whole file.
    ``staging=`` (a folder both sides saw) is refused: drop it.

    With ``sign`` (a publisher's secret key file, ``sign_passphrase`` when
    protected), the driver signs the merged file (:func:`karc.sign`).

    A restore gives the rows grouped by fragment (fragment 0 first), each
    fragment's rows in the order its worker received them; the values are
    those of the DataFrame as text (its canonical CSV, FORMAT §7.6). Add a
    row-number column to restore the original order. Returns the report.
    """
    spark_parts.refuse_staging(staging)
    if algorithm in _GLOBAL:
        # Full-domain recoding: searched on the frequency set, not by fragments.
        return spark_global.pack(
            df, output, config, recipients=recipients, recipients_files=recipients_files, passphrase=passphrase,
            work_factor=work_factor, no_encryption=no_encryption, k=k, algorithm=algorithm, seed=seed,
            suppression_limit=suppression_limit, mode=mode, parts=parts, sign=sign, sign_passphrase=sign_passphrase,
        )
    seal = _seal_args(recipients, recipients_files, passphrase, work_factor, no_encryption)
    frag = _fragment(df, config, k, fragments, seed, sample_rows, algorithm)
    whole = frag.whole
    identity, recipient = _karc.part_key()
    output = os.fspath(output)
    shipped = ship(config)
    overrides = dict(**_overrides(algorithm, k, seed, suppression_limit), mode=mode)

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for f, rows in _by_fragment(batches):
            part, report = _karc.encode_part(
                rows, recipient, f == 0, whole.domains, whole.sensitive, **shipped.args(), **overrides
            )
            yield spark_parts.part_batch(f, part, json.loads(report))

    params = {"distributed": "spark", "fragments": frag.plan.fragments, "sample_rows": frag.plan.sample_rows, "sample_seed": seed}
    parts_df = frag.frame.mapInArrow(run, spark_parts.PART_TYPE)
    merged, counts = spark_parts.merge(parts_df, list(range(frag.plan.fragments)), output, identity, params, seal, parts)
    if sign is not None:
        merged["signed"] = _karc.sign_file(output, os.fspath(sign), sign_passphrase, None, False)
    merged["fragments"] = frag.plan.fragments
    merged["fragment_rows"] = [c["rows"] for c in counts]
    merged["part_bytes"] = sum(c["bytes"] for c in counts)
    merged["algorithm"] = algorithm
    merged["models"] = sorted(["k"] + list(frag.schema.models))
    return merged

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
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

import pyarrow as pa
import pyarrow.compute as pc

from . import _karc
from . import BadInputError, CheckFailedError, ConfigLike, PathLike, _config_args, _seal_args
from .spark_cuts import (  # noqa: F401 - _numeric, _murmur3_long: names other modules and the tests use
    Plan,
    _column,
    _Keys,
    _cut,
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
_GLOBAL = ("datafly", "incognito")


# ---------------------------------------------------------------------------
# The config: what the driver needs to know of it.


@dataclass
class _Schema:
    """The config's columns as the distribution needs them."""

    qis: List[Tuple[str, str]]  # (name, "integer" | "decimal" | "categorical")
    identifiers: List[str]
    k: int  # the largest k of the claim: every fragment holds at least this many rows
    sensitive: Optional[str]
    l: Optional[int]  # noqa: E741 - the l of l-diversity
    constraints: List[Tuple[List[str], int]]
    columns: List[str] = field(default_factory=list)
    #: The columns the anonymizer reads beside the QIs: the sensitive ones.
    read: List[str] = field(default_factory=list)
    leaf_order: Dict[str, Dict[str, int]] = field(default_factory=dict)


def _read_config(config: ConfigLike) -> Tuple[Dict[str, Any], str]:
    """The config as a dict, and the folder its relative paths start from."""
    if isinstance(config, Mapping):
        return dict(config), os.getcwd()
    if isinstance(config, (str, os.PathLike)):
        import tomllib

        path = os.fspath(config)
        try:
            with open(path, "rb") as f:
                return tomllib.load(f), os.path.dirname(os.path.abspath(path))
        except OSError as e:
            raise BadInputError(f"{path}: {e.strerror}") from None
        except tomllib.TOMLDecodeError as e:
            raise BadInputError(f"{path}: not TOML: {e}") from None
    raise BadInputError(f"config: expected a TOML file's path or a dict, found {type(config).__name__}")


def _leaf_order(path: str, delimiter: str = ";") -> Dict[str, int]:
    """A hierarchy file's leaves (first column, ARX's format) in file order."""
    order: Dict[str, int] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            leaf = line.rstrip("\r\n").split(delimiter, 1)[0]
            if line.strip() and leaf not in order:
                order[leaf] = len(order)
    return order


def _sensitive_columns(columns: List[Dict[str, Any]], privacy: Dict[str, Any]) -> List[str]:
    """The sensitive columns: of role "sensitive", or named by
    ``[privacy] sensitive`` (a name or a list)."""
    named = privacy.get("sensitive") or []
    named = [named] if isinstance(named, str) else list(named)
    return [c["name"] for c in columns if c.get("role") == "sensitive" or c["name"] in named]


def _schema(config: ConfigLike, k: Optional[int]) -> _Schema:
    table, base = _read_config(config)
    columns = table.get("columns", [])
    qis = [(c["name"], c.get("type", "categorical")) for c in columns if c.get("role") == "quasi"]
    if not qis:
        raise BadInputError("config: no column has role = \"quasi\": nothing to anonymize")
    privacy = table.get("privacy", {})
    constraints = [(list(c["qi"]), int(c["k"])) for c in privacy.get("constraints", [])]
    ks = [int(k)] if k is not None else ([n for _, n in constraints] or [int(privacy.get("k", 0))])
    if max(ks) < 1:
        raise BadInputError("config: [privacy] needs k (or constraints), or pass k=")
    leaf_order = {}
    for c in columns:
        # A hierarchy file's leaf order (a built hierarchy, a TOML table, has none to read).
        if c.get("role") == "quasi" and isinstance(c.get("hierarchy"), str) and c.get("type", "categorical") == "categorical":
            leaf_order[c["name"]] = _leaf_order(os.path.join(base, c["hierarchy"]))
    return _Schema(
        qis=qis,
        identifiers=[c["name"] for c in columns if c.get("role") == "identifier"],
        k=max(ks),
        sensitive=privacy.get("sensitive"),
        l=privacy.get("l"),
        constraints=constraints if k is None else [],
        columns=[c["name"] for c in columns],
        read=_sensitive_columns(columns, privacy),
        leaf_order=leaf_order,
    )


@dataclass
class _Fragmented:
    """The table, its rows tagged with their fragment and partition key."""

    frame: "DataFrame"
    plan: Plan
    sizes: List[int]
    schema: _Schema
    #: Each numeric QI's (name, min, max) over the whole table.
    domains: List[Tuple[str, float, float]]


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


def _probe(df: "DataFrame", sample: pa.Table, config: ConfigLike, algorithm: str) -> None:
    """Anonymizes the sample's first rows (k = 1) on the driver, the columns
    the anonymizer reads (QIs, sensitive) as drawn and the others null: a
    config that does not fit the table (a type, a hierarchy) fails here, in
    one line, before any worker starts, and without a Spark job of its own."""
    from pyspark.sql.pandas.types import to_arrow_schema

    schema = to_arrow_schema(df.schema)
    rows = min(sample.num_rows, _PROBE_ROWS)
    if rows == 0:
        return
    columns = [
        sample.column(f.name).slice(0, rows).cast(f.type) if f.name in sample.column_names else pa.nulls(rows, f.type)
        for f in schema
    ]
    probe = pa.Table.from_arrays(columns, schema=schema)
    _karc.anonymize(probe, **_config_args(config), algorithm=algorithm, k=1)


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
    # One aggregation: the rows of each fragment (and its sensitive values,
    # for l), and each numeric QI's range over the whole table.
    numeric = [q for q, kind in schema.qis if kind in ("integer", "decimal")]
    ranges = []
    for i, q in enumerate(numeric):
        x = _column(q).cast("double")
        ranges += [F.min(x).alias(f"lo{i}"), F.max(x).alias(f"hi{i}")]
    by = [_FRAGMENT] + ([schema.sensitive] if schema.l is not None else [])
    counts: Dict[int, int] = {}
    values: Dict[int, set] = {}
    lows: Dict[str, float] = {}
    highs: Dict[str, float] = {}
    for r in tagged.groupBy(*by).agg(F.count(F.lit(1)).alias("rows"), *ranges).collect():
        counts[r[_FRAGMENT]] = counts.get(r[_FRAGMENT], 0) + r["rows"]
        if schema.l is not None:
            values.setdefault(r[_FRAGMENT], set()).add(r[schema.sensitive])
        for i, q in enumerate(numeric):
            if r[f"lo{i}"] is not None:
                lows[q] = min(lows.get(q, r[f"lo{i}"]), r[f"lo{i}"])
                highs[q] = max(highs.get(q, r[f"hi{i}"]), r[f"hi{i}"])
    domains = [(q, float(lows[q]), float(highs[q])) for q in numeric if q in lows]
    tree, sizes = _merge_small(plan.tree, counts, values, schema)
    plan = Plan(tree, len(sizes), plan.sample_rows)
    key_of = F.array(*[F.lit(x).cast("long") for x in _partition_keys(plan.fragments)])
    keyed = df.withColumn(_FRAGMENT, fragment_column(tree, keys)).withColumn(
        _KEY, F.element_at(key_of, F.col(_FRAGMENT).cast("int") + 1)
    )
    placed = keyed.repartition(plan.fragments, F.col(_KEY))
    return _Fragmented(placed, plan, sizes, schema, domains)


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


def _release_type(df: "DataFrame", schema: _Schema) -> Any:
    """The release's Spark schema: every column but the identifiers, the QIs
    as strings (generalized labels), the others as they are."""
    from pyspark.sql.types import StringType, StructField, StructType

    qis = {q for q, _ in schema.qis}
    return StructType(
        [
            StructField(f.name, StringType(), True) if f.name in qis else f
            for f in df.schema.fields
            if f.name not in schema.identifiers
        ]
    )


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

    ``config`` is a TOML file's path or a dict (the Python package's); its
    hierarchy files must be readable where the workers run. ``algorithm``
    is any karc algorithm; local-recoding ones (``mondrian``,
    ``basic-mondrian``, ``topdown``) lose least by being cut; ``datafly``
    and ``incognito`` run by frequency sets (:mod:`karc.spark_global`). ``fragments``
    is the number planned (default: four per core); ``seed`` seeds the
    sample and the anonymizer. The release has every column but the
    identifiers, QIs as generalized labels.

    The call runs the plan's passes (the count, the sample, a probe of the
    config on the sample's rows on the driver, one aggregation counting each
    fragment) and
    returns a *lazy* DataFrame: the fragments are anonymized when an action
    (a write, a count) runs it, and again by each action unless the caller
    caches it. Unless ``check=False``, each worker checks the fragment it
    returns, on the very Arrow batches it returns, with pyarrow's group-by
    (not karc's anonymizer): every class over each constraint's QIs (rows
    of ``*`` in every QI aside) has at least k rows and l distinct sensitive
    values, else the action fails with a :class:`CheckFailedError` naming
    the fragment. That holds for the union, since a class of the union is a
    union of fragment classes. :func:`check_release` counts the classes of
    the union itself, independently, when the caller wants it.
    """
    if algorithm in _GLOBAL:
        # Full-domain recoding: searched on the frequency set, not by fragments.
        from . import spark_global

        return spark_global.anonymize(df, config, k, algorithm, seed=seed, suppression_limit=suppression_limit, check=check)
    frag = _fragment(df, config, k, fragments, seed, sample_rows, algorithm)
    release_type = _release_type(df, frag.schema)
    arrow_type = _arrow_schema(release_type)
    domains = frag.domains
    args = dict(**_config_args(config), **_overrides(algorithm, k, seed, suppression_limit))
    schema = frag.schema if check else None
    qis = {q for q, _ in frag.schema.qis}

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for f, rows in _by_fragment(batches):
            # Only the QIs (and sensitive columns) go through karc; the
            # other columns are the input's Arrow arrays, passed through.
            labels, _ = _karc.generalize_fragment(rows, domains, **args)
            columns = [labels.column(n) if n in qis else rows.column(n) for n in arrow_type.names]
            release = pa.Table.from_arrays(columns, schema=arrow_type)
            if schema is not None:
                _check_fragment(release, f, schema)
            yield from release.to_batches()

    return frag.frame.mapInArrow(run, release_type)


def _arrow_schema(spark_type: Any) -> pa.Schema:
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(spark_type)


def _check_fragment(release: pa.Table, fragment: int, schema: _Schema) -> None:
    """Raises :class:`CheckFailedError` when a class of this fragment's
    release (rows of ``*`` in every QI aside) over a constraint's QIs has
    fewer than k rows or fewer than l distinct sensitive values: counted by
    pyarrow on the labels returned, independent of the anonymizer."""
    qis = [q for q, _ in schema.qis]
    star = None
    for q in qis:
        is_star = pc.fill_null(pc.equal(release.column(q), "*"), False)
        star = is_star if star is None else pc.and_(star, is_star)
    plain = release.filter(pc.invert(star)) if star is not None else release
    if plain.num_rows == 0:
        return
    for columns, need in schema.constraints or [(qis, schema.k)]:
        aggregates = [([], "count_all")]
        if schema.l is not None:
            aggregates.append((schema.sensitive, "count_distinct"))
        classes = plain.group_by(columns, use_threads=False).aggregate(aggregates)
        smallest = pc.min(classes.column("count_all")).as_py()
        if smallest < need:
            raise CheckFailedError(
                f"karc.spark: fragment {fragment} ({release.num_rows} rows) breaks its claim: "
                f"a class over {columns} has {smallest} rows, below k = {need}"
            )
        if schema.l is not None:
            fewest = pc.min(classes.column(f"{schema.sensitive}_count_distinct")).as_py()
            if fewest < schema.l:
                raise CheckFailedError(
                    f"karc.spark: fragment {fragment} ({release.num_rows} rows) breaks its claim: "
                    f"a class over {columns} has {fewest} distinct {schema.sensitive!r}, below l = {schema.l}"
                )


def check_release(release: "DataFrame", config: ConfigLike, k: Optional[int] = None) -> Dict[str, Any]:
    """Counts the release's classes over each constraint's QIs with Spark and
    raises :class:`CheckFailedError` when one (rows of ``*`` in every QI
    aside) has fewer than k rows or fewer than l distinct sensitive values.
    Returns what it counted."""
    from pyspark.sql import functions as F

    schema = _schema(config, k)
    qis = [q for q, _ in schema.qis]
    sets = schema.constraints or [(qis, schema.k)]
    star = F.lit(True)
    for q in qis:
        star = star & (_column(q) == F.lit("*"))
    flagged = release.withColumn("__karc_star", star)
    report: Dict[str, Any] = {"constraints": []}
    for columns, need in sets:
        aggs = [F.count(F.lit(1)).alias("rows")]
        if schema.l is not None:
            aggs.append(F.countDistinct(_column(schema.sensitive)).alias("values"))
        classes = flagged.groupBy("__karc_star", *[_column(c) for c in columns]).agg(*aggs)
        bad = ~F.col("__karc_star") & (F.col("rows") < need)
        if schema.l is not None:
            bad = bad | (~F.col("__karc_star") & (F.col("values") < schema.l))
        plain = ~F.col("__karc_star")
        summary = classes.agg(
            F.sum(plain.cast("int")).alias("classes"),
            F.min(F.when(plain, F.col("rows"))).alias("min"),
            F.sum(bad.cast("int")).alias("bad"),
            F.sum(F.when(~plain, F.col("rows")).otherwise(0)).alias("stars"),
        ).first()
        if summary["bad"]:
            raise CheckFailedError(
                f"the release breaks its claim: {summary['bad']} classes over {columns} below k = {need}"
                + (f" or l = {schema.l}" if schema.l is not None else "")
            )
        report["constraints"].append({"qi": columns, "k": need, "classes": summary["classes"], "min_class": summary["min"]})
        report["star_rows"] = summary["stars"] or 0
    return report


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
    staging: Optional[PathLike] = None,
    sign: Optional[PathLike] = None,
    sign_passphrase: Optional[str] = None,
) -> Dict[str, Any]:
    """Anonymize ``df`` on the workers and write one ``.karc`` to ``output``.

    With ``sign`` (a publisher's secret key file, ``sign_passphrase`` when
    protected), the driver signs the merged file (:func:`karc.sign`).

    Each fragment is anonymized and coded by its worker as a *part* (a
    one-row-group ``.karc`` sealed for a one-off key the driver makes and
    keeps in memory), written to ``staging`` (default: a new folder beside
    ``output``; it must be a path both the workers and the driver see). The
    driver then merges the parts in fragment order: it copies their public
    sections, re-seals their private parts for ``recipients`` (or the
    ``passphrase``; exactly one way, as :func:`karc.pack`) one part at a
    time, and writes ``META`` for the whole table. The driver never holds
    the table, only one part at a time.

    A restore gives the rows grouped by fragment (fragment 0 first), each
    fragment's rows in the order its worker received them; the values are
    those of the DataFrame as text (its canonical CSV, FORMAT §7.6). Add a
    row-number column to restore the original order. Returns the report.
    """
    if algorithm in _GLOBAL:
        # Full-domain recoding: searched on the frequency set, not by fragments.
        from . import spark_global

        return spark_global.pack(
            df, output, config, recipients=recipients, recipients_files=recipients_files, passphrase=passphrase,
            work_factor=work_factor, no_encryption=no_encryption, k=k, algorithm=algorithm, seed=seed,
            suppression_limit=suppression_limit, mode=mode, staging=staging,
        )
    seal = _seal_args(recipients, recipients_files, passphrase, work_factor, no_encryption)
    frag = _fragment(df, config, k, fragments, seed, sample_rows, algorithm)
    domains = frag.domains
    identity, recipient = _karc.part_key()
    output = os.fspath(output)
    parent = os.path.dirname(os.path.abspath(output))
    own_staging = staging is None
    folder = tempfile.mkdtemp(prefix=".karc-parts-", dir=parent) if own_staging else os.fspath(staging)
    os.makedirs(folder, exist_ok=True)
    args = dict(**_config_args(config), **_overrides(algorithm, k, seed, suppression_limit), mode=mode)

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for f, rows in _by_fragment(batches):
            part, report = _karc.encode_part(rows, recipient, f == 0, domains, **args)
            report = json.loads(report)
            path = os.path.join(folder, f"part-{f:06d}.karc")
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as out:
                out.write(part)
            yield pa.RecordBatch.from_pylist(
                [
                    {
                        "fragment": f,
                        "path": path,
                        "rows": report["rows"],
                        "suppressed": report["suppressed"],
                        "classes": report["classes"],
                        "bytes": len(part),
                    }
                ]
            )

    part_type = "fragment long, path string, rows long, suppressed long, classes long, bytes long"
    try:
        parts = sorted(frag.frame.mapInArrow(run, part_type).collect(), key=lambda r: r["fragment"])
        if [p["fragment"] for p in parts] != list(range(frag.plan.fragments)):
            raise CheckFailedError(
                f"expected parts of fragments 0..{frag.plan.fragments - 1}, found {[p['fragment'] for p in parts]}"
            )
        params = json.dumps(
            {"distributed": "spark", "fragments": frag.plan.fragments, "sample_rows": frag.plan.sample_rows, "sample_seed": seed}
        )
        merged = json.loads(
            _karc.merge_parts([(p["path"], p["suppressed"], p["classes"]) for p in parts], output, identity, params, **seal)
        )
    finally:
        if own_staging:
            shutil.rmtree(folder, ignore_errors=True)
    if sign is not None:
        merged["signed"] = _karc.sign_file(os.fspath(output), os.fspath(sign), sign_passphrase, None, False)
    merged["fragments"] = frag.plan.fragments
    merged["fragment_rows"] = [p["rows"] for p in parts]
    merged["part_bytes"] = sum(p["bytes"] for p in parts)
    merged["algorithm"] = algorithm
    return merged

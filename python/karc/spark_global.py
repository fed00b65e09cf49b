"""Full-domain generalization (Datafly, Incognito) on Apache Spark, by
frequency sets.

A full-domain (global) recoding generalizes every value of a QI to the
same level of its hierarchy, so every count Datafly and Incognito need is
read off the table's *frequency set*: its distinct QI tuples, each with
the rows that carry it (LeFevre, DeWitt and Ramakrishnan, SIGMOD 2005).
Spark computes that set with one aggregation (``groupBy(QIs).count()``);
the driver holds one entry per distinct tuple, never the rows, and runs
karc's own Datafly or Incognito on it (the native ``search_frequencies``:
every coarser node is rolled up from that set on the driver, Incognito's
own idea). The search returns the chosen levels, each tuple's labels at
them and the tuples whose class is too small (suppressed). The workers then
release their rows independently in ``mapInArrow``: each QI value looked up
in the driver's map of labels, the rows of a suppressed tuple set to ``*``.

The result is the one ``karc anonymize -a datafly|incognito`` gives on the
same rows: same levels, same suppressed rows, same labels (the tests check
it). ``pack`` writes each Spark partition as one row group of a single
``.karc`` (see :func:`karc.spark.pack`); the whole table's figures (classes,
suppression budget) come from the frequency set, since a class of a global
recoding spans partitions. A hierarchy the config builds from the data
(``hierarchy = { intervals = [...] }``) is built once on the driver, on
every value of the frequency set, and the workers load that one (shipped
with the tasks, :mod:`karc.spark_config`), so every part carries the whole
table's hierarchy.

The frequency set must fit the driver: ``max_tuples`` bounds it (at most
``max_tuples + 1`` entries are collected; a distinct tuple costs the driver
about 100 bytes plus its texts). Above it the search is refused in one
line, naming the bound: aggregating at a coarser node would make
Incognito miss the minimal nodes below it, and Datafly's walk up to such a
node in Spark is not built yet.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Sequence, Tuple

import pyarrow as pa
import pyarrow.compute as pc

from . import _karc
from . import BadInputError, CheckFailedError, ConfigLike, PathLike, _config_args, _seal_args
from . import spark_parts
from .spark_claim import check_release
from .spark_config import _column, _release_type, _schema, ship
from .spark_cuts import _numeric

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["ALGORITHMS", "Choice", "anonymize", "pack", "search"]

#: The algorithms searched on a frequency set.
ALGORITHMS = ("datafly", "incognito")

#: Column name of the counts in the frequency set.
_COUNT = "__karc_count"


@dataclass
class Choice:
    """What the search on the frequency set chose, and the recoding the
    workers apply (``labels``: per QI, its distinct values as text and each
    one's label; ``suppressed``: the label tuples whose rows become ``*``)."""

    algorithm: str
    qis: List[str]
    levels: Dict[str, int]
    minimal_levels: Optional[List[Dict[str, int]]]
    rows: int
    tuples: int
    #: Rows of ``*`` in every QI.
    star_rows: int
    #: Rows that count as suppressed: the star rows, unless they number at
    #: least max k and so stand as a class of their own (FORMAT §5), as the
    #: single-process report counts them.
    suppressed_rows: int
    suppression_budget: int
    classes: int
    squares: float
    star_class: bool
    domains: List[Tuple[str, float, float]]
    #: The hierarchies the config builds from the data, built on every
    #: value of the table: (QI, ARX hierarchy text).
    built_hierarchies: List[Tuple[str, str]]
    labels: Dict[str, Tuple[pa.Array, pa.Array, pa.Array]] = field(repr=False)
    suppressed: pa.Array = field(repr=False)

    def report(self) -> Dict[str, Any]:
        """The choice as a plain dict (no Arrow arrays)."""
        return {
            "algorithm": self.algorithm,
            "levels": self.levels,
            "minimal_levels": self.minimal_levels,
            "rows": self.rows,
            "tuples": self.tuples,
            "star_rows": self.star_rows,
            "suppressed_rows": self.suppressed_rows,
            "suppression_budget": self.suppression_budget,
            "classes": self.classes,
        }


def _check(df: "DataFrame", config: ConfigLike, k: Optional[int], algorithm: str) -> Any:
    if algorithm not in ALGORITHMS:
        raise BadInputError(f"algorithm: expected one of {', '.join(ALGORITHMS)} by frequency sets, found {algorithm!r}")
    schema = _schema(config, k)
    missing = [c for c in schema.columns if c not in df.columns]
    if missing:
        raise BadInputError(f"the DataFrame has no column {missing[0]!r} (listed in the config); it has {df.columns}")
    unlisted = [c for c in df.columns if c not in schema.columns]
    if unlisted:
        raise BadInputError(f'column "{unlisted[0]}" of the DataFrame is not listed in the config: every column needs a role')
    return schema


def _texts(column: pa.Array) -> pa.Array:
    """A QI column as the text both the driver and the workers key it by."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    return column if pa.types.is_string(column.type) else pc.cast(column, pa.string())


def _collect(frame: "DataFrame") -> pa.Table:
    """A small DataFrame (the frequency set) as one Arrow table on the driver."""
    from pyspark.sql.pandas.types import to_arrow_schema

    batches = frame._collect_as_arrow()
    arrow_schema = to_arrow_schema(frame.schema)
    return pa.Table.from_batches(batches, schema=arrow_schema) if batches else arrow_schema.empty_table()


def search(
    df: "DataFrame",
    config: ConfigLike,
    k: Optional[int] = None,
    algorithm: str = "datafly",
    *,
    seed: int = 0,
    suppression_limit: Optional[float] = None,
    max_tuples: int = 5_000_000,
) -> Choice:
    """Runs ``algorithm`` (datafly or incognito) on ``df``'s frequency set:
    one Spark aggregation, the search on the driver. Returns the choice."""
    schema = _check(df, config, k, algorithm)
    qis = [q for q, _ in schema.qis]
    frequencies = df.groupBy(*[_column(q) for q in qis]).agg(_count())
    # One Spark job: at most max_tuples + 1 entries ever reach the driver.
    table = _collect(frequencies.limit(max_tuples + 1))
    if table.num_rows > max_tuples:
        raise BadInputError(
            f"the frequency set of {qis} has more than max_tuples = {max_tuples:,} distinct tuples: "
            "raise max_tuples (the driver holds one entry per tuple), or use mondrian by fragments"
        )
    return _search_table(table, config, k, algorithm, seed, suppression_limit, schema)


def _count() -> Any:
    from pyspark.sql import functions as F

    return F.count(F.lit(1)).alias(_COUNT)


def _search_table(
    table: pa.Table,
    config: ConfigLike,
    k: Optional[int],
    algorithm: str,
    seed: int,
    suppression_limit: Optional[float],
    schema: Any,
) -> Choice:
    qis = [q for q, _ in schema.qis]
    counts = table.column(_COUNT).to_pylist()
    found, labels, suppressed = _karc.search_frequencies(
        table.select(qis),
        counts,
        **_config_args(config),
        algorithm=algorithm,
        k=k,
        seed=seed,
        suppression_limit=suppression_limit,
    )
    found = json.loads(found)
    suppressed = pa.array(suppressed, pa.bool_())
    maps: Dict[str, Tuple[pa.Array, pa.Array, pa.Array]] = {}
    ids = []
    for q in qis:
        raw = _texts(table.column(q))
        label = labels.column(q).combine_chunks()
        distinct = pc.unique(label)
        label_id = pc.index_in(label, value_set=distinct)
        # One entry per distinct raw value (a value has one label at a level).
        first = pc.index_in(pc.unique(raw), value_set=raw, skip_nulls=False)
        values = pc.take(raw, first)
        maps[q] = (values, pc.take(label_id, first), distinct)
        ids.append(label_id)
    keys = _keys(ids, [len(maps[q][2]) for q in qis])
    bad = pc.unique(pc.filter(keys, suppressed))
    counts_arr = pa.array(counts, pa.int64())
    star_rows = pc.sum(pc.filter(counts_arr, suppressed)).as_py() or 0
    kept = pa.table({"key": pc.filter(keys, pc.invert(suppressed)), "n": pc.filter(counts_arr, pc.invert(suppressed))})
    sizes = kept.group_by("key").aggregate([("n", "sum")]).column("n_sum").to_numpy()
    max_k = max([schema.k] + [n for _, n in schema.constraints])
    star_class = star_rows >= max_k  # stars of at least max k rows stand as a class (FORMAT §5)
    domains = []
    for q, kind in schema.qis:
        if kind in ("integer", "decimal"):
            numbers = _numeric(table.column(q).combine_chunks())
            numbers = numbers[numbers == numbers]
            if len(numbers):
                domains.append((q, float(numbers.min()), float(numbers.max())))
    levels = dict(zip(found["qis"], found["levels"]))
    minimal = found.get("minimal_levels")
    return Choice(
        algorithm=found["algorithm"],
        qis=found["qis"],
        levels=levels,
        minimal_levels=[dict(zip(found["qis"], m)) for m in minimal] if minimal else None,
        rows=found["rows"],
        tuples=found["tuples"],
        star_rows=found["suppressed_rows"],
        suppressed_rows=0 if star_class else found["suppressed_rows"],
        suppression_budget=found["suppression_budget"],
        classes=len(sizes) + (1 if star_class else 0),
        squares=float((sizes.astype(float) ** 2).sum()) + (float(star_rows) ** 2 if star_class else 0.0),
        star_class=star_class,
        domains=domains,
        built_hierarchies=[tuple(h) for h in found["built_hierarchies"]],
        labels=maps,
        suppressed=bad,
    )


def _keys(ids: List[pa.Array], radices: List[int]) -> pa.Array:
    """Each row's tuple of label ids as one key: a mixed-radix int64 when
    the product of the radices fits, else the ids joined as text."""
    space = 1
    for r in radices:
        space *= max(1, r)
    if space < 2**62:
        key = pa.scalar(0, pa.int64())
        for i, r in zip(ids, radices):
            key = pc.add(pc.multiply(key, max(1, r)), pc.cast(i, pa.int64()))
        if isinstance(key, pa.Scalar):
            return pa.array([], pa.int64())
        return key
    return pc.binary_join_element_wise(*[pc.cast(i, pa.string()) for i in ids], ",")


def _recode(rows: pa.Table, choice: Choice) -> Tuple[Dict[str, pa.Array], pa.Array]:
    """A fragment's QI labels (suppressed rows as ``*``) and its suppressed
    mask, by the driver's maps: every row on its own."""
    ids = []
    labels = {}
    for q in choice.qis:
        values, label_ids, distinct = choice.labels[q]
        at = pc.index_in(_texts(rows.column(q)), value_set=values, skip_nulls=False)
        if at.null_count:
            missing = pc.filter(_texts(rows.column(q)), pc.is_null(at))[0]
            raise CheckFailedError(
                f"column {q!r}: value {missing.as_py()!r} is not in the frequency set the search ran on: "
                "the DataFrame changed between the count and the release (cache or checkpoint it)"
            )
        i = pc.take(label_ids, at)
        ids.append(i)
        labels[q] = pc.take(distinct, i)
    if len(choice.suppressed):
        mask = pc.is_in(_keys(ids, [len(choice.labels[q][2]) for q in choice.qis]), value_set=choice.suppressed)
    else:
        mask = pa.array([False] * rows.num_rows, pa.bool_())
    star = pa.scalar("*", pa.string())
    return {q: pc.if_else(mask, star, labels[q]) for q in choice.qis}, mask


def anonymize(
    df: "DataFrame",
    config: ConfigLike,
    k: Optional[int] = None,
    algorithm: str = "datafly",
    *,
    seed: int = 0,
    suppression_limit: Optional[float] = None,
    max_tuples: int = 5_000_000,
    choice: Optional[Choice] = None,
    check: bool = True,
) -> "DataFrame":
    """Anonymize a Spark DataFrame by a full-domain recoding (datafly or
    incognito) searched on its frequency set; returns the release (every
    column but the identifiers, QIs as labels, the others as they are, rows
    in the input's order). ``choice`` reuses a :func:`search`'s result.
    Unless ``check=False`` the release's classes are counted with Spark
    (:func:`karc.spark.check_release`)."""
    from pyspark import StorageLevel

    schema = _check(df, config, k, algorithm)
    if choice is None:
        choice = search(df, config, k, algorithm, seed=seed, suppression_limit=suppression_limit, max_tuples=max_tuples)
    release_type = _release_type(df, schema)
    from pyspark.sql.pandas.types import to_arrow_schema

    arrow_type = to_arrow_schema(release_type)
    qis = set(choice.qis)

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            rows = pa.Table.from_batches([batch])
            labels, _ = _recode(rows, choice)
            columns = [labels[n] if n in qis else rows.column(n) for n in arrow_type.names]
            yield from pa.Table.from_arrays(columns, schema=arrow_type).to_batches()

    release = df.mapInArrow(run, release_type).persist(StorageLevel.MEMORY_AND_DISK)
    if check:
        check_release(release, config, k)
    return release


def _partition_rows(df: "DataFrame") -> Dict[int, int]:
    from pyspark.sql import functions as F

    counted = df.select(F.spark_partition_id().alias("p")).groupBy("p").count().collect()
    return {r["p"]: r["count"] for r in counted}


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
    algorithm: str = "datafly",
    seed: int = 0,
    suppression_limit: Optional[float] = None,
    mode: Optional[str] = None,
    parts: Optional[str] = None,
    staging: Optional[PathLike] = None,
    max_tuples: int = 5_000_000,
    choice: Optional[Choice] = None,
    sign: Optional[PathLike] = None,
    sign_passphrase: Optional[str] = None,
) -> Dict[str, Any]:
    """Anonymize ``df`` by a full-domain recoding searched on its frequency
    set and write one ``.karc`` to ``output``: each non-empty Spark
    partition is released by the driver's recoding and coded by its worker
    as a part (sealed for a one-off key), then merged as
    :func:`karc.spark.pack` merges fragments. A restore gives the rows in
    the DataFrame's order (partition by partition). Returns the report,
    with the levels chosen."""
    from pyspark import TaskContext

    spark_parts.refuse_staging(staging)
    seal = _seal_args(recipients, recipients_files, passphrase, work_factor, no_encryption)
    _check(df, config, k, algorithm)
    if choice is None:
        choice = search(df, config, k, algorithm, seed=seed, suppression_limit=suppression_limit, max_tuples=max_tuples)
    sizes = _partition_rows(df)
    first = min(p for p, n in sizes.items() if n > 0) if sizes else 0
    identity, recipient = _karc.part_key()
    output = os.fspath(output)
    # Each hierarchy the config builds from the data goes to the workers as
    # the one the driver built on the whole table's values: every part
    # carries the same.
    shipped = ship(config, dict(choice.built_hierarchies))
    overrides = dict(algorithm=algorithm, k=k, seed=seed, suppression_limit=suppression_limit, mode=mode)
    levels = [choice.levels[q] for q in choice.qis]
    rows_total = choice.rows

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        gathered = list(batches)
        if not gathered or sum(b.num_rows for b in gathered) == 0:
            return
        p = TaskContext.get().partitionId()
        rows = pa.Table.from_batches(gathered)
        _, mask = _recode(rows, choice)
        part, report = _karc.encode_recoded_part(
            rows, recipient, p == first, levels, mask.to_pylist(), rows_total, choice.domains, **shipped.args(), **overrides
        )
        yield spark_parts.part_batch(p, part, json.loads(report))

    expected = sorted(p for p, n in sizes.items() if n > 0)
    params = {"distributed": "spark", "frequency_set": choice.tuples, "partitions": len(expected)}
    totals = (choice.suppression_budget, choice.classes, choice.squares, choice.suppressed_rows)
    merged, counts = spark_parts.merge(
        df.mapInArrow(run, spark_parts.PART_TYPE), expected, output, identity, params, seal, parts, totals
    )
    if sign is not None:
        # The driver signs the merged file (``sign_passphrase`` for a protected key).
        merged["signed"] = _karc.sign_file(os.fspath(output), os.fspath(sign), sign_passphrase, None, False)
    merged["partitions"] = len(counts)
    merged["partition_rows"] = [c["rows"] for c in counts]
    merged["part_bytes"] = sum(c["bytes"] for c in counts)
    merged["algorithm"] = choice.algorithm
    merged["levels"] = choice.levels
    merged["tuples"] = choice.tuples
    return merged

"""Checks of a Spark release against its claim, independent of karc's
anonymizer: each worker's check of the fragment it returns (pyarrow's
group-by), and :func:`check_release`, Spark's own count of the whole
release's classes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional

import pyarrow as pa
import pyarrow.compute as pc

from . import CheckFailedError, ConfigLike
from .spark_config import _column, _Schema, _schema

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def _check_fragment(release: pa.Table, fragment: int, schema: _Schema) -> None:
    """Raises :class:`CheckFailedError` when a class of this fragment's
    release (rows of ``*`` in every QI aside) over a constraint's QIs has
    fewer than k rows or fewer than l distinct sensitive values: counted by
    pyarrow on the labels returned, independent of the anonymizer. (The
    other models are re-checked on the whole by every reader of a packed
    file; ``karc verify`` measures them.)"""
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

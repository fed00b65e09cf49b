"""The fragments of :mod:`karc.spark`: Mondrian's cuts of a sample's QI
space as a tree, each row's fragment as a Spark column of that tree, the
cuts whose leaves hold too few rows of the whole table merged, and the keys
that place each fragment on its own Spark partition."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

import pyarrow as pa
import pyarrow.compute as pc

from . import BadInputError
from .spark_config import _column, _Schema

@dataclass
class Plan:
    """The fragments: a binary tree of cuts over the QIs.

    A node is a leaf ``{"fragment": i}`` or a cut ``{"qi": name, "at": key,
    "left": node, "right": node}``: rows whose key for ``qi`` is at most
    ``at`` go left. Keys are numbers (numeric QIs) or ``[rank, text]`` pairs
    (categorical QIs: the hierarchy leaf's rank, then the text).
    """

    tree: Dict[str, Any]
    fragments: int
    sample_rows: int

    def to_json(self) -> str:
        return json.dumps(self.tree)


def _numeric(column: pa.Array) -> Any:
    """A QI column as float64 numbers (a text that is not a number, or a null, as NaN)."""
    import numpy as np

    if pa.types.is_integer(column.type) or pa.types.is_floating(column.type) or pa.types.is_decimal(column.type):
        return pc.cast(column, pa.float64()).to_numpy(zero_copy_only=False).astype(float)
    import pandas

    return pandas.to_numeric(pandas.Series(column.to_pylist(), dtype=object), errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )


class _Keys:
    """Sort keys of one QI's cells, for cutting and for placing rows."""

    def __init__(self, kind: str, order: Optional[Dict[str, int]]) -> None:
        self.numeric = kind in ("integer", "decimal")
        self.order = order or {}

    def key(self, text: Any) -> Any:
        if text is None:
            return (-1, "")
        text = str(text)
        return (self.order.get(text, len(self.order)), text)


def _cut(rows: Dict[str, List[Any]], keys: Dict[str, _Keys], qis: List[str], want: int, min_rows: int) -> Dict[str, Any]:
    """Mondrian's top-down cuts of the sample ``rows`` (QI → keys), into at
    most ``want`` leaves of at least ``min_rows`` sample rows each; a cut
    falls at the quantile of its sides' leaf budgets (the median when even)."""
    n = len(rows[qis[0]]) if qis else 0
    spans = {}
    for q in qis:
        values = [v for v in rows[q] if not (isinstance(v, float) and v != v)]
        spans[q] = (min(values), max(values)) if values else None

    def width(q: str, values: List[Any]) -> float:
        if not values or spans[q] is None:
            return 0.0
        lo, hi = spans[q]
        if keys[q].numeric:
            values = [v for v in values if v == v]  # NaN (not a number) aside
            return (max(values) - min(values)) / (hi - lo) if values and hi > lo else 0.0
        distinct = len(set(values))
        return (distinct - 1) / max(1, len({v for v in rows[q]}) - 1)

    def split(index: List[int], budget: int) -> Dict[str, Any]:
        if budget < 2 or len(index) < 2 * min_rows:
            return {"leaf": True}
        order = sorted(qis, key=lambda q: -width(q, [rows[q][i] for i in index]))
        # The left side gets the larger half of the leaves and the same share
        # of the rows (the median when the budget is even), so every leaf
        # stands for about as many rows: no fragment outweighs the others.
        half = budget // 2
        for q in order:
            values = sorted(rows[q][i] for i in index if not (isinstance(rows[q][i], float) and rows[q][i] != rows[q][i]))
            if not values:
                continue
            at = values[max(0, len(values) * (budget - half) // budget - 1)]
            left = [i for i in index if _le(rows[q][i], at)]
            right = [i for i in index if not _le(rows[q][i], at)]
            if len(left) < min_rows or len(right) < min_rows:
                continue
            return {
                "qi": q,
                "at": list(at) if isinstance(at, tuple) else at,
                "left": split(left, budget - half),
                "right": split(right, half),
            }
        return {"leaf": True}

    tree = split(list(range(n)), want)
    _number_leaves(tree)
    return tree


def _le(value: Any, at: Any) -> bool:
    if isinstance(value, float) and value != value:
        return True
    return value <= at


def _number_leaves(tree: Dict[str, Any]) -> int:
    """Numbers the leaves 0, 1, ... left to right; returns how many."""
    count = 0
    stack = [tree]
    while stack:
        node = stack.pop()
        if "qi" in node:
            stack.append(node["right"])
            stack.append(node["left"])
        else:
            node.pop("leaf", None)
            node["fragment"] = count
            count += 1
    return count


def _goes_left(node: Dict[str, Any], keys: Dict[str, _Keys]) -> Any:
    """Whether a row's key for the cut's QI is at most the cut's (a Spark
    column): numbers as doubles (a null, NaN or text that is not a number
    goes left), categories by (hierarchy rank, text) (a null goes left)."""
    from pyspark.sql import functions as F

    q, k = node["qi"], keys[node["qi"]]
    if k.numeric:
        x = _column(q).cast("double")
        return x.isNull() | F.isnan(x) | (x <= F.lit(float(node["at"])))
    text = _column(q).cast("string")
    rank_at, text_at = node["at"]
    if k.order:
        pairs = [F.lit(v) for leaf, r in k.order.items() for v in (leaf, r)]
        rank = F.coalesce(F.element_at(F.create_map(*pairs), text), F.lit(len(k.order)))
    else:
        rank = F.lit(0)
    return text.isNull() | (rank < F.lit(rank_at)) | ((rank == F.lit(rank_at)) & (text <= F.lit(text_at)))


def fragment_column(tree: Dict[str, Any], keys: Dict[str, _Keys]) -> Any:
    """Each row's fragment as a Spark column: the cut tree as nested
    CASE WHENs, evaluated by Spark itself (no Python worker)."""
    from pyspark.sql import functions as F

    if "qi" not in tree:
        return F.lit(tree["fragment"]).cast("long")
    return F.when(_goes_left(tree, keys), fragment_column(tree["left"], keys)).otherwise(
        fragment_column(tree["right"], keys)
    )


# ---------------------------------------------------------------------------
# Fragments on the whole table: counted, the small ones merged.


def _leaves(tree: Dict[str, Any]) -> List[Dict[str, Any]]:
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        if "qi" in node:
            stack.extend([node["right"], node["left"]])
        else:
            found.append(node)
    return found


def _merge_small(
    tree: Dict[str, Any],
    counts: Dict[int, int],
    schema: _Schema,
    holds: Optional[Callable[[List[List[int]]], List[bool]]] = None,
) -> Tuple[Dict[str, Any], List[int]]:
    """Collapses every cut one of whose sides holds fewer than k rows, or
    (``holds``: given groups of fragments, whether each group as one class
    meets the models beyond k) could not stand as one class, into one leaf,
    until none does. Returns the tree with its leaves renumbered, and each
    leaf's rows."""
    nodes: List[Dict[str, Any]] = []

    def measure(node: Dict[str, Any]) -> None:
        nodes.append(node)
        if "qi" in node:
            measure(node["left"])
            measure(node["right"])
            node["_rows"] = node["left"]["_rows"] + node["right"]["_rows"]
            node["_fragments"] = node["left"]["_fragments"] + node["right"]["_fragments"]
        else:
            node["_rows"] = counts.get(node["fragment"], 0)
            node["_fragments"] = [node["fragment"]]

    measure(tree)
    # One call for every node of the tree: karc measures each group once.
    met = holds([n["_fragments"] for n in nodes]) if holds is not None else [True] * len(nodes)
    for node, ok in zip(nodes, met):
        node["_holds"] = ok

    def enough(node: Dict[str, Any]) -> bool:
        return node["_rows"] >= schema.k and node["_holds"]

    if tree["_rows"] < schema.k:
        raise BadInputError(f"the table has {tree['_rows']} rows: fewer than the claim's k = {schema.k}")
    if not tree["_holds"]:
        models = ", ".join(f"{key} = {value}" for key, value in schema.models.items())
        raise BadInputError(
            f"the whole table, as one class, fails the models claimed ({models}) on {schema.model_columns}: no release can meet them"
        )

    def fix(node: Dict[str, Any]) -> Dict[str, Any]:
        if "qi" not in node:
            return node
        left, right = fix(node["left"]), fix(node["right"])
        if not (enough(left) and enough(right)):
            return {"fragment": -1, "_rows": node["_rows"], "_fragments": node["_fragments"], "_holds": node["_holds"]}
        return {**node, "left": left, "right": right}

    tree = fix(tree)
    _number_leaves(tree)
    sizes = [leaf["_rows"] for leaf in _leaves(tree)]
    _strip(tree)
    return tree, sizes


def _strip(node: Dict[str, Any]) -> None:
    for key in ("_rows", "_fragments", "_holds"):
        node.pop(key, None)
    if "qi" in node:
        _strip(node["left"])
        _strip(node["right"])


def _murmur3_long(value: int, seed: int = 42) -> int:
    """Spark's ``hash()`` of a long (Murmur3 x86 32-bit, seed 42, as
    ``HashPartitioning`` computes it), a signed 32-bit int."""
    mask = 0xFFFFFFFF

    def rotl(x: int, r: int) -> int:
        return ((x << r) | (x >> (32 - r))) & mask

    def mix(h1: int, k1: int) -> int:
        k1 = rotl((k1 * 0xCC9E2D51) & mask, 15) * 0x1B873593 & mask
        h1 = rotl(h1 ^ k1, 13)
        return (h1 * 5 + 0xE6546B64) & mask

    value &= 0xFFFFFFFFFFFFFFFF
    h = mix(mix(seed & mask, value & mask), value >> 32) ^ 8
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & mask
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & mask
    h ^= h >> 16
    return h - (1 << 32) if h >= 1 << 31 else h


def _partition_keys(n: int) -> List[int]:
    """For each partition p < n, a long whose Spark hash lands on p: the key
    that ``repartition(n, key)`` sends to exactly that partition (computed
    here, without a Spark job; a test checks it against Spark's ``hash``)."""
    keys: Dict[int, int] = {}
    candidate = 0
    while len(keys) < n:
        keys.setdefault(_murmur3_long(candidate) % n, candidate)
        candidate += 1
    return [keys[p] for p in range(n)]


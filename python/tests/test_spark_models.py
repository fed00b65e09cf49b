"""Every model on Spark: distinct, entropy and recursive ℓ and (α,k) hold
class by class; t-closeness, δ-disclosure and β-likeness are measured
against the whole table's sensitive distribution, which the planning
aggregation counts and every fragment is given. The packed file's claim
names every model; karc's own check of the file, pyCANON's measures of its
release and the single-process run agree."""

import json
import math
import os
import subprocess

import numpy as np
import pytest

pyspark = pytest.importorskip("pyspark")
pycanon = pytest.importorskip("pycanon.anonymity")

import karc  # noqa: E402
import karc.spark  # noqa: E402
from test_spark import CONFIG, QIS, ROOT, table  # noqa: E402, F401 - table: the module's fixture

#: pyCANON's function and karc's check of each model (parameter name in the claim).
PYCANON = {
    "l": ("l_diversity", "l_diversity"),
    "alpha": ("alpha_k_anonymity", "alpha_k_anonymity"),
    "t": ("t_closeness", "t_closeness"),
    "delta": ("delta_disclosure", "delta_disclosure"),
    "beta": ("basic_beta_likeness", "basic_beta_likeness"),
}
CHECK = {
    "l": "l_diversity",
    "entropy_l": "entropy_l_diversity",
    "recursive_cl": "recursive_c_l_diversity",
    "t": "t_closeness",
    "alpha": "alpha_k_anonymity",
    "delta": "delta_disclosure",
    "beta": "basic_beta_likeness",
}


def _config(sensitive, models):
    columns = [{**c, "role": "sensitive"} if c["name"] == sensitive else c for c in CONFIG["columns"]]
    privacy = {"k": 10, "sensitive": sensitive, "suppression_limit": 0.0, **models}
    return {"columns": columns, "privacy": privacy, "algorithm": {"name": "mondrian"}}


def _classes(frame, sensitive):
    """Each class's sensitive counts, descending."""
    return [sorted(g.value_counts().tolist(), reverse=True) for _, g in frame.groupby(QIS)[sensitive]]


@pytest.mark.parametrize(
    "sensitive,models",
    [
        ("marital-status", {"l": 2, "entropy_l": 2.0, "recursive_cl": [4, 2], "alpha": 0.8, "t": 0.35, "beta": 3.0}),
        ("salary-class", {"delta": 1.6, "t": 0.2}),
    ],
)
def test_every_model_holds_on_spark_as_on_one_machine(spark, table, tmp_path, sensitive, models):
    path, arrow = table
    df = spark.read.parquet(path)
    config = _config(sensitive, models)
    out = tmp_path / "models.karc"
    report = karc.spark.pack(df, out, config, no_encryption=True, fragments=4, seed=2)
    assert report["models"] == sorted(["k", *models])
    # karc's own check of the whole file: the claim names every model, each holds.
    archive = karc.open(out)
    checked = archive.verify()
    checks = {c["model"]: c for c in checked["claim"]["models"]["checks"]}
    assert sorted(checks) == sorted(CHECK[m] for m in models)
    assert all(c["holds"] for c in checks.values()), checks
    cli = os.path.join(ROOT, "target", "release", "karc")
    if os.path.exists(cli):
        done = subprocess.run([cli, "verify", str(out)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    # pyCANON on the release, against the parameters and karc's values.
    release = archive.release().to_pandas()
    assert len(release) == arrow.num_rows and not (release[QIS] == "*").all(axis=1).any(), "nothing suppressed"
    for model, (function, name) in ((m, PYCANON[m]) for m in models if m in PYCANON):
        value = getattr(pycanon, function)(release, QIS, [sensitive])
        value = value[0] if isinstance(value, tuple) else value
        bound = models[model]
        assert value >= bound if model == "l" else value <= bound + 1e-12, (model, value)
        assert math.isclose(checks[name]["value"], value, abs_tol=1e-9), (model, checks[name]["value"], value)
    classes = _classes(release, sensitive)
    if "entropy_l" in models:
        h = min(-sum(n / sum(c) * math.log(n / sum(c)) for n in c) for c in classes)
        assert math.exp(h) >= models["entropy_l"] - 1e-12
    if "recursive_cl" in models:
        c, l = models["recursive_cl"]
        assert all(len(r) >= l and r[0] < c * sum(r[l - 1 :]) for r in classes)
    # The single-process run meets the same claim on the same rows.
    _, single = karc.anonymize(arrow, config)
    assert single["rows"] == arrow.num_rows and single["min_class"] >= 10


def test_t_delta_beta_need_the_whole_tables_distribution(table):
    """A fragment told nothing of the table cannot measure t: refused in one
    line; told the table's distribution, it is measured against it."""
    _, arrow = table
    config = _config("marital-status", {"t": 0.35})
    rows = arrow.slice(0, 400)
    with pytest.raises(karc.KarcError, match="not given it"):
        karc._karc.generalize_fragment(rows, [], [], config_json=json.dumps(config))
    whole = karc.spark._distribution(
        arrow.group_by("marital-status").aggregate([([], "count_all")]).rename_columns(["marital-status", "rows"]),
        "marital-status",
    )
    labels, _ = karc._karc.generalize_fragment(rows, [], [("marital-status", whole)], config_json=json.dumps(config))
    assert labels.num_rows == 400
    # Each class within t of the *table's* p (equal distance: half the L1
    # distance over every value of the table), counted here.
    p = dict(zip(whole.column("value").to_pylist(), whole.column("rows").to_pylist()))
    n = sum(p.values())
    frame = labels.to_pandas().assign(s=rows.column("marital-status").to_pylist())
    for _, group in frame.groupby(QIS)["s"]:
        q = group.value_counts(normalize=True).to_dict()
        emd = 0.5 * sum(abs(q.get(v, 0.0) - c / n) for v, c in p.items())
        assert emd <= 0.35 + 1e-12, emd


def test_a_fragment_that_fails_the_models_as_a_whole_is_merged(spark, table):
    """The driver asks karc whether each fragment (and each union of the cut
    tree) could stand as one class against the table's distribution; a
    fragment that could not is merged with its sibling before any worker
    starts, so no worker meets a fragment no release of it can satisfy."""
    path, _ = table
    schema = karc.spark._schema(_config("marital-status", {"t": 0.1}), None)
    tree = {"qi": "age", "at": 40, "left": {"fragment": 0}, "right": {"qi": "age", "at": 60, "left": {"fragment": 1}, "right": {"fragment": 2}}}
    asked = []

    def holds(groups):
        asked.extend(groups)
        return [g != [2] for g in groups]

    merged, sizes = karc.spark._merge_small(tree, {0: 40, 1: 30, 2: 20}, schema, holds)
    assert [0, 1, 2] in asked and [2] in asked, "one call for every node"
    assert sizes == [40, 50] and merged["right"] == {"fragment": 1}
    with pytest.raises(karc.BadInputError, match="fails the models"):
        karc.spark._merge_small(tree, {0: 40, 1: 30, 2: 20}, schema, lambda groups: [False] * len(groups))
    # On the real table, a t no fragment of age can meet merges them all.
    df = spark.read.parquet(path)
    frag = karc.spark._fragment(df, _config("marital-status", {"t": 0.05}), None, 4, 0, 3000)
    assert frag.plan.fragments < 4
    counts = np.array(frag.sizes)
    assert counts.sum() == df.count() and (counts >= 10).all()

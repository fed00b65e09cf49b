"""The privacy models beyond k agree with pyCANON's.

Every model karc.verify reports (keys named after pyCANON's functions) is
compared with pyCANON's value to 1e-9 on releases of several kinds:
pyCANON's own suppression-only Adult releases (categorical and numeric
sensitive attributes, one or two of them) and karc's releases of Adult by
several algorithms. pyCANON leaves a row whose QI is missing out of every
class but counts it in the table's distribution; karc's exempt suppressed
rows (all `*`) are given to it that way.
"""

import math
import pathlib

import numpy as np
import pandas as pd
import pytest

import karc

pycanon = pytest.importorskip("pycanon.anonymity")
from pycanon.metrics import average_rir, max_rir  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
ADULT_CSV = REPO / "fixtures" / "adult" / "adult.csv"
ADULT8 = REPO / "fixtures" / "adult" / "adult8.toml"
PYCANON = REPO / "fixtures" / "pycanon"
ADULT8_QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]


def close(a, b):
    if b is None or (isinstance(b, float) and math.isnan(b)):
        return a is None
    return a is not None and abs(float(a) - float(b)) <= 1e-9


def pycanon_frame(release: pd.DataFrame, qi, report) -> pd.DataFrame:
    """The release as pyCANON should see it: karc's exempt suppressed rows
    (all `*` in every QI) with missing QIs."""
    frame = release.copy()
    if report["suppressed_rows"] > 0 and report["policy"] == "mask":
        star = (frame[qi].astype(str) == "*").all(axis=1)
        frame[qi] = frame[qi].astype(object)
        frame.loc[star, qi] = np.nan
    return frame


def expected(frame, qi, sa):
    a = pycanon
    alpha, k = a.alpha_k_anonymity(frame, qi, sa)
    c, l_rec = a.recursive_c_l_diversity(frame, qi, sa)
    return {
        "k_anonymity": a.k_anonymity(frame, qi),
        "alpha": alpha,
        "alpha_k": k,
        "l_diversity": a.l_diversity(frame, qi, sa),
        "entropy_l_diversity": a.entropy_l_diversity(frame, qi, sa),
        "recursive_c": c,
        "recursive_l": l_rec,
        "basic_beta_likeness": a.basic_beta_likeness(frame, qi, sa),
        "enhanced_beta_likeness": a.enhanced_beta_likeness(frame, qi, sa),
        "t_closeness": a.t_closeness(frame, qi, sa),
        "delta_disclosure": a.delta_disclosure(frame, qi, sa),
        "average_rir": average_rir(frame, qi),
        "max_rir": max_rir(frame, qi),
    }


def check_agreement(release: pd.DataFrame, qi, sa):
    """karc.verify's models on `release` against pyCANON's, model by model."""
    report = karc.verify(release, qi=qi, sensitive=sa)
    m = report["models"]
    got = {
        "k_anonymity": m["k_anonymity"],
        "alpha": m["alpha_k_anonymity"]["alpha"],
        "alpha_k": m["alpha_k_anonymity"]["k"],
        "l_diversity": m["l_diversity"],
        "entropy_l_diversity": m["entropy_l_diversity"],
        "recursive_c": m["recursive_c_l_diversity"]["c"],
        "recursive_l": m["recursive_c_l_diversity"]["l"],
        "basic_beta_likeness": m["basic_beta_likeness"],
        "enhanced_beta_likeness": m["enhanced_beta_likeness"],
        "t_closeness": m["t_closeness"],
        "delta_disclosure": m["delta_disclosure"],
        "average_rir": m["risk"]["average_rir"],
        "max_rir": m["risk"]["max_rir"],
    }
    want = expected(pycanon_frame(release, qi, report), qi, sa)
    wrong = {name: (got[name], want[name]) for name in want if not close(got[name], want[name])}
    assert not wrong, f"karc vs pyCANON: {wrong}"
    return m


FIXTURE_CASES = [
    # pyCANON's releases: QIs its first six columns, salary-class sensitive.
    (n, ["age", "education", "occupation", "relationship", "sex", "native-country"], ["salary-class"])
    for n in (3, 10, 20)
] + [
    # A numeric sensitive attribute (ordered EMD) beside a categorical one.
    (n, ["education", "occupation", "relationship", "sex", "native-country"], ["age", "salary-class"])
    for n in (3, 10, 20)
]


@pytest.mark.parametrize("n,qi,sa", FIXTURE_CASES)
def test_models_agree_with_pycanon_on_its_releases(n, qi, sa):
    release = pd.read_csv(PYCANON / f"adult_anonymized_{n}.csv")
    m = check_agreement(release, qi, sa)
    # Numeric (ordered EMD) exactly where pandas reads numbers (pyCANON's choice).
    assert [s["numeric"] for s in m["sensitive"]] == [
        pd.api.types.is_numeric_dtype(release[s]) for s in sa
    ]


@pytest.mark.parametrize("n", [3, 20])
def test_models_agree_with_pycanon_on_a_numeric_sensitive_column(n):
    # pyCANON's release without its suppressed rows (any `*`): age reads as
    # numbers, so t-closeness is the ordered distance.
    release = pd.read_csv(PYCANON / f"adult_anonymized_{n}.csv", dtype=str)
    release = release[~(release == "*").any(axis=1)].reset_index(drop=True)
    release["age"] = release["age"].astype(int)
    qi = ["education", "occupation", "relationship", "sex", "native-country"]
    m = check_agreement(release, qi, ["age", "salary-class"])
    assert [s["numeric"] for s in m["sensitive"]] == [True, False]


@pytest.fixture(scope="module")
def adult():
    return pd.read_csv(ADULT_CSV, sep=";", dtype=str)


@pytest.mark.parametrize(
    "algorithm,k",
    [("datafly", 5), ("mondrian", 5), ("incognito", 10), ("topdown", 10), ("basic-mondrian", 20)],
)
def test_models_agree_with_pycanon_on_karc_releases(adult, algorithm, k):
    release, _ = karc.anonymize(adult, ADULT8, k=k, algorithm=algorithm)
    check_agreement(release, ADULT8_QI, ["salary-class"])


def test_claimed_models_hold_or_fail_as_their_values_say():
    release = pd.read_csv(PYCANON / "adult_anonymized_10.csv")
    qi = ["age", "education", "occupation", "relationship", "sex", "native-country"]
    m = karc.verify(release, qi=qi, sensitive="salary-class")["models"]
    t = m["t_closeness"]
    ok = karc.verify(release, qi=qi, sensitive="salary-class", t=t, alpha=1.0, l=1)
    assert ok["holds"], ok["models"]["checks"]
    bad = karc.verify(release, qi=qi, sensitive="salary-class", t=t * 0.99)
    assert not bad["holds"]
    assert [c["model"] for c in bad["models"]["checks"]] == ["t_closeness"]
    with pytest.raises(karc.BadInputError, match="sensitive="):
        karc.verify(release, qi=qi, t=0.5)


def _skewed_table(n=300, seed=4, missing=False):
    rng = np.random.default_rng(seed)
    age = rng.integers(20, 70, n)
    zip_ = rng.choice(["10001", "10002", "10003", "20001", "20002"], n)
    young = rng.choice([1, 2, 3], n, p=[0.6, 0.1, 0.3])
    old = rng.choice([1, 2, 3], n, p=[0.1, 0.3, 0.6])
    method = np.where(age < 40, young, old).astype(object)
    if missing:
        method[rng.random(n) < 0.15] = None
        zip_ = np.where(rng.random(n) < 0.05, "?", zip_)
    return pd.DataFrame({"age": age.astype(str), "zip": zip_, "method": method})


def _config(t):
    return {
        "columns": [
            {"name": "age", "role": "quasi", "type": "integer"},
            {"name": "zip", "role": "quasi", "hierarchy": {"mask": 5}},
            {"name": "method", "role": "sensitive", "type": "categorical"},
        ],
        "privacy": {"k": 5, "sensitive": "method", "t": t},
        "algorithm": {"name": "mondrian"},
    }


def test_t_of_a_categorical_column_of_numbers_is_pycanons_equal_distance():
    """Issue 30: a sensitive column declared categorical whose values are
    1, 2, 3 was measured with the ordered distance, so a release packed
    under t = 0.3 had t = 0.39 by pyCANON's categorical t-closeness.
    pyCANON 1.3 (pycanon/anonymity/_t_closeness.py, ``t_closeness``) takes
    the ordered distance (``aux_t_closeness_num``) for a column of numeric
    dtype and the equal distance (``aux_t_closeness_str``) for a string
    one: the declared type is the dtype given to it here."""
    table = _skewed_table()
    table["method"] = table["method"].astype(str)
    release, _ = karc.anonymize(table, _config(0.3))
    qi = ["age", "zip"]
    as_text = release.copy()
    as_text["method"] = as_text["method"].astype(str)
    t = pycanon.t_closeness(as_text, qi, ["method"])
    assert t <= 0.3
    m = karc.verify(release, qi=qi, sensitive={"method": "categorical"}, t=0.3)
    assert m["holds"]
    assert close(m["models"]["t_closeness"], t)
    assert m["models"]["sensitive"][0]["distance"] == "equal"
    as_numbers = release.copy()
    as_numbers["method"] = as_numbers["method"].astype(int)
    ordered = karc.verify(release, qi=qi, sensitive="method:numeric")["models"]
    assert ordered["sensitive"][0]["distance"] == "ordered"
    assert close(ordered["t_closeness"], pycanon.t_closeness(as_numbers, qi, ["method"]))


def test_missing_sensitive_cells_hold_no_value_as_pycanon_on_the_known_rows():
    """A missing sensitive cell is in no distribution: every model beyond k
    is pyCANON's on the rows whose sensitive value is known (pyCANON itself
    would count NaN as a category in l and drop it from p in t), while k
    and the risk count every row, a missing QI label (`?`) forming its own
    classes (pyCANON would leave a NaN QI out of every class: it is given
    the label as a string)."""
    table = _skewed_table(400, seed=7, missing=True)
    table["method"] = table["method"].map(lambda v: "" if v is None else str(v))
    qi = ["age", "zip"]
    # Coarse classes: ages by decade.
    table["age"] = (table["age"].astype(int) // 10 * 10).astype(str)
    report = karc.verify(table, qi=qi, sensitive={"method": "categorical"})
    m = report["models"]
    known = table[table["method"] != ""].reset_index(drop=True)
    a = pycanon
    assert m["l_diversity"] == a.l_diversity(known, qi, ["method"])
    assert close(m["entropy_l_diversity"], a.entropy_l_diversity(known, qi, ["method"]))
    assert close(m["alpha_k_anonymity"]["alpha"], a.alpha_k_anonymity(known, qi, ["method"])[0])
    assert close(m["t_closeness"], a.t_closeness(known, qi, ["method"]))
    assert close(m["delta_disclosure"], a.delta_disclosure(known, qi, ["method"]))
    assert close(m["basic_beta_likeness"], a.basic_beta_likeness(known, qi, ["method"]))
    assert m["k_anonymity"] == a.k_anonymity(table, qi)
    assert close(m["risk"]["max_rir"], max_rir(table, qi))
    # Counted as a category (pyCANON on every row), a class of one value
    # and a missing cell would be 2-diverse.
    two = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": ["x", "", "x", "y"]})
    assert a.l_diversity(two, ["q"], ["s"]) == 2
    assert karc.verify(two, qi=["q"], sensitive="s")["models"]["l_diversity"] == 1

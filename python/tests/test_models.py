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
    with pytest.raises(karc.BadInputError, match="--sensitive"):
        karc.verify(release, qi=qi, t=0.5)

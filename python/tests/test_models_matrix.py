"""Issue 20's matrix: every privacy model beyond k, enforced by each of
Mondrian, Basic Mondrian, Top-down, Datafly and Incognito, on three tables
(Adult, a generated table, and Italia of the shared data): the release
`karc anonymize` writes satisfies the model by pyCANON (and by an
independent count where pyCANON's value is of another kind), `karc verify
--json` reports pyCANON's value to 1e-9, and where no release can meet the
model the command exits 1 naming it (one line) instead of writing one.

Runs the CLI (built by `cargo test --workspace --release`, as CI does
before the Python tests) and pyCANON (installed by .ci/run).
"""

import json
import math
import pathlib
import subprocess

import numpy as np
import pandas as pd
import pytest

pycanon = pytest.importorskip("pycanon.anonymity")

REPO = pathlib.Path(__file__).resolve().parents[2]
CLI = REPO / "target" / "release" / "karc"
GEN = REPO / "target" / "release" / "gen-table"
ALGORITHMS = ["mondrian", "basic-mondrian", "topdown", "datafly", "incognito"]


def run(*args):
    assert CLI.exists(), f"{CLI}: build the CLI first (cargo build --release)"
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True)


class Table:
    """A table, its config, QIs, sensitive column, k and each model's flags."""

    def __init__(self, name, csv, config, qi, sensitive, sep, k, models):
        self.name, self.csv, self.config = name, csv, config
        self.qi, self.sensitive, self.sep, self.k = qi, sensitive, sep, k
        self.models = models


def model_flags(l2, entropy, rec, t, alpha, delta, beta):
    """Each model (by pyCANON's name) with its flags."""
    return {
        "l_diversity": ["--l", l2],
        "entropy_l_diversity": ["--entropy-l", entropy],
        "recursive_c_l_diversity": ["--recursive-cl", f"{rec[0]},{rec[1]}"],
        "t_closeness": ["--t", t],
        "alpha_k_anonymity": ["--alpha", alpha],
        "delta_disclosure": ["--delta", delta],
        "basic_beta_likeness": ["--beta", beta],
        "enhanced_beta_likeness": ["--beta", beta, "--enhanced-beta"],
    }


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    d = tmp_path_factory.mktemp("matrix")
    adult = Table(
        "adult",
        REPO / "fixtures" / "adult" / "adult.csv",
        REPO / "fixtures" / "adult" / "adult8.toml",
        ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"],
        "salary-class",
        ";",
        5,
        # salary-class: two values, 75 % / 25 %.
        model_flags(2, 1.5, (4, 2), 0.2, 0.8, 1.0, 1.0),
    )
    # A generated table (gen-table mixed, 3,000 rows): ICD-10 diagnoses
    # sensitive; age given a hierarchy so that Datafly and Incognito run.
    assert GEN.exists(), f"{GEN}: build it first (cargo build --release -p karc-tools)"
    generated = d / "generated.csv"
    config = d / "generated.toml"
    subprocess.run(
        [str(GEN), "--kind", "mixed", "--rows", "3000", "--out", generated, "--config", config], check=True
    )
    text = config.read_text()
    age = 'name = "age"\nrole = "quasi"\ntype = "integer"\n'
    assert age in text, text
    config.write_text(text.replace(age, age + "hierarchy = { intervals = [5, 10, 20, 100] }\n"))
    gen = Table(
        "generated", generated, config, ["age", "sex", "zip"], "diagnosis", ",", 5,
        model_flags(3, 3, (3, 3), 0.3, 0.5, 2.0, 2.0),
    )
    # Italia (/work/shared/data/italia, 100 rows, six diseases), configured
    # by `karc init`: hierarchies built from its values.
    italia_csv = REPO / "fixtures" / "italia" / "italia.csv"
    italia_config = d / "italia.toml"
    init = run("init", italia_csv, "--qi", "age,city_birth,zip_code", "--sensitive", "disease", "-o", italia_config)
    assert init.returncode == 0, init.stderr
    text = italia_config.read_text()
    # init flags the record id beside the given QIs: it is never released.
    assert 'name = "ID"\nrole = "identifier"  # name says a record id' in text, text
    italia = Table(
        "italia", italia_csv, italia_config, ["age", "city_birth", "zip_code"], "disease", ";", 5,
        model_flags(3, 3, (2, 2), 0.3, 0.5, 2.0, 2.0),
    )
    return {t.name: t for t in (adult, gen, italia)}, d


def pycanon_frame(release, qi, report):
    """karc's exempt suppressed rows (`*` in every QI) as pyCANON takes
    them: missing QIs (out of every class, in the table's distribution)."""
    frame = release.copy()
    if report["suppressed_rows"] > 0 and report["policy"] == "mask":
        star = (frame[qi] == "*").all(axis=1)
        frame[qi] = frame[qi].astype(object)
        frame.loc[star, qi] = np.nan
    return frame


def classes(frame, qi, sa):
    """Each class's sensitive counts, descending (suppressed rows out)."""
    grouped = frame.dropna(subset=qi).groupby(qi, dropna=False)[sa]
    return [sorted(g.value_counts().tolist(), reverse=True) for _, g in grouped]


def karc_value(models, name):
    if name == "alpha_k_anonymity":
        return models["alpha_k_anonymity"]["alpha"]
    if name == "recursive_c_l_diversity":
        return models["recursive_c_l_diversity"]["c"]
    return models[name]


def pycanon_value(frame, qi, sa, name):
    value = getattr(pycanon, name)(frame, qi, [sa])
    if name in ("alpha_k_anonymity", "recursive_c_l_diversity"):
        return value[0]
    return value


def satisfied(frame, qi, sa, name, flags, value):
    """Whether the release meets the claimed model: pyCANON's value against
    the parameter, or, where pyCANON's value is of another kind (entropy l
    floored, recursive c at the release's l), the model counted on the
    classes."""
    p = float(flags[1]) if name != "recursive_c_l_diversity" else None
    if name == "l_diversity":
        return value >= p
    if name == "entropy_l_diversity":
        h = min(-sum(n / sum(c) * math.log(n / sum(c)) for n in c) for c in classes(frame, qi, sa))
        return math.exp(h) >= p - 1e-12
    if name == "recursive_c_l_diversity":
        c, l = (float(x) for x in flags[1].split(","))
        return all(len(r) >= l and r[0] < c * sum(r[int(l) - 1 :]) for r in classes(frame, qi, sa))
    return value <= p + 1e-12


CASES = [(t, m, a) for t in ("adult", "generated", "italia") for m in model_flags(0, 0, (0, 0), 0, 0, 0, 0) for a in ALGORITHMS]


@pytest.mark.parametrize("table,model,algorithm", CASES)
def test_release_satisfies_the_model_by_pycanon(tables, table, model, algorithm):
    tables, d = tables
    t = tables[table]
    flags = [str(f) for f in t.models[model]]
    out = d / f"{table}-{model}-{algorithm}.csv"
    made = run(
        "anonymize", "-c", t.config, t.csv, "-o", out, "-a", algorithm, "--k", t.k, "--sensitive", t.sensitive, *flags
    )
    if made.returncode == 1:
        # No release meets it: one line naming the model, no release.
        assert f"{model} on {t.sensitive!r}".replace("'", '"') in made.stderr, made.stderr
        assert "cannot be met" in made.stderr and len(made.stderr.strip().splitlines()) == 1, made.stderr
        assert not out.exists()
        return
    assert made.returncode == 0, made.stderr
    checked = run(
        "verify", out, "--qi", ",".join(t.qi), "--k", t.k, "--sensitive", t.sensitive, *flags, "--json"
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    report = json.loads(checked.stdout)
    assert [c["model"] for c in report["models"]["checks"]] == [model]
    release = pd.read_csv(out, sep=t.sep, dtype=str, keep_default_na=False)
    frame = pycanon_frame(release, t.qi, report)
    want = pycanon_value(frame, t.qi, t.sensitive, model)
    got = karc_value(report["models"], model)
    assert got is not None and abs(got - want) <= 1e-9, (got, want)
    assert satisfied(frame, t.qi, t.sensitive, model, flags, want), (want, flags)


def test_most_cells_release_rather_than_refuse(tables):
    """The matrix is not met by refusals alone: the models hold on releases
    of every table, and Mondrian meets each model on Adult."""
    tables, d = tables
    made = {p.stem for p in d.glob("*-*-*.csv")}
    for table in ("adult", "generated", "italia"):
        assert sum(1 for m in made if m.startswith(table + "-")) >= 20, (table, sorted(made))
    for model in model_flags(0, 0, (0, 0), 0, 0, 0, 0):
        assert f"adult-{model}-mondrian" in made, model


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_model_no_release_meets_exits_1_naming_it(tables, algorithm):
    """Recursive (3,2) on Adult's salary class (75 % / 25 %): even one class
    of every row has r1 = 3.02 r2, so every algorithm refuses, exit 1."""
    tables, d = tables
    t = tables["adult"]
    out = d / f"unreachable-{algorithm}.csv"
    made = run(
        "anonymize", "-c", t.config, t.csv, "-o", out, "-a", algorithm, "--k", t.k,
        "--sensitive", t.sensitive, "--recursive-cl", "3,2",
    )
    assert made.returncode == 1, made.stderr
    assert 'recursive_c_l_diversity on "salary-class" cannot be met' in made.stderr, made.stderr
    assert len(made.stderr.strip().splitlines()) == 1 and not out.exists()

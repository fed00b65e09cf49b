"""anjana against karc on Adult, one privacy model at a time.

Adult (fixtures/adult/adult.csv, 30,162 rows), the 8 QIs of
fixtures/adult/adult8.toml with ARX's hierarchies, salary-class sensitive,
k = 5, no suppression. Per model: anjana's function (its greedy
generalization, then its own check, in process) against `karc anonymize`
with the model's flag (Mondrian, as a process: reading the CSV, the
algorithm, the release check and the writing included). Each release is
then measured by pyCANON, so the table says whether it satisfies the model
and how many equivalence classes it keeps.

    pip install anjana pycanon pandas
    cargo build --release
    python tools/bench_models.py [--runs 3] [--algorithm mondrian]

Prints a Markdown table (tools/BENCHMARKS.md, "Privacy models").
"""

import argparse
import contextlib
import io
import pathlib
import statistics
import subprocess
import tempfile
import time

import pandas as pd
from anjana import anonymity as anj
from pycanon import anonymity as canon

REPO = pathlib.Path(__file__).resolve().parents[1]
ADULT = REPO / "fixtures" / "adult" / "adult.csv"
CONFIG = REPO / "fixtures" / "adult" / "adult8.toml"
HIERARCHIES = REPO / "fixtures" / "adult" / "hierarchies"
KARC = REPO / "target" / "release" / "karc"
QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]
SA = "salary-class"
K = 5

# (model, karc flags, anjana call, pyCANON value, holds)
MODELS = [
    ("l_diversity l=2", ["--l", "2"], lambda d, h: anj.l_diversity(d, [], QI, SA, K, 2, 0, h),
     lambda r: canon.l_diversity(r, QI, [SA]), lambda v: v >= 2),
    # anjana takes a whole l; salary-class (75/25) has e^H = 1.75 over the
    # whole table, so l = 2 is unreachable for both.
    ("entropy_l_diversity l=2", ["--entropy-l", "2"],
     lambda d, h: anj.entropy_l_diversity(d, [], QI, SA, K, 2, 0, h),
     lambda r: canon.entropy_l_diversity(r, QI, [SA]), lambda v: v >= 2),
    ("recursive_c_l_diversity c=3,l=2", ["--recursive-cl", "3,2"],
     lambda d, h: anj.recursive_c_l_diversity(d, [], QI, SA, K, 3, 2, 0, h),
     lambda r: canon.recursive_c_l_diversity(r, QI, [SA])[1], lambda v: v >= 2),
    ("t_closeness t=0.2", ["--t", "0.2"], lambda d, h: anj.t_closeness(d, [], QI, SA, K, 0.2, 0, h),
     lambda r: canon.t_closeness(r, QI, [SA]), lambda v: v <= 0.2),
    ("alpha_k_anonymity alpha=0.8", ["--alpha", "0.8"],
     lambda d, h: anj.alpha_k_anonymity(d, [], QI, SA, K, 0.8, 0, h),
     lambda r: canon.alpha_k_anonymity(r, QI, [SA])[0], lambda v: v <= 0.8),
    ("delta_disclosure delta=1", ["--delta", "1"], lambda d, h: anj.delta_disclosure(d, [], QI, SA, K, 1, 0, h),
     lambda r: canon.delta_disclosure(r, QI, [SA]), lambda v: v <= 1),
    ("basic_beta_likeness beta=1", ["--beta", "1"],
     lambda d, h: anj.basic_beta_likeness(d, [], QI, SA, K, 1, 0, h),
     lambda r: canon.basic_beta_likeness(r, QI, [SA]), lambda v: v <= 1),
    ("enhanced_beta_likeness beta=1", ["--beta", "1", "--enhanced-beta"],
     lambda d, h: anj.enhanced_beta_likeness(d, [], QI, SA, K, 1, 0, h),
     lambda r: canon.enhanced_beta_likeness(r, QI, [SA]), lambda v: v <= 1),
]


def hierarchies():
    out = {}
    for qi in QI:
        frame = pd.read_csv(HIERARCHIES / f"adult_hierarchy_{qi}.csv", header=None, sep=";", dtype=str)
        out[qi] = dict(frame)
    return out


def classes(release: pd.DataFrame) -> int:
    if release.empty:
        return 0
    return release.groupby(QI).ngroups


def measure(release, value, holds):
    if release.empty:
        return "-", "no release"
    v = value(release)
    ok = "yes" if holds is None or holds(v) else "NO"
    return f"{v:.4g}", ok


def run_karc(flags, algorithm, out):
    cmd = [str(KARC), "anonymize", "-c", str(CONFIG), str(ADULT), "-o", str(out), "--k", str(K),
           "--algorithm", algorithm, "--sensitive", SA, *flags]
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        return elapsed, pd.DataFrame(), done.stderr.strip()
    return elapsed, pd.read_csv(out, sep=";", dtype=str), ""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--algorithm", default="mondrian")
    args = parser.parse_args()
    data = pd.read_csv(ADULT, sep=";", dtype=str)
    h = hierarchies()
    print(f"| model | anjana s | anjana classes | anjana holds | karc {args.algorithm} s | karc classes "
          "| karc holds | speed-up |")
    print("| --- | ---: | ---: | --- | ---: | ---: | --- | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "release.csv"
        for name, flags, anjana_call, value, holds in MODELS:
            anjana_times, karc_times = [], []
            for _ in range(args.runs):
                start = time.perf_counter()
                with contextlib.redirect_stdout(io.StringIO()):
                    a_release = anjana_call(data.copy(), h)
                anjana_times.append(time.perf_counter() - start)
                elapsed, k_release, error = run_karc(flags, args.algorithm, out)
                karc_times.append(elapsed)
            a_t, k_t = statistics.median(anjana_times), statistics.median(karc_times)
            a_v, a_ok = measure(a_release, value, holds)
            k_v, k_ok = measure(k_release, value, holds)
            if error:
                k_ok = f"exit 1: {error[:60]}"
            print(f"| {name} | {a_t:.2f} | {classes(a_release)} | {a_ok} ({a_v}) | {k_t:.3f} | "
                  f"{classes(k_release)} | {k_ok} ({k_v}) | {a_t / k_t:.0f}x |")


if __name__ == "__main__":
    main()

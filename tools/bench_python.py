#!/usr/bin/env python3
"""The Python package against the CLI on the same data, in the same run.

Generates N Adult-like rows (target/release/adult-stream-gen), reads them
into a pandas DataFrame (not timed: the user already has it), then times
anonymize and pack (Mondrian, k = 10, unencrypted private part) in Python
on the DataFrame and with the CLI on the CSV, the fastest of --repeats
runs each, and prints the ratios (the bar: Python within 1.5 x the CLI).

    cargo build --release && pip install ./python pandas
    python3 tools/bench_python.py --rows 1000000
"""

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import pandas as pd

import karc

REPO = pathlib.Path(__file__).resolve().parents[1]
CONFIG = REPO / "fixtures" / "adult-raw" / "adult-stream.toml"
CLI = REPO / "target" / "release" / "karc"
GEN = REPO / "target" / "release" / "adult-stream-gen"
OVERRIDES = dict(algorithm="mondrian", k=10)


def fastest(repeats, work):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=REPO / "target") as tmp:
        tmp = pathlib.Path(tmp)
        csv = tmp / "adult.csv"
        with open(csv, "wb") as out:
            subprocess.run([str(GEN), "--rows", str(args.rows)], stdout=out, check=True)
        df = pd.read_csv(csv, dtype=str, keep_default_na=False)
        flags = ["-c", str(CONFIG), "-a", OVERRIDES["algorithm"], "-k", str(OVERRIDES["k"])]

        def cli(*command):
            subprocess.run([str(CLI), *command, *flags], check=True, stderr=subprocess.DEVNULL)

        times = {
            "anonymize": (
                fastest(args.repeats, lambda: karc.anonymize(df, config=CONFIG, **OVERRIDES)),
                fastest(args.repeats, lambda: cli("anonymize", str(csv), "-o", str(tmp / "r.csv"))),
            ),
            "pack": (
                fastest(
                    args.repeats,
                    lambda: karc.pack(df, tmp / "p.karc", config=CONFIG, no_encryption=True, **OVERRIDES),
                ),
                fastest(args.repeats, lambda: cli("pack", str(csv), "-o", str(tmp / "c.karc"), "--no-encryption")),
            ),
        }
        size = os.path.getsize(csv)
    print(f"{args.rows} rows ({size / 2**20:.0f} MiB of CSV), Mondrian k = 10, fastest of {args.repeats}")
    print(f"{'step':<10} {'python s':>9} {'cli s':>9} {'ratio':>6}")
    worst = 0.0
    for step, (py, cl) in times.items():
        worst = max(worst, py / cl)
        print(f"{step:<10} {py:>9.2f} {cl:>9.2f} {py / cl:>6.2f}")
    print(f"bar: python within 1.5 x the CLI: {'met' if worst <= 1.5 else 'NOT met'}")
    return 0 if worst <= 1.5 else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""karc on Spark against single-process karc and mosaicrown's Spark Mondrian.

    python tools/bench_spark.py --rows 1000000 [--mosaicrown DIR --mosaicrown-python PY] [--out DIR] [--only mosaicrown]

Generates ``--rows`` rows with ``target/release/adult-stream-gen`` (written
once as CSV and as Parquet), then on Spark ``local[2]``:

- ``karc.spark.anonymize`` (Mondrian, k = 10, the 4 numeric QIs of the
  issue: age, fnlwgt, education-num, hours-per-week), the release counted
  and checked (``anonymize`` checks it; the bench counts its rows);
- ``karc.spark.pack`` of the same, sealed for the test recipient, then
  ``karc verify`` of the file, its release checked by an independent count
  (pandas) and its restore compared with the input rows;
- ``karc anonymize -a mondrian -k 10`` and ``karc pack`` in one process;
- mosaicrown/mondrian's ``distributed/anonymize.py`` (its quantile
  fragmentation, 2 fragments a core) when ``--mosaicrown`` names a checkout
  whose dependencies import, else the issue's figures are quoted.

Each run is timed (wall) in its own process; peak memory is the largest
sum of resident set sizes of the process tree (the driver's JVM and
Python, the Python workers), sampled every 50 ms. NCP is computed the same
way for every release: per numeric QI cell, the released interval's width
over the column's range in the input, averaged over cells.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.path.join(ROOT, "target", "release")
RECIPIENT = "age1rncunzzu2rfp6u4lk3vyrlxg662esyasypj5swz2jsvt9t2t04as0kjg76"
IDENTITY = os.path.join(ROOT, "fixtures", "archive", "keys", "identity.txt")
QIS = ["age", "fnlwgt", "education-num", "hours-per-week"]
K = 10
COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
           "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country",
           "salary-class"]
CONFIG = {
    "columns": [
        {"name": c, "role": "quasi", "type": "integer"} if c in QIS else {"name": c, "role": "insensitive"}
        for c in COLUMNS
    ],
    "privacy": {"k": K, "suppression_limit": 0.0},
    "algorithm": {"name": "mondrian"},
}
ISSUE_MOSAICROWN = {"wall_s": "160-275", "peak_mb": 3250, "ncp": 0.0194, "source": "issue #22 (same machine, same rows)"}


def tree_rss(pid: int) -> int:
    """Resident bytes of `pid` and its descendants."""
    total, stack = 0, [pid]
    children = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(p))
            except OSError:
                pass
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except OSError:
            pass
        stack.extend(children.get(p, []))
    return total


def measured(cmd, **kw):
    """Runs `cmd`; returns (wall seconds, peak MB of its process tree, stdout)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    peak = [0]

    def sample():
        while proc.poll() is None:
            peak[0] = max(peak[0], tree_rss(proc.pid))
            time.sleep(0.05)

    t = threading.Thread(target=sample)
    t.start()
    out, err = proc.communicate()
    t.join()
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{err[-3000:]}")
    return wall, peak[0] / 1e6, out


def ncp(release_csv: str, domains: dict) -> float:
    """Mean over numeric QI cells of (hi - lo) / (column range); `*` counts 1."""
    import pyarrow.csv as pcsv

    if os.path.isdir(release_csv):  # Spark's output folder: its one part file
        release_csv = next(os.path.join(release_csv, f) for f in sorted(os.listdir(release_csv)) if f.endswith(".csv"))
    t = pcsv.read_csv(release_csv, convert_options=pcsv.ConvertOptions(column_types={q: "string" for q in QIS}))
    total, cells = 0.0, 0
    for q in QIS:
        lo_d, hi_d = domains[q]
        counts = t.column(q).value_counts()
        for item in counts.to_pylist():
            label, n = item["values"], item["counts"]
            if label == "*":
                w = 1.0
            elif "~" in label:
                lo, hi = label.split("~")
                w = (float(hi) - float(lo)) / (hi_d - lo_d)
            else:
                w = 0.0
            total += w * n
            cells += n
    return total / cells


def spark_job(kind: str, parquet: str, out: str, fragments) -> list:
    """The command that runs one karc.spark job in its own process."""
    code = f"""
import json, os, sys, time
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
from pyspark.sql import SparkSession
import karc.spark
spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.driver.memory", "2g").config("spark.sql.shuffle.partitions", "4").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
df = spark.read.parquet({parquet!r})
config = json.loads({json.dumps(json.dumps(CONFIG))})
start = time.perf_counter()
if {kind!r} == "anonymize":
    release = karc.spark.anonymize(df, config, k={K}, fragments={fragments!r})
    rows = release.count()
    took = time.perf_counter() - start
    release.coalesce(1).write.mode("overwrite").option("header", True).csv({out!r})
    print(json.dumps({{"rows": rows, "seconds": took}}))
else:
    report = karc.spark.pack(df, {out!r}, config, recipients=[{RECIPIENT!r}], k={K}, fragments={fragments!r})
    report["seconds"] = time.perf_counter() - start
    print(json.dumps(report))
spark.stop()
"""
    return [sys.executable, "-c", code]


def mosaicrown_job(checkout: str, python: str, csv: str, work: str) -> tuple:
    """mosaicrown's distributed/anonymize.py on local[2]: Mondrian
    fragmentation of a 10 % sample (its toPandas on the driver), 4
    fragments, its pandas Mondrian per fragment, its global certainty
    penalty (the NCP above) printed."""
    job = {
        "input": csv,
        "output": os.path.join(work, "mosaicrown-out.csv"),
        "fraction": 0.1,
        "quasiid_columns": QIS,
        "sensitive_columns": ["salary-class"],
        "column_score": "span",
        "fragmentation": "mondrian",
        "K": K,
        "measures": ["global_certainty_penalty"],
    }
    path = os.path.join(work, "mosaicrown.json")
    with open(path, "w") as f:
        json.dump(job, f)
    script = os.path.join(checkout, "distributed", "anonymize.py")
    env = dict(
        os.environ,
        PYTHONPATH=os.path.join(checkout, "distributed", "mondrian"),
        PYSPARK_PYTHON=python,
        PYSPARK_SUBMIT_ARGS="--master local[2] --driver-memory 2g pyspark-shell",
    )
    return [python, script, path, "4", "0", "0"], env


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--fragments", type=int, default=None)
    ap.add_argument("--mosaicrown", help="a checkout of mosaicrown/mondrian")
    ap.add_argument("--mosaicrown-python", help="a Python with its requirements (distributed/spark/requirements.txt) and pyspark 3.5")
    ap.add_argument("--out", default=None, help="work folder (default: a temporary one)")
    ap.add_argument("--only", choices=["mosaicrown"], help="run mosaicrown alone (on the rows of an earlier run in --out)")
    args = ap.parse_args()
    work = args.out or tempfile.mkdtemp(prefix="bench-spark-")
    os.makedirs(work, exist_ok=True)
    csv = os.path.join(work, f"adult-{args.rows}.csv")
    parquet = csv.replace(".csv", ".parquet")
    if not os.path.exists(csv):
        with open(csv, "wb") as f:
            subprocess.run([os.path.join(BIN, "adult-stream-gen"), "--rows", str(args.rows)], stdout=f, check=True)
    import pyarrow.csv as pcsv
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    table = pcsv.read_csv(csv)
    if not os.path.exists(parquet):
        # Row groups of 100k rows, as a data lake's files have several: Spark
        # splits the scan between the cores (one group of 1M rows is read by
        # one core; mosaicrown's CSV is split by bytes either way).
        pq.write_table(table, parquet, row_group_size=100_000)
    domains = {q: (pc.min(table.column(q)).as_py(), pc.max(table.column(q)).as_py()) for q in QIS}
    config_path = os.path.join(work, "numeric4.toml")
    with open(config_path, "w") as f:
        f.write('[input]\ndelimiter = ","\nheader = true\n')
        for c in CONFIG["columns"]:
            f.write(f'\n[[columns]]\nname = "{c["name"]}"\nrole = "{c["role"]}"\n')
            if "type" in c:
                f.write(f'type = "{c["type"]}"\n')
        f.write(f'\n[privacy]\nk = {K}\nsuppression_limit = 0.0\n\n[algorithm]\nname = "mondrian"\n')
    results = {"rows": args.rows, "qis": QIS, "k": K}
    if args.only != "mosaicrown":
        karc_runs(results, work, csv, parquet, config_path, domains, table, args.fragments)
    if args.mosaicrown:
        cmd, env = mosaicrown_job(args.mosaicrown, args.mosaicrown_python or sys.executable, csv, work)
        wall, peak, out = measured(cmd, env=env)
        gcp = [line.split("=")[1].strip() for line in out.splitlines() if line.startswith("Global Certainty Penalty")]
        own = [line.strip("- ").split()[0] for line in out.splitlines() if line.startswith("--- ")]
        results["mosaicrown"] = {
            "wall_s": wall,
            "job_s": float(own[0]) if own else None,  # its own timer: session, cuts, anonymization, GCP, output
            "peak_mb": peak,
            "ncp": float(gcp[0]) if gcp else None,
        }
    else:
        results["mosaicrown"] = ISSUE_MOSAICROWN
    print(json.dumps(results, indent=2))


def karc_runs(results, work, csv, parquet, config_path, domains, table, fragments) -> None:
    """Single-process karc, then karc.spark's anonymize and pack."""
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    # Single process.
    single_csv = os.path.join(work, "single.csv")
    wall, peak, _ = measured([os.path.join(BIN, "karc"), "anonymize", "-c", config_path, "-a", "mondrian", "-k", str(K), csv, "-o", single_csv])
    results["single_anonymize"] = {"wall_s": wall, "peak_mb": peak, "ncp": ncp(single_csv, domains)}
    single_karc = os.path.join(work, "single.karc")
    wall, peak, _ = measured([os.path.join(BIN, "karc"), "pack", "-c", config_path, "-a", "mondrian", "-k", str(K), "-r", RECIPIENT, csv, "-o", single_karc])
    results["single_pack"] = {"wall_s": wall, "peak_mb": peak, "file_bytes": os.path.getsize(single_karc)}

    # karc.spark.anonymize.
    spark_csv = os.path.join(work, "spark.csv")
    wall, peak, out = measured(spark_job("anonymize", parquet, spark_csv, fragments))
    inner = json.loads(out.strip().splitlines()[-1])
    results["spark_anonymize"] = {"wall_s": wall, "job_s": inner["seconds"], "peak_mb": peak, "ncp": ncp(spark_csv, domains)}

    # karc.spark.pack, verified, checked, restored.
    spark_karc = os.path.join(work, "spark.karc")
    wall, peak, out = measured(spark_job("pack", parquet, spark_karc, fragments))
    report = json.loads(out.strip().splitlines()[-1])
    subprocess.run([os.path.join(BIN, "karc"), "verify", spark_karc], check=True, capture_output=True)
    exported = os.path.join(work, "spark-export.csv")
    subprocess.run([os.path.join(BIN, "karc"), "export", spark_karc, "-o", exported], check=True, capture_output=True)
    released = pcsv.read_csv(exported, convert_options=pcsv.ConvertOptions(column_types={q: "string" for q in QIS}))
    sizes = released.group_by(QIS).aggregate([([], "count_all")]).column("count_all")
    restored_csv = os.path.join(work, "spark-restored.csv")
    subprocess.run([os.path.join(BIN, "karc"), "restore", spark_karc, "-i", IDENTITY, "-o", restored_csv], check=True, capture_output=True)
    restored = pcsv.read_csv(restored_csv)
    same = restored.sort_by([(c, "ascending") for c in restored.column_names]).equals(
        table.sort_by([(c, "ascending") for c in table.column_names])
    )
    results["spark_pack"] = {
        "wall_s": wall,
        "job_s": report["seconds"],
        "peak_mb": peak,
        "file_bytes": os.path.getsize(spark_karc),
        "fragments": report["fragments"],
        "ncp_meta": report["metrics"]["ncp"],
        "verify": "ok",
        "min_class_independent": pc.min(sizes).as_py(),
        "restore_equals_input_rows": same,
    }



if __name__ == "__main__":
    main()

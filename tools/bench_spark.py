#!/usr/bin/env python3
"""karc on Spark against single-process karc and mosaicrown's Spark Mondrian.

    python tools/bench_spark.py --rows 1000000 [--mosaicrown DIR --mosaicrown-python PY] [--out DIR]
        [--only mosaicrown] [--memory 2g] [--no-single] [--no-pack] [--no-floor] [--fragments N]

At ``--rows 10000000`` it is the 10M-row run of docs/SPARK.md: the peak
resident memory of the driver (its JVM, which in local mode holds the
executors, and Python) and of the Python workers, sampled every 50 ms.

Generates ``--rows`` rows with ``target/release/adult-stream-gen`` (written
once as CSV and as Parquet), then on Spark ``local[2]``:

- ``karc.spark.anonymize`` (Mondrian, k = 10, the 4 numeric QIs of the
  issue: age, fnlwgt, education-num, hours-per-week), its release written
  as Parquet; then, untimed, ``karc.spark.check_release`` of the written
  release and an independent count of its classes (pyarrow, here);
- ``karc.spark.pack`` of the same, sealed for the test recipient, then
  ``karc verify`` of the file, its release checked by an independent count
  (pyarrow) and its restore compared with the input rows;
- ``karc anonymize -a mondrian -k 10`` and ``karc pack`` in one process;
- a profile: the plan's passes (``plan_s``: count, sample, probe, the
  counting aggregation) apart from the fragments anonymized and written
  (``write_s``), and karc's own work on one fragment in this process;
- the issue's bars (``bars``): anonymize over Spark's read + shuffle +
  write (at most 1.5 x) and mosaicrown over anonymize (at least 8 x);
- Spark's floor (unless ``--no-floor``): the cheapest Spark program over
  the same input, the input's Parquet read and written again unchanged,
  and the same with a shuffle to as many partitions as karc's release has
  (``repartition`` + write): what any Spark implementation pays before it
  does any work, so ``mosaicrown session / floor session`` is the best
  ratio any of them could reach against mosaicrown in this run;
- mosaicrown/mondrian's ``distributed/anonymize.py`` (Mondrian cuts of a
  10 % sample, 4 fragments, its pandas Mondrian per fragment, no measure)
  when ``--mosaicrown`` names a checkout whose dependencies import, else the
  issue's figures are quoted.

Every Spark run gets the same session settings, ``SESSION_CONF``, through
the same mechanism (``PYSPARK_SUBMIT_ARGS``, which mosaicrown's
``getOrCreate()`` honours as karc's does); none is set in code.

Times, the same for every Spark run: ``wall`` is the whole process (JVM
start included); ``session_s`` from before the Spark session is made to
the output written (mosaicrown's own timer spans exactly that); karc's
``job_s`` from the library call to the output written. Peak memory is the
largest sum of resident set sizes of the process tree (the driver's JVM,
which holds local mode's executor, and Python; the Python workers), and
the workers' alone, sampled every 50 ms. NCP is computed the same way for
every release: per numeric QI cell, the released interval's width over the
column's range in the input, averaged over cells.
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
        # education is a function of the QI education-num (docs/DERIVED.md),
        # released beside it on purpose: the subject here is speed.
        | ({"allow_derived": ["education-num"]} if c == "education" else {})
        for c in COLUMNS
    ],
    "privacy": {"k": K, "suppression_limit": 0.0},
    "algorithm": {"name": "mondrian"},
}
#: Session settings of every Spark run (karc's, the floor's, mosaicrown's),
#: passed on the command line of each (``PYSPARK_SUBMIT_ARGS``): no web UI
#: (its server and listeners start with the session and serve no one here).
SESSION_CONF = {"spark.ui.enabled": "false"}
ISSUE_MOSAICROWN = {"wall_s": "160-275", "peak_mb": 3250, "ncp": 0.0194, "source": "issue #22 (same machine, same rows)"}


def tree_rss(pid: int) -> tuple:
    """Resident bytes of `pid` and its descendants: (all, Python workers).
    The workers are the processes Spark forks from `pyspark.daemon`; the
    rest is the driver (its JVM, which holds local mode's executor, and its
    Python)."""
    total, workers, stack = 0, 0, [pid]
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
                rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            with open(f"/proc/{p}/cmdline", "rb") as f:
                worker = b"pyspark.daemon" in f.read()
        except OSError:
            continue
        total += rss
        workers += rss if worker else 0
        stack.extend(children.get(p, []))
    return total, workers


def measured(cmd, **kw):
    """Runs `cmd`; returns (wall seconds, peak MB of its process tree, peak
    MB of its Python workers, stdout)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    peak = [0, 0]

    def sample():
        while proc.poll() is None:
            total, workers = tree_rss(proc.pid)
            peak[0], peak[1] = max(peak[0], total), max(peak[1], workers)
            time.sleep(0.05)

    t = threading.Thread(target=sample)
    t.start()
    out, err = proc.communicate()
    t.join()
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{err[-3000:]}")
    return wall, peak[0] / 1e6, peak[1] / 1e6, out


def _released(path: str):
    """A release as an Arrow table, QIs as text: a CSV file, or Spark's
    output folder of CSV or Parquet parts (all of them)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    convert = pcsv.ConvertOptions(column_types={q: "string" for q in QIS})
    if not os.path.isdir(path):
        return pcsv.read_csv(path, convert_options=convert)
    names = sorted(f for f in os.listdir(path) if not f.startswith((".", "_")))
    if all(f.endswith(".parquet") for f in names):
        return pa.concat_tables(pq.read_table(os.path.join(path, f)) for f in names)
    return pa.concat_tables(pcsv.read_csv(os.path.join(path, f), convert_options=convert) for f in names if f.endswith(".csv"))


def _width(label: str) -> tuple:
    """A numeric QI label's (lo, hi): karc's `lo~hi`, mosaicrown's `[lo-hi]`,
    a value alone; None for `*`."""
    if label == "*":
        return None
    if label.startswith("[") and label.endswith("]"):
        lo, hi = label[1:-1].split("-")
        return float(lo), float(hi)
    if "~" in label:
        lo, hi = label.split("~")
        return float(lo), float(hi)
    return float(label), float(label)


def ncp(release_path: str, domains: dict) -> float:
    """Mean over numeric QI cells of (hi - lo) / (column range); `*` counts 1."""
    t = _released(release_path)
    total, cells = 0.0, 0
    for q in QIS:
        lo_d, hi_d = domains[q]
        for item in t.column(q).cast("string").value_counts().to_pylist():
            span = _width(item["values"])
            total += (1.0 if span is None else (span[1] - span[0]) / (hi_d - lo_d)) * item["counts"]
            cells += item["counts"]
    return total / cells


def spark_env(memory: str, python: str) -> dict:
    """The environment of every Spark run: local[2], the driver's memory and
    ``SESSION_CONF`` on Spark's command line, ``python`` for the workers."""
    conf = " ".join(f"--conf {k}={v}" for k, v in SESSION_CONF.items())
    return dict(
        os.environ,
        PYSPARK_PYTHON=python,
        PYSPARK_SUBMIT_ARGS=f"--master local[2] --driver-memory {memory} {conf} pyspark-shell",
    )


def floor_job(parquet: str, out: str, partitions) -> list:
    """The command of Spark's floor in its own process: the session made,
    the input's Parquet read and written again unchanged (with a shuffle to
    ``partitions`` first unless None), timed as karc's ``session_s``."""
    code = f"""
import json, time
began = time.perf_counter()
from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
df = spark.read.parquet({parquet!r})
if {partitions!r} is not None:
    df = df.repartition({partitions!r})
df.write.mode("overwrite").parquet({out!r})
print(json.dumps({{"session_s": time.perf_counter() - began}}))
spark.stop()
"""
    return [sys.executable, "-c", code]


def spark_job(kind: str, parquet: str, out: str, fragments) -> list:
    """The command that runs one karc.spark job in its own process. It
    prints two times: `session_s` from before the Spark session is made to
    the output written (mosaicrown's own timer measures the same span), and
    `job_s` from the library call to the output written."""
    code = f"""
import json, os, sys, time
began = time.perf_counter()
from pyspark.sql import SparkSession
import karc.spark
spark = SparkSession.builder.getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
df = spark.read.parquet({parquet!r})
config = json.loads({json.dumps(json.dumps(CONFIG))})
start = time.perf_counter()
if {kind!r} == "anonymize":
    release = karc.spark.anonymize(df, config, k={K}, fragments={fragments!r})
    planned = time.perf_counter()  # the plan's passes run in the call; the release is lazy
    release.write.mode("overwrite").parquet({out!r})
    report = {{"plan_s": planned - start, "write_s": time.perf_counter() - planned}}
else:
    report = karc.spark.pack(df, {out!r}, config, recipients=[{RECIPIENT!r}], k={K}, fragments={fragments!r})
done = time.perf_counter()
report.update(job_s=done - start, session_s=done - began)
if {kind!r} == "anonymize":  # untimed: the public check, Spark's count of the union's classes
    checked = karc.spark.check_release(spark.read.parquet({out!r}), config, k={K})
    report["check_release_min_class"] = checked["constraints"][0]["min_class"]
    report["check_s"] = time.perf_counter() - done
print(json.dumps(report))
spark.stop()
"""
    return [sys.executable, "-c", code]


def mosaicrown_job(checkout: str, python: str, csv: str, work: str, memory: str) -> tuple:
    """mosaicrown's distributed/anonymize.py on local[2]: Mondrian
    fragmentation of a 10 % sample (its toPandas on the driver), 4
    fragments, its pandas Mondrian per fragment, written as CSV."""
    job = {
        "input": csv,
        "output": os.path.join(work, "mosaicrown-out.csv"),
        "fraction": 0.1,
        "quasiid_columns": QIS,
        "sensitive_columns": ["salary-class"],
        "column_score": "span",
        "fragmentation": "mondrian",
        "K": K,
        # No measure: its timer then spans session to output written, as
        # karc's `session_s`; the bench computes NCP from its output.
        "measures": [],
    }
    path = os.path.join(work, "mosaicrown.json")
    with open(path, "w") as f:
        json.dump(job, f)
    script = os.path.join(checkout, "distributed", "anonymize.py")
    env = dict(spark_env(memory, python), PYTHONPATH=os.path.join(checkout, "distributed", "mondrian"))
    return [python, script, path, "4", "0", "0"], env


def ratios(results: dict, *runs: str) -> dict:
    """mosaicrown's wall and session over each run's of this invocation: for
    karc, its speed-up; for a floor, the best any Spark program could reach."""
    mosaicrown = results["mosaicrown"]
    found = {}
    for run in runs:
        if run in results:
            found[run] = {
                "wall": mosaicrown["wall_s"] / results[run]["wall_s"],
                "session": mosaicrown["session_s"] / results[run]["session_s"] if mosaicrown["session_s"] else None,
            }
    return found


def bars(results: dict) -> dict:
    """The issue's two bars, measured in this run: karc.spark.anonymize at
    most 1.5 x Spark's own read + shuffle + write of the same rows with the
    same session settings, and at least 8 x faster than mosaicrown."""
    found = {}
    karc_run, floor = results.get("spark_anonymize"), results.get("floor_shuffle")
    if karc_run and floor:
        for t in ("wall_s", "session_s"):
            found[f"over_floor_{t[:-2]}"] = karc_run[t] / floor[t]
        found["over_floor_bar"] = 1.5
        found["over_floor_met"] = found["over_floor_session"] <= 1.5
    mosaicrown = results.get("mosaicrown", {})
    if karc_run and isinstance(mosaicrown.get("wall_s"), float):
        found["mosaicrown_over_karc_wall"] = mosaicrown["wall_s"] / karc_run["wall_s"]
        found["mosaicrown_bar"] = 8
        found["mosaicrown_met"] = found["mosaicrown_over_karc_wall"] >= 8
    return found


def profile(parquet: str, fragments: int) -> dict:
    """Where karc.spark.anonymize's time goes beside Spark's: karc's own
    work on one fragment (``generalize_fragment`` on rows / fragments rows,
    in this process, one thread), which the cluster's cores share."""
    import pyarrow.parquet as pq

    import karc

    table = pq.read_table(parquet)
    rows = table.num_rows // max(1, fragments)
    fragment = table.slice(0, rows)
    domains = [(q, float(min(table.column(q).to_pylist())), float(max(table.column(q).to_pylist()))) for q in QIS]
    began = time.perf_counter()
    karc._karc.generalize_fragment(fragment, domains, [], config_json=json.dumps(CONFIG), k=K)
    spent = time.perf_counter() - began
    return {"fragments": fragments, "fragment_rows": rows, "karc_fragment_s": spent, "karc_all_fragments_s": spent * fragments}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--fragments", type=int, default=None)
    ap.add_argument("--mosaicrown", help="a checkout of mosaicrown/mondrian")
    ap.add_argument("--mosaicrown-python", help="a Python with its requirements (distributed/spark/requirements.txt) and pyspark 3.5")
    ap.add_argument("--out", default=None, help="work folder (default: a temporary one)")
    ap.add_argument("--only", choices=["mosaicrown"], help="run mosaicrown alone (on the rows of an earlier run in --out)")
    ap.add_argument("--memory", default="2g", help="Spark driver memory (local mode: the executors' too)")
    ap.add_argument("--no-single", action="store_true", help="skip the single-process karc runs")
    ap.add_argument("--no-pack", action="store_true", help="skip karc.spark.pack")
    ap.add_argument("--no-floor", action="store_true", help="skip Spark's floor (the input read and written again)")
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
            if "allow_derived" in c:
                f.write(f'allow_derived = {json.dumps(c["allow_derived"])}\n')
        f.write(f'\n[privacy]\nk = {K}\nsuppression_limit = 0.0\n\n[algorithm]\nname = "mondrian"\n')
    results = {"rows": args.rows, "qis": QIS, "k": K, "load_before": os.getloadavg()}
    if args.only != "mosaicrown":
        karc_runs(results, work, csv, parquet, config_path, domains, table, args)
    del table
    if args.mosaicrown:
        cmd, env = mosaicrown_job(args.mosaicrown, args.mosaicrown_python or sys.executable, csv, work, args.memory)
        wall, peak, workers, out = measured(cmd, env=env)
        own = [line.strip("- ").split()[0] for line in out.splitlines() if line.startswith("--- ")]
        results["mosaicrown"] = {
            "wall_s": wall,
            "session_s": float(own[0]) if own else None,  # its own timer: session to output written
            "peak_mb": peak,
            "workers_peak_mb": workers,
            "ncp": ncp(os.path.join(work, "mosaicrown-out.csv"), domains),
        }
        results["ratio"] = ratios(results, "spark_anonymize", "floor", "floor_shuffle")
    else:
        results["mosaicrown"] = ISSUE_MOSAICROWN
    results["bars"] = bars(results)
    results["load_after"] = os.getloadavg()
    print(json.dumps(results, indent=2))


def floor_runs(results, work, parquet, partitions, memory) -> None:
    """Spark's floor: the input read and written again, without and with
    the shuffle to karc's number of partitions, each in its own process."""
    for name, shuffle in (("floor", None), ("floor_shuffle", partitions)):
        out = os.path.join(work, f"{name}-out")
        wall, peak, workers, printed = measured(floor_job(parquet, out, shuffle), env=spark_env(memory, sys.executable))
        results[name] = {
            "wall_s": wall,
            "session_s": json.loads(printed.strip().splitlines()[-1])["session_s"],
            "partitions": shuffle,
            "peak_mb": peak,
        }


def karc_runs(results, work, csv, parquet, config_path, domains, table, args) -> None:
    """Single-process karc, then karc.spark's anonymize and pack."""
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    karc_cli = os.path.join(BIN, "karc")
    if not args.no_single:
        single_csv = os.path.join(work, "single.csv")
        wall, peak, _, _ = measured([karc_cli, "anonymize", "-c", config_path, "-a", "mondrian", "-k", str(K), csv, "-o", single_csv])
        results["single_anonymize"] = {"wall_s": wall, "peak_mb": peak, "ncp": ncp(single_csv, domains)}
        single_karc = os.path.join(work, "single.karc")
        wall, peak, _, _ = measured([karc_cli, "pack", "-c", config_path, "-a", "mondrian", "-k", str(K), "-r", RECIPIENT, csv, "-o", single_karc])
        results["single_pack"] = {"wall_s": wall, "peak_mb": peak, "file_bytes": os.path.getsize(single_karc)}

    # karc.spark.anonymize, written as Parquet; its release counted by pyarrow here.
    spark_out = os.path.join(work, "spark-release")
    wall, peak, workers, out = measured(
        spark_job("anonymize", parquet, spark_out, args.fragments), env=spark_env(args.memory, sys.executable)
    )
    inner = json.loads(out.strip().splitlines()[-1])
    released = _released(spark_out)
    sizes = released.group_by(QIS).aggregate([([], "count_all")]).column("count_all")
    results["spark_anonymize"] = {
        "wall_s": wall - inner["check_s"],  # the untimed check_release aside, as mosaicrown runs none
        "check_release_s": inner["check_s"],
        "session_s": inner["session_s"],
        "job_s": inner["job_s"],
        "peak_mb": peak,
        "workers_peak_mb": workers,
        "ncp": ncp(spark_out, domains),
        "rows": released.num_rows,
        "min_class_independent": pc.min(sizes).as_py(),
        "check_release_min_class": inner["check_release_min_class"],
    }
    del released
    results["spark_anonymize"].update(plan_s=inner["plan_s"], write_s=inner["write_s"])
    # As many partitions as karc's release wrote: one a fragment.
    partitions = sum(1 for f in os.listdir(spark_out) if f.startswith("part-"))
    results["profile"] = profile(parquet, partitions)
    if not args.no_floor:
        floor_runs(results, work, parquet, partitions, args.memory)
    if args.no_pack:
        return

    # karc.spark.pack, verified, checked, restored.
    spark_karc = os.path.join(work, "spark.karc")
    wall, peak, workers, out = measured(
        spark_job("pack", parquet, spark_karc, args.fragments), env=spark_env(args.memory, sys.executable)
    )
    report = json.loads(out.strip().splitlines()[-1])
    subprocess.run([karc_cli, "verify", spark_karc], check=True, capture_output=True)
    exported = os.path.join(work, "spark-export.csv")
    subprocess.run([karc_cli, "export", spark_karc, "-o", exported], check=True, capture_output=True)
    released = pcsv.read_csv(exported, convert_options=pcsv.ConvertOptions(column_types={q: "string" for q in QIS}))
    sizes = released.group_by(QIS).aggregate([([], "count_all")]).column("count_all")
    del released
    restored_csv = os.path.join(work, "spark-restored.csv")
    subprocess.run([karc_cli, "restore", spark_karc, "-i", IDENTITY, "-o", restored_csv], check=True, capture_output=True)
    restored = pcsv.read_csv(restored_csv)
    same = restored.sort_by([(c, "ascending") for c in restored.column_names]).equals(
        table.sort_by([(c, "ascending") for c in table.column_names])
    )
    del restored
    for scratch in (exported, restored_csv):
        os.remove(scratch)
    results["spark_pack"] = {
        "wall_s": wall,
        "session_s": report["session_s"],
        "job_s": report["job_s"],
        "peak_mb": peak,
        "workers_peak_mb": workers,
        "file_bytes": os.path.getsize(spark_karc),
        "fragments": report["fragments"],
        "ncp_meta": report["metrics"]["ncp"],
        "verify": "ok",
        "min_class_independent": pc.min(sizes).as_py(),
        "restore_equals_input_rows": same,
    }


if __name__ == "__main__":
    main()

"""Distributed Datafly (karc.spark_global, by frequency sets) against one process.

`python tools/bench_spark_global.py --rows 1000000 --out DIR` generates the rows with adult-stream-gen,
then runs, each in its own process: `karc anonymize -a datafly` on the CSV, and
`karc.spark_global.anonymize` on the same rows as Parquet in Spark local[2] (the frequency set
aggregated by Spark, the search on the driver, the recoding in mapInArrow, the release counted and
checked). Prints wall time, job time, peak memory of the process tree, the levels each chose and
whether the releases are the same rows. Needs target/release (karc, adult-stream-gen) and a Python
with karc, pyspark 3.5 and pyarrow.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_spark import BIN, ROOT, measured  # noqa: E402 - the same timing and peak sampling

HIERARCHIES = os.path.join(ROOT, "fixtures", "adult", "hierarchies")
K = 10
#: Seven QIs: age by intervals, sex flat, five by ARX's Adult hierarchies.
QIS = {
    "age": {"type": "integer", "hierarchy": {"intervals": [5, 10, 20, 40]}},
    "education": {"hierarchy": os.path.join(HIERARCHIES, "adult_hierarchy_education.csv")},
    "marital-status": {"hierarchy": os.path.join(HIERARCHIES, "adult_hierarchy_marital-status.csv")},
    "occupation": {"hierarchy": os.path.join(HIERARCHIES, "adult_hierarchy_occupation.csv")},
    "race": {"hierarchy": os.path.join(HIERARCHIES, "adult_hierarchy_race.csv")},
    "native-country": {"hierarchy": os.path.join(HIERARCHIES, "adult_hierarchy_native-country.csv")},
    "sex": {"hierarchy": {"flat": True}},
}
COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
           "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country",
           "salary-class"]


def config() -> dict:
    columns = [
        {"name": c, "role": "quasi", "type": "categorical", **QIS[c]} if c in QIS else {"name": c, "role": "insensitive"}
        for c in COLUMNS
    ]
    return {"columns": columns, "privacy": {"k": K}, "algorithm": {"name": "datafly"}}


def toml_value(v) -> str:
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, (int, float)):
        return str(v)
    return json.dumps(v)


def write_toml(path: str, cfg: dict) -> None:
    with open(path, "w") as f:
        f.write('[input]\ndelimiter = ","\nheader = true\n')
        for c in cfg["columns"]:
            f.write("\n[[columns]]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in c.items()))
        f.write(f"\n[privacy]\nk = {K}\n\n[algorithm]\nname = \"datafly\"\n")


def spark_job(parquet: str, out: str) -> list:
    code = f"""
import json, os, sys, time
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
from pyspark.sql import SparkSession
import karc.spark_global
spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.driver.memory", "2g").config("spark.sql.shuffle.partitions", "4").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
df = spark.read.parquet({parquet!r})
config = json.loads({json.dumps(json.dumps(config()))})
start = time.perf_counter()
choice = karc.spark_global.search(df, config, algorithm="datafly")
searched = time.perf_counter() - start
release = karc.spark_global.anonymize(df, config, algorithm="datafly", choice=choice)
rows = release.count()
took = time.perf_counter() - start
release.coalesce(1).write.mode("overwrite").option("header", True).csv({out!r})
print(json.dumps({{"rows": rows, "seconds": took, "search_seconds": searched, **choice.report()}}))
spark.stop()
"""
    return [sys.executable, "-c", code]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--out", default=None, help="work folder (default: a temporary one)")
    args = ap.parse_args()
    work = args.out or tempfile.mkdtemp(prefix="bench-spark-global-")
    os.makedirs(work, exist_ok=True)
    csv = os.path.join(work, f"adult-{args.rows}.csv")
    parquet = csv.replace(".csv", "-text.parquet")
    if not os.path.exists(csv):
        with open(csv, "wb") as f:
            subprocess.run([os.path.join(BIN, "adult-stream-gen"), "--rows", str(args.rows)], stdout=f, check=True)
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    types = {c: pa.string() for c in COLUMNS}
    table = pcsv.read_csv(csv, convert_options=pcsv.ConvertOptions(column_types=types, strings_can_be_null=False))
    if not os.path.exists(parquet):
        pq.write_table(table, parquet, row_group_size=100_000)
    config_path = os.path.join(work, "datafly7.toml")
    write_toml(config_path, config())
    results = {"rows": args.rows, "qis": list(QIS), "k": K}

    single_csv = os.path.join(work, "single.csv")
    cmd = [os.path.join(BIN, "karc"), "anonymize", "-c", config_path, "-a", "datafly", "--json", csv, "-o", single_csv]
    wall, peak, out = measured(cmd)
    report = json.loads(out)["report"]
    results["single_datafly"] = {"wall_s": wall, "peak_mb": peak, "levels": dict(zip(report["qis"], report["levels"])),
                                 "suppressed": report["suppressed"], "classes": report["classes"]}

    spark_csv = os.path.join(work, "spark-datafly")
    wall, peak, out = measured(spark_job(parquet, spark_csv))
    inner = json.loads(out.strip().splitlines()[-1])
    results["spark_datafly"] = {"wall_s": wall, "job_s": inner["seconds"], "search_s": inner["search_seconds"],
                                "peak_mb": peak, "levels": inner["levels"], "tuples": inner["tuples"],
                                "suppressed": inner["suppressed_rows"], "classes": inner["classes"]}
    results["same_levels"] = results["single_datafly"]["levels"] == results["spark_datafly"]["levels"]
    part = next(os.path.join(spark_csv, f) for f in sorted(os.listdir(spark_csv)) if f.endswith(".csv"))
    got = pcsv.read_csv(part, convert_options=pcsv.ConvertOptions(column_types=types, strings_can_be_null=False))
    single = pcsv.read_csv(single_csv, convert_options=pcsv.ConvertOptions(column_types=types, strings_can_be_null=False))
    results["same_release_rows"] = got.equals(single)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

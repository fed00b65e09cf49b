"""The job ``test_spark_cluster.py`` submits with ``spark-submit`` to a
standalone cluster: the driver reads a CSV (pyarrow, on the driver only),
hands its rows to Spark, and packs them with ``karc.spark.pack`` into one
``.karc``. Nothing is read or written by the workers through a path the
driver also sees: the rows reach them through Spark, the config and its
hierarchy travel with the tasks, the parts come back through Spark.

Usage: spark_cluster_job.py CSV CONFIG_JSON OUTPUT RECIPIENT REPORT_JSON
"""

import json
import sys

import pyarrow.csv as pcsv
from pyspark.sql import SparkSession

import karc
import karc.spark


def main() -> None:
    csv, config, output, recipient, report_path = sys.argv[1:6]
    spark = SparkSession.builder.appName("karc-cluster-test").getOrCreate()
    table = pcsv.read_csv(csv)
    df = spark.createDataFrame(table.to_pandas()).repartition(2)
    with open(config, encoding="utf-8") as f:
        config = json.load(f)
    report = karc.spark.pack(df, output, config, recipients=[recipient], fragments=4, seed=1)
    # Where each executor imported karc from: the shipped copy, not the driver's.
    sc = spark.sparkContext
    report["executor_karc"] = sorted(set(sc.parallelize(range(4), 2).map(lambda _: __import__("karc").__file__).collect()))
    report["driver_karc"] = karc.__file__
    with open(report_path, "w", encoding="utf-8") as f:
        json.dump(report, f)
    spark.stop()


if __name__ == "__main__":
    main()

"""karc.spark on a real cluster: a Spark standalone master and two workers
started on this machine (``spark-class`` from the pyspark package), each
worker with its own work and scratch folders and its executor in a JVM of
its own, the job submitted with ``spark-submit`` and karc shipped to the
executors as docs/SPARK.md tells a user (``--archives`` of the wheel's
content, ``spark.executorEnv.PYTHONPATH``). No folder is shared by the
driver and the workers: the rows reach the workers through Spark, the
config and its hierarchy travel with the tasks, the parts come back through
Spark. The file is then checked with the command line alone: ``verify``,
an independent count of k, l and t on ``export``'s release, and
``restore`` equal to the input rows (as a multiset)."""

import collections
import csv
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import zipfile

import pytest

pyspark = pytest.importorskip("pyspark")

import karc  # noqa: E402
from test_spark import ADULT_RAW, CONFIG, KEYS, QIS, RECIPIENT, ROOT, _generator  # noqa: E402

SPARK_HOME = os.path.dirname(pyspark.__file__)
CLI = os.path.join(ROOT, "target", "release", "karc")
SENSITIVE = "marital-status"
K, L, T = 5, 2, 0.35


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(log, *args, env=None):
    """A Spark daemon (``spark-class``: it execs its JVM) in a process group of its own."""
    return subprocess.Popen(
        [os.path.join(SPARK_HOME, "bin", "spark-class"), *args],
        stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "SPARK_HOME": SPARK_HOME, **(env or {})},
        start_new_session=True,
    )


def _wait_for(path, text, count, seconds=90):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with open(path, encoding="utf-8", errors="replace") as f:
            if f.read().count(text) >= count:
                return
        time.sleep(0.5)
    with open(path, encoding="utf-8", errors="replace") as f:
        raise AssertionError(f"{text!r} not seen {count} times in {path}:\n{f.read()[-3000:]}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A master and two workers (1 core, 1 GB each), each worker with its
    own work and scratch folders; yields the master's URL."""
    if shutil.which("java") is None:
        pytest.skip("no Java runtime")
    base = tmp_path_factory.mktemp("cluster")
    port = _port()
    procs = []
    logs = []
    try:
        log = open(base / "master.log", "w")
        logs.append(log)
        procs.append(_start(log, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                            "--webui-port", str(_port())))
        _wait_for(base / "master.log", "I have been elected leader", 1)
        url = f"spark://127.0.0.1:{port}"
        for i in (1, 2):
            work, scratch = base / f"worker{i}" / "work", base / f"worker{i}" / "scratch"
            work.mkdir(parents=True)
            scratch.mkdir()
            log = open(base / f"worker{i}.log", "w")
            logs.append(log)
            procs.append(_start(log, "org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1",
                                "--cores", "1", "--memory", "1g", "--work-dir", str(work), "--webui-port", str(_port()),
                                env={"SPARK_LOCAL_DIRS": str(scratch)}))
        _wait_for(base / "master.log", "Registering worker", 2)
        yield url, base
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
        for log in logs:
            log.close()


def _shipped_karc(folder) -> str:
    """karc as a user ships it: the wheel's content as a .zip (Spark unpacks
    .zip archives, not .whl ones). From $KARC_WHEEL when set, else the
    installed package (the files a wheel of it holds)."""
    archive = os.path.join(folder, "karc.zip")
    wheel = os.environ.get("KARC_WHEEL")
    if wheel:
        shutil.copyfile(wheel, archive)
        return archive
    package = os.path.dirname(karc.__file__)
    with zipfile.ZipFile(archive, "w") as z:
        for name in sorted(os.listdir(package)):
            if name != "__pycache__":
                z.write(os.path.join(package, name), os.path.join("karc", name))
    return archive


def _cli(*args):
    done = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    assert done.returncode == 0, f"karc {' '.join(map(str, args))}: {done.stderr}"
    return done


def test_pack_on_a_standalone_cluster_of_two_workers(cluster, tmp_path):
    gen = _generator()
    if gen is None or not os.path.exists(CLI):
        pytest.skip("needs target/release/adult-stream-gen and target/release/karc (cargo build --release --workspace)")
    url, base = cluster
    started = time.monotonic()
    data = tmp_path / "driver"
    data.mkdir()
    table = data / "adult.csv"
    with open(table, "wb") as out:
        subprocess.run([gen, "--rows", "1500", "--seed", "11", "--adult", ADULT_RAW], stdout=out, check=True)
    columns = [{**c, "role": "sensitive"} if c["name"] == SENSITIVE else c for c in CONFIG["columns"]]
    config = {"columns": columns, "privacy": {"k": K, "sensitive": SENSITIVE, "l": L, "t": T, "suppression_limit": 0.0},
              "algorithm": {"name": "mondrian"}}
    (data / "config.json").write_text(json.dumps(config))
    out, report_path = data / "adult.karc", data / "report.json"
    local = data / "local"
    local.mkdir()
    submitted = subprocess.run(
        [
            os.path.join(SPARK_HOME, "bin", "spark-submit"), "--master", url, "--deploy-mode", "client",
            "--conf", "spark.executor.cores=1", "--conf", "spark.cores.max=2", "--executor-memory", "700m",
            "--driver-memory", "700m", "--conf", f"spark.local.dir={local}", "--conf", "spark.ui.enabled=false",
            "--conf", f"spark.pyspark.python={sys.executable}", "--conf", "spark.sql.shuffle.partitions=4",
            "--archives", f"{_shipped_karc(data)}#karc_shipped", "--conf", "spark.executorEnv.PYTHONPATH=karc_shipped",
            os.path.join(os.path.dirname(__file__), "spark_cluster_job.py"),
            table, data / "config.json", out, RECIPIENT, report_path,
        ],
        capture_output=True, text=True, env={**os.environ, "SPARK_HOME": SPARK_HOME},
    )
    assert submitted.returncode == 0, submitted.stderr[-4000:]
    report = json.loads(report_path.read_text())
    print(f"cluster job: {time.monotonic() - started:.1f} s, {report['fragments']} fragments")
    assert report["rows"] == 1500 and report["groups"] == report["fragments"] >= 2
    assert report["models"] == ["k", "l", "t"]
    # The executors ran the shipped karc, unpacked in their own work folders.
    assert report["executor_karc"] and all(
        "karc_shipped" in p and str(base / "worker") in p for p in report["executor_karc"]
    ), report["executor_karc"]
    # Each worker's executor ran in its own work folder (a JVM of its own).
    assert all(os.listdir(base / f"worker{i}" / "work") for i in (1, 2)), "both workers ran an executor"
    assert sorted(os.listdir(data)) == ["adult.csv", "adult.karc", "config.json", "karc.zip", "local", "report.json"]

    # The command line alone: verify, an independent count on the export, restore.
    _cli("verify", out)
    _cli("export", out, "-o", tmp_path / "release.csv")
    with open(tmp_path / "release.csv", newline="") as f:
        release = list(csv.DictReader(f))
    assert len(release) == 1500
    classes = collections.defaultdict(list)
    for r in release:
        key = tuple(r[q] for q in QIS)
        if any(v != "*" for v in key):
            classes[key].append(r[SENSITIVE])
    whole = collections.Counter(r[SENSITIVE] for r in release)
    p = {v: n / len(release) for v, n in whole.items()}
    assert min(len(v) for v in classes.values()) >= K, "k by an independent count"
    assert min(len(set(v)) for v in classes.values()) >= L, "l by an independent count"
    for values in classes.values():
        q = collections.Counter(values)
        emd = 0.5 * sum(abs(q.get(v, 0) / len(values) - p[v]) for v in p)
        assert emd <= T + 1e-12, f"t by an independent count: {emd}"
    _cli("restore", out, "-i", os.path.join(KEYS, "identity.txt"), "-o", tmp_path / "restored.csv")
    with open(table, newline="") as a, open(tmp_path / "restored.csv", newline="") as b:
        original, restored = list(csv.reader(a)), list(csv.reader(b))
    assert restored[0] == original[0]
    assert collections.Counter(map(tuple, restored[1:])) == collections.Counter(map(tuple, original[1:]))

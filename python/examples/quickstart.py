"""karc from Python: anonymize Adult, check it, pack it sealed, restore it.

    python3 -m venv .venv && .venv/bin/pip install ./python pandas
    .venv/bin/python python/examples/quickstart.py
"""

import pathlib
import tempfile

import pandas as pd

import karc

ADULT = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "adult"
QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation", "salary-class"]

df = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)

# A 10-anonymous release (a DataFrame, as given) and the report.
release, report = karc.anonymize(df, config=ADULT / "adult.toml", k=10)
print(f"{report['algorithm']}: {report['rows']} rows, {report['classes']} classes, smallest {report['min_class']}")

# Anyone can check a release's claim.
assert karc.verify(release, qi=QI, k=10)["holds"]

with tempfile.TemporaryDirectory() as tmp:
    path = pathlib.Path(tmp) / "adult.karc"
    karc.pack(df, path, config=ADULT / "adult.toml", k=10, passphrase="correct horse battery staple")
    archive = karc.open(path)
    print(f"{path.name}: {path.stat().st_size} bytes, claim holds: {archive.verify()['holds']}")
    restored = archive.restore(passphrase="correct horse battery staple")
    assert restored.equals(df)
    print("restored the original DataFrame exactly")
    try:
        archive.restore(passphrase="wrong")
    except karc.WrongKeyError as e:
        print(f"wrong passphrase: {e}")

"""Tests of the Python package: anonymize, pack/open/restore, verify, compare,
errors and the GIL, on the Adult fixture and on generated tables."""

import os
import pathlib
import subprocess
import threading
import time

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from pycanon import anonymity

import karc

REPO = pathlib.Path(__file__).resolve().parents[2]
ADULT_CSV = REPO / "fixtures" / "adult" / "adult.csv"
ADULT_TOML = REPO / "fixtures" / "adult" / "adult.toml"
ADULT_QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation", "salary-class"]
IDENTITY = REPO / "fixtures" / "archive" / "keys" / "identity.txt"
RECIPIENT = "age1rncunzzu2rfp6u4lk3vyrlxg662esyasypj5swz2jsvt9t2t04as0kjg76"
# The CLI (built by `cargo test --workspace --release` before the Python tests
# run): only to compare its messages with the package's.
CLI = REPO / "target" / "release" / "karc"


def adult_df() -> pd.DataFrame:
    return pd.read_csv(ADULT_CSV, sep=";", dtype=str, keep_default_na=False)


def k_of_release(release: pd.DataFrame, qi, suppressed: int) -> int:
    """pyCANON's k of a release, its suppressed rows (every QI `*`) left out as
    karc's mask policy exempts them; checks that they number `suppressed`."""
    stars = (release[qi] == "*").all(axis=1)
    assert int(stars.sum()) == suppressed
    return anonymity.k_anonymity(release[~stars].reset_index(drop=True), qi)


def generated(rows: int, seed: int = 7) -> pd.DataFrame:
    """A table of typed columns with nulls: integers, floats with NaN, strings
    with None and empty strings, booleans, dates."""
    rng = np.random.default_rng(seed)
    city = rng.choice(["Oslo", "Lima", "Pune", "", "Kyiv"], rows).astype(object)
    city[rng.random(rows) < 0.1] = None
    score = rng.normal(50, 10, rows)
    score[rng.random(rows) < 0.1] = np.nan
    return pd.DataFrame(
        {
            "id": np.arange(rows, dtype=np.int64),
            "age": rng.integers(18, 90, rows, dtype=np.int64),
            "height": rng.integers(150, 200, rows, dtype=np.int32),
            "city": city,
            "score": score,
            "member": rng.random(rows) < 0.5,
            "joined": pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 1000, rows), unit="D"),
        }
    )


GENERATED_CONFIG = {
    "columns": [
        {"name": "id", "role": "identifier"},
        {"name": "age", "role": "quasi", "type": "integer"},
        {"name": "height", "role": "quasi", "type": "integer"},
        {"name": "city", "role": "insensitive"},
        {"name": "score", "role": "sensitive"},
        {"name": "member", "role": "insensitive"},
        {"name": "joined", "role": "insensitive"},
    ],
    "privacy": {"k": 5},
    "algorithm": {"name": "mondrian"},
}


def cli_error(*args) -> str:
    """The CLI's message for a failing command (after `karc: error: `)."""
    assert CLI.exists(), f"{CLI}: build the CLI first (cargo build --release)"
    run = subprocess.run([str(CLI), *args], capture_output=True, text=True)
    assert run.returncode != 0
    line = run.stderr.strip().splitlines()[-1]
    assert line.startswith("karc: error: "), line
    return line[len("karc: error: "):], run.returncode


# --- anonymize ---------------------------------------------------------------


@pytest.mark.parametrize("k", [5, 10, 50])
def test_adult_release_is_k_anonymous_by_pycanon(k):
    df = adult_df()
    release, report = karc.anonymize(df, config=ADULT_TOML, k=k)
    assert isinstance(release, pd.DataFrame)
    assert list(release.columns) == ADULT_QI
    assert len(release) == len(df) == report["rows"]
    assert report["k"] == k
    assert k_of_release(release, ADULT_QI, report["suppressed"]) >= k
    # Something was generalized: the release is not the table.
    assert not release.equals(df)


def test_adult_csv_path_gives_the_cli_release():
    release, report = karc.anonymize(ADULT_CSV, config=ADULT_TOML, k=10, algorithm="mondrian")
    assert isinstance(release, pa.Table)
    assert release.column_names == ADULT_QI
    assert report["algorithm"] == "mondrian"
    assert k_of_release(release.to_pandas(), ADULT_QI, report["suppressed"]) >= 10


def test_pyarrow_table_in_pyarrow_table_out():
    table = pa.Table.from_pandas(generated(2000), preserve_index=False)
    release, report = karc.anonymize(table, config=GENERATED_CONFIG, k=7)
    assert isinstance(release, pa.Table)
    assert "id" not in release.column_names
    assert release.num_rows == 2000
    assert k_of_release(release.to_pandas(), ["age", "height"], report["suppressed"]) >= 7
    # Released as they are: the non-QI columns keep their types and values.
    for name in ["city", "score", "member", "joined"]:
        assert release.column(name).equals(table.column(name)), name


def test_table_and_parquet_file_give_the_same_release(tmp_path):
    # A table in memory is anonymized without its canonical CSV; a Parquet
    # file through it (as the CLI reads one): the same release and report.
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(generated(5000), preserve_index=False)
    path = tmp_path / "g.parquet"
    pq.write_table(table, path)
    from_table, table_report = karc.anonymize(table, config=GENERATED_CONFIG)
    from_file, file_report = karc.anonymize(path, config=GENERATED_CONFIG)
    assert from_table.equals(from_file)
    for report in (table_report, file_report):
        report.pop("elapsed_ms")
    assert table_report == file_report
    adult = pa.Table.from_pandas(adult_df(), preserve_index=False)
    pq.write_table(adult, tmp_path / "adult.parquet")
    release, _ = karc.anonymize(adult, config=ADULT_TOML, k=10)
    assert release.equals(karc.anonymize(tmp_path / "adult.parquet", config=ADULT_TOML, k=10)[0])


def test_config_dict_equals_config_file(tmp_path):
    columns = "".join(
        f'[[columns]]\nname = "{c["name"]}"\nrole = "{c["role"]}"\n' + (f'type = "{c["type"]}"\n' if "type" in c else "")
        for c in GENERATED_CONFIG["columns"]
    )
    path = tmp_path / "g.toml"
    path.write_text(columns + '[privacy]\nk = 5\n[algorithm]\nname = "mondrian"\n')
    df = generated(1000)
    from_dict, dict_report = karc.anonymize(df, config=GENERATED_CONFIG)
    from_file, file_report = karc.anonymize(df, config=path)
    pd.testing.assert_frame_equal(from_dict, from_file)
    for report in (dict_report, file_report):
        report.pop("elapsed_ms")
    assert dict_report == file_report


def test_config_dict_with_nan_names_its_key():
    # Issue 32: NaN became `NaN` in the JSON, refused as "expected value at line 1 column 256".
    config = dict(GENERATED_CONFIG, privacy={"k": 5, "suppression_limit": float("nan")})
    with pytest.raises(karc.BadInputError, match=r"config: privacy.suppression_limit: expected a finite number, found nan"):
        karc.anonymize(generated(50), config=config)


def test_empty_passphrase_is_refused(tmp_path):
    # Issue 32: the API sealed with "" what the CLI cannot open.
    with pytest.raises(karc.BadInputError, match="empty passphrase"):
        karc.pack(generated(50), tmp_path / "e.karc", config=GENERATED_CONFIG, passphrase="")
    assert not (tmp_path / "e.karc").exists()


# --- pack, open, restore -----------------------------------------------------


def test_pack_open_restore_dataframe(tmp_path):
    df = generated(3000)
    out = tmp_path / "g.karc"
    report = karc.pack(df, out, config=GENERATED_CONFIG, passphrase="correct horse", work_factor=10)
    assert report["rows"] == 3000
    archive = karc.open(out)
    restored = archive.restore(passphrase="correct horse")
    assert isinstance(restored, pd.DataFrame)
    pd.testing.assert_frame_equal(restored, df)
    assert restored.equals(df)
    release = archive.release()
    assert isinstance(release, pd.DataFrame)
    assert k_of_release(release, ["age", "height"], report["suppressed"]) >= 5


def test_pack_with_pseudonymized_ids_releases_no_id_and_restores(tmp_path):
    df = generated(1000)
    config = dict(GENERATED_CONFIG)
    config["columns"] = [dict(c, pseudonym=True) if c["name"] == "id" else c for c in GENERATED_CONFIG["columns"]]
    keys = []
    for name in ["a.karc", "b.karc"]:
        out = tmp_path / name
        karc.pack(df, out, config=config, no_encryption=True)
        archive = karc.open(out)
        release = archive.release()
        ids = release["id"].tolist()
        assert all(isinstance(p, str) and len(p) == 16 for p in ids)
        assert len(set(ids)) == len(df)
        assert not set(ids) & {str(i) for i in df["id"]}
        assert archive.inspect()["columns"][0]["pseudonym"] is True
        assert archive.restore().equals(df)
        keys.append(ids)
    # No key file: each pack draws its own key, so nothing links the two.
    assert not set(keys[0]) & set(keys[1])


def test_pack_open_restore_pyarrow_table(tmp_path):
    table = pa.Table.from_pandas(generated(3000), preserve_index=False)
    out = tmp_path / "g.karc"
    karc.pack(table, out, config=GENERATED_CONFIG, recipients=[RECIPIENT])
    restored = karc.open(out).restore(identity=IDENTITY)
    assert isinstance(restored, pa.Table)
    assert restored.schema.equals(table.schema, check_metadata=True)
    assert restored.equals(table)
    assert restored.column("city").null_count == table.column("city").null_count > 0


def test_restore_bytes_of_a_csv_input_is_the_file(tmp_path):
    out = tmp_path / "adult.karc"
    karc.pack(ADULT_CSV, out, config=ADULT_TOML, recipients=[RECIPIENT], k=10)
    archive = karc.open(out)
    assert archive.restore_bytes(identity=IDENTITY) == ADULT_CSV.read_bytes()
    restored = archive.restore(identity=IDENTITY)
    assert restored.column_names == ADULT_QI
    assert restored.num_rows == 30162
    inspected = archive.inspect()
    assert inspected["rows"] == 30162
    verified = archive.verify()
    assert verified["holds"] and verified["claim"]["constraints"][0]["k"] == 10


# --- verify ------------------------------------------------------------------


def test_verify_third_party_release():
    df = pd.DataFrame({"a": ["1", "1", "1", "2", "2"], "b": ["x", "x", "x", "y", "y"], "s": list("pqrpq")})
    ok = karc.verify(df, qi=["a", "b"], k=2)
    assert ok["holds"] and ok["constraints"][0]["classes"] == 2
    bad = karc.verify(df, qi=["a", "b"], k=3)
    assert not bad["holds"] and bad["constraints"][0]["violating_rows"] == 2
    ldiv = karc.verify(df, qi=["a"], k=2, sensitive="s", l=3)
    assert not ldiv["holds"] and ldiv["models"]["l_diversity"] == 2
    assert "l_diversity" not in ldiv  # one key per model: models.l_diversity
    assert karc.verify(pa.Table.from_pandas(df), qi=["a", "b"], k=2)["holds"]


def test_verify_csv_path(tmp_path):
    release, report = karc.anonymize(adult_df(), config=ADULT_TOML, k=10)
    path = tmp_path / "release.csv"
    release.to_csv(path, sep=";", index=False)
    assert karc.verify(path, qi=ADULT_QI, k=10)["holds"]
    assert not karc.verify(path, qi=ADULT_QI, k=100_000)["holds"]


# --- compare -----------------------------------------------------------------


def test_compare_gives_a_dataframe():
    rows = karc.compare(ADULT_CSV, config=ADULT_TOML, algorithms=["datafly"], ks=[5, 10], mode="per-value-rans")
    assert isinstance(rows, pd.DataFrame)
    assert list(rows["k"]) == [5, 10]
    assert (rows["total_bytes"] < rows["zip_original_bytes"]).all()


def test_compare_models_gives_the_cli_csv_rows(tmp_path):
    """``models=``: one row per algorithm, k and model set (k alone first), the
    rows ``karc compare --models ... --format csv`` writes."""
    adult8 = REPO / "fixtures" / "adult" / "adult8.toml"
    rows = karc.compare(
        ADULT_CSV, config=adult8, algorithms=["mondrian"], ks=[5, 10], models=["t=0.2", "l=3"], sensitive=["salary-class"]
    )
    assert list(rows["models"]) == ["k", "t=0.2", "l=3"] * 2
    assert list(rows["k"]) == [5, 5, 5, 10, 10, 10]
    met = rows[rows["refused"].isna()]
    assert (met[met["models"] == "t=0.2"]["ncp_increase"] > 0).all()
    refused = rows[rows["models"] == "l=3"]
    assert refused["refused"].str.contains("l = 3").all() and refused["ncp"].isna().all()

    assert CLI.exists(), f"{CLI}: build the CLI first (cargo build --release)"
    out = tmp_path / "models.csv"
    args = ["compare", "-c", adult8, ADULT_CSV, "--algorithms", "mondrian", "--ks", "5,10", "--mode", "per-value-rans"]
    args += ["--repeats", "1", "--models", "t=0.2", "--models", "l=3", "--sensitive", "salary-class"]
    subprocess.run([str(CLI), *map(str, args), "--format", "csv", "-o", str(out)], check=True, capture_output=True)
    cli = pd.read_csv(out)
    assert list(cli.columns) == list(rows.columns)
    for column in ["algorithm", "k", "models"]:
        assert list(cli[column].astype(str)) == list(rows[column].astype(str)), column
    for column in ["ncp", "glm", "dm", "cavg", "ncp_increase", "glm_increase", "suppressed"]:
        np.testing.assert_allclose(cli[column].astype(float), rows[column].astype(float), rtol=1e-6, atol=1e-6)


# --- errors ------------------------------------------------------------------


def test_bad_config_raises_the_cli_message(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[columns]]\nname = "sex"\nrole = "quasi"\n[privacy]\nk = "ten"\n')
    with pytest.raises(karc.BadInputError) as err:
        karc.anonymize(ADULT_CSV, config=bad)
    message, code = cli_error("anonymize", "-c", str(bad), str(ADULT_CSV), "-o", str(tmp_path / "r.csv"))
    assert str(err.value) == message
    assert err.value.exit_code == code == 2
    assert isinstance(err.value, karc.KarcError)


def test_unknown_column_and_algorithm(tmp_path):
    with pytest.raises(karc.BadInputError, match="unknown algorithm"):
        karc.anonymize(adult_df(), config=ADULT_TOML, algorithm="nope")
    with pytest.raises(karc.BadInputError, match="does not have"):
        karc.anonymize(adult_df().drop(columns=["sex"]), config=ADULT_TOML)


def test_wrong_key_raises_wrong_key_error(tmp_path):
    out = tmp_path / "a.karc"
    karc.pack(ADULT_CSV, out, config=ADULT_TOML, passphrase="right", work_factor=10)
    archive = karc.open(out)
    with pytest.raises(karc.WrongKeyError) as err:
        archive.restore_bytes(passphrase="wrong")
    message, code = cli_error_restore(out, tmp_path, "wrong")
    assert str(err.value) == message and err.value.exit_code == code == 2
    with pytest.raises(karc.WrongKeyError, match="sealed with a passphrase"):
        archive.restore_bytes(identity=IDENTITY)


def cli_error_restore(archive, tmp_path, passphrase):
    pw = tmp_path / "pw.txt"
    pw.write_text(passphrase + "\n")
    return cli_error("restore", str(archive), "--passphrase-file", str(pw), "-o", str(tmp_path / "o.csv"))


def test_failed_checks_raise_check_failed(tmp_path):
    # A k larger than the table: no release can meet it (exit 1).
    small = generated(20)
    with pytest.raises(karc.CheckFailedError, match="k = 50 is larger than the table") as err:
        karc.anonymize(small, config=GENERATED_CONFIG, k=50)
    assert err.value.exit_code == 1
    # A damaged archive fails its CRC check.
    out = tmp_path / "a.karc"
    karc.pack(ADULT_CSV, out, config=ADULT_TOML, no_encryption=True)
    data = bytearray(out.read_bytes())
    data[len(data) // 2] ^= 0xFF
    out.write_bytes(bytes(data))
    with pytest.raises(karc.CheckFailedError):
        karc.open(out).restore_bytes()


def test_seal_must_be_said_once(tmp_path):
    with pytest.raises(karc.BadInputError, match="exactly one"):
        karc.pack(ADULT_CSV, tmp_path / "a.karc", config=ADULT_TOML)
    with pytest.raises(karc.BadInputError, match="exactly one"):
        karc.pack(ADULT_CSV, tmp_path / "a.karc", config=ADULT_TOML, passphrase="x", no_encryption=True)
    assert not (tmp_path / "a.karc").exists()


def test_not_a_table():
    with pytest.raises(karc.BadInputError, match="expected a pandas DataFrame, a pyarrow Table or a file"):
        karc.anonymize([1, 2, 3], config=ADULT_TOML)


# --- the GIL -----------------------------------------------------------------


def test_the_gil_is_released_while_karc_works():
    df = generated(300_000)
    ticks = 0
    done = threading.Event()

    def tick():
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)

    # Ticks a thread makes in the same time when nothing holds the GIL.
    start = time.perf_counter()
    karc.anonymize(df, config=GENERATED_CONFIG, k=10)
    elapsed = time.perf_counter() - start

    thread = threading.Thread(target=tick)
    thread.start()
    try:
        karc.anonymize(df, config=GENERATED_CONFIG, k=10)
    finally:
        done.set()
        thread.join()
    # Held GIL: the thread would not tick until karc returned (a handful
    # at most). Released: about one tick a millisecond of karc's work.
    assert elapsed > 0.05, elapsed
    assert ticks > 10, (ticks, elapsed)


def test_pandas_integers_with_missing_values_pack_and_restore(tmp_path):
    # pandas holds an integer column with missing values as float64 (67.0,
    # NaN): its whole numbers read as integers for an integer QI, and the
    # restore gives back the float64 column exactly.
    df = generated(3000)
    age = df["age"].astype("float64")
    age[::17] = np.nan
    df["age"] = age
    assert df["age"].dtype == np.float64
    release, report = karc.anonymize(df, config=GENERATED_CONFIG, k=5)
    assert report["rows"] == 3000
    archive = tmp_path / "ints.karc"
    karc.pack(df, archive, config=GENERATED_CONFIG, passphrase="pw")
    restored = karc.open(archive).restore(passphrase="pw")
    pd.testing.assert_frame_equal(restored, df)


def test_init_keygen_pack_restore_on_a_new_table(tmp_path):
    # A table no config was written for: dates, zip codes, decimals, missing cells.
    rows = ["visit,zip,weight,ward"]
    for i in range(200):
        visit = "" if i % 17 == 0 else f"2023-{1 + i % 12:02d}-{1 + i % 28:02d}"
        rows.append(f"{visit},{2139 + i % 7:05d},{50 + i % 40}.{i % 10},{['n', 's', 'e', 'w'][i % 4]}")
    table = tmp_path / "visits.csv"
    table.write_text("\n".join(rows) + "\n")
    config = tmp_path / "visits.toml"
    config.write_text(karc.init(table, sensitive="ward"))
    text = config.read_text()
    assert 'hierarchy = { mask = 4 }' in text and 'role = "sensitive"' in text
    identity = tmp_path / "id.txt"
    recipient = karc.keygen(identity)
    assert recipient.startswith("age1") and "AGE-SECRET-KEY" not in recipient
    assert oct(identity.stat().st_mode & 0o777) == "0o600"
    with pytest.raises(karc.BadInputError, match="the file exists"):
        karc.keygen(identity)
    for algorithm in ["mondrian", "datafly", "incognito", "topdown", "basic-mondrian"]:
        archive = tmp_path / f"{algorithm}.karc"
        karc.pack(table, archive, config=config, recipients=[recipient], algorithm=algorithm)
        assert karc.open(archive).restore_bytes(identity=identity) == table.read_bytes()


def test_init_explains_its_choice(tmp_path):
    # Measurements first, demographics after, identifiers around them.
    rows = ["id,glucose,age,sex,zip,email"]
    for i in range(300):
        rows.append(f"{1000 + i},{80 + i % 50}.{i % 10},{20 + i % 60},{'MF'[i % 2]},{2139 + i % 5:05d},p{i}@example.org")
    table = tmp_path / "patients.csv"
    table.write_text("\n".join(rows) + "\n")
    config, columns = karc.init(table, explain=True)
    assert karc.init(table) == config
    roles = {c["name"]: c["role"] for c in columns}
    assert roles == {
        "id": "identifier",
        "glucose": "insensitive",
        "age": "quasi",
        "sex": "quasi",
        "zip": "quasi",
        "email": "identifier",
    }
    assert [c["rank"] for c in columns[:3]] == [1, 2, 3]
    assert all(0 <= c["distinction"] <= 1 and 0 <= c["separation"] <= 1 for c in columns)
    email = next(c for c in columns if c["name"] == "email")
    assert "e-mail" in email["reason"] and email["distinction"] == 1.0
    assert 'name = "age"\nrole = "quasi"  # name says an age; distinction' in config


def test_signed_pack_verifies_and_a_published_copy_keeps_its_signature(tmp_path):
    key = tmp_path / "publisher.key"
    line = karc.keygen(key, signing=True)
    assert (tmp_path / "publisher.key.pub").read_text().splitlines()[1] == line
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    with pytest.raises(karc.BadInputError):
        karc.keygen(key, signing=True)
    out = tmp_path / "adult.karc"
    karc.pack(ADULT_CSV, out, ADULT_TOML, no_encryption=True, k=10, sign=key)
    archive = karc.open(out)
    assert archive.verify()["signature"]["checked"] is False
    checked = archive.verify(signer=str(key) + ".pub")
    assert checked["signature"]["checked"] is True and checked["signature"]["private_absent"] is False
    assert archive.verify(signer=[line])["signature"]["checked"] is True
    other = tmp_path / "other.key"
    karc.keygen(other, signing=True, passphrase="a passphrase")
    with pytest.raises(karc.CheckFailedError, match="none of the keys given"):
        archive.verify(signer=str(other) + ".pub")
    # A protected key needs its passphrase; sign() replaces the signature.
    with pytest.raises(karc.KarcError, match="passphrase"):
        karc.sign(out, other)
    comment = karc.sign(out, other, passphrase="a passphrase")
    assert comment.startswith("karc format:") and "k:10" in comment
    assert karc.open(out).verify(signer=str(other) + ".pub")["signature"]["checked"]
    with pytest.raises(karc.CheckFailedError):
        karc.open(out).verify(signer=str(key) + ".pub")
    # An unsigned file fails the check.
    plain = tmp_path / "plain.karc"
    karc.pack(ADULT_CSV, plain, ADULT_TOML, no_encryption=True, k=10)
    with pytest.raises(karc.CheckFailedError, match="unsigned"):
        karc.open(plain).verify(signer=line)
    # No secret material reaches Python.
    secret = key.read_text().splitlines()[1]
    assert secret[60:90] not in line + comment

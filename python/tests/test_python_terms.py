"""The package speaks Python: messages name arguments, not the command line's
flags; every error has an exit code; ``config=`` takes TOML text and
``init`` a DataFrame; ``__version__``, a clean ``dir(karc)``, and ``mode=``
as the CLI's ``--mode``."""

import importlib.metadata
import pathlib
import re
import warnings

import pandas as pd
import pyarrow as pa
import pytest

import karc

REPO = pathlib.Path(__file__).resolve().parents[2]
ADULT_CSV = REPO / "fixtures" / "adult" / "adult.csv"
ADULT_TOML = REPO / "fixtures" / "adult" / "adult.toml"
FLAG = re.compile(r"(?<![\w`])--[a-z]")


def small_df() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": [23, 35, 47, 52, 61, 29, 33, 41, 58, 66] * 3,
            "zip": ["10115", "10117", "10119", "20095", "20097", "20099", "30159", "30161", "30163", "30165"] * 3,
            "note": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"] * 3,
        }
    )


def test_a_bad_recipient_is_named_by_its_index(tmp_path):
    with pytest.raises(karc.BadInputError) as err:
        karc.pack(ADULT_CSV, tmp_path / "a.karc", config=ADULT_TOML, recipients=["age1" + "q" * 58, "nonsense"])
    message = str(err.value)
    assert message.startswith("recipients[0]: "), message
    assert not FLAG.search(message), message
    assert err.value.exit_code == 2


def test_a_missing_key_names_the_arguments(tmp_path):
    out = tmp_path / "a.karc"
    karc.pack(ADULT_CSV, out, config=ADULT_TOML, passphrase="right", work_factor=10)
    with pytest.raises(karc.WrongKeyError) as err:
        karc.open(out).restore_bytes()
    message = str(err.value)
    assert "passphrase=" in message, message
    assert not FLAG.search(message), message
    assert err.value.exit_code == 2


def test_an_unknown_mode_is_named_as_the_argument():
    with pytest.raises(karc.BadInputError) as err:
        karc.compare(ADULT_CSV, config=ADULT_TOML, algorithms=["datafly"], ks=[5], mode="zip")
    message = str(err.value)
    assert message.startswith("mode: unknown mode \"zip\""), message
    assert not FLAG.search(message), message


def test_verify_arguments_are_named_as_arguments():
    with pytest.raises(karc.BadInputError) as err:
        karc.verify(small_df(), k=2)
    message = str(err.value)
    assert message.startswith("k= needs qi"), message
    assert not FLAG.search(message), message


def test_a_dataframe_is_called_a_dataframe():
    df = small_df()
    df["tags"] = [["x"]] * len(df)
    config = {
        "columns": [
            {"name": "age", "role": "quasi", "type": "integer"},
            {"name": "zip", "role": "quasi"},
            {"name": "note", "role": "insensitive"},
            {"name": "tags", "role": "insensitive"},
        ],
        "privacy": {"k": 2},
        "algorithm": {"name": "mondrian"},
    }
    with pytest.raises(karc.BadInputError) as err:
        karc.anonymize(df, config=config)
    assert str(err.value).startswith("DataFrame: "), str(err.value)
    assert "Arrow table" not in str(err.value)
    assert err.value.exit_code == 2
    # A pyarrow Table is still an Arrow table.
    with pytest.raises(karc.BadInputError, match="^Arrow table: "):
        karc.anonymize(pa.Table.from_pandas(df), config=config)


def test_every_error_has_an_exit_code(tmp_path):
    assert karc.BadInputError("x").exit_code == 2
    assert karc.WrongKeyError("x").exit_code == 2
    assert karc.CheckFailedError("x").exit_code == 1
    assert karc.KarcError("x").exit_code == 2
    # Raised by the package's Python half.
    with pytest.raises(karc.BadInputError) as err:
        karc.pack(ADULT_CSV, tmp_path / "a.karc", config=ADULT_TOML)
    assert err.value.exit_code == 2
    with pytest.raises(karc.BadInputError) as err:
        karc.anonymize([1, 2], config=ADULT_TOML)
    assert err.value.exit_code == 2


def test_init_takes_a_dataframe_and_its_text_is_a_config():
    df = small_df()
    config = karc.init(df, qi=["age", "zip"], k=2)
    assert config.startswith("# karc config for DataFrame (30 rows, 3 columns)"), config.splitlines()[0]
    release, report = karc.anonymize(df, config=config)
    assert isinstance(release, pd.DataFrame) and report["k"] == 2
    table_config = karc.init(pa.Table.from_pandas(df), qi=["age", "zip"], k=2)
    assert table_config.startswith("# karc config for Arrow table ")
    # A file's path still works, and a path to TOML text's twin gives the same release.
    path_config = karc.init(ADULT_CSV)
    assert "[[columns]]" in path_config


def test_toml_text_errors_are_located_in_the_text():
    with pytest.raises(karc.BadInputError) as err:
        karc.anonymize(small_df(), config='[privacy]\nk = "ten"\n')
    assert str(err.value).startswith("<config text>:2:"), str(err.value)


def test_a_config_of_another_kind_is_refused():
    with pytest.raises(karc.BadInputError, match="TOML file's path, TOML text or a dict"):
        karc.anonymize(small_df(), config=42)


def test_version():
    assert karc.__version__ == importlib.metadata.version("karc")
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", karc.__version__)


def test_dir_shows_the_api_only():
    names = dir(karc)
    assert names == sorted(karc.__all__)
    for leaked in ("os", "json", "math", "pa", "Any", "Dict", "TYPE_CHECKING"):
        assert leaked not in names
    for api in ("anonymize", "pack", "open", "verify", "compare", "init", "keygen", "sign", "KarcError", "__version__"):
        assert api in names


def test_compare_takes_mode_as_the_cli_and_modes_is_deprecated():
    rows = karc.compare(ADULT_CSV, config=ADULT_TOML, algorithms=["datafly"], ks=[5], mode="per-value-rans,context")
    assert list(rows["mode"]) == ["per-value-rans", "context"] or sorted(rows["mode"]) == ["context", "per-value-rans"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = karc.compare(ADULT_CSV, config=ADULT_TOML, algorithms=["datafly"], ks=[5], modes=["context"])
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    assert list(old["mode"]) == ["context"]
    with pytest.raises(karc.BadInputError, match="not both"):
        karc.compare(ADULT_CSV, config=ADULT_TOML, mode="context", modes=["context"])

"""Pseudonymized identifiers from Python (issue 30): ``keygen(pseudonym=True)``
writes a key file, and ``anonymize`` and ``pack`` release the same keyed
pseudonyms with it, never the identifiers."""

import os
import stat

import pandas as pd
import pytest

import karc


def _people(n=60):
    return pd.DataFrame(
        {
            "id": [f"P-{1000 + 7 * i}" for i in range(n)],
            "zip": [str(10100 + (i % 4) * 10) for i in range(n)],
            "sex": [["F", "M"][i % 2] for i in range(n)],
            "disease": [["flu", "cold", "asthma"][i % 3] for i in range(n)],
        }
    )


def _config(key):
    return {
        "pseudonym_key": key,
        "columns": [
            {"name": "id", "role": "identifier", "pseudonym": True},
            {"name": "zip", "role": "quasi", "hierarchy": {"mask": 5}},
            {"name": "sex", "role": "quasi", "hierarchy": {"flat": True}},
            {"name": "disease", "role": "sensitive"},
        ],
        "privacy": {"k": 3},
    }


def test_keygen_pseudonym_writes_a_private_key_and_never_overwrites(tmp_path):
    key = tmp_path / "p.key"
    assert karc.keygen(key, pseudonym=True) is None
    assert len(key.read_bytes()) == 32
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    before = key.read_bytes()
    with pytest.raises(karc.KarcError, match="force=True"):
        karc.keygen(key, pseudonym=True)
    assert key.read_bytes() == before
    karc.keygen(key, pseudonym=True, force=True)
    assert key.read_bytes() != before
    with pytest.raises(karc.KarcError, match="choose one"):
        karc.keygen(tmp_path / "x.key", pseudonym=True, signing=True)


def test_anonymize_and_pack_release_the_same_pseudonyms(tmp_path):
    key = tmp_path / "p.key"
    karc.keygen(key, pseudonym=True)
    people = _people()
    release, _ = karc.anonymize(people, _config(str(key)))
    assert list(release.columns) == ["id", "zip", "sex", "disease"]
    pseudonyms = list(release["id"])
    assert all(len(p) == 16 and int(p, 16) >= 0 for p in pseudonyms)
    assert not set(pseudonyms) & set(people["id"])
    again, _ = karc.anonymize(people, _config(str(key)))
    assert list(again["id"]) == pseudonyms

    out = tmp_path / "a.karc"
    karc.pack(people, out, config=_config(str(key)), no_encryption=True)
    archive = karc.open(out)
    assert list(archive.release()["id"]) == pseudonyms
    assert archive.restore().equals(people)

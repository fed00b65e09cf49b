"""Seeds fuzz/corpus/<target>/ from the fixtures (corpus/ is not committed).

Run from fuzz/ with a Python that has pyarrow (for arrow_table's Parquet and
Arrow IPC files): `python3 seed_corpora.py`. Each file is named by its SHA-1,
as libFuzzer names the files it adds.
"""

import glob
import hashlib
import io
import os
import struct

import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.feather as feather
import pyarrow.ipc as ipc
import pyarrow.parquet as pq


def put(target, data):
    os.makedirs(f"corpus/{target}", exist_ok=True)
    with open(f"corpus/{target}/{hashlib.sha1(data).hexdigest()}", "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def sections(karc, wanted):
    """The bodies of the sections of type `wanted` of a .karc file."""
    count = struct.unpack_from("<I", karc, 16)[0]
    for e in range(count):
        at = 24 + 24 * e
        kind = struct.unpack_from("<H", karc, at)[0]
        offset, length = struct.unpack_from("<QQ", karc, at + 8)
        if kind == wanted:
            yield karc[offset : offset + length]


def main():
    for d in ("valid", "invalid", "signed"):
        for f in glob.glob(f"../fixtures/archive/{d}/*.karc"):
            put("archive", read(f))
    # signature: the test key files, the SIGNATURE sections (type 8) of the
    # signed vectors, and the regression inputs.
    for f in glob.glob("../fixtures/archive/keys/signing_test.key*"):
        put("signature", read(f))
    for f in glob.glob("../fixtures/archive/signed/*.karc"):
        for body in sections(read(f), 8):
            put("signature", body)
    for f in glob.glob("regressions/signature/*"):
        put("signature", read(f))
    # csv: small fixtures, the first byte picking the options
    # (src/fuzzing.rs: header, trim, delimiter).
    for f in glob.glob("../fixtures/**/*.csv", recursive=True):
        if os.path.getsize(f) < 8000 and "hierarch" not in f and "/h_" not in f:
            for first in (0x00, 0x04, 0x05, 0x0C):
                put("csv", bytes([first]) + read(f))
    for f in glob.glob("../fixtures/**/*.toml", recursive=True) + glob.glob("../tools/*.toml"):
        put("config", read(f))
    for f in glob.glob("../fixtures/**/*hierarch*/*.csv", recursive=True) + glob.glob(
        "../fixtures/archive/source/h_*.csv"
    ):
        if os.path.getsize(f) < 20000:
            put("hierarchy", read(f))
    # arrow_table: the first byte is even for Arrow IPC, odd for Parquet.
    for f in (
        "../fixtures/arx-toy/test.csv",
        "../fixtures/arx-toy/test2.csv",
        "../fixtures/archive/source/small.csv",
        "../fixtures/archive/source/codes.csv",
        "../fixtures/italia/italia.csv",
    ):
        try:
            t = pcsv.read_csv(f)
        except pa.ArrowInvalid:
            t = pcsv.read_csv(f, parse_options=pcsv.ParseOptions(delimiter=";"))
        t = t.slice(0, 40)
        for codec in ("none", "snappy", "zstd"):
            s = io.BytesIO()
            pq.write_table(t, s, compression=codec)
            put("arrow_table", b"\x01" + s.getvalue())
        for codec in ("uncompressed", "lz4", "zstd"):
            s = io.BytesIO()
            feather.write_feather(t, s, compression=codec)
            put("arrow_table", b"\x00" + s.getvalue())
        s = io.BytesIO()
        with ipc.new_stream(s, t.schema) as w:
            w.write_table(t)
        put("arrow_table", b"\x00" + s.getvalue())
        coded = pa.table(
            {
                c: t[c].dictionary_encode() if pa.types.is_string(t[c].type) else t[c]
                for c in t.column_names
            }
        )
        s = io.BytesIO()
        feather.write_feather(coded, s, compression="uncompressed")
        put("arrow_table", b"\x00" + s.getvalue())
    put("arrow_table", b"\x01" + read("../fixtures/archive/source/small.parquet"))
    for target in ("archive", "csv", "config", "hierarchy", "arrow_table", "signature"):
        for f in glob.glob(f"regressions/{target}/*"):
            if not f.endswith("README.md"):
                put(target, read(f))


if __name__ == "__main__":
    main()

"""The config of a Spark run: what the driver reads of it, and the copy
that travels to the workers.

On a cluster the workers do not see the driver's files. The driver reads
the config (a TOML file or a dict) and every file it names (hierarchies,
pseudonym keys) once, and the workers get that copy inside the task itself:
each Python worker writes the files to a private temporary folder of its
own machine the first time it needs them, and reads the config from there.
No folder is shared, and nothing has to be installed beside the wheel.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Tuple

from . import BadInputError, ConfigLike, _config_args

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

#: The ``[privacy]`` keys of the models beyond k, which hold on the
#: sensitive columns.
MODEL_KEYS = ("l", "entropy_l", "recursive_cl", "t", "alpha", "delta", "beta")


def _column(name: str) -> Any:
    """A Spark column by name, whatever characters the name holds."""
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def _read_config(config: ConfigLike) -> Tuple[Dict[str, Any], str]:
    """The config as a dict, and the folder its relative paths start from."""
    if isinstance(config, Mapping):
        return dict(config), os.getcwd()
    if isinstance(config, (str, os.PathLike)):
        import tomllib

        path = os.fspath(config)
        try:
            with open(path, "rb") as f:
                return tomllib.load(f), os.path.dirname(os.path.abspath(path))
        except OSError as e:
            raise BadInputError(f"{path}: {e.strerror}") from None
        except tomllib.TOMLDecodeError as e:
            raise BadInputError(f"{path}: not TOML: {e}") from None
    raise BadInputError(f"config: expected a TOML file's path or a dict, found {type(config).__name__}")


def _leaf_order(path: str, delimiter: str = ";") -> Dict[str, int]:
    """A hierarchy file's leaves (first column, ARX's format) in file order."""
    order: Dict[str, int] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            leaf = line.rstrip("\r\n").split(delimiter, 1)[0]
            if line.strip() and leaf not in order:
                order[leaf] = len(order)
    return order


def _sensitive_columns(columns: List[Dict[str, Any]], privacy: Dict[str, Any]) -> List[str]:
    """The sensitive columns: of role "sensitive", or named by
    ``[privacy] sensitive`` (a name or a list)."""
    named = _names(privacy.get("sensitive"))
    return [c["name"] for c in columns if c.get("role") == "sensitive" or c["name"] in named]


def _names(value: Any) -> List[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


@dataclass
class _Schema:
    """The config's columns and claim as the distribution needs them."""

    qis: List[Tuple[str, str]]  # (name, "integer" | "decimal" | "categorical")
    identifiers: List[str]
    k: int  # the largest k of the claim: every fragment holds at least this many rows
    sensitive: Optional[str]  # the first column the models hold on
    l: Optional[int]  # noqa: E741 - the l of l-diversity
    constraints: List[Tuple[List[str], int]]
    columns: List[str] = field(default_factory=list)
    #: The columns the anonymizer reads beside the QIs: the sensitive ones.
    read: List[str] = field(default_factory=list)
    leaf_order: Dict[str, Dict[str, int]] = field(default_factory=dict)
    #: The models beyond k claimed (``[privacy]`` keys and values).
    models: Dict[str, Any] = field(default_factory=dict)
    #: The sensitive columns the models hold on (``[privacy] sensitive``).
    model_columns: List[str] = field(default_factory=list)


def _schema(config: ConfigLike, k: Optional[int]) -> _Schema:
    table, base = _read_config(config)
    columns = table.get("columns", [])
    qis = [(c["name"], c.get("type", "categorical")) for c in columns if c.get("role") == "quasi"]
    if not qis:
        raise BadInputError("config: no column has role = \"quasi\": nothing to anonymize")
    privacy = table.get("privacy", {})
    constraints = [(list(c["qi"]), int(c["k"])) for c in privacy.get("constraints", [])]
    ks = [int(k)] if k is not None else ([n for _, n in constraints] or [int(privacy.get("k", 0))])
    if max(ks) < 1:
        raise BadInputError("config: [privacy] needs k (or constraints), or pass k=")
    leaf_order = {}
    for c in columns:
        # A hierarchy file's leaf order (a built hierarchy, a TOML table, has none to read).
        if c.get("role") == "quasi" and isinstance(c.get("hierarchy"), str) and c.get("type", "categorical") == "categorical":
            leaf_order[c["name"]] = _leaf_order(os.path.join(base, c["hierarchy"]))
    model_columns = _names(privacy.get("sensitive"))
    return _Schema(
        qis=qis,
        identifiers=[c["name"] for c in columns if c.get("role") == "identifier"],
        k=max(ks),
        sensitive=model_columns[0] if model_columns else None,
        l=privacy.get("l"),
        constraints=constraints if k is None else [],
        columns=[c["name"] for c in columns],
        read=_sensitive_columns(columns, privacy),
        leaf_order=leaf_order,
        models={key: privacy[key] for key in MODEL_KEYS if privacy.get(key) is not None},
        model_columns=model_columns,
    )


def _release_type(df: "DataFrame", schema: _Schema) -> Any:
    """The release's Spark schema: every column but the identifiers, the QIs
    as strings (generalized labels), the others as they are."""
    from pyspark.sql.types import StringType, StructField, StructType

    qis = {q for q, _ in schema.qis}
    return StructType(
        [
            StructField(f.name, StringType(), True) if f.name in qis else f
            for f in df.schema.fields
            if f.name not in schema.identifiers
        ]
    )


# ---------------------------------------------------------------------------
# The copy that travels to the workers.


@dataclass
class Shipped:
    """A config and the files it names, as bytes, ready to travel to the
    workers inside a task (pickled with it)."""

    #: The config as a dict, each file it names replaced by a token.
    table: Dict[str, Any]
    #: Token -> (file name, bytes).
    files: Dict[str, Tuple[str, bytes]]
    #: A digest of everything above, naming the worker's folder.
    digest: str

    def args(self) -> Dict[str, Any]:
        """The native module's config arguments on this machine: the files
        written once to a private folder, the config pointing at them."""
        folder = os.path.join(tempfile.gettempdir(), f"karc-config-{os.getuid()}-{self.digest}")
        if os.path.isdir(folder) and not _private(folder):
            raise BadInputError(f"{folder}: exists but is not this user's private folder; remove it")
        if not os.path.isdir(folder):
            staging = tempfile.mkdtemp(prefix=".karc-config-")
            for token, (name, data) in self.files.items():
                os.makedirs(os.path.join(staging, token))
                fd = os.open(os.path.join(staging, token, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
            try:
                os.rename(staging, folder)
            except OSError:
                # Another worker of this machine wrote the same files first.
                import shutil

                shutil.rmtree(staging, ignore_errors=True)
        return _config_args(_with_paths(self.table, lambda token: os.path.join(folder, token, self.files[token][0])))


class _Token(str):
    """A shipped file's token standing where the config names a file."""


def _private(folder: str) -> bool:
    """Whether ``folder`` is this user's and closed to others (a folder of
    the same name made by another user is never read)."""
    st = os.lstat(folder)
    return st.st_uid == os.getuid() and st.st_mode & 0o077 == 0 and not os.path.islink(folder)


def ship(config: ConfigLike, hierarchies: Optional[Dict[str, str]] = None) -> Shipped:
    """The config and every file it names (``hierarchy`` files, the
    ``pseudonym_key`` files), read on the driver. ``hierarchies`` (column
    name -> ARX text) replaces those columns' hierarchies: the ones the
    driver built on the whole table's values."""
    table, base = _read_config(config)
    files: Dict[str, Tuple[str, bytes]] = {}
    if hierarchies:
        table = dict(table)
        columns = []
        for c in table.get("columns", []):
            if c["name"] in hierarchies:
                token = f"f{len(files)}"
                files[token] = (f"hierarchy-{len(files)}.csv", hierarchies[c["name"]].encode())
                c = {**c, "hierarchy": _Token(token)}
            columns.append(c)
        table["columns"] = columns

    def take(path: str) -> str:
        if isinstance(path, _Token):
            return str(path)
        full = os.path.join(base, path)
        try:
            with open(full, "rb") as f:
                data = f.read()
        except OSError as e:
            raise BadInputError(f"{full}: {e.strerror} (a file the config names)") from None
        token = f"f{len(files)}"
        files[token] = (os.path.basename(full) or "file", data)
        return token

    shipped = _with_paths(table, take)
    digest = hashlib.sha256(json.dumps(shipped, sort_keys=True).encode())
    for token in sorted(files):
        name, data = files[token]
        digest.update(f"\0{token}\0{name}\0{len(data)}\0".encode())
        digest.update(data)
    return Shipped(shipped, files, digest.hexdigest()[:32])


def _with_paths(table: Dict[str, Any], replace: Any) -> Dict[str, Any]:
    """``table`` with each file path it names (a column's ``hierarchy`` or
    ``pseudonym_key``, the top-level ``pseudonym_key``) replaced by
    ``replace(path)``."""
    out = dict(table)
    if isinstance(out.get("pseudonym_key"), str):
        out["pseudonym_key"] = replace(out["pseudonym_key"])
    columns = []
    for c in table.get("columns", []):
        c = dict(c)
        for key in ("hierarchy", "pseudonym_key"):
            if isinstance(c.get(key), str):
                c[key] = replace(c[key])
        columns.append(c)
    if "columns" in table:
        out["columns"] = columns
    return out

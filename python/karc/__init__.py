"""karc: k-anonymized releases with a sealed, restorable original.

karc anonymizes a table to k-anonymity with the published algorithms
(Datafly, Mondrian, Incognito, ...), and packs the release with the
original, sealed (age: X25519 recipients or a passphrase), in one ``.karc``
file whose original restores exactly.

This package calls the Rust library directly (no subprocess) and releases
the GIL while it works. Tables go in and come out as pandas DataFrames or
pyarrow Tables, the same kind as given, through Arrow.

    >>> import karc, pandas as pd
    >>> df = pd.read_csv("fixtures/adult/adult.csv")
    >>> release, report = karc.anonymize(df, config="fixtures/adult/adult.toml", k=10)
    >>> karc.pack(df, "adult.karc", config="fixtures/adult/adult.toml", passphrase="s3cret")
    >>> karc.open("adult.karc").restore(passphrase="s3cret").equals(df)
    True

Errors are :class:`KarcError` (subclasses :class:`BadInputError`,
:class:`CheckFailedError`, :class:`WrongKeyError`) with the command line's
message and exit code.
"""

from __future__ import annotations

import json
import math
import os
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union

import pyarrow as pa

from . import _karc
from ._karc import BadInputError, CheckFailedError, KarcError, WrongKeyError

if TYPE_CHECKING:
    import pandas

__all__ = [
    "Archive",
    "BadInputError",
    "CheckFailedError",
    "KarcError",
    "WrongKeyError",
    "anonymize",
    "compare",
    "init",
    "keygen",
    "open",
    "pack",
    "sign",
    "verify",
]

#: A table: a pyarrow Table or a pandas DataFrame.
TableLike = Union["pandas.DataFrame", pa.Table]
T = TypeVar("T", "pandas.DataFrame", pa.Table)
#: A config: a TOML file's path, or the same content as a dict.
ConfigLike = Union[str, "os.PathLike[str]", Mapping[str, Any]]
PathLike = Union[str, "os.PathLike[str]"]


def _non_finite(value: Any, where: str) -> Optional[str]:
    """The key path of the first NaN or infinite number in a config dict."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{where}: expected a finite number, found {value}"
    if isinstance(value, Mapping):
        items = value.items()
    elif isinstance(value, (list, tuple)):
        items = ((f"[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    for key, v in items:
        key = key if str(key).startswith("[") else f".{key}" if where else str(key)
        found = _non_finite(v, f"{where}{key}")
        if found:
            return found
    return None


def _config_args(config: ConfigLike) -> Dict[str, Any]:
    if isinstance(config, Mapping):
        # TOML has no NaN a config could mean; JSON would write `NaN`, which
        # the reader then refused at a column of its own text (issue 32).
        bad = _non_finite(config, "")
        if bad:
            raise BadInputError(f"config: {bad}")
        return {"config_json": json.dumps(config)}
    if isinstance(config, (str, os.PathLike)):
        return {"config_path": os.fspath(config)}
    raise BadInputError(f"config: expected a TOML file's path or a dict, found {type(config).__name__}")


def _is_path(value: Any) -> bool:
    return isinstance(value, (str, os.PathLike))


def _is_pandas(table: Any) -> bool:
    return type(table).__module__.split(".")[0] == "pandas"


#: Schema metadata marking a table packed from a DataFrame, so that an archive
#: gives back the kind of table it was given (taken off again on the way out).
_KIND = b"karc.python.kind"


def _to_arrow(table: TableLike, mark: bool = False) -> pa.Table:
    """A pyarrow Table of a DataFrame (its index kept in the schema's pandas
    metadata; marked as a DataFrame when ``mark``)."""
    if isinstance(table, pa.Table):
        return table
    if _is_pandas(table):
        # Columns converted on every core: a DataFrame of Python strings
        # converts about twice as fast on two.
        arrow = pa.Table.from_pandas(table, nthreads=os.cpu_count())
        if mark:
            arrow = arrow.replace_schema_metadata({**(arrow.schema.metadata or {}), _KIND: b"pandas"})
        return arrow
    raise BadInputError(f"expected a pandas DataFrame or a pyarrow Table, found {type(table).__name__}")


def _unmarked(table: pa.Table) -> TableLike:
    """A table from an archive as the kind packed: a DataFrame when marked."""
    metadata = dict(table.schema.metadata or {})
    if metadata.pop(_KIND, None) is None:
        return table
    return table.replace_schema_metadata(metadata).to_pandas()


def _source(table: Union[TableLike, PathLike], mark: bool = False) -> Union[str, pa.Table]:
    """What the native module reads: a file's path, or a pyarrow Table."""
    return os.fspath(table) if _is_path(table) else _to_arrow(table, mark)


def _like(result: pa.Table, given: Any) -> TableLike:
    """``result`` as the kind of table ``given`` was."""
    return result.to_pandas() if _is_pandas(given) else result


def anonymize(
    table: Union[T, PathLike],
    config: ConfigLike,
    k: Optional[int] = None,
    algorithm: Optional[str] = None,
    *,
    seed: Optional[int] = None,
    suppression_limit: Optional[float] = None,
) -> Tuple[Union[T, pa.Table], Dict[str, Any]]:
    """Anonymize a table; returns ``(release, report)``.

    ``table`` is a pandas DataFrame or a pyarrow Table (the release is the
    same kind), or a CSV, Parquet or Arrow IPC file's path (the release is a
    pyarrow Table; a CSV file's cells as text). ``config`` is a TOML file's path or a dict of the same content;
    ``k``, ``algorithm``, ``seed`` and ``suppression_limit`` override it as the
    command line's flags do. The report is the ``--report-json`` dict.
    """
    overrides = dict(k=k, algorithm=algorithm, seed=seed, suppression_limit=suppression_limit)
    release, report = _karc.anonymize(_source(table), **_config_args(config), **overrides)
    return _like(release, table), json.loads(report)


def _seal_args(
    recipients: Optional[Sequence[str]],
    recipients_files: Optional[Sequence[PathLike]],
    passphrase: Optional[str],
    work_factor: Optional[int],
    no_encryption: bool,
) -> Dict[str, Any]:
    ways = sum([bool(recipients) or bool(recipients_files), passphrase is not None, no_encryption])
    if ways != 1:
        raise BadInputError(
            "say how to seal the private part: recipients / recipients_files, passphrase, "
            "or no_encryption=True (exactly one of these)"
        )
    return dict(
        recipients=list(recipients or []),
        recipients_files=[os.fspath(f) for f in recipients_files or []],
        passphrase=passphrase,
        work_factor=work_factor,
        no_encryption=no_encryption,
    )


def pack(
    table: Union[TableLike, PathLike],
    output: PathLike,
    config: ConfigLike,
    *,
    recipients: Optional[Sequence[str]] = None,
    recipients_files: Optional[Sequence[PathLike]] = None,
    passphrase: Optional[str] = None,
    work_factor: Optional[int] = None,
    no_encryption: bool = False,
    k: Optional[int] = None,
    algorithm: Optional[str] = None,
    seed: Optional[int] = None,
    suppression_limit: Optional[float] = None,
    mode: Optional[str] = None,
    sign: Optional[PathLike] = None,
    sign_passphrase: Optional[str] = None,
) -> Dict[str, Any]:
    """Anonymize a table and write release + sealed original to ``output``.

    ``table`` is a DataFrame, a pyarrow Table, or a CSV (whose bytes the
    archive restores exactly), Parquet or Arrow IPC file's path. Seal with ``recipients`` (``age1...``
    public keys, or ``recipients_files``), or a ``passphrase`` (scrypt's
    ``work_factor`` optional), or ``no_encryption=True``: exactly one.
    ``mode`` is the private part's difference coding. ``sign`` is a
    publisher's secret key file (:func:`keygen` with ``signing=True``; its
    ``sign_passphrase`` when protected): the file is signed as it is written.
    Returns the report.
    """
    args = dict(
        **_config_args(config),
        **_seal_args(recipients, recipients_files, passphrase, work_factor, no_encryption),
        k=k,
        algorithm=algorithm,
        seed=seed,
        suppression_limit=suppression_limit,
        mode=mode,
        sign=None if sign is None else os.fspath(sign),
        sign_passphrase=sign_passphrase,
    )
    return json.loads(_karc.pack(_source(table, mark=True), os.fspath(output), **args))


def sign(
    path: PathLike,
    key: PathLike,
    *,
    passphrase: Optional[str] = None,
    output: Optional[PathLike] = None,
    detached: bool = False,
) -> str:
    """Sign the ``.karc`` file ``path`` with the secret key file ``key`` (as ``karc sign``).

    The file is replaced atomically (or ``output`` written), any earlier
    signature replaced; with ``detached=True`` a ``.minisig`` is written
    instead (default ``path + ".minisig"``), which ``minisign -Vm`` checks.
    Returns the trusted comment signed.
    """
    out = None if output is None else os.fspath(output)
    return _karc.sign_file(os.fspath(path), os.fspath(key), passphrase, out, detached)


def _signers(signer: Union[str, PathLike, Sequence[Union[str, PathLike]], None]) -> List[str]:
    if signer is None:
        return []
    if isinstance(signer, (str, os.PathLike)):
        return [os.fspath(signer)]
    return [os.fspath(s) for s in signer]


def _key_args(identity: Union[PathLike, Sequence[PathLike], None], passphrase: Optional[str]) -> Dict[str, Any]:
    if identity is None:
        identities: List[str] = []
    elif _is_path(identity):
        identities = [os.fspath(identity)]
    else:
        identities = [os.fspath(i) for i in identity]
    return dict(identities=identities, passphrase=passphrase)


class Archive:
    """An opened ``.karc`` file, its integrity and privacy claim checked."""

    def __init__(self, path: PathLike, *, no_privacy_check: bool = False) -> None:
        self._archive = _karc.Archive(os.fspath(path), no_privacy_check)

    @property
    def path(self) -> str:
        """The file's path."""
        return os.fspath(self._archive.path)

    def release(self) -> TableLike:
        """The release: a DataFrame or a pyarrow Table, as the packed table was."""
        return _unmarked(self._archive.release())

    def restore(
        self, identity: Union[PathLike, Sequence[PathLike], None] = None, *, passphrase: Optional[str] = None
    ) -> TableLike:
        """The original table, exactly as packed (a CSV input: its cells as text).

        ``identity`` is an age identity file (or a list of them); or give the
        ``passphrase`` it was sealed with; neither for an unencrypted file.
        """
        return _unmarked(self._archive.restore(**_key_args(identity, passphrase)))

    def restore_bytes(
        self, identity: Union[PathLike, Sequence[PathLike], None] = None, *, passphrase: Optional[str] = None
    ) -> bytes:
        """The original file's bytes (a CSV input's, byte for byte), checked against their digest."""
        return self._archive.restore_bytes(**_key_args(identity, passphrase))

    def verify(self, signer: Union[str, PathLike, Sequence[Union[str, PathLike]], None] = None) -> Dict[str, Any]:
        """Integrity (checked on open) and the claim recomputed: ``holds``, ``claim``, ``signature``, ...

        ``signer`` is a publisher's public key (a ``.pub`` file or its line),
        or a list of them: a valid signature by one of them must cover the
        whole file, else :class:`CheckFailedError`.
        """
        return json.loads(self._archive.verify(_signers(signer)))

    def inspect(
        self, identity: Union[PathLike, Sequence[PathLike], None] = None, *, passphrase: Optional[str] = None
    ) -> Dict[str, Any]:
        """Sections, sizes per part and column, claim, algorithm and metrics (a key adds private sizes)."""
        return json.loads(self._archive.inspect(**_key_args(identity, passphrase)))

    def __repr__(self) -> str:
        return f"karc.Archive({self.path!r})"


def open(path: PathLike, *, no_privacy_check: bool = False) -> Archive:  # noqa: A001 - karc.open as issued
    """Open and check a ``.karc`` file (refused when its release breaks its claim,
    unless ``no_privacy_check``, for forensics only)."""
    return Archive(path, no_privacy_check=no_privacy_check)


def verify(
    table: Union[TableLike, PathLike],
    qi: Sequence[str] = (),
    k: Optional[int] = None,
    *,
    constraints: Sequence[Tuple[Sequence[str], int]] = (),
    sensitive: Union[str, Sequence[str], Dict[str, str], None] = None,
    l: Optional[int] = None,  # noqa: E741 - the l of l-diversity
    entropy_l: Optional[float] = None,
    recursive_cl: Optional[Tuple[float, int]] = None,
    t: Optional[float] = None,
    alpha: Optional[float] = None,
    delta: Optional[float] = None,
    beta: Optional[float] = None,
    enhanced_beta: bool = False,
    definitions: str = "pycanon",
    suppressed: str = "mask",
    delimiter: Optional[str] = None,
    missing: Optional[Sequence[str]] = None,
) -> Dict[str, Any]:
    """Check the privacy claim of any release (a table or a CSV file's path).

    k over the ``qi`` columns, each ``(columns, k)`` of ``constraints`` on its
    own columns; with ``sensitive`` (a column or several), every model beyond
    k measured on each (``report["models"]``, keys named after pyCANON's
    functions, and the risk) and the models given checked: distinct ``l``,
    ``entropy_l``, ``recursive_cl=(c, l)``, ``t``, ``alpha``, ``delta``,
    ``beta`` (``enhanced_beta`` for the enhanced model); ``definitions``
    ``"pycanon"`` or ``"literature"`` where they differ. Rows of ``*`` in
    every QI are exempt (``suppressed="mask"``) or one class (``"strict"``).
    A sensitive column reads as pandas would (numbers ordered) unless typed:
    ``"name:categorical"``, ``"name:numeric"``, ``"name:hierarchy=FILE"``, or
    a dict ``{name: type}`` (t-closeness's equal, ordered or hierarchical
    distance). Cells equal to a ``missing`` token (default ``""`` and ``"?"``)
    hold no sensitive value. Returns the report; ``report["holds"]`` tells
    the verdict.
    """
    if isinstance(sensitive, str):
        sensitive = [sensitive]
    elif isinstance(sensitive, dict):
        sensitive = [f"{name}:{kind}" for name, kind in sensitive.items()]
    models = dict(
        l=l,
        entropy_l=entropy_l,
        recursive_cl=None if recursive_cl is None else [float(recursive_cl[0]), int(recursive_cl[1])],
        t=t,
        alpha=alpha,
        delta=delta,
        beta=beta,
        enhanced_beta=enhanced_beta,
        definitions=definitions,
    )
    args = dict(
        qi=list(qi),
        k=k,
        constraints=[(list(c), int(n)) for c, n in constraints],
        suppressed=suppressed,
        sensitive=list(sensitive or ()),
        models=json.dumps(models),
    )
    missing = None if missing is None else list(missing)
    report = json.loads(_karc.verify(_source(table), delimiter=delimiter, missing=missing, **args))
    models_hold = all(c["holds"] for c in (report.get("models") or {}).get("checks", []))
    report["holds"] = all(c["holds"] for c in report["constraints"]) and models_hold
    return report


def compare(
    table: Union[TableLike, PathLike],
    config: ConfigLike,
    *,
    algorithms: Sequence[str] = (),
    ks: Sequence[int] = (),
    modes: Sequence[str] = (),
    baselines: bool = False,
    repeats: int = 1,
    seed: Optional[int] = None,
    suppression_limit: Optional[float] = None,
    models: Sequence[str] = (),
    sensitive: Sequence[str] = (),
) -> "pandas.DataFrame":
    """Sizes and times of karc against zip (and zstd, xz with ``baselines``), one row
    per algorithm, k and mode, as ``karc compare`` measures; a table is measured as
    the CSV karc seals for it.

    With ``models`` (model sets as ``[privacy]`` names them: ``"l=2"``,
    ``"t=0.2,alpha=0.8"``), the information loss under each set beside k alone
    instead, as ``karc compare --models`` (and its ``--format csv``): one row per
    algorithm, k and set (``models`` is ``"k"`` for k alone, first), with ``refused``
    (the algorithm's message, else None), ``precision``, ``ncp``, ``ncp_kaylode``,
    ``glm``, ``dm``, ``cavg``, ``ncp_increase``, ``glm_increase``, ``suppressed`` and
    ``anonymize_ms`` (NaN where refused). ``sensitive`` names the columns the models
    hold on (default: the config's)."""
    import pandas

    rows = json.loads(
        _karc.compare(
            _source(table),
            **_config_args(config),
            seed=seed,
            suppression_limit=suppression_limit,
            algorithms=list(algorithms),
            ks=[int(k) for k in ks],
            modes=list(modes),
            baselines=baselines,
            repeats=repeats,
            models=list(models),
            sensitive=list(sensitive),
        )
    )
    if models:
        names = ("precision", "ncp", "ncp_kaylode", "glm", "dm", "cavg")
        for row in rows:
            metrics = row.pop("metrics") or {}
            for name in names:
                row[name] = metrics.get(name)
        order = ["algorithm", "k", "models", "refused", *names, "ncp_increase", "glm_increase", "suppressed", "anonymize_ms"]
        return pandas.DataFrame(rows, columns=order)
    for row in rows:
        for b in row.pop("baselines", []):
            name = b["compressor"]
            row[f"{name}_original_bytes"] = b["original_bytes"]
            row[f"{name}_release_bytes"] = b["release_bytes"]
            row[f"{name}_ms"] = b["compress_ms"]
    return pandas.DataFrame(rows)


def keygen(
    path: PathLike,
    *,
    force: bool = False,
    signing: bool = False,
    pseudonym: bool = False,
    passphrase: Optional[str] = None,
) -> Optional[str]:
    """Write a new age X25519 identity to ``path`` and return its public key.

    With ``pseudonym=True``, a pseudonym key instead (32 random bytes, as
    ``karc keygen --pseudonym``), for a config's ``pseudonym_key``: releases
    made with it give a person the same pseudonym. Returns ``None`` (the key
    has no public half; keep the file private).

    With ``signing=True``, a signing key instead (minisign's formats): the
    secret key to ``path`` (protected by ``passphrase`` when given), the
    public key to ``path + ".pub"``; returns the public key's line, which
    ``Archive.verify(signer=...)`` and ``karc verify --signer`` take.

    The file is readable by its owner only and in age's format (``age`` and
    ``karc restore -i`` read it); an existing file is replaced only with
    ``force=True``. Seal for the returned ``age1...`` key with
    ``pack(..., recipients=[key])``; open with ``open(...).restore(identity=path)``.
    The secret key is never returned.
    """
    if signing and pseudonym:
        raise BadInputError("keygen: signing=True and pseudonym=True make different keys: choose one")
    if signing:
        return _karc.signing_keygen(os.fspath(path), force, passphrase)
    if passphrase is not None:
        raise BadInputError("keygen: passphrase applies to a signing key (signing=True)")
    if pseudonym:
        _karc.pseudonym_keygen(os.fspath(path), force)
        return None
    return _karc.keygen(os.fspath(path), force)


def init(
    table: PathLike,
    *,
    qi: Optional[Sequence[str]] = None,
    sensitive: Optional[str] = None,
    l: Optional[int] = None,  # noqa: E741 - l of l-diversity
    k: int = 5,
    explain: bool = False,
) -> Union[str, Tuple[str, List[Dict[str, Any]]]]:
    """Draft a commented config (TOML text) for the CSV, Parquet or Arrow file ``table``.

    As ``karc init``: the delimiter, header, types and roles are sniffed
    (or ``qi`` and ``sensitive`` given) and each quasi-identifier gets a
    hierarchy built from its values, so the text packs as it is once written
    to a file: ``pack(table, out, config=path, ...)``. Quasi-identifiers are
    picked by what the column names and values say an adversary knows, then
    by ARX's distinction and separation; identifiers are flagged. With
    ``explain=True``, returns ``(config, columns)``: the ranking as
    ``karc init --explain`` prints it, one dict per column (``name``,
    ``role``, ``reason``, ``meaning``, ``distinction``, ``separation``,
    ``rank``, ``joint_distinction``, ``joint_separation``; docs/JSON.md).
    See docs/CONFIG.md.
    """
    config, columns = _karc.init(os.fspath(table), list(qi or []), sensitive, l, k)
    if explain:
        return config, json.loads(columns)
    return config

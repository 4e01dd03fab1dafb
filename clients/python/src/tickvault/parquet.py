"""A downloaded Parquet file as a pandas DataFrame, read by pyarrow or DuckDB.

Neither reader is a dependency of the client: both are large binary wheels, which users install
from their own package index (Debian packages neither), and :meth:`Client.download_parquet`
needs neither. :func:`read_parquet` uses whichever is importable and, when none is, raises
:class:`~tickvault.errors.MissingDependency` naming both on one line.

The frame is the file as stored: strings, and doubles for every number (volumes too); the
client's own frames (:mod:`tickvault.frames`) give volumes and ids integer dtypes.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

from .errors import MissingDependency
from .frames import _pandas

if TYPE_CHECKING:  # pragma: no cover
    import os

    import pandas as pd

__all__ = ["ENGINES", "read_parquet"]

ENGINES = ("pyarrow", "duckdb")
"""The readers :func:`read_parquet` knows, in the order it tries them."""

_INSTALL = {"pyarrow": "pip install pyarrow", "duckdb": "pip install duckdb"}


def _importable(engine: str) -> Any:
    try:
        if engine == "pyarrow":
            import pyarrow.parquet

            return pyarrow.parquet
        import duckdb

        return duckdb
    except ImportError:
        return None


def read_parquet(
    path: Union[str, "os.PathLike[str]"],
    columns: Optional[Sequence[str]] = None,
    *,
    engine: Optional[str] = None,
) -> "pd.DataFrame":
    """The Parquet file at ``path`` (a :meth:`Client.download_parquet` download, or a stored
    file) as a DataFrame, its columns in the file's order or as ``columns`` lists them.

    ``engine`` is ``"pyarrow"`` or ``"duckdb"``; by default the first of them that imports.
    Raises :class:`~tickvault.errors.MissingDependency` (an ``ImportError``) when the engine
    asked for, or every engine, cannot be imported; its message is one line.
    """
    if engine is not None and engine not in ENGINES:
        raise ValueError(f"engine is one of {', '.join(ENGINES)}, not {engine!r}")
    _pandas()  # both readers hand over a pandas DataFrame: say so first when pandas is missing
    wanted = (engine,) if engine else ENGINES
    for name in wanted:
        module = _importable(name)
        if module is None:
            continue
        # Hive partitioning off in both: a stored file's `date=YYYYMMDD/` folder is not a column.
        if name == "pyarrow":
            return module.read_table(str(path), columns=None if columns is None else list(columns), partitioning=None).to_pandas()
        select = "*" if columns is None else ", ".join('"' + c.replace('"', '""') + '"' for c in columns)
        con = module.connect()
        try:
            frame = con.execute(f"SELECT {select} FROM read_parquet(?, hive_partitioning = false)", [str(path)]).df()
        finally:
            con.close()
        return frame
    # Raised outside the failed imports' handlers, so nothing is chained: the one line is all.
    needs = " or ".join(f"{n} ({_INSTALL[n]})" for n in wanted)
    if len(wanted) > 1:
        raise MissingDependency(f"reading Parquet needs {needs}; {sys.executable} can import neither", wanted[0])
    raise MissingDependency(f"reading Parquet with {wanted[0]} needs {needs}; {sys.executable} cannot import it", wanted[0])

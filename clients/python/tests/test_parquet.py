"""read_parquet: a download as a DataFrame by pyarrow or DuckDB, and a one-line MissingDependency
naming what to install when this interpreter has neither (nor pandas)."""
from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Iterator

import pytest

import tickvault
from conftest import DAYS, KEYS, TESTS, Lake, Server, duckdb_read

BOTH_MISSING = (
    "reading Parquet needs pyarrow (pip install pyarrow) or duckdb (pip install duckdb); "
    f"{sys.executable} can import neither"
)


def block(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Makes `import m` fail for each module, installed or not (None in sys.modules halts an import)."""
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


def one_line_unchained(error: BaseException) -> None:
    assert "\n" not in str(error)
    # Nothing chained: a traceback shows this error alone, not the failed import before it.
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)


@pytest.fixture
def download(server: Server, tmp_path: Path) -> Iterator[Path]:
    with tickvault.Client(server.url, KEYS["flagship"]) as tv:
        yield tv.download_parquet("600000.SH", DAYS[0], tmp_path).path


def test_neither_reader_is_named_on_one_line(download: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    block(monkeypatch, "pyarrow", "pyarrow.parquet", "duckdb")
    with pytest.raises(tickvault.MissingDependency) as caught:
        tickvault.read_parquet(download)
    assert str(caught.value) == BOTH_MISSING
    assert isinstance(caught.value, ImportError) and isinstance(caught.value, tickvault.TickvaultError)
    assert caught.value.name == "pyarrow"
    one_line_unchained(caught.value)


def test_the_engine_asked_for_is_named_alone(download: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    block(monkeypatch, "duckdb")
    with pytest.raises(ImportError) as caught:
        tickvault.read_parquet(download, engine="duckdb")
    assert str(caught.value) == f"reading Parquet with duckdb needs duckdb (pip install duckdb); {sys.executable} cannot import it"
    one_line_unchained(caught.value)
    with pytest.raises(ValueError, match="engine is one of pyarrow, duckdb, not 'fastparquet'"):
        tickvault.read_parquet(download, engine="fastparquet")


def test_without_pandas_pandas_is_named_first(download: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    block(monkeypatch, "pandas")
    for call in (lambda: tickvault.read_parquet(download), lambda: tickvault.frames.to_frame("level2_quote_history", ["time"], [["091500000"]])):
        with pytest.raises(tickvault.MissingDependency) as caught:
            call()
        assert str(caught.value) == (
            "DataFrames need pandas: pip install 'tickvault[pandas]' (Debian: apt-get install python3-pandas), "
            f"or pass raw=True for the envelopes; {sys.executable} cannot import pandas"
        )
        assert caught.value.name == "pandas"
        one_line_unchained(caught.value)


def test_a_script_prints_one_traceback_ending_in_the_line(lake: Lake) -> None:
    """What a user sees: one traceback (no "During handling of the above exception"), whose
    last line is the message."""
    script = textwrap.dedent(
        f"""
        import sys
        for name in ("pyarrow", "pyarrow.parquet", "duckdb"):
            sys.modules[name] = None
        import tickvault
        tickvault.read_parquet({str(lake.file("level2", DAYS[0], "600000.SH"))!r})
        """
    )
    r = subprocess.run([sys.executable, "-c", script], env={"PYTHONPATH": str(TESTS.parent / "src")}, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert r.stderr.count("Traceback (most recent call last)") == 1, r.stderr
    assert "During handling" not in r.stderr
    assert r.stderr.rstrip("\n").splitlines()[-1] == f"tickvault.errors.MissingDependency: {BOTH_MISSING}"


def same(a: Any, b: Any) -> bool:
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return b is None or (isinstance(b, float) and math.isnan(b))
    return bool(a == b)


@pytest.mark.parametrize("engine,other", [("pyarrow", "duckdb"), ("duckdb", "pyarrow")])
def test_each_reader_reads_the_download_as_duckdb_does(download: Path, lake: Lake, monkeypatch: pytest.MonkeyPatch, engine: str, other: str) -> None:
    """Runs where the reader is installed (neither is a dependency, and Debian packages
    neither); the other is blocked, so the default order reaches this one."""
    pytest.importorskip(engine, reason=f"{engine} is not importable by {sys.executable}: install it from your package index to run this")
    block(monkeypatch, other, f"{other}.parquet")
    frame = tickvault.read_parquet(download)
    expected = duckdb_read(lake.file("level2", DAYS[0], "600000.SH"))
    assert list(frame.columns) == [c[0] for c in expected["columns"]]
    assert len(frame) == len(expected["rows"]) > 0
    for got, want in zip(frame.itertuples(index=False), expected["rows"]):
        assert all(same(g, w) for g, w in zip(got, want)), (got, want)
    subset = tickvault.read_parquet(download, ["time", "close"])
    assert list(subset.columns) == ["time", "close"]
    assert subset["time"].tolist() == [row[2] for row in expected["rows"]]

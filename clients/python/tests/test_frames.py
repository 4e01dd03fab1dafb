"""A full day's DataFrame equals DuckDB's read of the same stored file: values, nulls, dtypes."""
from __future__ import annotations

from typing import Any, Dict, List

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest

import tickvault
from conftest import DAYS, KEYS, Lake, Server, duckdb_read

PRICE_LIKE = ("open", "high", "low", "close", "pre_close", "amount", "price", "pct_chg")


def expected_dtype(interface: str, name: str) -> str:
    """The dtypes the issue asks for, spelled out independently of the client's table."""
    if name in ("symbol", "tradedate", "time", "bs_flag", "trade_code", "side", "order_type"):
        return "object"
    if name in PRICE_LIKE or (name.startswith(("bid", "ask")) and "_vol" not in name):
        return "float64"
    if name in ("trade_id", "order_id"):
        return "int64"
    if name == "volume" and interface in ("level2_trade_history", "level2_order_history"):
        return "int64"
    # volumes and ids the field tables allow to be null
    assert name in ("volume", "vol", "transaction_num", "buy_order_id", "sell_order_id", "order_no") or "_vol" in name, name
    return "Int64"


def duckdb_frame(interface: str, read: Dict[str, Any]) -> pd.DataFrame:
    """DuckDB's rows as the frame the client should build, checking DuckDB's own types agree."""
    names: List[str] = [c[0] for c in read["columns"]]
    out = {}
    for i, (name, duck_type) in enumerate(read["columns"]):
        values = [row[i] for row in read["rows"]]
        want = expected_dtype(interface, name)
        if want == "object":
            assert duck_type == "VARCHAR", (name, duck_type)
            out[name] = pd.Series(values, dtype=object)
        elif want == "float64":
            assert duck_type == "DOUBLE", (name, duck_type)
            out[name] = pd.Series(np.array([np.nan if v is None else v for v in values], dtype=np.float64))
        else:
            assert duck_type in ("BIGINT", "DOUBLE", "INTEGER"), (name, duck_type)
            assert all(v is None or float(v).is_integer() for v in values), f"{name} holds fractions"
            if want == "int64":
                assert None not in values, name
                out[name] = pd.Series(np.array([int(v) for v in values], dtype=np.int64))
            else:
                out[name] = pd.Series(pd.array([None if v is None else int(v) for v in values], dtype="Int64"))
    return pd.DataFrame(out, columns=names)


@pytest.mark.parametrize(
    "interface,dataset,symbol",
    [
        ("level2_quote_history", "level2", "600000.SH"),
        ("level2_trade_history", "trade", "000001.SZ"),
        ("level2_order_history", "order", "600000.SH"),
    ],
)
def test_full_day_equals_duckdb(server: Server, lake: Lake, interface: str, dataset: str, symbol: str) -> None:
    with tickvault.Client(server.url, KEYS["flagship"]) as tv:
        got = getattr(tv, interface)(symbol, DAYS[0])
    want = duckdb_frame(interface, duckdb_read(lake.file(dataset, DAYS[0], symbol)))
    assert len(want) > 1000
    assert list(got.columns) == list(want.columns)
    assert {c: str(t) for c, t in got.dtypes.items()} == {c: str(t) for c, t in want.dtypes.items()}
    pdt.assert_frame_equal(got, want, check_exact=True)
    # the day has nulls, and they are where DuckDB has them
    assert int(want.isna().sum().sum()) > 0
    assert got.attrs["version"] == 1 and got.attrs["tradedate"] == DAYS[0]


def test_paged_day_equals_one_page(server: Server) -> None:
    with tickvault.Client(server.url, KEYS["flagship"]) as tv:
        whole = tv.level2_trade_history("300001.SZ", DAYS[1])
        paged = tv.level2_trade_history("300001", DAYS[1], page_size=997)
    assert paged.attrs["pages"] == -(-len(whole) // 997)
    pdt.assert_frame_equal(paged, whole, check_exact=True)


def test_index_day_equals_duckdb(server: Server, lake: Lake) -> None:
    """tick_history's compatible mode: one index, one whole day."""
    with tickvault.Client(server.url, KEYS["flagship"]) as tv:
        got = tv.tick_history(symbol="000300", tradedate=DAYS[1])
    want = duckdb_frame("tick_history", duckdb_read(lake.file("index", DAYS[1], "000300")))
    assert {c: str(t) for c, t in got.dtypes.items()} == {c: str(t) for c, t in want.dtypes.items()}
    pdt.assert_frame_equal(got, want, check_exact=True)
    assert got["pre_close"].isna().all() and got["transaction_num"].dtype == "Int64"

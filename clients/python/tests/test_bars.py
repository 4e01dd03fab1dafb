"""The bar interfaces (minute, daily, weekly, monthly, daily_auc) and the trading calendar as
DataFrames, against the real server: rows equal to the raw answer, dtypes as the issue asks,
paging by offset, and the sums of the stored trade files (DuckDB's read) as an independent
source of the bars' volumes and amounts."""
from __future__ import annotations

from typing import Any, Dict, List

import httpx
import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest

import tickvault
from conftest import DAYS, KEYS, STOCKS, Lake, Server, duckdb_read

MINUTE_DTYPES = {
    "tradedate": "object", "symbol": "object", "trademin": "object", "time": "object", "open": "float64", "high": "float64",
    "low": "float64", "close": "float64", "vol": "float64", "amount": "float64", "vwap": "float64",
}
DAILY_DTYPES = {
    "tradedate": "object", "symbol": "object", "name": "object", "open": "float64", "high": "float64", "low": "float64",
    "close": "float64", "pre_close": "float64", "change": "float64", "pct_chg": "float64", "vol": "float64", "amount": "float64",
}
AUC_DTYPES = {
    "tradedate": "object", "symbol": "object", "name": "object", "m_price": "float64", "auc_pct_chg": "float64",
    "open_bid_pct": "float64", "auc_amt": "float64", "auc_vol": "float64", "auc_vol_ratio": "float64",
    "auc_to_pre_vol_pct": "float64", "auc_to_pre_auc_vol_ratio": "float64", "um_vol": "float64", "um_side": "object",
    "auc_turnover_rate": "float64", "auc_turnover": "float64",
}


@pytest.fixture(scope="module")
def tv(server: Server):
    with tickvault.Client(server.url, KEYS["flagship"]) as client:
        yield client


def raw_data(server: Server, apiname: str, params: Dict[str, Any], fields: str = "") -> Dict[str, Any]:
    """One request as the server answers it, without the client."""
    body: Dict[str, Any] = {"apiname": apiname, "apikey": KEYS["flagship"], "params": params}
    if fields:
        body["fields"] = fields
    r = httpx.post(f"{server.url}/api", json=body, timeout=60)
    assert r.status_code == 200, r.text[:300]
    return r.json()["data"]


def rows_of(frame: pd.DataFrame) -> List[List[Any]]:
    """The frame's rows as JSON values (NaN → None) to compare with an answer's items."""
    return [[None if isinstance(v, float) and np.isnan(v) else v for v in row] for row in frame.astype(object).values.tolist()]


def dtypes(frame: pd.DataFrame) -> Dict[str, str]:
    return {c: str(t) for c, t in frame.dtypes.items()}


def fills(lake: Lake, tradedate: str, symbol: str) -> pd.DataFrame:
    """The stock-day's fills (trade_code F) from DuckDB's read of the stored trade file, with
    their 1m bar label (HHMM) as the contract defines it."""
    read = duckdb_read(lake.file("trade", tradedate, symbol))
    frame = pd.DataFrame(read["rows"], columns=[c[0] for c in read["columns"]])
    frame = frame[frame["trade_code"] == "F"].copy()
    ms = frame["time"].map(lambda t: ((int(t[0:2]) * 60 + int(t[2:4])) * 60 + int(t[4:6])) * 1000 + int(t[6:9]))

    def label(m: int) -> int:
        if m < 34_200_000:
            return 570  # 0930: the opening call auction
        if m < 41_400_000:
            return m // 60_000 + 1
        if m < 46_800_000:
            return 690  # 1130 holds 11:30:00.000
        if m < 54_000_000:
            return m // 60_000 + 1
        return 900  # 1500: the closing match

    frame["trademin"] = ms.map(lambda m: f"{label(m) // 60:02d}{label(m) % 60:02d}")
    frame["fen"] = (frame["price"] * frame["volume"] * 100).round()
    return frame


def test_minute_day_paged_by_100(tv: tickvault.Client, server: Server) -> None:
    got = tv.minute("600000", DAYS[0], limit=100)
    assert got.attrs["pages"] == 3  # 241 bars: 100 + 100 + 41
    assert len(got) == 241
    assert dtypes(got) == MINUTE_DTYPES
    assert list(got["trademin"].iloc[[0, 1, 120, 121, -1]]) == ["0930", "0931", "1130", "1301", "1500"]
    assert (got["time"] == "2025-01-02 " + got["trademin"].str[:2] + ":" + got["trademin"].str[2:] + ":00").all()
    assert (got["symbol"] == "600000.SH").all() and (got["tradedate"] == DAYS[0]).all()
    whole = raw_data(server, "minute", {"symbols": "600000.SH", "tradedate": DAYS[0]})
    assert list(got.columns) == whole["fields"]
    assert rows_of(got) == whole["items"]


def test_minute_equals_the_trades(tv: tickvault.Client, lake: Lake) -> None:
    symbol = STOCKS[0]
    got = tv.minute([symbol], DAYS[1])
    f = fills(lake, DAYS[1], symbol)
    assert len(f) > 10
    per = f.groupby("trademin").agg(vol=("volume", "sum"), fen=("fen", "sum"))
    bars = got.set_index("trademin")
    assert (bars.loc[per.index, "vol"] == per["vol"].astype(float)).all()
    assert ((bars.loc[per.index, "amount"] * 100).round() == per["fen"]).all()
    empty = bars.index.difference(per.index)
    assert (bars.loc[empty, "vol"] == 0).all() and (bars.loc[empty, "amount"] == 0).all()
    assert (bars.loc[empty, "open"] == bars.loc[empty, "close"]).all()
    traded = bars["vol"] > 0
    assert np.allclose(bars.loc[traded, "vwap"], bars.loc[traded, "amount"] / bars.loc[traded, "vol"])


def test_minute_periods_parse_times_and_fields(tv: tickvault.Client) -> None:
    one = tv.minute(list(STOCKS), DAYS[0])
    five = tv.minute(",".join(STOCKS), DAYS[0], period="5m", parse_times=True)
    assert len(five) == 48 * len(STOCKS)
    assert str(five["time"].dtype) == "datetime64[ns, Asia/Shanghai]"
    assert five["time"].iloc[0] == pd.Timestamp("2025-01-02 09:35", tz="Asia/Shanghai")
    assert five["time"].iloc[47] == pd.Timestamp("2025-01-02 15:00", tz="Asia/Shanghai")
    # each 5m bar's volume is its 1m bars' (0935 also holds the 0930 auction)
    minutes = one["trademin"].map(lambda t: int(t[:2]) * 60 + int(t[2:]))
    bucket = ((minutes - 1).clip(lower=570) - 570) // 5  # 0930 → the first
    bucket = bucket.where(minutes < 780, (minutes - 1 - 780) // 5 + 24)
    summed = one.groupby([one["symbol"], bucket])["vol"].sum().reset_index(drop=True)
    assert list(five["vol"]) == list(summed)
    hour = tv.minute(STOCKS[1], DAYS[0], period="1h", fields=["trademin", "close", "vol"])
    assert list(hour.columns) == ["trademin", "close", "vol"]
    assert list(hour["trademin"]) == ["1030", "1130", "1400", "1500"]
    pdt.assert_frame_equal(hour, tv.minute(STOCKS[1], DAYS[0], period="60m", fields="trademin,close,vol"), check_exact=True)


def test_daily_equals_the_trades_weekly_monthly_fold(tv: tickvault.Client, server: Server, lake: Lake) -> None:
    daily = tv.daily(list(STOCKS), startdate=DAYS[0], enddate=DAYS[1], limit=2)
    assert daily.attrs["pages"] == 3
    assert dtypes(daily) == DAILY_DTYPES
    assert daily["name"].isna().all()
    assert rows_of(daily) == raw_data(server, "daily", {"symbols": list(STOCKS), "startdate": DAYS[0], "enddate": DAYS[1]})["items"]
    assert len(daily) == len(STOCKS) * 2
    for row in daily.itertuples():
        f = fills(lake, row.tradedate, row.symbol)
        assert row.vol == f["volume"].sum() / 100, (row.symbol, row.tradedate)  # lots
        assert round(row.amount * 100) == f["fen"].sum()
        assert row.high == f["price"].max() and row.low == f["price"].min()
        assert row.change == round(row.close - row.pre_close, 2)
    # 20250102 and 20250103 are a Thursday and a Friday: one week, one month
    for interface in ("weekly", "monthly"):
        folded = getattr(tv, interface)(symbols=list(STOCKS), startdate=DAYS[0], enddate=DAYS[1])
        assert dtypes(folded) == DAILY_DTYPES
        assert list(folded["symbol"]) == list(STOCKS) and (folded["tradedate"] == DAYS[1]).all()
        g = daily.groupby("symbol", sort=True)
        assert list(folded["vol"]) == list(g["vol"].sum())
        assert list(folded["open"]) == list(g["open"].first()) and list(folded["close"]) == list(g["close"].last())
        assert list(folded["high"]) == list(g["high"].max()) and list(folded["pre_close"]) == list(g["pre_close"].first())


def test_daily_auc_and_iter_pages(tv: tickvault.Client, server: Server, lake: Lake) -> None:
    auc = tv.daily_auc(list(STOCKS), DAYS[1])
    assert dtypes(auc) == AUC_DTYPES
    assert rows_of(auc) == raw_data(server, "daily_auc", {"symbols": list(STOCKS), "tradedate": DAYS[1]})["items"]
    for n in ("name", "open_bid_pct", "auc_vol_ratio", "auc_turnover_rate", "auc_turnover"):
        assert auc[n].isna().all(), n
    assert set(auc["um_side"].dropna()) <= {"B", "S"}
    for row in auc.itertuples():
        f = fills(lake, DAYS[1], row.symbol)
        opening = f[f["trademin"] == "0930"]
        assert row.auc_vol == opening["volume"].sum()
        assert round(row.auc_amt * 100) == opening["fen"].sum()
    pages = list(tv.iter_pages("daily_auc", symbols=list(STOCKS), tradedate=DAYS[1], limit=1))
    assert len(pages) == len(STOCKS)
    pdt.assert_frame_equal(pd.concat(pages, ignore_index=True), auc, check_exact=True)
    envelopes = tv.daily(list(STOCKS), DAYS[0], limit=2, raw=True)
    assert [e["data"]["offset"] for e in envelopes] == [0, 2]
    assert [e["data"]["has_more"] for e in envelopes] == [True, False]


def test_trade_cal(tv: tickvault.Client, server: Server) -> None:
    cal = tv.trade_cal("20250101", "20250108", exchange="SSE")
    assert dtypes(cal) == {"cal_date": "object", "is_open": "int64", "pretrade_date": "object"}
    assert rows_of(cal) == raw_data(server, "tradecal", {"startdate": "20250101", "enddate": "20250108"})["items"]
    # 1 January is a holiday, 4 and 5 January a weekend
    assert list(cal["cal_date"]) == [f"202501{d:02d}" for d in range(1, 9)]
    assert list(cal["is_open"]) == [0, 1, 1, 0, 0, 1, 1, 1]
    assert list(cal["pretrade_date"].iloc[1:]) == ["20241231", "20250102", "20250103", "20250103", "20250103", "20250106", "20250107"]
    pdt.assert_frame_equal(tv.tradecal(startdate="20250101", enddate="20250108"), cal, check_exact=True)
    with pytest.raises(tickvault.BadRequest):
        tv.minute("600000", DAYS[0], period="2m")


def test_readme_kline_example_draws(server: Server, tmp_path, monkeypatch) -> None:
    """The README's one-day 1-minute K-line runs as written (against the test server)."""
    pytest.importorskip("matplotlib")
    import re

    from conftest import TESTS

    readme = (TESTS.parent / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- kline-example -->\n```python\n(.*?)```", readme, re.S)
    assert m, "the README's K-line example"
    code = m.group(1)
    assert '"http://localhost:8080", key' in code
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    import matplotlib

    matplotlib.use("Agg")
    scope: Dict[str, Any] = {"key": KEYS["flagship"]}
    exec(compile(code.replace('"http://localhost:8080"', repr(server.url)), "README.md", "exec"), scope)
    png = tmp_path / "600000.SH-20250102-1m.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert len(scope["bars"]) == 241
    import matplotlib.pyplot as plt

    plt.close("all")

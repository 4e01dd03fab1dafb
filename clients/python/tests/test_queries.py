"""Time windows, field lists, paging, raw envelopes, parse_times, and tick_history's three
modes (asset="stock" included), against the real server."""
from __future__ import annotations

import pandas as pd
import pandas.testing as pdt
import pytest

import tickvault
from conftest import DAYS, INDEXES, KEYS, STOCKS, Server


@pytest.fixture(scope="module")
def tv(server: Server):
    with tickvault.Client(server.url, KEYS["flagship"]) as client:
        yield client


@pytest.fixture(scope="module")
def day(tv: tickvault.Client) -> pd.DataFrame:
    return tv.level2_quote_history("600000.SH", DAYS[0])


def test_time_window_both_ends_included(tv: tickvault.Client, day: pd.DataFrame) -> None:
    got = tv.level2_quote_history("600000.SH", DAYS[0], start_time="09:30", end_time="10:00")
    want = day[(day["time"] >= "093000000") & (day["time"] <= "100000000")].reset_index(drop=True)
    assert 0 < len(got) < len(day)
    pdt.assert_frame_equal(got, want, check_exact=True)
    # 9-digit forms, to the millisecond: the window's first and last rows exactly
    first, last = want["time"].iloc[0], want["time"].iloc[-1]
    exact = tv.level2_quote_history("600000.SH", DAYS[0], start_time=first, end_time=last, fields=["time"])
    assert list(exact["time"]) == list(want["time"])


def test_field_list_in_order(tv: tickvault.Client, day: pd.DataFrame) -> None:
    fields = ["time", "close", "bid1", "ask_vol1", "volume"]
    got = tv.level2_quote_history("600000", DAYS[0], fields=fields, start_time="10:00", end_time="10:30")
    assert list(got.columns) == fields
    want = day[(day["time"] >= "100000000") & (day["time"] <= "103000000")][fields].reset_index(drop=True)
    pdt.assert_frame_equal(got, want, check_exact=True)
    # a comma-separated string works the same
    again = tv.level2_quote_history("600000", DAYS[0], fields="time,close,bid1,ask_vol1,volume", start_time="10:00", end_time="10:30")
    pdt.assert_frame_equal(again, got, check_exact=True)


def test_iter_pages_bounded(tv: tickvault.Client, day: pd.DataFrame) -> None:
    pages = list(tv.iter_pages("level2_quote_history", symbol="600000.SH", tradedate=DAYS[0], page_size=1200, fields=["time", "close"]))
    assert [len(p) for p in pages[:-1]] == [1200] * (len(pages) - 1)
    assert 0 < len(pages[-1]) <= 1200
    joined = pd.concat(pages, ignore_index=True)
    pdt.assert_frame_equal(joined, day[["time", "close"]], check_exact=True)
    assert all(p.attrs["version"] == 1 for p in pages)


def test_raw_envelopes(tv: tickvault.Client, day: pd.DataFrame) -> None:
    envs = tv.level2_quote_history("600000.SH", DAYS[0], raw=True, page_size=2000)
    assert len(envs) == 3
    assert all(e["code"] == 200 and e["message"] == "success" for e in envs)
    assert envs[0]["data"]["has_more"] is True and envs[-1]["data"]["has_more"] is False
    assert envs[-1]["data"]["next_cursor"] is None
    assert sum(len(e["data"]["items"]) for e in envs) == len(day)
    assert envs[0]["data"]["version"] == 1


def test_parse_times(tv: tickvault.Client, day: pd.DataFrame) -> None:
    got = tv.level2_quote_history("600000.SH", DAYS[0], fields=["time", "close"], parse_times=True, end_time="09:30")
    assert str(got["time"].dtype) == "datetime64[ns, Asia/Shanghai]"
    first = day["time"].iloc[0]  # HHMMSSmmm
    want = pd.Timestamp(f"2025-01-02 {first[0:2]}:{first[2:4]}:{first[4:6]}.{first[6:9]}", tz="Asia/Shanghai")
    assert got["time"].iloc[0] == want
    ticks = tv.tick_history(symbol="000001", tradedate=DAYS[0], parse_times=True, fields="time,close")
    assert str(ticks["time"].dtype) == "datetime64[ns, Asia/Shanghai]"
    assert ticks["time"].iloc[0].date().isoformat() == "2025-01-02"


def test_trades_and_orders(tv: tickvault.Client) -> None:
    trades = tv.level2_trade_history("000001.SZ", DAYS[0], start_time="10:00", end_time="10:30", fields=["time", "trade_id", "price", "volume", "bs_flag", "trade_code", "buy_order_id"])
    assert len(trades) > 0 and trades["time"].between("100000000", "103000000").all()
    assert trades["trade_id"].is_monotonic_increasing
    assert set(trades["trade_code"].dropna()) <= {"F", "C"} and set(trades["bs_flag"].dropna()) <= {"B", "S", "N"}
    assert str(trades["trade_id"].dtype) == "int64" and str(trades["volume"].dtype) == "int64"
    assert str(trades["buy_order_id"].dtype) == "Int64"
    orders = tv.level2_order_history("600000.SH", DAYS[1], fields=["time", "order_id", "side", "order_type", "price", "order_no"])
    assert list(orders.columns) == ["time", "order_id", "side", "order_type", "price", "order_no"]
    assert set(orders["side"]) <= {"B", "S"} and set(orders["order_type"]) <= {"L", "M", "U", "D"}
    assert orders["price"].isna().any() and str(orders["price"].dtype) == "float64"
    # every buy order a trade names is in that day's orders
    day_orders = tv.level2_order_history("000001.SZ", DAYS[0], fields=["order_id"])
    assert set(trades["buy_order_id"].dropna().astype(int)) <= set(day_orders["order_id"])


def test_no_data_is_an_empty_frame(tv: tickvault.Client) -> None:
    got = tv.level2_quote_history("600000.SH", "20250104", fields=["time", "close", "volume"])
    assert len(got) == 0 and list(got.columns) == ["time", "close", "volume"]
    assert got.attrs["message"].startswith("no data")
    assert str(got["close"].dtype) == "float64" and str(got["volume"].dtype) == "Int64"


# -- tick_history --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def index_days(tv: tickvault.Client) -> pd.DataFrame:
    """Both indexes, both days, by compatible queries (one whole day each)."""
    frames = [tv.tick_history(symbol=s, tradedate=d) for d in DAYS for s in INDEXES]
    assert all(f.attrs["pages"] == 1 and len(f) > 1000 for f in frames)
    return pd.concat(frames, ignore_index=True)


def test_tick_compatible(tv: tickvault.Client, index_days: pd.DataFrame) -> None:
    one = tv.tick_history(symbol="000300", tradedate=DAYS[0])
    assert (one["symbol"] == "000300").all() and (one["tradedate"] == DAYS[0]).all()
    assert one["time"].is_monotonic_increasing


def test_tick_enhanced_paged_by_offset(tv: tickvault.Client, index_days: pd.DataFrame) -> None:
    got = tv.tick_history(symbols=list(INDEXES), startdate=DAYS[0], enddate=DAYS[1], start_time="10:00:00", end_time="10:30:00", limit=250)
    assert got.attrs["pages"] > 2
    assert got.attrs["message"] == f"success; requested {DAYS[0]}-{DAYS[1]}, effective {DAYS[0]}-{DAYS[1]}"
    clock = index_days["time"].str.slice(11)
    want = index_days[(clock >= "10:00:00.000") & (clock < "10:30:00.000")]  # end excluded
    want = want.sort_values(["tradedate", "time", "symbol"], kind="stable").reset_index(drop=True)
    pdt.assert_frame_equal(got, want, check_exact=True)
    # trademin alone: the whole minute, comma-separated symbols
    minute = tv.tick_history(symbols="000001,000300", tradedate=DAYS[1], trademin="0931")
    assert len(minute) > 0 and minute["time"].str.slice(11, 16).eq("09:31").all()


def test_tick_boundary(tv: tickvault.Client, index_days: pd.DataFrame) -> None:
    got = tv.tick_history(tradedate=DAYS[0], trademin="1000", side="before")
    day = index_days[index_days["tradedate"] == DAYS[0]]
    want = day[day["time"].str.slice(11) < "10:00:00.000"].groupby("symbol").tail(1).sort_values("symbol").reset_index(drop=True)
    assert list(got["symbol"]) == list(INDEXES)
    pdt.assert_frame_equal(got, want, check_exact=True)


def test_tick_stock_asset(tv: tickvault.Client) -> None:
    """asset="stock": level-2 snapshots in tick_history's shape, paged 2 a page."""
    got = tv.tick_history(asset="stock", tradedate=DAYS[0], trademin="09:25", side="before", limit=2)
    assert got.attrs["pages"] == 2
    assert list(got["symbol"]) == sorted(s[:6] for s in STOCKS)
    for _, row in got.iterrows():
        full = next(s for s in STOCKS if s.startswith(row["symbol"]))
        l2 = tv.level2_quote_history(full, DAYS[0], end_time="092459999")
        last = l2.iloc[-1]
        assert row["time"] == f"2025-01-02 {last['time'][0:2]}:{last['time'][2:4]}:{last['time'][4:6]}.{last['time'][6:9]}"
        assert row["vol"] == last["volume"]
        for i in range(1, 6):
            assert (pd.isna(row[f"bid{i}"]) and pd.isna(last[f"bid{i}"])) or row[f"bid{i}"] == last[f"bid{i}"]
    assert got["pre_close"].isna().all() and got["pct_chg"].isna().all()
    # enhanced detail of stocks too
    detail = tv.tick_history(asset="stock", symbols=["600000.SH"], tradedate=DAYS[1], trademin="1000")
    assert len(detail) > 0 and (detail["symbol"] == "600000").all()

"""A live day (the day not sealed yet) through the client, against a real server: frames and
pages say ``attrs["live"]``, and once the day is sealed the same queries give the same rows,
no longer live, with their version."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pandas as pd

import tickvault
from conftest import CLI, NODE, SERVER_NOW, TESTS, Lake, _start_server, _stop, cli

DAY = SERVER_NOW[:10].replace("-", "")  # the server's today: 20250106, a trading day


def test_a_live_day_says_live_and_holds_the_rows_the_seal_writes(tmp_path: Path) -> None:
    lake = Lake(tmp_path)
    staged = subprocess.run([NODE, str(TESTS / "stage_live.mjs"), CLI, str(lake.data), DAY], capture_output=True, text=True, check=True)
    assert int(staged.stdout) > 1000
    cli("accounts", "add", "--plan", "flagship", "--key", "live-key", "--data-dir", str(lake.data))
    server = _start_server(lake)
    try:
        with tickvault.Client(server.url, "live-key") as tv:
            quotes = tv.level2_quote_history("600000.SH", DAY)
            pages = list(tv.iter_pages("level2_trade_history", symbol="600000.SH", tradedate=DAY, page_size=300))
            # tick_history too: the index of the day (found by its boundary row), all of its day, live.
            index = str(tv.tick_history(side="after", trademin="0930", tradedate=DAY)["symbol"].iloc[0])
            ticks = tv.tick_history(symbol=index, tradedate=DAY)
            stock_ticks = tv.tick_history(asset="stock", symbols=["600000.SH"], tradedate=DAY, limit=500)
        assert ticks.attrs["live"] is True and len(ticks) > 1000
        assert stock_ticks.attrs["live"] is True and len(stock_ticks) > 500
        assert quotes.attrs["live"] is True and "version" not in quotes.attrs
        assert len(quotes) > 100
        assert len(pages) >= 2 and all(p.attrs["live"] is True for p in pages)

        cli("seal", "--date", DAY, "--data-dir", str(lake.data), now=f"{SERVER_NOW[:10]}T18:00:00+08:00")
        with tickvault.Client(server.url, "live-key") as tv:
            sealed_quotes = tv.level2_quote_history("600000.SH", DAY)
            sealed_trades = tv.level2_trade_history("600000.SH", DAY)
            sealed_ticks = tv.tick_history(symbol=index, tradedate=DAY)
            sealed_stock_ticks = tv.tick_history(asset="stock", symbols=["600000.SH"], tradedate=DAY, limit=500)
        assert sealed_quotes.attrs["live"] is False and sealed_quotes.attrs["version"] == 1
        pd.testing.assert_frame_equal(quotes, sealed_quotes, check_flags=False)
        pd.testing.assert_frame_equal(pd.concat(pages, ignore_index=True), sealed_trades, check_flags=False)
        assert sealed_ticks.attrs["live"] is False
        pd.testing.assert_frame_equal(ticks, sealed_ticks, check_flags=False)
        pd.testing.assert_frame_equal(stock_ticks, sealed_stock_ticks, check_flags=False)
    finally:
        _stop(server)

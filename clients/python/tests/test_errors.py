"""Errors and retries: 429 and 503 retried after Retry-After (counted, timed), nothing else;
plans without access; paging that would end early or loop raises."""
from __future__ import annotations

import gzip
import shutil
import json
import time
from typing import List, Tuple

import pytest

import tickvault
from tickvault._retry import parse_retry_after, retry_delay
from conftest import DAYS, KEYS, PLANS, Lake, Server, _start_server, _stop, account_id, cli, envelope, hold_slot


class Retries:
    """An on_retry hook that records (status, retry_after, seconds, attempt)."""

    def __init__(self) -> None:
        self.seen: List[Tuple[int, object, float, int]] = []

    def __call__(self, error: tickvault.TickvaultError, seconds: float, attempt: int) -> None:
        self.seen.append((error.code, error.retry_after, seconds, attempt))


# -- against the real server -----------------------------------------------------------------


def test_429_per_second_limit_retried_after_retry_after(limited_server: Server) -> None:
    hook = Retries()
    cheap = {"symbols": "000300", "tradedate": DAYS[0], "trademin": "0931", "limit": 5}
    with tickvault.Client(limited_server.url, KEYS["rate"], on_retry=hook) as tv, \
            tickvault.Client(limited_server.url, KEYS["rate"], retries=0) as impatient:
        # A second's window may turn between two requests: a few rounds until one is refused
        # and the patient client meets the same window.
        for _round in range(5):
            refused = None
            for _ in range(5):
                try:
                    impatient.call("tick_history", cheap)
                except tickvault.RateLimited as e:
                    refused = e
                    break
            assert refused is not None and refused.code == 429 and refused.retry_after == 1
            t0 = time.monotonic()
            got = tv.tick_history(fields="time", **cheap)  # refused, waited, served
            elapsed = time.monotonic() - t0
            assert len(got) > 0
            if hook.seen:
                break
    assert len(hook.seen) >= 1 and all(s[0] == 429 and s[1] == 1 and s[2] >= 1 for s in hook.seen)
    assert elapsed >= 1.0


def test_503_busy_slot_retried_after_retry_after(server: Server, lake: Lake) -> None:
    """Another process of the lake holds the account's level2 slot (a live lease in service.db):
    refused at once with retries=0, waited out (Retry-After: 1, counted) by a patient client."""
    account = account_id(server, KEYS["slot"])
    hook = Retries()
    with tickvault.Client(server.url, KEYS["slot"], retries=0) as impatient:
        hold_slot(lake, account, "level2_quote_history", 30)
        with pytest.raises(tickvault.Busy) as caught:
            impatient.level2_quote_history("600000.SH", DAYS[0], fields="time")
        assert caught.value.code == 503 and caught.value.retry_after == 1
        # another interface has its own slot
        assert len(impatient.level2_trade_history("600000.SH", DAYS[0], fields="time")) > 0
    with tickvault.Client(server.url, KEYS["slot"], on_retry=hook, retries=5) as tv:
        hold_slot(lake, account, "level2_quote_history", 1.5)
        t0 = time.monotonic()
        got = tv.level2_quote_history("600000.SH", DAYS[0], fields="time")
        elapsed = time.monotonic() - t0
    assert len(got) > 1000
    assert 1 <= len(hook.seen) <= 2 and all(s[0] == 503 and s[1] == 1 and s[2] >= 1 for s in hook.seen)
    assert elapsed >= 1.0 * len(hook.seen)


def test_503_of_a_damaged_file_raises_damaged_at_once(lake: Lake, tmp_path) -> None:
    """A copy of the lake with one flipped byte in a level-2 file, served by its own server:
    that stock-day raises Damaged (a 503 never waited out, even with waits allowed), naming the
    file; another stock-day of the copy is served."""
    copy = Lake(tmp_path)
    shutil.copytree(lake.data, copy.data, ignore=shutil.ignore_patterns("service.db*"))
    path = copy.file("level2", DAYS[0], "600000.SH")
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))
    cli("accounts", "add", "--plan", PLANS["slot"], "--key", KEYS["slot"], "--data-dir", str(copy.data))
    spoiled = _start_server(copy)
    try:
        hook = Retries()
        with tickvault.Client(spoiled.url, KEYS["slot"], retries=5, max_wait=120, on_retry=hook) as tv:
            t0 = time.monotonic()
            with pytest.raises(tickvault.Damaged) as caught:
                tv.level2_quote_history("600000.SH", DAYS[0], fields="time")
            assert time.monotonic() - t0 < 10
            assert isinstance(caught.value, tickvault.Unavailable)
            assert caught.value.code == 503 and caught.value.retry_after == 60 and hook.seen == []
            assert caught.value.message.startswith(f"stored file level2/date={DAYS[0]}/600000.SH.parquet is damaged: its SHA-256 ")
            other = sorted(p.stem for p in (copy.data / "level2" / f"date={DAYS[0]}").glob("*.parquet") if p.stem != "600000.SH")[0]
            assert len(tv.level2_quote_history(other, DAYS[0], fields="time")) > 1000
    finally:
        _stop(spoiled)


def test_400_not_retried(server: Server) -> None:
    hook = Retries()
    with tickvault.Client(server.url, KEYS["flagship"], on_retry=hook) as tv:
        with pytest.raises(tickvault.BadRequest) as caught:
            tv.level2_quote_history("600000.SH", DAYS[0], start_time="10:00", end_time="09:00")
        assert caught.value.code == 400 and "start_time" in caught.value.message
        with pytest.raises(tickvault.BadRequest, match="nonsense"):
            tv.level2_quote_history("600000.SH", DAYS[0], fields=["time", "nonsense"])
        with pytest.raises(tickvault.BadRequest):
            tv.tick_history(symbol="000300", tradedate=DAYS[0], startdate=DAYS[0])
    assert hook.seen == []


@pytest.mark.parametrize("plan", ["free", "standard"])
def test_plan_without_level2_access(server: Server, plan: str) -> None:
    with tickvault.Client(server.url, KEYS[plan]) as tv:
        with pytest.raises(tickvault.NoAccess) as caught:
            tv.level2_quote_history("600000.SH", DAYS[0])
        assert caught.value.code == 403 and plan in caught.value.message
        with pytest.raises(tickvault.NoAccess):
            tv.tick_history(asset="stock", tradedate=DAYS[0], trademin="0925", side="before")
        if plan == "free":
            with pytest.raises(tickvault.NoAccess):
                tv.tick_history(symbol="000300", tradedate=DAYS[0])
        else:
            assert len(tv.tick_history(symbol="000300", tradedate=DAYS[0], fields="time")) > 1000


def test_unknown_key(server: Server) -> None:
    with tickvault.Client(server.url, "no-such-key-at-all") as tv:
        with pytest.raises(tickvault.InvalidKey) as caught:
            tv.tick_history(symbol="000300", tradedate=DAYS[0])
    assert caught.value.code == 401 and isinstance(caught.value, tickvault.TickvaultError)


def test_connection_refused_is_not_retried() -> None:
    hook = Retries()
    with tickvault.Client("http://127.0.0.1:9", "k", on_retry=hook) as tv:
        with pytest.raises(tickvault.ConnectionFailed):
            tv.tick_history(symbol="000300")
    assert hook.seen == []


# -- against a scripted stub: exact counts ----------------------------------------------------

OK_PAGE = envelope(200, "success", {"fields": ["time", "close"], "items": [["093000000", 1.5]], "tradedate": "20250102",
                                    "page_size": 10000, "next_cursor": None, "has_more": False, "version": 1})


def test_exact_retry_counts_and_waits(stub) -> None:
    s = stub([
        (503, {"Retry-After": "1"}, envelope(503, "this account already has a level2_quote_history request in progress; it is not queued")),
        (429, {"Retry-After": "2"}, envelope(429, "more than 20 requests per second for this account")),
        (200, {}, OK_PAGE),
    ])
    hook = Retries()
    with tickvault.Client(s.url, "k", on_retry=hook, jitter=0) as tv:
        got = tv.level2_quote_history("600000.SH", DAYS[0])
    assert len(got) == 1 and got["close"].iloc[0] == 1.5
    assert len(s.requests) == 3
    gaps = [b[0] - a[0] for a, b in zip(s.requests, s.requests[1:])]
    assert gaps[0] >= 1.0 and gaps[1] >= 2.0, gaps
    assert [(c, r, a) for c, r, _, a in hook.seen] == [(503, 1, 1), (429, 2, 2)]
    assert s.requests[0][1] == s.requests[2][1]  # the same request sent again


def test_retries_are_bounded(stub) -> None:
    busy = (503, {"Retry-After": "0"}, envelope(503, "this account already has a level2_quote_history request in progress; it is not queued"))
    s = stub([busy] * 10)
    with tickvault.Client(s.url, "k", retries=2) as tv:
        with pytest.raises(tickvault.Busy):
            tv.level2_quote_history("600000.SH", DAYS[0])
    assert len(s.requests) == 3


def test_a_wait_beyond_max_wait_raises_at_once(stub) -> None:
    s = stub([(429, {"Retry-After": "27000"}, envelope(429, "the flagship plan's 300 Parquet files per Beijing day on level2_quote_history are used up"))])
    with tickvault.Client(s.url, "k", max_wait=30) as tv:
        with pytest.raises(tickvault.QuotaExceeded) as caught:
            tv.level2_quote_history("600000.SH", DAYS[0])
    assert caught.value.retry_after == 27000 and isinstance(caught.value, tickvault.TooManyRequests)
    assert len(s.requests) == 1


@pytest.mark.parametrize("status,cls", [(400, tickvault.BadRequest), (401, tickvault.InvalidKey), (403, tickvault.NoAccess), (413, tickvault.BadRequest), (500, tickvault.ServerError), (502, tickvault.ServerError)])
def test_other_statuses_never_retried(stub, status: int, cls: type) -> None:
    s = stub([(status, {"Retry-After": "1"}, envelope(status, f"status {status}"))] * 3)
    with tickvault.Client(s.url, "k") as tv:
        with pytest.raises(cls) as caught:
            tv.level2_quote_history("600000.SH", DAYS[0])
    assert caught.value.code == status and caught.value.message == f"status {status}"
    assert len(s.requests) == 1


def test_request_body(stub) -> None:
    s = stub([(200, {}, OK_PAGE)])
    with tickvault.Client(s.url + "/", "the-key") as tv:
        tv.level2_quote_history("600000.SH", "20250102", fields=["time", "close"], start_time="09:30", end_time=None)
    assert s.requests[0][1] == {"apiname": "level2_quote_history", "apikey": "the-key", "fields": "time,close",
                                "params": {"symbol": "600000.SH", "tradedate": "20250102", "start_time": "09:30"}}


def test_accept_encoding_and_a_compressed_answer(stub) -> None:
    """The client asks for the codings httpx decodes, and reads a gzip-coded page."""
    s = stub([(200, {"Content-Encoding": "gzip", "Vary": "Accept-Encoding"}, gzip.compress(OK_PAGE))])
    with tickvault.Client(s.url, "k") as tv:
        got = tv.level2_quote_history("600000.SH", DAYS[0])
    assert got["close"].tolist() == [1.5]
    offered = [c.strip() for c in s.headers[0]["accept-encoding"].split(",")]
    assert "gzip" in offered
    assert s.headers[0]["content-type"] == "application/json"


def _page(items: int, page_size: int, has_more: bool, cursor) -> bytes:
    return envelope(200, "success", {"fields": ["time"], "items": [["093000000"]] * items, "tradedate": "20250102",
                                     "page_size": page_size, "next_cursor": cursor, "has_more": has_more, "version": 1})


def test_a_short_page_that_promises_more_raises(stub) -> None:
    s = stub([(200, {}, _page(2, 2, True, "c1a")), (200, {}, _page(1, 2, True, "c1b"))])
    with tickvault.Client(s.url, "k") as tv:
        with pytest.raises(tickvault.PagingError, match="promised more"):
            tv.level2_quote_history("600000.SH", DAYS[0], page_size=2)
    assert [r[1]["params"].get("cursor") for r in s.requests] == [None, "c1a"]


def test_more_without_a_cursor_or_a_repeated_cursor_raises(stub) -> None:
    s = stub([(200, {}, _page(2, 2, True, None))])
    with tickvault.Client(s.url, "k") as tv:
        with pytest.raises(tickvault.PagingError, match="without a next_cursor"):
            tv.level2_quote_history("600000.SH", DAYS[0], page_size=2)
    s = stub([(200, {}, _page(2, 2, True, "c1a")), (200, {}, _page(2, 2, True, "c1a"))])
    with tickvault.Client(s.url, "k") as tv:
        with pytest.raises(tickvault.PagingError, match="second time"):
            list(tv.iter_pages("level2_quote_history", symbol="600000.SH", tradedate=DAYS[0], page_size=2))


def test_a_short_tick_page_raises(stub) -> None:
    def tick(n: int, offset: int, has_more: bool) -> bytes:
        return envelope(200, "success", {"fields": ["time"], "items": [["2025-01-02 09:30:00.000"]] * n, "limit": 3, "offset": offset, "has_more": has_more})

    s = stub([(200, {}, tick(3, 0, True)), (200, {}, tick(3, 3, True)), (200, {}, tick(1, 6, False))])
    with tickvault.Client(s.url, "k") as tv:
        assert len(tv.tick_history(symbols="000300", tradedate=DAYS[0], limit=3)) == 7
    assert [r[1]["params"].get("offset") for r in s.requests] == [None, 3, 6]
    s = stub([(200, {}, tick(3, 0, True)), (200, {}, tick(2, 3, True))])
    with tickvault.Client(s.url, "k") as tv:
        with pytest.raises(tickvault.PagingError):
            tv.tick_history(symbols="000300", tradedate=DAYS[0], limit=3)


def test_retry_after_parsing() -> None:
    assert parse_retry_after("3") == 3
    assert parse_retry_after(" 0 ") == 0
    assert parse_retry_after(None) is None and parse_retry_after("") is None and parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412490.0) == 0
    kw = dict(retries=3, max_wait=30, jitter=0.2, random=0.5)
    assert retry_delay(400, 1, 1, **kw) is None and retry_delay(500, 1, 1, **kw) is None
    assert retry_delay(429, None, 1, **kw) == pytest.approx(1.1)
    assert retry_delay(503, 10, 3, **kw) == pytest.approx(11.0)
    assert retry_delay(503, 10, 4, **kw) is None
    assert retry_delay(429, 31, 1, **kw) is None

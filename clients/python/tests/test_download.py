"""download_parquet: the stored file's bytes, its version, atomic writing, no data."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import tickvault
from conftest import DAYS, KEYS, Lake, Server


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(
    "interface,dataset,symbol",
    [("level2_quote_history", "level2", "600000.SH"), ("level2_trade_history", "trade", "000001.SZ"), ("level2_order_history", "order", "300001.SZ")],
)
def test_bytes_are_the_stored_file(server: Server, lake: Lake, tmp_path: Path, interface: str, dataset: str, symbol: str) -> None:
    with tickvault.Client(server.url, KEYS["flagship"]) as tv:
        got = tv.download_parquet(symbol[:6], DAYS[0], tmp_path / "day.parquet", interface=interface)
    path, version = got
    assert path == tmp_path / "day.parquet" and version == 1
    assert sha256(path) == sha256(lake.file(dataset, DAYS[0], symbol))
    assert [p.name for p in tmp_path.iterdir()] == ["day.parquet"]  # no temporary left behind


def test_into_a_directory_by_the_servers_name(server: Server, lake: Lake, tmp_path: Path) -> None:
    with tickvault.Client(server.url, KEYS["flagship"]) as tv:
        got = tv.download_parquet("600000", DAYS[1], tmp_path)
    assert got.path == tmp_path / f"600000.SH_{DAYS[1]}.parquet"
    assert sha256(got.path) == sha256(lake.file("level2", DAYS[1], "600000.SH"))


def test_no_stored_file_raises_no_data(server: Server, tmp_path: Path) -> None:
    with tickvault.Client(server.url, KEYS["flagship"]) as tv:
        with pytest.raises(tickvault.NoData) as caught:
            tv.download_parquet("600001.SH", DAYS[0], tmp_path / "x.parquet")
    assert caught.value.message.startswith("no data") and caught.value.code == 200
    assert list(tmp_path.iterdir()) == []


def test_the_daily_parquet_quota(server: Server, tmp_path: Path) -> None:
    """professional: 30 files a Beijing day per interface; the 31st is a QuotaExceeded whose
    Retry-After (to Beijing midnight) is beyond max_wait, so it is raised at once."""
    waits = []
    with tickvault.Client(server.url, KEYS["professional"], on_retry=lambda e, s, a: waits.append(e)) as tv:
        for _ in range(30):
            assert tv.download_parquet("300001.SZ", DAYS[1], tmp_path / "x.parquet").version == 1
        assert all(isinstance(e, tickvault.RateLimited) for e in waits)  # only the per-second limit waited
        waits.clear()
        with pytest.raises(tickvault.QuotaExceeded) as caught:
            tv.download_parquet("300001.SZ", DAYS[1], tmp_path / "x.parquet")
        assert caught.value.code == 429 and caught.value.retry_after is not None and caught.value.retry_after > 30
        # Raised, not waited for; the per-second limit may still have made this 31st call wait
        # its second first, when the 30 before it fell in the same second.
        assert all(isinstance(e, tickvault.RateLimited) for e in waits)
        # another interface has its own quota
        assert tv.download_parquet("300001.SZ", DAYS[1], tmp_path / "t.parquet", interface="level2_trade_history").version == 1


def test_a_missing_folder_is_refused_before_the_request(stub, tmp_path: Path) -> None:
    s = stub([])
    with tickvault.Client(s.url, "k") as tv:
        with pytest.raises(FileNotFoundError):
            tv.download_parquet("600000.SH", DAYS[0], tmp_path / "nowhere" / "x.parquet")
    assert s.requests == []  # nothing sent, nothing spent


def test_a_plan_without_downloads(server: Server, tmp_path: Path) -> None:
    with tickvault.Client(server.url, KEYS["standard"]) as tv:
        with pytest.raises(tickvault.NoAccess):
            tv.download_parquet("600000.SH", DAYS[0], tmp_path / "x.parquet")
    assert list(tmp_path.iterdir()) == []


def test_a_wrong_media_type_or_a_broken_body_leaves_nothing(stub, tmp_path: Path) -> None:
    s = stub([
        (200, {"Content-Type": "text/html"}, b"<html>a proxy's page</html>"),
        (200, {"Content-Type": "application/vnd.apache.parquet", "X-Stub-Length": "5000"}, b"PAR1" + b"x" * 100),
    ])
    with tickvault.Client(s.url, "k") as tv:
        with pytest.raises(tickvault.DownloadError, match="expected application/vnd.apache.parquet"):
            tv.download_parquet("600000.SH", DAYS[0], tmp_path / "x.parquet")
        with pytest.raises(tickvault.DownloadError, match="broke off"):
            tv.download_parquet("600000.SH", DAYS[0], tmp_path / "x.parquet")
    assert list(tmp_path.iterdir()) == []
    assert len(s.requests) == 2  # neither retried
    assert s.requests[0][1]["params"] == {"symbol": "600000.SH", "tradedate": DAYS[0], "format": "parquet"}

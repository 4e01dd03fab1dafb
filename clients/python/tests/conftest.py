"""Fixtures: a real `tickvault serve` on a lake made by `generate` + `replay`, accounts of
several plans, DuckDB's read of stored files (through Node), and a scripted stub server.

Environment (set by test/clients/python.test.ts; defaults for a run from a checkout):
  TICKVAULT_CLI   the compiled CLI entry (default: <repo>/dist/cli/main.js)
  TICKVAULT_NODE  the node binary (default: node on PATH)
"""
from __future__ import annotations

import json
import os
import queue
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import httpx
import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parents[2]
sys.path.insert(0, str(TESTS.parent / "src"))

CLI = os.environ.get("TICKVAULT_CLI") or str(REPO / "dist" / "cli" / "main.js")
NODE = os.environ.get("TICKVAULT_NODE") or shutil.which("node") or "node"

FEED_NOW = "2025-03-03T18:00:00+08:00"
SERVER_NOW = "2025-01-06T16:30:00+08:00"
DAYS = ("20250102", "20250103")
STOCKS = ("000001.SZ", "300001.SZ", "600000.SH")
INDEXES = ("000001", "000300")

KEYS = {
    "flagship": "pytest-flagship-key",
    "slot": "pytest-slot-key",
    "rate": "pytest-rate-key",
    "free": "pytest-free-key",
    "standard": "pytest-standard-key",
    "professional": "pytest-professional-key",
}
PLANS = {"flagship": "flagship", "slot": "flagship", "rate": "flagship", "free": "free", "standard": "standard", "professional": "professional"}


def _env(**extra: str) -> Dict[str, str]:
    env = dict(os.environ)
    env.update({"TICKVAULT_PROGRESS": "off", "TICKVAULT_LOG_LEVEL": "warn"})
    env.update(extra)
    return env


def cli(*args: str, now: str = FEED_NOW, timeout: float = 300) -> str:
    """Runs `tickvault ARGS…`; returns stdout, raises with stderr on failure."""
    r = subprocess.run([NODE, CLI, *args], env=_env(TICKVAULT_NOW=now), capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"tickvault {' '.join(args)} exited {r.returncode}: {r.stderr[-2000:]}")
    return r.stdout


class Lake:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.data = root / "data"

    def file(self, dataset: str, tradedate: str, symbol: str) -> Path:
        return self.data / dataset / f"date={tradedate}" / f"{symbol}.parquet"


@pytest.fixture(scope="session")
def lake() -> Iterator[Lake]:
    if not Path(CLI).exists():
        pytest.fail(f"{CLI} not found: build the Node side first (npm run build)")
    root = Path(tempfile.mkdtemp(prefix="tickvault-pytest-"))
    try:
        lk = Lake(root)
        feed = root / "feed.jsonl.zst"
        cli("generate", "--out", str(feed), "--from", DAYS[0], "--days", "2", "--stocks", "3", "--indexes", "2", "--ticks", "0.1")
        cli("replay", str(feed), "--data-dir", str(lk.data))
        for name, key in KEYS.items():
            cli("accounts", "add", "--plan", PLANS[name], "--key", key, "--data-dir", str(lk.data))
        yield lk
    finally:
        if not os.environ.get("KEEP_TEST_DIRS"):
            shutil.rmtree(root, ignore_errors=True)


class Server:
    def __init__(self, proc: subprocess.Popen, url: str) -> None:
        self.proc = proc
        self.url = url


def _start_server(lake: Lake, *extra: str) -> Server:
    proc = subprocess.Popen(
        [NODE, CLI, "serve", "--port", "0", "--data-dir", str(lake.data), "--json-threads", "0", *extra],
        env=_env(TICKVAULT_NOW=SERVER_NOW),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    lines: "queue.Queue[Optional[str]]" = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + 60
    url = None
    while url is None:
        try:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            proc.kill()
            raise RuntimeError("tickvault serve printed no 'listening on' line within 60 s")
        if line is None:
            raise RuntimeError(f"tickvault serve exited ({proc.wait()}) before listening")
        m = re.search(r"listening on (http://\S+)", line)
        if m:
            url = m.group(1).rstrip("/")
    # Listening is not serving: wait for /healthz to say 200.
    while True:
        try:
            if httpx.get(f"{url}/healthz", timeout=5).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("GET /healthz did not answer 200 within 60 s")
        time.sleep(0.05)
    return Server(proc, url)


def _stop(server: Server) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait()


@pytest.fixture(scope="session")
def server(lake: Lake) -> Iterator[Server]:
    s = _start_server(lake)
    yield s
    _stop(s)


@pytest.fixture(scope="session")
def limited_server(lake: Lake) -> Iterator[Server]:
    """A second process on the same lake with a per-second limit of 1."""
    s = _start_server(lake, "--rate-limit", "1")
    yield s
    _stop(s)


_duck_cache: Dict[str, Dict[str, Any]] = {}


def duckdb_read(path: Path) -> Dict[str, Any]:
    """DuckDB's read of a stored file: {"columns": [[name, type]…], "rows": [[…]…]}."""
    key = str(path)
    if key not in _duck_cache:
        r = subprocess.run([NODE, str(TESTS / "duckdb_read.mjs"), key], capture_output=True, text=True, timeout=120, cwd=str(REPO))
        if r.returncode != 0:
            raise RuntimeError(f"DuckDB could not read {path}: {r.stderr[-2000:]}")
        _duck_cache[key] = json.loads(r.stdout)
    return _duck_cache[key]


def account_id(server: Server, key: str) -> int:
    r = httpx.post(f"{server.url}/account", json={"apikey": key}, timeout=10)
    r.raise_for_status()
    return int(r.json()["data"]["account_id"])


def hold_slot(lake: Lake, account: int, apiname: str, seconds: float) -> None:
    """Takes the account's in-flight slot as another server process on the lake would (a row
    of service.db's slots table with a live lease), for `seconds` of wall clock."""
    db = sqlite3.connect(str(lake.data / "service.db"), timeout=10)
    try:
        with db:
            db.execute(
                "INSERT OR REPLACE INTO slots (account_id, apiname, holder, expires_at_ms) VALUES (?, ?, ?, ?)",
                (account, apiname, f"pytest-{os.getpid()}", int((time.time() + seconds) * 1000)),
            )
    finally:
        db.close()


# -- a scripted stub: exact counts of what a client sends ------------------------------------

Answer = Tuple[int, Dict[str, str], bytes]


class Stub:
    """A local HTTP server answering POST /api from a script of answers, recording each
    request body and its arrival time (time.monotonic())."""

    def __init__(self, script: List[Answer]) -> None:
        self.script = list(script)
        self.requests: List[Tuple[float, Dict[str, Any]]] = []
        self.headers: List[Dict[str, str]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                stub.requests.append((time.monotonic(), json.loads(body)))
                stub.headers.append({k.lower(): v for k, v in self.headers.items()})
                status, headers, payload = stub.script.pop(0) if stub.script else (500, {}, b'{"code":500,"message":"script ended","data":null}')
                self.send_response(status)
                headers = {"Content-Type": "application/json", **headers}
                # X-Stub-Length announces another length than sent (a body that breaks off).
                length = headers.pop("X-Stub-Length", str(len(payload)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", length)
                if length != str(len(payload)):
                    self.send_header("Connection", "close")
                    self.close_connection = True
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def envelope(code: int, message: str, data: Any = None) -> bytes:
    return json.dumps({"code": code, "message": message, "data": data}).encode()


@pytest.fixture
def stub() -> Iterator[Callable[[List[Answer]], Stub]]:
    made: List[Stub] = []

    def make(script: List[Answer]) -> Stub:
        s = Stub(script)
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()

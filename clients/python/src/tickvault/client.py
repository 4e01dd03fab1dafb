"""The client: one method per interface of ``POST /api``, paging, retries and downloads."""
from __future__ import annotations

import json
import os
import random as _random
import re
import tempfile
import time
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterator,
    List,
    Literal,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Union,
    overload,
)

import httpx

from ._retry import parse_retry_after, retry_delay
from ._version import __version__
from .errors import (
    ConnectionFailed,
    Damaged,
    DownloadError,
    NoData,
    PagingError,
    ServerError,
    TickvaultError,
    error_for,
)
from .frames import DETAILED_INTERFACES, INTERFACES, OFFSET_INTERFACES, to_frame

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["Client", "ParquetFile", "PARQUET_MEDIA_TYPE"]

PARQUET_MEDIA_TYPE = "application/vnd.apache.parquet"

Fields = Union[str, Sequence[str], None]
Symbols = Union[str, Sequence[str]]
Envelope = Dict[str, Any]
RetryHook = Callable[[TickvaultError, float, int], None]


class ParquetFile(NamedTuple):
    """What :meth:`Client.download_parquet` wrote."""

    path: Path
    """The file written (complete, fsynced, renamed into place)."""
    version: Optional[int]
    """The symbol-day's version (``X-Tickvault-Version``: 1 as sealed, N after a restatement);
    ``None`` from a server that does not send the header."""


def _fields_member(fields: Fields) -> Optional[str]:
    if fields is None:
        return None
    if isinstance(fields, str):
        return fields
    return ",".join(fields)


def _params(given: Mapping[str, Any]) -> Dict[str, Any]:
    """Parameters as sent: ``None`` means omitted."""
    return {k: v for k, v in given.items() if v is not None}


class Client:
    """A client of a tickvault service (or any service with its ``POST /api``).

    ::

        with tickvault.Client("http://localhost:8080", key) as tv:
            day = tv.level2_quote_history("600000.SH", "20250102")

    Args:
        url: the service's base address (``/api`` is added; a URL ending in ``/api`` is
            taken as is).
        key: the account's API key (sent as the ``apikey`` body member only).
        timeout: seconds for connecting, and between bytes of an answer.
        retries: how many times a 429 or 503 answer is retried after its ``Retry-After``
            (0: never). Nothing else is ever retried.
        max_wait: the longest ``Retry-After`` (seconds) the client waits; a longer one (a
            daily quota, until Beijing midnight) is raised at once with ``retry_after`` set.
        jitter: extra random wait, as a fraction of the wait (at least up to 0.1 s), so
            clients told the same ``Retry-After`` do not come back together.
        on_retry: called as ``on_retry(error, seconds, attempt)`` before each wait.
        transport: an httpx transport (tests, proxies); the default is httpx's own.

    All requests of a client share one HTTP connection pool; use it as a context manager or
    call :meth:`close`. Requests are made one at a time: the service allows one request in
    progress per account on each detailed interface, so pages are fetched in sequence.
    """

    def __init__(
        self,
        url: str,
        key: str,
        *,
        timeout: float = 60.0,
        retries: int = 3,
        max_wait: float = 30.0,
        jitter: float = 0.2,
        on_retry: Optional[RetryHook] = None,
        transport: Optional[httpx.BaseTransport] = None,
    ) -> None:
        base = url.rstrip("/")
        self.url = base if base.endswith("/api") else base + "/api"
        self.key = key
        self.retries = max(0, int(retries))
        self.max_wait = max_wait
        self.jitter = jitter
        self.on_retry = on_retry
        self._random = _random.Random()
        # httpx sends Accept-Encoding for the codings it decodes (gzip, deflate; br with
        # brotli installed); the service answers identity today and may compress later.
        self._http = httpx.Client(
            timeout=timeout,
            transport=transport,
            headers={"User-Agent": f"tickvault-python/{__version__}"},
        )

    # -- lifecycle -----------------------------------------------------------------------

    def close(self) -> None:
        """Closes the connection pool."""
        self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one exchange ----------------------------------------------------------------------

    def _post(self, body: Mapping[str, Any]) -> httpx.Response:
        """POSTs ``body``; returns the 200 response unread (streamed). 429/503 are waited for
        and sent again within the bound; any other error answer raises."""
        content = json.dumps(body, separators=(",", ":")).encode("utf-8")
        attempt = 0
        while True:
            attempt += 1
            request = self._http.build_request(
                "POST", self.url, content=content, headers={"Content-Type": "application/json"}
            )
            try:
                response = self._http.send(request, stream=True)
            except httpx.TransportError as e:
                raise ConnectionFailed(None, f"no answer from {self.url}: {type(e).__name__}: {e}") from e
            if response.status_code == 200:
                return response
            try:
                error = self._error_of(response)
            finally:
                response.close()
            # A file damaged at the site stays so until an operator repairs it.
            delay = None if isinstance(error, Damaged) else retry_delay(
                response.status_code,
                error.retry_after,
                attempt,
                retries=self.retries,
                max_wait=self.max_wait,
                jitter=self.jitter,
                random=self._random.random(),
            )
            if delay is None:
                raise error
            if self.on_retry is not None:
                self.on_retry(error, delay, attempt)
            time.sleep(delay)

    @staticmethod
    def _error_of(response: httpx.Response) -> TickvaultError:
        retry_after = parse_retry_after(response.headers.get("retry-after"))
        try:
            text = response.read().decode("utf-8", errors="replace")
        except httpx.HTTPError:
            text = ""
        message = text[:500]
        try:
            envelope = json.loads(text)
            if isinstance(envelope, dict) and isinstance(envelope.get("message"), str):
                message = envelope["message"]
        except ValueError:
            pass  # not the envelope (a proxy's page): keep the start of the body
        return error_for(response.status_code, message or f"HTTP {response.status_code}", retry_after, response.headers.get("x-tickvault-reason"))

    def call(self, apiname: str, params: Mapping[str, Any], fields: Fields = None) -> Envelope:
        """One request, one page: the success envelope ``{"code", "message", "data"}`` as a dict.

        ``params`` members set to ``None`` are left out. Raises the :class:`TickvaultError`
        subclass of an error answer (after the retries of 429/503).
        """
        body: Dict[str, Any] = {"apiname": apiname, "apikey": self.key, "params": _params(params)}
        member = _fields_member(fields)
        if member is not None:
            body["fields"] = member
        response = self._post(body)
        try:
            raw = response.read()
        except httpx.HTTPError as e:
            raise ConnectionFailed(None, f"the answer from {self.url} broke off: {type(e).__name__}: {e}") from e
        finally:
            response.close()
        try:
            envelope = json.loads(raw)
        except ValueError as e:
            raise ServerError(200, f"the answer is not JSON: {raw[:200]!r}") from e
        if not isinstance(envelope, dict) or envelope.get("code") != 200 or not isinstance(envelope.get("data"), dict):
            code = envelope.get("code") if isinstance(envelope, dict) else None
            message = envelope.get("message") if isinstance(envelope, dict) else None
            raise error_for(code if isinstance(code, int) else 500, str(message or "an answer without data"))
        return envelope

    # -- paging ---------------------------------------------------------------------------

    def _detailed_pages(self, apiname: str, params: Mapping[str, Any], fields: Fields) -> Iterator[Envelope]:
        """Every page of one stock-day by cursor. Raises PagingError on a page shorter than
        ``has_more`` promised, ``has_more`` without a cursor, a cursor handed back twice, or
        the version changing between pages."""
        base = _params(params)
        cursor = base.pop("cursor", None)
        seen = {cursor} if cursor is not None else set()
        version: Optional[int] = None
        while True:
            envelope = self.call(apiname, base if cursor is None else {**base, "cursor": cursor}, fields)
            data = envelope["data"]
            items = data.get("items") or []
            has_more = data.get("has_more") is True
            next_cursor = data.get("next_cursor")
            page_version = data.get("version")
            if page_version is not None:
                if version is not None and page_version != version:
                    raise PagingError(None, f"the version changed from {version} to {page_version} between pages")
                version = page_version
            if has_more:
                if not isinstance(next_cursor, str) or next_cursor == "":
                    raise PagingError(None, "the server answered has_more without a next_cursor; paging stopped")
                page_size = data.get("page_size")
                if isinstance(page_size, int) and len(items) < page_size:
                    raise PagingError(None, f"a page of {len(items)} rows of page_size {page_size} promised more (has_more); paging stopped")
                if next_cursor in seen:
                    raise PagingError(None, f"the server handed back cursor {next_cursor[:40]} a second time; paging stopped")
            yield envelope
            if not has_more:
                return
            seen.add(next_cursor)
            cursor = next_cursor

    def _offset_pages(self, apiname: str, params: Mapping[str, Any], fields: Fields) -> Iterator[Envelope]:
        """Every page of a query paged by offset (tick_history, the bar interfaces); an answer
        without ``has_more`` (a compatible tick_history query, tradecal) is one page. Raises
        PagingError on a page shorter than its ``limit`` that claims ``has_more``."""
        base = _params(params)
        request = base  # the first goes as given: adding offset would change tick_history's mode
        while True:
            envelope = self.call(apiname, request, fields)
            data = envelope["data"]
            items = data.get("items") or []
            if data.get("has_more") is True:
                limit = data.get("limit")
                if len(items) == 0 or (isinstance(limit, int) and len(items) < limit):
                    raise PagingError(None, f"a page of {len(items)} rows of limit {limit} promised more (has_more); paging stopped")
            yield envelope
            if data.get("has_more") is not True:
                return
            offset = data.get("offset")
            if not isinstance(offset, int):
                offset = int(request.get("offset", 0))
            request = {**base, "offset": offset + len(items)}

    def _pages(self, interface: str, params: Mapping[str, Any], fields: Fields) -> Iterator[Envelope]:
        if interface in DETAILED_INTERFACES:
            if params.get("format") not in (None, "json"):
                raise ValueError("for format='parquet' use download_parquet()")
            return self._detailed_pages(interface, params, fields)
        if interface in OFFSET_INTERFACES:
            return self._offset_pages(interface, params, fields)
        raise ValueError(f"unknown interface {interface!r}; one of {', '.join(INTERFACES)}")

    def iter_pages(
        self,
        interface: str,
        *,
        fields: Fields = None,
        parse_times: bool = False,
        raw: bool = False,
        **params: Any,
    ) -> Iterator[Any]:
        """Yields the pages of a query one at a time (memory stays bounded by a page).

        ``interface`` is ``level2_quote_history``, ``level2_trade_history``,
        ``level2_order_history``, ``tick_history``, a bar interface (``minute``, ``daily``,
        ``weekly``, ``monthly``, ``daily_auc``) or ``tradecal``; ``params`` are the
        interface's parameters (``page_size`` sets the page of the detailed interfaces,
        ``limit`` that of tick_history and the bars). Each page is a DataFrame (dtypes as in :mod:`tickvault.frames`, with
        ``attrs`` ``message``, ``version``, ``tradedate`` where the answer carries them) or,
        with ``raw=True``, the envelope dict.

        Example::

            for page in tv.iter_pages("level2_trade_history", symbol="000001.SZ",
                                      tradedate="20250102", page_size=5000):
                total += page["volume"].sum()
        """
        for envelope in self._pages(interface, params, fields):
            if raw:
                yield envelope
            else:
                data = envelope["data"]
                frame = to_frame(interface, data["fields"], data.get("items") or [], parse_times=parse_times, tradedate=data.get("tradedate"))
                frame.attrs.update(_attrs(envelope))
                yield frame

    def _all(self, interface: str, params: Mapping[str, Any], fields: Fields, parse_times: bool, raw: bool) -> Any:
        envelopes = list(self._pages(interface, params, fields))
        if raw:
            return envelopes
        first = envelopes[0]["data"]
        names: List[str] = list(first["fields"])
        items: List[Any] = []
        for envelope in envelopes:
            data = envelope["data"]
            if list(data["fields"]) != names:
                raise PagingError(None, f"the fields changed between pages: {names} then {data['fields']}")
            items.extend(data.get("items") or [])
        frame = to_frame(interface, names, items, parse_times=parse_times, tradedate=first.get("tradedate"))
        frame.attrs.update(_attrs(envelopes[0]))
        frame.attrs["pages"] = len(envelopes)
        # Live if any page was: a day sealed while it was paged still held staged rows.
        frame.attrs["live"] = any(e["data"].get("live") is True for e in envelopes)
        return frame

    # -- the interfaces -------------------------------------------------------------------

    @overload
    def level2_quote_history(
        self, symbol: str, tradedate: Optional[str] = ..., *, fields: Fields = ..., start_time: Optional[str] = ...,
        end_time: Optional[str] = ..., page_size: Optional[int] = ..., cursor: Optional[str] = ..., parse_times: bool = ...,
        raw: Literal[False] = ...,
    ) -> "pd.DataFrame": ...

    @overload
    def level2_quote_history(
        self, symbol: str, tradedate: Optional[str] = ..., *, fields: Fields = ..., start_time: Optional[str] = ...,
        end_time: Optional[str] = ..., page_size: Optional[int] = ..., cursor: Optional[str] = ..., parse_times: bool = ...,
        raw: Literal[True],
    ) -> List[Envelope]: ...

    def level2_quote_history(
        self,
        symbol: str,
        tradedate: Optional[str] = None,
        *,
        fields: Fields = None,
        start_time: Optional[str] = None,
        end_time: Optional[str] = None,
        page_size: Optional[int] = None,
        cursor: Optional[str] = None,
        parse_times: bool = False,
        raw: bool = False,
    ) -> Union["pd.DataFrame", List[Envelope]]:
        """Ten-level order-book snapshots of one stock for one trading day, every page.

        Args:
            symbol: one stock (``600000``, ``600000.SH``, ``SH600000``, ``600000.XSHG``…).
            tradedate: ``YYYYMMDD``; default the latest trading day.
            fields: column names (list or comma-separated); default every field.
            start_time, end_time: both included; ``HH:MM``, ``HH:MM:SS``, ``HHMMSS``,
                ``HHMMSSmmm``.
            page_size: rows per request (default and cap 10000).
            cursor: start from this ``next_cursor`` of an earlier page.
            parse_times: ``time`` as tz-aware Asia/Shanghai timestamps.
            raw: return the list of envelopes instead of a DataFrame.

        Returns a DataFrame with columns in ``fields`` order (empty, columns listed, when
        there is no data; ``attrs["message"]`` says why) and ``attrs["version"]``.
        """
        return self._all(
            "level2_quote_history",
            dict(symbol=symbol, tradedate=tradedate, start_time=start_time, end_time=end_time, page_size=page_size, cursor=cursor),
            fields, parse_times, raw,
        )

    @overload
    def level2_trade_history(
        self, symbol: str, tradedate: Optional[str] = ..., *, fields: Fields = ..., start_time: Optional[str] = ...,
        end_time: Optional[str] = ..., page_size: Optional[int] = ..., cursor: Optional[str] = ..., parse_times: bool = ...,
        raw: Literal[False] = ...,
    ) -> "pd.DataFrame": ...

    @overload
    def level2_trade_history(
        self, symbol: str, tradedate: Optional[str] = ..., *, fields: Fields = ..., start_time: Optional[str] = ...,
        end_time: Optional[str] = ..., page_size: Optional[int] = ..., cursor: Optional[str] = ..., parse_times: bool = ...,
        raw: Literal[True],
    ) -> List[Envelope]: ...

    def level2_trade_history(
        self,
        symbol: str,
        tradedate: Optional[str] = None,
        *,
        fields: Fields = None,
        start_time: Optional[str] = None,
        end_time: Optional[str] = None,
        page_size: Optional[int] = None,
        cursor: Optional[str] = None,
        parse_times: bool = False,
        raw: bool = False,
    ) -> Union["pd.DataFrame", List[Envelope]]:
        """Tick-by-tick trades (逐笔成交) of one stock for one trading day, every page;
        arguments as :meth:`level2_quote_history`. Columns: ``symbol``, ``tradedate``,
        ``time``, ``trade_id``, ``price``, ``volume``, ``amount``, ``bs_flag``,
        ``trade_code``, ``buy_order_id``, ``sell_order_id``."""
        return self._all(
            "level2_trade_history",
            dict(symbol=symbol, tradedate=tradedate, start_time=start_time, end_time=end_time, page_size=page_size, cursor=cursor),
            fields, parse_times, raw,
        )

    @overload
    def level2_order_history(
        self, symbol: str, tradedate: Optional[str] = ..., *, fields: Fields = ..., start_time: Optional[str] = ...,
        end_time: Optional[str] = ..., page_size: Optional[int] = ..., cursor: Optional[str] = ..., parse_times: bool = ...,
        raw: Literal[False] = ...,
    ) -> "pd.DataFrame": ...

    @overload
    def level2_order_history(
        self, symbol: str, tradedate: Optional[str] = ..., *, fields: Fields = ..., start_time: Optional[str] = ...,
        end_time: Optional[str] = ..., page_size: Optional[int] = ..., cursor: Optional[str] = ..., parse_times: bool = ...,
        raw: Literal[True],
    ) -> List[Envelope]: ...

    def level2_order_history(
        self,
        symbol: str,
        tradedate: Optional[str] = None,
        *,
        fields: Fields = None,
        start_time: Optional[str] = None,
        end_time: Optional[str] = None,
        page_size: Optional[int] = None,
        cursor: Optional[str] = None,
        parse_times: bool = False,
        raw: bool = False,
    ) -> Union["pd.DataFrame", List[Envelope]]:
        """Tick-by-tick orders (逐笔委托) of one stock for one trading day, every page;
        arguments as :meth:`level2_quote_history`. Columns: ``symbol``, ``tradedate``,
        ``time``, ``order_id``, ``price``, ``volume``, ``amount``, ``side``, ``order_type``,
        ``order_no``."""
        return self._all(
            "level2_order_history",
            dict(symbol=symbol, tradedate=tradedate, start_time=start_time, end_time=end_time, page_size=page_size, cursor=cursor),
            fields, parse_times, raw,
        )

    @overload
    def tick_history(self, *, fields: Fields = ..., parse_times: bool = ..., raw: Literal[False] = ..., **params: Any) -> "pd.DataFrame": ...

    @overload
    def tick_history(self, *, fields: Fields = ..., parse_times: bool = ..., raw: Literal[True], **params: Any) -> List[Envelope]: ...

    def tick_history(
        self, *, fields: Fields = None, parse_times: bool = False, raw: bool = False, **params: Any
    ) -> Union["pd.DataFrame", List[Envelope]]:
        """Index (or, with ``asset="stock"``, stock) tick snapshots, every page.

        ``params`` are the interface's: ``asset``, ``symbol``, ``symbols`` (list or
        comma-separated), ``tradedate``, ``startdate``, ``enddate``, ``recentdays``,
        ``tradedate_offset``, ``order_dir``, ``limit``, ``offset``, ``trademin``, ``side``,
        ``start_time`` (included), ``end_time`` (excluded). The mode follows the service's
        rule: ``symbol`` alone (with ``tradedate``) is the compatible whole-day query, ``side``
        with ``trademin`` the boundary snapshot, anything else enhanced detail, paged by
        ``offset`` (``limit`` rows a request) until ``has_more`` is false. A range crossing
        months is served for the end month only (``attrs["message"]`` states the effective
        range): send one call per month.
        """
        return self._all("tick_history", params, fields, parse_times, raw)

    # -- bars and the calendar ------------------------------------------------------------

    def _bars(
        self, apiname: str, symbols: Optional[Symbols], tradedate: Optional[str], startdate: Optional[str], enddate: Optional[str],
        recentdays: Optional[int], limit: Optional[int], offset: Optional[int], fields: Fields, parse_times: bool, raw: bool,
        period: Optional[str] = None,
    ) -> Any:
        params = dict(
            symbols=symbols if symbols is None or isinstance(symbols, str) else list(symbols),
            tradedate=tradedate, startdate=startdate, enddate=enddate, recentdays=recentdays, limit=limit, offset=offset,
        )
        if period is not None:
            params["period"] = period
        return self._all(apiname, params, fields, parse_times, raw)

    @overload
    def minute(
        self, symbols: Symbols, tradedate: Optional[str] = ..., *, period: Optional[str] = ..., startdate: Optional[str] = ...,
        enddate: Optional[str] = ..., recentdays: Optional[int] = ..., limit: Optional[int] = ..., offset: Optional[int] = ...,
        fields: Fields = ..., parse_times: bool = ..., raw: Literal[False] = ...,
    ) -> "pd.DataFrame": ...

    @overload
    def minute(
        self, symbols: Symbols, tradedate: Optional[str] = ..., *, period: Optional[str] = ..., startdate: Optional[str] = ...,
        enddate: Optional[str] = ..., recentdays: Optional[int] = ..., limit: Optional[int] = ..., offset: Optional[int] = ...,
        fields: Fields = ..., parse_times: bool = ..., raw: Literal[True],
    ) -> List[Envelope]: ...

    def minute(
        self,
        symbols: Symbols,
        tradedate: Optional[str] = None,
        *,
        period: Optional[str] = None,
        startdate: Optional[str] = None,
        enddate: Optional[str] = None,
        recentdays: Optional[int] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        fields: Fields = None,
        parse_times: bool = False,
        raw: bool = False,
    ) -> Union["pd.DataFrame", List[Envelope]]:
        """Minute bars (K-lines) of up to 200 stocks, every page.

        Args:
            symbols: stocks, a list or comma-separated (``600000``, ``600000.SH``,
                ``sh600000``…), at most 200.
            tradedate: ``YYYYMMDD``; or ``startdate`` with ``enddate``, or ``recentdays``.
            period: ``1m`` (default, 241 bars a stock-day, ``0930`` the opening call
                auction), ``5m``, ``15m``, ``30m``, ``60m`` (also ``1h``).
            limit: rows per request (default and cap 6000); pages are fetched by offset until
                the last.
            offset: start from this row.
            fields: column names (list or comma-separated); default every field.
            parse_times: ``time`` as tz-aware Asia/Shanghai timestamps.
            raw: return the list of envelopes instead of a DataFrame.

        Columns: ``tradedate``, ``symbol``, ``trademin`` (``HHMM``, the bar's end), ``time``
        (``YYYY-MM-DD HH:MM:00``), ``open``, ``high``, ``low``, ``close``, ``vol`` (shares),
        ``amount`` (yuan), ``vwap``; ordered by symbol, date, then bar time.
        """
        return self._bars("minute", symbols, tradedate, startdate, enddate, recentdays, limit, offset, fields, parse_times, raw, period)

    @overload
    def daily(
        self, symbols: Optional[Symbols] = ..., tradedate: Optional[str] = ..., *, startdate: Optional[str] = ...,
        enddate: Optional[str] = ..., recentdays: Optional[int] = ..., limit: Optional[int] = ..., offset: Optional[int] = ...,
        fields: Fields = ..., raw: Literal[False] = ...,
    ) -> "pd.DataFrame": ...

    @overload
    def daily(
        self, symbols: Optional[Symbols] = ..., tradedate: Optional[str] = ..., *, startdate: Optional[str] = ...,
        enddate: Optional[str] = ..., recentdays: Optional[int] = ..., limit: Optional[int] = ..., offset: Optional[int] = ...,
        fields: Fields = ..., raw: Literal[True],
    ) -> List[Envelope]: ...

    def daily(
        self,
        symbols: Optional[Symbols] = None,
        tradedate: Optional[str] = None,
        *,
        startdate: Optional[str] = None,
        enddate: Optional[str] = None,
        recentdays: Optional[int] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        fields: Fields = None,
        raw: bool = False,
    ) -> Union["pd.DataFrame", List[Envelope]]:
        """Daily bars, every page: one row per stock-day with fills. Arguments as
        :meth:`minute` (``symbols`` omitted: every stock). Columns: ``tradedate``,
        ``symbol``, ``name`` (always null), ``open``, ``high``, ``low``, ``close``,
        ``pre_close``, ``change``, ``pct_chg``, ``vol`` (lots of 100 shares), ``amount``
        (yuan)."""
        return self._bars("daily", symbols, tradedate, startdate, enddate, recentdays, limit, offset, fields, False, raw)

    @overload
    def weekly(
        self, symbols: Optional[Symbols] = ..., tradedate: Optional[str] = ..., *, startdate: Optional[str] = ...,
        enddate: Optional[str] = ..., recentdays: Optional[int] = ..., limit: Optional[int] = ..., offset: Optional[int] = ...,
        fields: Fields = ..., raw: Literal[False] = ...,
    ) -> "pd.DataFrame": ...

    @overload
    def weekly(
        self, symbols: Optional[Symbols] = ..., tradedate: Optional[str] = ..., *, startdate: Optional[str] = ...,
        enddate: Optional[str] = ..., recentdays: Optional[int] = ..., limit: Optional[int] = ..., offset: Optional[int] = ...,
        fields: Fields = ..., raw: Literal[True],
    ) -> List[Envelope]: ...

    def weekly(
        self,
        symbols: Optional[Symbols] = None,
        tradedate: Optional[str] = None,
        *,
        startdate: Optional[str] = None,
        enddate: Optional[str] = None,
        recentdays: Optional[int] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        fields: Fields = None,
        raw: bool = False,
    ) -> Union["pd.DataFrame", List[Envelope]]:
        """Weekly bars (Monday–Sunday weeks with daily rows; ``tradedate`` the week's last
        such day), every page; arguments and columns as :meth:`daily`."""
        return self._bars("weekly", symbols, tradedate, startdate, enddate, recentdays, limit, offset, fields, False, raw)

    @overload
    def monthly(
        self, symbols: Optional[Symbols] = ..., tradedate: Optional[str] = ..., *, startdate: Optional[str] = ...,
        enddate: Optional[str] = ..., recentdays: Optional[int] = ..., limit: Optional[int] = ..., offset: Optional[int] = ...,
        fields: Fields = ..., raw: Literal[False] = ...,
    ) -> "pd.DataFrame": ...

    @overload
    def monthly(
        self, symbols: Optional[Symbols] = ..., tradedate: Optional[str] = ..., *, startdate: Optional[str] = ...,
        enddate: Optional[str] = ..., recentdays: Optional[int] = ..., limit: Optional[int] = ..., offset: Optional[int] = ...,
        fields: Fields = ..., raw: Literal[True],
    ) -> List[Envelope]: ...

    def monthly(
        self,
        symbols: Optional[Symbols] = None,
        tradedate: Optional[str] = None,
        *,
        startdate: Optional[str] = None,
        enddate: Optional[str] = None,
        recentdays: Optional[int] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        fields: Fields = None,
        raw: bool = False,
    ) -> Union["pd.DataFrame", List[Envelope]]:
        """Monthly bars (``tradedate`` the month's last day with a daily row), every page;
        arguments and columns as :meth:`daily`."""
        return self._bars("monthly", symbols, tradedate, startdate, enddate, recentdays, limit, offset, fields, False, raw)

    @overload
    def daily_auc(
        self, symbols: Optional[Symbols] = ..., tradedate: Optional[str] = ..., *, startdate: Optional[str] = ...,
        enddate: Optional[str] = ..., recentdays: Optional[int] = ..., limit: Optional[int] = ..., offset: Optional[int] = ...,
        fields: Fields = ..., raw: Literal[False] = ...,
    ) -> "pd.DataFrame": ...

    @overload
    def daily_auc(
        self, symbols: Optional[Symbols] = ..., tradedate: Optional[str] = ..., *, startdate: Optional[str] = ...,
        enddate: Optional[str] = ..., recentdays: Optional[int] = ..., limit: Optional[int] = ..., offset: Optional[int] = ...,
        fields: Fields = ..., raw: Literal[True],
    ) -> List[Envelope]: ...

    def daily_auc(
        self,
        symbols: Optional[Symbols] = None,
        tradedate: Optional[str] = None,
        *,
        startdate: Optional[str] = None,
        enddate: Optional[str] = None,
        recentdays: Optional[int] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        fields: Fields = None,
        raw: bool = False,
    ) -> Union["pd.DataFrame", List[Envelope]]:
        """The opening call auction of each stock-day, every page; arguments as :meth:`daily`.
        Columns: ``tradedate``, ``symbol``, ``name``, ``m_price`` (the match price),
        ``auc_pct_chg``, ``open_bid_pct``, ``auc_amt`` (yuan), ``auc_vol`` (shares),
        ``auc_vol_ratio``, ``auc_to_pre_vol_pct``, ``auc_to_pre_auc_vol_ratio``, ``um_vol``,
        ``um_side`` (``B``, ``S`` or None), ``auc_turnover_rate``, ``auc_turnover``;
        ``name``, ``open_bid_pct``, ``auc_vol_ratio``, ``auc_turnover_rate`` and
        ``auc_turnover`` are always null (data the service does not hold)."""
        return self._bars("daily_auc", symbols, tradedate, startdate, enddate, recentdays, limit, offset, fields, False, raw)

    @overload
    def trade_cal(
        self, startdate: Optional[str] = ..., enddate: Optional[str] = ..., *, exchange: Optional[str] = ..., fields: Fields = ...,
        raw: Literal[False] = ...,
    ) -> "pd.DataFrame": ...

    @overload
    def trade_cal(
        self, startdate: Optional[str] = ..., enddate: Optional[str] = ..., *, exchange: Optional[str] = ..., fields: Fields = ...,
        raw: Literal[True],
    ) -> List[Envelope]: ...

    def trade_cal(
        self,
        startdate: Optional[str] = None,
        enddate: Optional[str] = None,
        *,
        exchange: Optional[str] = None,
        fields: Fields = None,
        raw: bool = False,
    ) -> Union["pd.DataFrame", List[Envelope]]:
        """The trading calendar (``tradecal``) from ``startdate`` to ``enddate``
        (``YYYYMMDD``, both included; default the current year): every day, open or not.
        ``exchange`` is sent but ignored (SSE and SZSE share one calendar). Columns:
        ``cal_date``, ``is_open`` (1/0, int64), ``pretrade_date`` (the trading day before).
        A range outside the calendar the service knows raises :class:`BadRequest`.
        Also callable as :meth:`tradecal`."""
        return self._all("tradecal", dict(startdate=startdate, enddate=enddate, exchange=exchange), fields, False, raw)

    tradecal = trade_cal

    # -- Parquet --------------------------------------------------------------------------

    def download_parquet(
        self,
        symbol: str,
        tradedate: str,
        path: Union[str, "os.PathLike[str]"],
        *,
        interface: str = "level2_quote_history",
    ) -> ParquetFile:
        """Writes the stored single-stock single-day Parquet file (``format=parquet``).

        ``path`` is the file to write, or an existing directory to write the server's file
        name (``600000.SH_20250102.parquet``) into. The bytes go to a temporary file beside
        it, are fsynced and renamed into place, so ``path`` is either the whole file or
        untouched. Returns the path and the version (``X-Tickvault-Version``).

        Each download costs one unit of the interface's daily Parquet quota once the file
        starts streaming; 429/503 before that are retried as usual, a download that breaks
        off is never retried (:class:`DownloadError`). A stock-day that is not stored raises
        :class:`NoData` (free of charge).
        """
        if interface not in DETAILED_INTERFACES:
            raise ValueError(f"download_parquet serves {', '.join(DETAILED_INTERFACES)}, not {interface!r}")
        # Where the file goes is settled before the request: once streaming begins, the
        # download has cost a quota unit.
        target = Path(path)
        into_dir = target.is_dir()
        parent = target if into_dir else (target.parent if str(target.parent) != "" else Path("."))
        if not parent.is_dir():
            raise FileNotFoundError(f"no directory {parent} to download into")
        body = {"apiname": interface, "apikey": self.key, "params": {"symbol": symbol, "tradedate": tradedate, "format": "parquet"}}
        response = self._post(body)
        try:
            media = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if media == "application/json":
                envelope = json.loads(response.read())
                message = str(envelope.get("message", "no data"))
                if envelope.get("code") == 200:
                    raise NoData(200, message)
                raise error_for(int(envelope.get("code", 500)), message)
            if media != PARQUET_MEDIA_TYPE:
                raise DownloadError(None, f"expected {PARQUET_MEDIA_TYPE}, the server answered {media or 'no Content-Type'}")
            if into_dir:
                target = target / (_attachment_name(response.headers.get("content-disposition")) or f"{symbol}_{tradedate}.parquet")
            version_header = response.headers.get("x-tickvault-version")
            version = int(version_header) if version_header and version_header.strip().isdigit() else None
            _write_atomically(response, target)
            return ParquetFile(target, version)
        finally:
            response.close()


def _attrs(envelope: Envelope) -> Dict[str, Any]:
    data = envelope["data"]
    out: Dict[str, Any] = {"message": envelope.get("message")}
    for key in ("tradedate", "version"):
        if key in data:
            out[key] = data[key]
    # A live day (not sealed yet): the rows staged so far; absent from sealed answers.
    out["live"] = data.get("live") is True
    return out


def _attachment_name(header: Optional[str]) -> Optional[str]:
    m = re.search(r'filename="([^"/\\]+)"', header or "")
    return m.group(1) if m else None


def _write_atomically(response: httpx.Response, target: Path) -> None:
    """The body into a temporary file beside ``target``, fsynced, renamed, directory fsynced."""
    parent = target.parent if str(target.parent) != "" else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=parent)
    size = 0
    try:
        with os.fdopen(fd, "wb") as out:
            try:
                for chunk in response.iter_bytes():
                    out.write(chunk)
                    size += len(chunk)
            except httpx.HTTPError as e:
                raise DownloadError(None, f"the Parquet download broke off after {size} bytes; not retried (it cost a quota unit): {e}") from e
            out.flush()
            os.fsync(out.fileno())
        expected = response.headers.get("content-length")
        if expected is not None and "content-encoding" not in response.headers and int(expected) != size:
            raise DownloadError(None, f"the Parquet download holds {size} bytes of the {expected} announced")
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:
        dir_fd = os.open(parent, os.O_RDONLY)
    except OSError:
        return  # a platform without directory handles (Windows): the rename stands
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)

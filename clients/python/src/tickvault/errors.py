"""Failures as exception classes, all under :class:`TickvaultError`.

The HTTP status always equals the envelope's ``code``, so the class is chosen by the status;
the server's ``message`` is one English sentence for people and logs. Where one status covers
two situations (429: the per-second limit or a daily quota; 503: the account's request in
progress or a service that cannot answer just now) the subclass is picked from the wording of
the server's message, and both subclasses share the status's class, so ``except
TooManyRequests`` or ``except Unavailable`` catches either.

::

    TickvaultError
    ├── BadRequest          400, 413, 415: the same request fails the same way
    ├── InvalidKey          401: missing, unknown or revoked API key
    ├── NoAccess            403: the plan has no access, or the date is outside its history
    ├── TooManyRequests     429 (retried after Retry-After, within the client's bound)
    │   ├── RateLimited         the per-second limit
    │   └── QuotaExceeded       trial daily calls or the daily Parquet quota
    ├── Unavailable         503 (retried after Retry-After, within the client's bound)
    │   ├── Busy                the account already has a request in progress on the interface
    │   └── Damaged             the symbol-day's stored file is damaged at this site (never retried)
    ├── ServerError         500 or any other unexpected status
    ├── NoData              a Parquet download of a stock-day that is not stored (200, no file)
    ├── PagingError         paging that would loop or end early (a short page, a repeated cursor)
    ├── DownloadError       a Parquet download that did not deliver the whole file
    ├── ConnectionFailed    the request did not get an answer (never retried)
    └── MissingDependency   an optional package the call needs is not importable (also an ImportError)
"""
from __future__ import annotations

from typing import Optional

__all__ = [
    "TickvaultError",
    "BadRequest",
    "InvalidKey",
    "NoAccess",
    "TooManyRequests",
    "RateLimited",
    "QuotaExceeded",
    "Unavailable",
    "Busy",
    "Damaged",
    "ServerError",
    "NoData",
    "PagingError",
    "DownloadError",
    "ConnectionFailed",
    "MissingDependency",
    "error_for",
]


class TickvaultError(Exception):
    """Base class of every error this client raises.

    Attributes:
        code: the envelope's ``code`` (equal to the HTTP status); ``None`` when no answer
            was received (:class:`ConnectionFailed`) or the failure is the client's own
            finding (:class:`PagingError`, :class:`DownloadError`).
        message: the server's one-sentence message, or the client's description.
        retry_after: seconds from the ``Retry-After`` header (429, 503), when given.
    """

    def __init__(self, code: Optional[int], message: str, retry_after: Optional[int] = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after

    def __str__(self) -> str:
        head = f"{self.code}: " if self.code is not None else ""
        tail = f" (Retry-After {self.retry_after} s)" if self.retry_after is not None else ""
        return f"{head}{self.message}{tail}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r}, retry_after={self.retry_after!r})"


class BadRequest(TickvaultError):
    """400 (and 413, 415): a parameter, field list, combination or body the server refuses."""


class InvalidKey(TickvaultError):
    """401: the API key is missing, unknown or revoked."""


class NoAccess(TickvaultError):
    """403: the plan has no access to the operation (or to Parquet downloads), or the date
    lies outside the plan's history depth."""


class TooManyRequests(TickvaultError):
    """429: a limit that lifts; ``retry_after`` says when."""


class RateLimited(TooManyRequests):
    """429 of the per-second limit (all operations of the account together)."""


class QuotaExceeded(TooManyRequests):
    """429 of a daily allowance: the trial plan's calls or the Parquet files of the
    interface; ``retry_after`` reaches the next Beijing midnight."""


class Unavailable(TickvaultError):
    """503: the same request can succeed shortly (the service cannot reach its state, or a
    cursor's version is not at this site yet)."""


class Busy(Unavailable):
    """503 of the in-flight rule: the account already has a request in progress on this
    detailed interface (JSON and Parquet share it); it is not queued."""


class Damaged(Unavailable):
    """503 of a stored file damaged at the site (tickvault's ``X-Tickvault-Reason: damaged``):
    its rows are not served until an operator repairs it, so the client does not wait for it;
    the message names the file. Another site may serve the same day."""


class ServerError(TickvaultError):
    """500, or a status the API does not document (a proxy's answer, say)."""


class NoData(TickvaultError):
    """A Parquet download of a stock-day that is not stored: the server answered the JSON
    no-data envelope (code 200, no quota unit spent); ``message`` says why."""


class PagingError(TickvaultError):
    """Paging that cannot be trusted: a page shorter than ``has_more`` promised, a cursor
    handed back twice, ``has_more`` without a cursor, or the version changing mid-day."""


class DownloadError(TickvaultError):
    """A Parquet download that did not deliver the file (wrong media type, a body that
    broke off or did not match its Content-Length). Never retried: it cost a quota unit."""


class ConnectionFailed(TickvaultError):
    """No answer (refused, reset, timed out). Never retried by the client: it cannot tell
    whether the server had the request, and if it did, a trial call, a quota unit or the
    in-flight slot may already be spent on it."""


class MissingDependency(TickvaultError, ImportError):
    """An optional package the call needs is not importable by this interpreter: pandas for
    DataFrames, pyarrow or duckdb to read a Parquet file. The message is one line naming the
    package, how to install it and the interpreter that lacks it (a pyenv or conda
    ``python3`` first on PATH does not see Debian's ``python3-*`` packages); the failed import
    is not chained, so the message is the traceback's only error. An ``ImportError`` too, so
    ``except ImportError`` catches it; ``name`` is the module asked for."""

    def __init__(self, message: str, name: str) -> None:
        super().__init__(None, message)
        self.name = name


def error_for(status: int, message: str, retry_after: Optional[int] = None, reason: Optional[str] = None) -> TickvaultError:
    """The exception an error answer stands for; ``reason`` is tickvault's ``X-Tickvault-Reason``
    header (a vendor's server sends none)."""
    lower = message.lower()
    cls: type
    if status in (400, 413, 415):
        cls = BadRequest
    elif status == 401:
        cls = InvalidKey
    elif status == 403:
        cls = NoAccess
    elif status == 429:
        cls = RateLimited if "per second" in lower else QuotaExceeded if "used up" in lower or "per beijing day" in lower else TooManyRequests
    elif status == 503:
        cls = Damaged if reason == "damaged" else Busy if "in progress" in lower else Unavailable
    else:
        cls = ServerError
    return cls(status, message, retry_after)

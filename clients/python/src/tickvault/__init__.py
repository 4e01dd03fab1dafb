"""tickvault: the Python client of the tickvault market-data service.

::

    import tickvault

    with tickvault.Client("http://localhost:8080", key) as tv:
        quotes = tv.level2_quote_history("600000.SH", "20250102", start_time="09:30", end_time="10:00")
        trades = tv.level2_trade_history("000001.SZ", "20250102", fields=["time", "price", "volume", "bs_flag"])
        ticks = tv.tick_history(symbols=["000001", "000300"], tradedate="20250102", trademin="0931")
        bars = tv.minute("600000.SH", "20250102", period="5m")  # also daily, weekly, monthly, daily_auc, trade_cal
        path, version = tv.download_parquet("600000.SH", "20250102", "data/")
    day = tickvault.read_parquet(path)  # needs pyarrow or duckdb, installed from your own index

Errors are :class:`TickvaultError` subclasses (see :mod:`tickvault.errors`); 429 and 503 are
retried after ``Retry-After`` within the client's bound, nothing else is.
"""
from ._version import __version__
from .client import PARQUET_MEDIA_TYPE, Client, ParquetFile
from .parquet import read_parquet
from . import errors as _errors
from .errors import *  # noqa: F401,F403  (every exception class: errors.__all__ lists them)

# The exceptions are the ones errors.py exports, named there once.
__all__ = ["__version__", "Client", "ParquetFile", "PARQUET_MEDIA_TYPE", "read_parquet", *(n for n in _errors.__all__ if n != "error_for")]

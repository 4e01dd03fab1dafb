"""Rows of the API as pandas DataFrames with stable dtypes.

The dtype of a column comes from the interface's field table, not from the values of one
page, so every page and every day of an interface has the same dtypes (``pd.concat`` of pages
never turns an integer column into floats):

- strings (``symbol``, ``tradedate``, ``time``, ``bs_flag``, ``trade_code``, ``side``,
  ``order_type``): ``object``, ``None`` where null;
- prices and amounts: ``float64``, ``NaN`` where null;
- volumes and ids that are never null (``trade_id``, ``order_id``, trade and order
  ``volume``): ``int64``;
- volumes and ids the field table allows to be null (level-2 and tick ``volume``/``vol``,
  ``bid_volN``/``ask_volN``, ``transaction_num``, ``buy_order_id``, ``sell_order_id``,
  ``order_no``): pandas' nullable ``Int64``, ``<NA>`` where null.

The bar interfaces (``minute``, ``daily``, ``weekly``, ``monthly``, ``daily_auc``) and
``tradecal`` follow the same rules: ``tradedate``, ``cal_date``, ``pretrade_date``,
``trademin``, ``time``, ``name`` and ``um_side`` are ``object``; prices, amounts and every
volume of a bar (``vol``, ``auc_vol``, ``um_vol``: lots in daily/weekly/monthly, shares
elsewhere) are ``float64``, as are the ratios, ``NaN`` where null (``open_bid_pct``,
``auc_vol_ratio``, ``auc_turnover_rate``, ``auc_turnover`` always are); ``is_open`` is
``int64``.

A volume column holding a value that is not a whole number (none of the service's do) falls
back to ``float64`` rather than lose the fraction. A field this client does not know (a newer
server) is left to pandas' inference.
"""
from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["BAR_INTERFACES", "DETAILED_INTERFACES", "INTERFACES", "OFFSET_INTERFACES", "column_kind", "to_frame", "SHANGHAI"]

SHANGHAI = "Asia/Shanghai"

STR, FLOAT, INT, NULLABLE_INT = "str", "float", "int", "Int"

DETAILED_INTERFACES = ("level2_quote_history", "level2_trade_history", "level2_order_history")
BAR_INTERFACES = ("minute", "daily", "weekly", "monthly", "daily_auc")
# Paged by limit/offset until has_more is false (tradecal's one answer has no has_more).
OFFSET_INTERFACES = ("tick_history",) + BAR_INTERFACES + ("tradecal",)
INTERFACES = DETAILED_INTERFACES + OFFSET_INTERFACES

_LEVEL2: Dict[str, str] = {"symbol": STR, "tradedate": STR, "time": STR}
_LEVEL2.update({f: FLOAT for f in ("open", "high", "low", "close", "pre_close")})
_LEVEL2.update({"volume": NULLABLE_INT, "amount": FLOAT})
_LEVEL2.update({f"bid{i}": FLOAT for i in range(1, 11)})
_LEVEL2.update({f"ask{i}": FLOAT for i in range(1, 11)})
_LEVEL2.update({f"bid_vol{i}": NULLABLE_INT for i in range(1, 11)})
_LEVEL2.update({f"ask_vol{i}": NULLABLE_INT for i in range(1, 11)})

_TRADE: Dict[str, str] = {
    "symbol": STR, "tradedate": STR, "time": STR, "trade_id": INT, "price": FLOAT, "volume": INT,
    "amount": FLOAT, "bs_flag": STR, "trade_code": STR, "buy_order_id": NULLABLE_INT, "sell_order_id": NULLABLE_INT,
}

_ORDER: Dict[str, str] = {
    "symbol": STR, "tradedate": STR, "time": STR, "order_id": INT, "price": FLOAT, "volume": INT,
    "amount": FLOAT, "side": STR, "order_type": STR, "order_no": NULLABLE_INT,
}

_TICK: Dict[str, str] = {"tradedate": STR, "symbol": STR, "time": STR}
_TICK.update({f: FLOAT for f in ("open", "high", "low", "close", "pre_close", "pct_chg")})
_TICK.update({"vol": NULLABLE_INT, "amount": FLOAT, "transaction_num": NULLABLE_INT})
_TICK.update({f"bid{i}": FLOAT for i in range(1, 6)})
_TICK.update({f"ask{i}": FLOAT for i in range(1, 6)})
_TICK.update({f"bid_vol{i}": NULLABLE_INT for i in range(1, 6)})
_TICK.update({f"ask_vol{i}": NULLABLE_INT for i in range(1, 6)})

_MINUTE: Dict[str, str] = {"tradedate": STR, "symbol": STR, "trademin": STR, "time": STR}
_MINUTE.update({f: FLOAT for f in ("open", "high", "low", "close", "vol", "amount", "vwap")})

_DAILY: Dict[str, str] = {"tradedate": STR, "symbol": STR, "name": STR}
_DAILY.update({f: FLOAT for f in ("open", "high", "low", "close", "pre_close", "change", "pct_chg", "vol", "amount")})

_DAILY_AUC: Dict[str, str] = {"tradedate": STR, "symbol": STR, "name": STR, "um_side": STR}
_DAILY_AUC.update({
    f: FLOAT
    for f in (
        "m_price", "auc_pct_chg", "open_bid_pct", "auc_amt", "auc_vol", "auc_vol_ratio", "auc_to_pre_vol_pct",
        "auc_to_pre_auc_vol_ratio", "um_vol", "auc_turnover_rate", "auc_turnover",
    )
})

_TRADECAL: Dict[str, str] = {"cal_date": STR, "is_open": INT, "pretrade_date": STR}

SCHEMAS: Dict[str, Dict[str, str]] = {
    "level2_quote_history": _LEVEL2,
    "level2_trade_history": _TRADE,
    "level2_order_history": _ORDER,
    "tick_history": _TICK,
    "minute": _MINUTE,
    "daily": _DAILY,
    "weekly": _DAILY,
    "monthly": _DAILY,
    "daily_auc": _DAILY_AUC,
    "tradecal": _TRADECAL,
}


def column_kind(interface: str, field: str) -> Optional[str]:
    """``"str"``, ``"float"``, ``"int"`` or ``"Int"`` (nullable), or ``None`` if unknown."""
    return SCHEMAS.get(interface, {}).get(field)


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        from .errors import MissingDependency

        # `from None`: the one line says it all; pandas' own import failure would add a second traceback.
        raise MissingDependency(
            "DataFrames need pandas: pip install 'tickvault[pandas]' (Debian: apt-get install python3-pandas), "
            f"or pass raw=True for the envelopes; {sys.executable} cannot import pandas",
            "pandas",
        ) from None
    return pandas


def _integral(values: Sequence[Any]) -> bool:
    for v in values:
        if v is None or isinstance(v, int):
            continue
        if isinstance(v, float) and math.isfinite(v) and v.is_integer():
            continue
        return False
    return True


def _column(pd: Any, kind: Optional[str], values: List[Any]) -> Any:
    import numpy as np

    if kind == STR:
        return pd.Series(values, dtype=object)
    if kind == FLOAT or (kind in (INT, NULLABLE_INT) and not _integral(values)):
        return pd.Series(np.array([math.nan if v is None else v for v in values], dtype=np.float64))
    if kind == INT and not any(v is None for v in values):
        return pd.Series(np.array([int(v) for v in values], dtype=np.int64))
    if kind in (INT, NULLABLE_INT):
        return pd.Series(pd.array([None if v is None else int(v) for v in values], dtype="Int64"))
    return pd.Series(values, dtype=object) if not values else pd.Series(values)


def _times(pd: Any, interface: str, frame: Any, tradedate: Optional[str]) -> Any:
    """The ``time`` column as tz-aware Asia/Shanghai timestamps."""
    time = frame["time"]
    if interface == "tick_history":
        # YYYY-MM-DD HH:mm:ss.SSS carries its date.
        parsed = pd.to_datetime(time, format="%Y-%m-%d %H:%M:%S.%f")
    elif interface == "minute":
        # YYYY-MM-DD HH:MM:00, the bar's end.
        parsed = pd.to_datetime(time, format="%Y-%m-%d %H:%M:%S")
    else:
        # HHMMSSmmm: the date is the row's tradedate, or the page's when not among the fields.
        dates = frame["tradedate"] if "tradedate" in frame.columns else pd.Series([tradedate] * len(frame), dtype=object)
        parsed = pd.to_datetime(dates.astype(str) + time.astype(str), format="%Y%m%d%H%M%S%f")
    return parsed.dt.tz_localize(SHANGHAI)


def to_frame(
    interface: str,
    fields: Sequence[str],
    items: Sequence[Sequence[Any]],
    *,
    parse_times: bool = False,
    tradedate: Optional[str] = None,
) -> "pd.DataFrame":
    """A DataFrame of ``items`` (rows as lists in ``fields`` order), dtypes as described above.

    With ``parse_times``, ``time`` becomes ``datetime64[ns, Asia/Shanghai]``; level-2 times
    take their date from the ``tradedate`` column, or from ``tradedate`` when that column was
    not asked for; tick and minute-bar times carry their date.
    """
    pd = _pandas()
    width = len(fields)
    for n, row in enumerate(items):
        if len(row) != width:
            from .errors import PagingError

            raise PagingError(None, f"row {n} holds {len(row)} values for {width} fields")
    columns = {}
    for i, name in enumerate(fields):
        columns[name] = _column(pd, column_kind(interface, name), [row[i] for row in items])
    frame = pd.DataFrame(columns, columns=list(fields))
    if parse_times and "time" in frame.columns:
        frame["time"] = _times(pd, interface, frame, tradedate)
    return frame

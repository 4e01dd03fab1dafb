"""When to retry, as pure functions of the answer (the same policy as ``tickvault/client``).

Only 429 (a limit that lifts) and 503 (the account's request in progress, or a service that
cannot answer just now) say "the same request later may succeed". 400/401/403/413/415 would
fail the same way again, and 500 is a fault a blind repeat does not fix.
"""
from __future__ import annotations

import email.utils
import math
import time
from typing import Optional

RETRIED_STATUSES = frozenset({429, 503})


def parse_retry_after(header: Optional[str], now: Optional[float] = None) -> Optional[int]:
    """``Retry-After`` as whole seconds: delta-seconds (what the server sends) or an HTTP
    date counted from ``now`` (epoch seconds); ``None`` when absent or unreadable."""
    if header is None:
        return None
    text = header.strip()
    if text == "":
        return None
    if text.isdigit():
        return int(text)
    try:
        at = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if at is None or at.tzinfo is None:
        return None
    now = time.time() if now is None else now
    return max(0, math.ceil(at.timestamp() - now))


def retry_delay(
    status: int,
    retry_after: Optional[int],
    attempt: int,
    *,
    retries: int,
    max_wait: float,
    jitter: float,
    random: float,
) -> Optional[float]:
    """Seconds to wait before the next try, or ``None`` for "raise now".

    ``attempt`` counts the tries made so far (1 after the first); ``retries`` is how many
    tries may follow the first. A 429/503 without ``Retry-After`` waits 1 s (the server's
    usual value); one whose ``Retry-After`` exceeds ``max_wait`` (a quota until Beijing
    midnight) is raised at once. ``random`` in [0, 1) adds up to ``jitter`` of the wait (at
    least up to 0.1 s) so that clients told the same Retry-After do not return together.
    """
    if status not in RETRIED_STATUSES:
        return None
    if attempt > retries:
        return None
    wait = 1 if retry_after is None else retry_after
    if wait > max_wait:
        return None
    return wait + random * max(0.1, wait * jitter)

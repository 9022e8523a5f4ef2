"""When capture may call a model: a circuit breaker over recent calls, and retry back-off."""

from collections.abc import Sequence
from datetime import datetime, timedelta

MAX_RETRY_DELAY = timedelta(hours=1)


def circuit_reopens_at(recent_calls: Sequence[tuple[bool, datetime]], *, failures: int,
                       cooldown: timedelta, now: datetime) -> datetime | None:
    """When the breaker closes again, or None if it is closed now.

    `recent_calls` are (ok, called_at), newest first. The breaker opens when the last
    `failures` calls all failed, and stays open for `cooldown` after the newest of them.
    """
    latest = list(recent_calls[:failures])
    if len(latest) < failures or any(ok for ok, _ in latest):
        return None
    reopens = latest[0][1] + cooldown
    return reopens if reopens > now else None


def retry_delay(attempts: int, *, base: timedelta = timedelta(minutes=1)) -> timedelta:
    """Exponential back-off for a chunk a model failed on: 1, 2, 4 ... minutes, at most 1 h."""
    return min(base * 2 ** max(attempts - 1, 0), MAX_RETRY_DELAY)

"""Counting requests against the API's rate limits: one statement, shared by every worker
process, whatever the cache.

DRF's stock throttle keeps each client's history of request times in the cache and
rewrites it on every request (six statements on the database cache, a pickled list of
up to the limit's length); this keeps two numbers a client and scope instead."""

from django.db import connection

COUNT = """
INSERT INTO engram_throttle AS seen (key, period, count, previous) VALUES (%s, %s, 1, 0)
ON CONFLICT (key) DO UPDATE SET
    previous = CASE WHEN seen.period >= EXCLUDED.period THEN seen.previous
                    WHEN seen.period = EXCLUDED.period - 1 THEN seen.count
                    ELSE 0 END,
    count = CASE WHEN seen.period >= EXCLUDED.period THEN seen.count + 1 ELSE 1 END,
    period = GREATEST(seen.period, EXCLUDED.period)
RETURNING count, previous
"""


def count_request(key: str, period: int) -> tuple[int, int]:
    """Count one request of `key` in window number `period`: (requests in this window so
    far, this one included; requests in the window before). A process whose clock runs
    behind counts into the newest window seen."""
    with connection.cursor() as cursor:
        cursor.execute(COUNT, [key, period])
        current, previous = cursor.fetchone()
    return current, previous

"""Time-ordered UUIDs (version 7, RFC 9562), so primary keys sort by creation time."""

import os
import uuid
from datetime import datetime


def uuid7(now: datetime, random_bytes: bytes | None = None) -> uuid.UUID:
    """48 bits of Unix milliseconds, then version, variant and 74 random bits."""
    millis = int(now.timestamp() * 1000)
    if not 0 <= millis < 2**48:
        raise ValueError(f"{now!r} is outside the range a UUIDv7 can hold")
    rand = int.from_bytes(random_bytes if random_bytes is not None else os.urandom(10), "big")
    rand &= (1 << 74) - 1
    value = (millis << 80) | (0x7 << 76) | ((rand >> 62) << 64) | (0b10 << 62)
    value |= rand & ((1 << 62) - 1)
    return uuid.UUID(int=value)

"""The checks every write of a memory's fields goes through, with the words a person
reads when one fails."""

import json
import math
from collections import Counter
from datetime import datetime
from datetime import timezone as dt_timezone

from ..models import MAX_CONTENT_LENGTH, MAX_TAG_LENGTH, MAX_TAGS, tag_form

MAX_SCOPE_LENGTH = 200

# The metadata key under which a memory keeps the tally of what redaction took out of it
# ({kind: count}), as an observation keeps its own in its notes.
REDACTIONS_KEY = "redactions"


def noting_redactions(metadata: dict, found: Counter) -> dict:
    """`metadata` with `found` added to the tally it holds."""
    if not found:
        return metadata
    earlier = metadata.get(REDACTIONS_KEY)
    tally = Counter({kind: n for kind, n in earlier.items() if isinstance(n, int)}
                    if isinstance(earlier, dict) else {})
    return {**metadata, REDACTIONS_KEY: dict(tally + found)}


def unstorable_error(value) -> str | None:
    """What PostgreSQL cannot store, anywhere in `value` (a text, or a JSON object or
    list, keys included): a NUL character, a lone surrogate (not Unicode at all), or a
    number that is not finite (NaN and Infinity are no JSON, and jsonb refuses them)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "The value holds NaN or Infinity, which JSON cannot hold."
    if isinstance(value, dict):
        return next((e for item in value.items() if (e := unstorable_error(list(item)))),
                    None)
    if isinstance(value, (list, tuple)):
        return next((e for item in value if (e := unstorable_error(item))), None)
    if isinstance(value, str):
        if "\x00" in value:
            return "The text contains a NUL character, which cannot be stored."
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "The text contains a lone surrogate: it is not valid Unicode."
    return None


def datetime_error(value: datetime) -> str | None:
    """A moment (aware) that Python could not read back once stored: PostgreSQL keeps it
    in UTC, where a day of year 1 east of Greenwich, or of year 9999 west of it, falls in
    year 0 (read as BC) or 10000, which no datetime holds."""
    try:
        value.astimezone(dt_timezone.utc)
    except OverflowError:
        return "the moment falls outside the years 1 to 9999 in UTC"
    return None


# A memory's metadata is notes beside its text (where it came from, what redaction took
# out, the memories a summary was made of: 39 bytes each, and erasure reads them all),
# read back with it by every search and list: 2 MB of it on each of a few hundred
# memories made one search answer hundreds of megabytes.
MAX_METADATA_BYTES = 262_144


def metadata_error(metadata) -> str | None:
    if not isinstance(metadata, dict):
        return "Metadata must be a JSON object."
    if unstorable := unstorable_error(metadata):
        return unstorable
    size = len(json.dumps(metadata, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    if size > MAX_METADATA_BYTES:
        return f"Metadata has {size:,} bytes as JSON; the limit is {MAX_METADATA_BYTES:,}."
    return None


def content_error(content) -> str | None:
    if content is not None and not isinstance(content, str):  # an imported line's 5 or []
        return "Content must be text."
    if content is None or not content.strip():
        return "Content is empty: give the text to remember."
    if unstorable := unstorable_error(content):
        return unstorable
    if len(content) > MAX_CONTENT_LENGTH:
        return f"Content has {len(content):,} characters; the limit is {MAX_CONTENT_LENGTH:,}."
    return None


def importance_error(importance) -> str | None:
    if importance is None:
        return None
    if isinstance(importance, bool) or not isinstance(importance, (int, float)) \
            or not 1 <= importance <= 10:
        return "Importance must be a number from 1 to 10."
    return None


def tags_error(tags) -> str | None:
    if not isinstance(tags, (list, tuple)) or len(tags) > MAX_TAGS or not all(
        isinstance(t, str) and 0 < len(t.strip()) <= MAX_TAG_LENGTH for t in tags
    ):
        return (f"Tags must be a list of at most {MAX_TAGS} non-empty texts of at most "
                f"{MAX_TAG_LENGTH} characters.")
    return unstorable_error(list(tags))


def clean_tags(tags) -> list[str]:
    return sorted({tag_form(t) for t in tags})

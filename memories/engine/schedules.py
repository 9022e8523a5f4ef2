"""When something recurs, read from the words that say it: how often ("nightly", "every 6
hours", "twice a day", "once a week"), on which day ("on Tuesdays", "every Friday") and
at what time ("at 1am", "02:00"). The contradiction judge compares two statements'
schedules as it compares their other measures: "backups run every night" and "the backup
runs once a week" cannot both be true.

Pure: words in (as written, in order), a dict out.
"""

import re
from collections.abc import Sequence

DAY = 86_400
WEEK = 7 * DAY
# How often a word says something happens, in seconds between two runs.
FREQUENCIES = {"hourly": 3_600, "daily": DAY, "nightly": DAY, "weekly": WEEK,
               "fortnightly": 2 * WEEK, "biweekly": 2 * WEEK, "monthly": 30 * DAY,
               "quarterly": 91 * DAY, "yearly": 365 * DAY, "annually": 365 * DAY}
# The span of a unit "every" or "once a" counts in.
UNITS = {"second": 1, "sec": 1, "s": 1, "minute": 60, "min": 60, "hour": 3_600, "hr": 3_600,
         "h": 3_600, "day": DAY, "night": DAY, "morning": DAY, "evening": DAY,
         "afternoon": DAY, "week": WEEK, "month": 30 * DAY, "quarter": 91 * DAY,
         "year": 365 * DAY}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Days that name a kind of day rather than one of the seven.
DAY_KINDS = {"weekday": "weekdays", "weekend": "weekends"}
TIMES = {"once": 1, "twice": 2, "thrice": 3}
ORDINALS = {"other": 2, "second": 2, "third": 3, "fourth": 4}
COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
          "eight": 8, "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15, "thirty": 30}
_DETERMINERS = frozenset({"the", "a", "an", "our", "their", "its", "this", "that", "these",
                          "those", "my", "your"})
_NOT_A_NOUN = frozenset({"is", "are", "was", "were", "at", "on", "in", "and", "or", "by",
                         "from", "to", "for", "with", "before", "after"})
# Months by name and short form, for a day of the year ("December 15th", "20 Dec").
MONTHS = {name: number for number, names in enumerate((
    "january jan", "february feb", "march mar", "april apr", "may", "june jun",
    "july jul", "august aug", "september sep sept", "october oct", "november nov",
    "december dec"), 1) for name in names.split()}
_DAY_OF_MONTH = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)?$")
# A time of day is compared only with one in the same zone, or with none said.
ZONES = frozenset({"utc", "gmt", "cet", "cest", "est", "edt", "pst", "pdt", "ist", "jst"})
_GLUED = re.compile(r"^(\d+(?:\.\d+)?)([a-z]+)$")
_CLOCK = re.compile(r"^(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$")
# Verbs that only tie an event to when it happens ("planning happens every Tuesday",
# "we hold planning weekly") and words that name the schedule itself ("the cron for the
# report", "report generation is scheduled ...", "the sync interval is hourly", "on a
# weekly basis").
SCHEDULE_NOUNS = frozenset({"schedule", "schedules", "interval", "intervals", "cadence",
                            "frequency", "basis"})
EVENT_WORDS = frozenset({"happen", "happens", "happened", "occur", "occurs", "occurred",
                         "hold", "holds", "held", "cron", "crontab", "scheduled",
                         *SCHEDULE_NOUNS})
# Words a schedule is said with: no part of what a statement is about.
WORDS = frozenset({*FREQUENCIES, *UNITS, *(f"{unit}s" for unit in UNITS), *WEEKDAYS,
                   *(f"{day}s" for day in WEEKDAYS), *DAY_KINDS, *DAY_KINDS.values(),
                   *TIMES, *ORDINALS, *EVENT_WORDS, "first", "last", "every", "each", "times",
                   "am", "pm", "noon", "midnight", *MONTHS})
# A cron expression: minute, hour, day of month, month, day of week ("0 6 * * *"); one
# field at least is "*", so a list of five numbers is none.
_CRON = re.compile(r"(?<![\w*/,-])(?=[\d*/,-]+(?:\s+[\d*/,-]+){4}(?![\w*/,-]))(?=[^\n]*?\*)"
                   r"([\d*/,-]+)\s+([\d*/,-]+)\s+([\d*/,-]+)\s+([\d*/,-]+)\s+([\d*/,-]+)")
_CRON_WEEKDAYS = (*WEEKDAYS[6:], *WEEKDAYS[:6], WEEKDAYS[6])  # 0 and 7 are Sunday


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and word[:-1] in (*UNITS, *WEEKDAYS, *DAY_KINDS) \
        else word


def _count(word: str) -> float | None:
    if word in COUNTS:
        return COUNTS[word]
    try:
        return float(word)
    except ValueError:
        return None


def _names_a_thing(words: Sequence[str], i: int) -> bool:
    """Whether the word of how often at `i` names a thing ("the nightly ETL", "nightly
    backups are kept ...") rather than says when it runs ("backups run nightly", "on a
    daily schedule": the noun after it names the schedule itself)."""
    opens = i == 0 or words[i - 1] in _DETERMINERS
    return opens and i + 1 < len(words) and words[i + 1].isalpha() \
        and words[i + 1] not in _NOT_A_NOUN and words[i + 1] not in SCHEDULE_NOUNS


_RANGE = frozenset({"through", "thru", "to", "until", "till", "-"})


def _in_a_range(words: Sequence[str], i: int) -> bool:
    """Whether the weekday at `i` opens or closes a range ("Monday through Thursday")."""
    before = [_singular(w) for w in words[max(0, i - 2):i]]
    after = [_singular(w) for w in words[i + 1:i + 3]]
    return (len(before) == 2 and before[1] in _RANGE and before[0] in WEEKDAYS) or (
        len(after) == 2 and after[0] in _RANGE and after[1] in WEEKDAYS)


def is_clock(word: str) -> bool:
    """Whether a word says a time of day by itself ("1am", "02:00")."""
    return _clock([word.casefold()], 0) is not None


def _clock(words: Sequence[str], i: int) -> int | None:
    """Minutes after midnight of a time said at words[i] ("1am", "1 am", "13:30")."""
    word = words[i]
    if word in ("noon", "midday"):
        return 12 * 60
    if word == "midnight":
        return 0
    following = words[i + 1] if i + 1 < len(words) else ""
    said = _CLOCK.match(word + (following if following in ("am", "pm", "a.m.", "p.m.")
                                 else ""))
    if not said or not (said.group(2) or said.group(3)):
        return None  # a bare number is no time of day
    hour, minute = int(said.group(1)), int(said.group(2) or 0)
    if said.group(3):
        hour = hour % 12 + (12 if said.group(3).startswith("p") else 0)
    return hour * 60 + minute if hour < 24 and minute < 60 else None


def schedule(words: Sequence[str]) -> dict:
    """{"period": seconds between runs, "weekday": day, "time of day": minutes} for
    what `words` (casefolded, in order) say; only what they say. A time of day said in a
    zone is "time of day utc"."""
    found = {}
    zone = next((f" {word}" for word in words if word in ZONES), "")
    for i, word in enumerate(words):
        single = _singular(word)
        before = words[i - 1] if i else ""
        after = [_singular(w) for w in words[i + 1:i + 4]]
        if word in FREQUENCIES and not _names_a_thing(words, i):
            found["period"] = FREQUENCIES[word]
        elif word in ("every", "each") and after:
            every = 1.0
            if after[0] in ORDINALS and len(after) > 1 and (after[1] in UNITS
                                                            or after[1] in WEEKDAYS):
                every, after = ORDINALS[after[0]], after[1:]
            elif (count := _count(after[0])) is not None and len(after) > 1:
                every, after = count, after[1:]
            elif glued := _GLUED.match(after[0]):  # "every 15s"
                every, after = float(glued.group(1)), [glued.group(2)]
            if after[0] in UNITS:
                found["period"] = every * UNITS[after[0]]
            elif after[0] in WEEKDAYS:
                found["period"] = every * WEEK
        elif (word in TIMES or (word == "times" and _count(before) is not None)) \
                and len(after) > 1 and after[0] in ("a", "an", "per", "each", "every") \
                and after[1] in UNITS:
            runs = TIMES.get(word) or _count(before)
            found["period"] = UNITS[after[1]] / runs
        if word == "month" and before in ("the", "each", "every") and i >= 2 \
                and words[i - 2] == "of":  # "the first day of the month"
            found.setdefault("period", UNITS["month"])
        if single in WEEKDAYS and _in_a_range(words, i):
            found.setdefault("period", WEEK)  # "Monday through Thursday" names no one day
        elif single in WEEKDAYS:
            found["weekday"] = single
            if word != single or before in ("every", "each"):  # "on Tuesdays"
                found.setdefault("period", WEEK)
        elif single in DAY_KINDS:
            found["weekday"] = DAY_KINDS[single]
        if (minutes := _clock(words, i)) is not None:
            found.setdefault(f"time of day{zone}", minutes)
        if (day := _day_of_year(words, i)) is not None:
            found.setdefault("day of year", day)
    return found


def _day_of_year(words: Sequence[str], i: int) -> str | None:
    """The day of the year a month's name at words[i] and a day beside it say ("December
    15th", "20 Dec", "the 3rd of March"), as "12-15"; None without a day."""
    if words[i].rstrip(".") not in MONTHS:
        return None
    month = MONTHS[words[i].rstrip(".")]
    for at in (i + 1, i - 1, i - 2):
        if 0 <= at < len(words) and (at != i - 2 or words[i - 1] == "of"):
            day = _DAY_OF_MONTH.match(words[at])
            if day and 1 <= int(day.group(1)) <= 31:
                return f"{month:02d}-{int(day.group(1)):02d}"
    return None


def _cron_in_words(found: re.Match) -> str:
    minute, hour, day, month, weekday = found.groups()
    if month != "*":
        return found.group(0)  # a month of its own: left as written
    if minute.startswith("*/") and minute[2:].isdigit() and hour == day == weekday == "*":
        return f"every {minute[2:]} minutes"
    if not minute.isdigit():
        return found.group(0)
    if hour == "*" and day == weekday == "*":
        return "hourly"
    if hour.startswith("*/") and hour[2:].isdigit() and day == weekday == "*":
        return f"every {hour[2:]} hours"
    if not hour.isdigit() or int(hour) > 23 or int(minute) > 59:
        return found.group(0)
    at = f"at {int(hour):02d}:{int(minute):02d}"
    if day == weekday == "*":
        return f"daily {at}"
    if day == "*" and weekday.isdigit() and int(weekday) <= 7:
        return f"every {_CRON_WEEKDAYS[int(weekday)]} {at}"
    if weekday == "*" and day.isdigit():
        return f"monthly {at}"
    return found.group(0)


def cron_in_words(text: str) -> str:
    """`text` with its cron expressions said in words: "0 6 * * *" is "daily at 06:00",
    "*/15 * * * *" "every 15 minutes", "0 2 * * 1" "every monday at 02:00"; one it
    cannot say simply stays as written."""
    return _CRON.sub(_cron_in_words, text)

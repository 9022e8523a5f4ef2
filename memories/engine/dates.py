"""The dates a text names, as periods of days: "on 13 October 2023", "in June", "last
Saturday", "next month". Relative expressions are resolved against a reference date (a
memory's own date: "yesterday" said on 8 May is 7 May), so a question that names a date
can be matched to what was said about that date. Pure: the reference is passed in."""

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

_MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): number for number, name in enumerate(calendar.month_abbr) if name}
_MONTHS.pop("may", None)  # "may" the verb: only "May" written with a capital is a month
_MONTH = r"(?P<month>January|February|March|April|May|June|July|August|September|October|" \
         r"November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?"
_WEEKDAYS = [name.lower() for name in calendar.day_name]
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"

# Absolute dates, most precise first; each match's span is taken out before the next.
_ABSOLUTE = [
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b"),
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b"),
    re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b"),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\b"),
    re.compile(rf"\b{_MONTH}\s+{_DAY}\b(?!\s*(?:am|pm|:))"),
    re.compile(rf"\b(?:in|during|since|until|by|of|early|late|mid)[-\s]+{_MONTH}\b"),
    re.compile(rf"\b(?:in|during|since|until|by|of)\s+{_YEAR}\b"),
]
# The first this many patterns name a month: a text that names none cannot match them;
# the last names a year, 19xx or 20xx.
_NAMING_A_MONTH = len(_ABSOLUTE) - 1
_ANY_MONTH = re.compile(_MONTH)
_RELATIVE_WORDS = ("yesterday", "today", "tonight", "tomorrow", "this", "last", "next",
                   "past", "ago")  # one is in every match of _RELATIVE
_UNITS = {"day": 1, "week": 7, "month": 30, "year": 365}
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
            "couple of": 2, "few": 3}
_RELATIVE = re.compile(
    r"\b(?:(?P<simple>yesterday|today|tonight|tomorrow|this morning|this afternoon|"
    r"this evening|last night)"
    r"|(?P<which>last|this|next|past)\s+(?P<unit>week(?:end)?|month|year|"
    + "|".join(_WEEKDAYS) + r")"
    r"|(?P<count>\d+|a|an|one|two|three|four|five|six|couple of|few)\s+"
    r"(?P<ago_unit>day|week|month|year)s?\s+ago)\b", re.IGNORECASE)


# The periods one text is read for (periods_named): no real note names more.
MAX_PERIODS = 32


@dataclass(frozen=True, slots=True)
class Period:
    """Days from `start` up to and excluding `end`; a month named without a year ("in
    June") holds `month` alone and matches that month of any year."""

    start: date | None = None
    end: date | None = None
    month: int | None = None

    def overlaps(self, other: "Period") -> bool:
        if self.month is not None or other.month is not None:
            return _month_overlap(self, other)
        return self.start < other.end and other.start < self.end


def _month_overlap(a: Period, b: Period) -> bool:
    if a.month is not None and b.month is not None:
        return a.month == b.month
    yearless, dated = (a, b) if a.month is not None else (b, a)
    day, months = dated.start, set()
    while day < dated.end and len(months) < 12:
        months.add(day.month)
        day = date(day.year + (day.month == 12), day.month % 12 + 1, 1)
    return yearless.month in months


def day(when: date) -> Period:
    return Period(when, when + timedelta(days=1))


def _month(year: int, month: int) -> Period:
    last = calendar.monthrange(year, month)[1]
    return Period(date(year, month, 1), date(year, month, last) + timedelta(days=1))


def _week_of(when: date) -> Period:
    monday = when - timedelta(days=when.weekday())
    return Period(monday, monday + timedelta(days=7))


def _absolute(match: re.Match, reference: date | None) -> Period | None:
    parts = match.groupdict()
    month = _MONTHS.get((parts.get("month") or "").lower().rstrip("."))
    if parts.get("month") == "May":
        month = 5
    year = int(parts["year"]) if parts.get("year") else None
    if month is None:
        return Period(date(year, 1, 1), date(year + 1, 1, 1)) if year else None
    if parts.get("day"):
        number = int(parts["day"])
        year = year or (reference.year if reference else None)
        if year is None or not 1 <= number <= calendar.monthrange(year, month)[1]:
            return Period(month=month)
        return day(date(year, month, number))
    return _month(year, month) if year else Period(month=month)


# The letters a case-blind match takes for ASCII ones ("laſt week" is matched as "last
# week"), and those: lower() alone leaves "ſ" and "ı", and makes "İ" two letters.
_ASCII_FOLD = str.maketrans("İıſK", "iisk")


def _folded(said: str) -> str:
    return said.translate(_ASCII_FOLD).lower()


def _relative(match: re.Match, reference: date) -> Period | None:
    simple = _folded(match["simple"] or "")
    if simple:
        offset = {"yesterday": -1, "last night": -1, "tomorrow": 1}.get(simple, 0)
        return day(reference + timedelta(days=offset))
    if match["which"]:
        which, unit = _folded(match["which"]), _folded(match["unit"])
        step = {"last": -1, "past": -1, "this": 0, "next": 1}[which]
        if unit in _WEEKDAYS:
            target = _WEEKDAYS.index(unit)
            back = (reference.weekday() - target) % 7 or 7
            if step < 0:
                return day(reference - timedelta(days=back))
            ahead = (target - reference.weekday()) % 7 or 7
            return day(reference + timedelta(days=ahead if step > 0 else ahead % 7))
        if unit in ("week", "weekend"):
            week = _week_of(reference + timedelta(days=7 * step))
            if unit == "weekend":
                return Period(week.start + timedelta(days=5), week.end)
            return week
        if unit == "month":
            index = reference.year * 12 + reference.month - 1 + step
            return _month(index // 12, index % 12 + 1)
        year = reference.year + step
        return Period(date(year, 1, 1), date(year + 1, 1, 1))
    count = _folded(match["count"])
    number = int(count) if count.isdigit() else _NUMBERS[count]
    unit = _folded(match["ago_unit"])
    when = reference - timedelta(days=number * _UNITS[unit])
    if unit == "day":
        return day(when)
    return _week_of(when) if unit == "week" else _month(when.year,
                                                                             when.month)


def periods_named(text: str, reference: date | None = None) -> list[Period]:
    """The periods `text` names; relative ones only when there is a reference date."""
    # Recall asks this of every candidate: patterns that cannot match are not run.
    found, rest = [], text
    month_named = _ANY_MONTH.search(rest) is not None
    for i, pattern in enumerate(_ABSOLUTE):
        if not month_named if i < _NAMING_A_MONTH else "19" not in rest and "20" not in rest:
            continue
        matches = list(pattern.finditer(rest))
        for match in matches:
            period = _absolute(match, reference)
            if period is not None:
                found.append(period)
        if matches:  # what pattern.sub(" ", rest) gives, without a second pass
            ends = [0, *(end for m in matches for end in m.span()), len(rest)]
            rest = " ".join(rest[ends[j]:ends[j + 1]] for j in range(0, len(ends), 2))
            month_named = _ANY_MONTH.search(rest) is not None
    if reference is not None and _may_be_relative(rest):
        found += [p for p in (_relative(m, reference) for m in _RELATIVE.finditer(rest)) if p]
    # each distinct period once, and a text's first few only: recall matches every period
    # a query names against every one each candidate names, and a text repeating dates
    # ("in June" 10,000 times) held a search for seconds
    return list(dict.fromkeys(found))[:MAX_PERIODS]


def _may_be_relative(text: str) -> bool:
    """False when `text` cannot hold a relative expression: every one has one of these
    words. Not ruled out for other than ASCII text, where a case-blind match may take a
    letter such as "ſ" for an "s"."""
    if not text.isascii():
        return True
    lower = text.lower()
    return any(word in lower for word in _RELATIVE_WORDS)


def names_a_date(text: str) -> bool:
    """Whether a text names a date, month, year or a time relative to now. Recall asks it
    of every query, and of every candidate when a query asks "when": only the patterns
    that can match are run, as in periods_named (45 to 7 µs a LoCoMo turn)."""
    if _ANY_MONTH.search(text) and any(p.search(text) for p in _ABSOLUTE[:_NAMING_A_MONTH]):
        return True
    if ("19" in text or "20" in text) and _ABSOLUTE[-1].search(text):
        return True
    return _may_be_relative(text) and _RELATIVE.search(text) is not None


def _specificity(period: Period) -> float:
    """How much a match on this period says: a day names one event, a year hundreds."""
    if period.month is not None:
        return 0.5
    days = (period.end - period.start).days
    return 1.0 if days <= 1 else 0.75 if days <= 7 else 0.5 if days <= 31 else 0.2


def date_match(asked: list[Period], said: list[Period]) -> float:
    """How precisely a period the question names overlaps one the memory names or was
    said on: 1 for the same day, 0.5 for a month, 0.2 for a year, 0 for none."""
    return max((_specificity(a) for a in asked if any(a.overlaps(s) for s in said)),
               default=0.0)

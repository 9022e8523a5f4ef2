"""Other spellings of one thing, written out before the contradiction rules read a
statement: short forms of the field ("svc", "PRs", "PG", "req/min") and of roles ("TL",
"DRI"), money ("$5k" is 5000 dollars), one counted thing of two names ("pods" are
replicas), giving up after a while as a timeout, cron expressions
("0 6 * * *" is "daily at 06:00", schedules.py), units glued to their number ("10MB",
"5s"), rates with a slash ("req/min" is "requests per minute"), numbers in words of more
than one word ("twenty-five", "two hundred"), and a change of state
told as one ("stopped using X" is "no longer uses X"; "switched from X to Y" says Y).

General English about software, not the wording of any labelled pair. Pure: text in,
text out; a name stays written with a capital, so it is still read as a name.
"""

import re

from .schedules import ZONES, cron_in_words

_I = re.IGNORECASE

# Short forms and the words they stand for. Whole words only, also inside a compound
# ("billing-svc" is "billing-service"); a product keeps its capital.
SHORT_FORMS = {
    "svc": "service", "svcs": "services", "srv": "server", "msg": "message",
    "msgs": "messages", "req": "requests", "reqs": "requests", "rps": "requests per second",
    "qps": "queries per second", "pr": "pull request", "prs": "pull requests",
    "mr": "merge request", "mrs": "merge requests", "sso": "single sign-on",
    "pg": "Postgres", "postgresql": "Postgres", "node.js": "Node", "nodejs": "Node",
    "js": "JavaScript", "ts": "TypeScript", "golang": "Go", "k8s": "Kubernetes",
    "gh": "GitHub", "gw": "gateway", "2fa": "two-factor authentication",
    "mfa": "multi-factor authentication",
    # roles as teams write them: "TL" is the tech lead, "the DRI" the one owner of a thing
    "tl": "tech lead", "em": "engineering manager", "dri": "the owner", "fe": "frontend",
    "be": "backend", "chars": "characters",
    # the oldest Rust toolchain a crate builds with
    "msrv": "minimum supported Rust version",
}
# Short forms that are something else in lower case or as a title ("ts" a timestamp
# column, "pr" a variable, "Mr" and "Mrs" before a name, "be" and "em" words): written out
# only in capitals ("TS", "PRs", "MR", "BE").
CAPITALS_ONLY = frozenset({"ts", "pr", "prs", "mr", "mrs", "tl", "em", "dri", "fe", "be",
                           "msrv"})
# A word as the rules read it; one with a dot, colon, slash or "@" in it is an address or
# a name of its own ("pg-stage-2.internal"), unless it is a short form whole ("node.js").
_WORD = re.compile(r"[\w][\w.\-/:@]*[\w]|[\w]")


def _short_form(word: str) -> str:
    """What `word` stands for, or `word` when it is no short form as written."""
    key = word.casefold()
    if key in CAPITALS_ONLY and not re.fullmatch(r"[A-Z]+s?", word):
        return word
    return SHORT_FORMS.get(key, word)


def _written_out(found: re.Match) -> str:
    word = found.group(0)
    if word.casefold() in SHORT_FORMS:
        return _short_form(word)
    if any(char in ".:/@" for char in word):
        return word
    return "-".join(_short_form(part) for part in word.split("-"))


# Units a number may be written against: "10MB", "5s", "250ms"; days only as a small "d"
# ("30d"), since "3D" and "2D" are dimensions.
_GLUED_UNIT = re.compile(r"\b(\d+(?:\.\d+)?)((?i:ms|s|secs?|mins?|h|hrs?|kb|mb|gb|tb|kib|mib|"
                         r"gib)|d)\b")
# A binary size as Kubernetes writes it, only with its capital: "512Mi" is 512 MiB.
_BINARY_SIZE = re.compile(r"\b(\d+(?:\.\d+)?)([KMG])i\b")
# A rate with a slash: "req/min", "requests/s", "MB/s".
_SLASH_RATE = re.compile(r"\b([a-z]+)/(s|sec|second|min|minute|h|hr|hour|day)\b", _I)

_UNITS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
          "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
          "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
          "eighteen": 18, "nineteen": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_NUMBER_WORD = "|".join((*_UNITS, *_TENS, *_SCALES))
# Two or more number words in a row ("twenty-five", "two hundred", "one hundred and
# twenty"): a single word is read where it stands, as "one" may be no number at all.
_NUMBER_PHRASE = re.compile(rf"\b(?:{_NUMBER_WORD})(?:(?:\s+and\s+|[\s-]+)(?:{_NUMBER_WORD}))+\b",
                            _I)

# The verb and the noun of one limit: "requests time out after 5 s", "the timeout is 5 s".
_TIME_OUT = re.compile(r"\btimes?\s+out\b|\btimed\s+out\b", _I)
# Giving up after a while is timing out ("calls give up after ten seconds"); after a
# number of tries it is a count of attempts, read as such.
_GIVES_UP_AFTER_A_WHILE = re.compile(r"\bg(?:ive|ives|ave)\s+up\s+after(?=\s+[\w.]+\s*(?:ms|milliseconds?|"
                                     r"s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?)\b)", _I)

# A change told as one: what stopped is no longer so; what was left behind is not said
# to be so now ("migrated from MySQL to Postgres" says Postgres).
_STOPPED = re.compile(r"\b(?:stopped|quit|ceased)\s+(\w+ing)\b", _I)
_SWITCHED = re.compile(r"\b(switched|moved|migrated|changed)\s+(?:over\s+)?from\s+"
                       r"(?:\S+\s+){0,2}?\S+\s+(to)\b", _I)


# A number glued to what it counts by a hyphen: "2-space indentation", "a 30-day
# retention", "5-minute timeout" say 2 spaces, 30 days, 5 minutes.
# ("one-time", "two-factor" and "two-phase" are idioms, not counts)
_HYPHENED_COUNT = re.compile(r"\b(\d+(?:\.\d+)?|three|four|five|six|seven|eight|nine|ten|"
                             r"twelve|fifteen|twenty|thirty|sixty|ninety)-([a-z]{2,})\b", _I)
# A version written with a "v" after the name it belongs to: "Node v20", "Terraform v1.6".
_NAMED_V = re.compile(r"\b([A-Z][\w.+-]*)\s+v(\d+(?:\.\d+)*)\b")
# An ordinal day beside a month: "December 15th", "the 3rd of March".
_MONTH = (r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|"
          r"april|june|july|august|september|october|november|december)")
_ORDINAL_DAY = re.compile(rf"\b(?:({_MONTH}\.?\s+)(\d{{1,2}})(?:st|nd|rd|th)|(\d{{1,2}})(?:st|nd|rd|th)"
                          rf"(\s+(?:of\s+)?{_MONTH}))\b", _I)


# An amount of money: "$5k", "$12,000", "$1.5M" are dollars; "5k" alone is 5000 of
# whatever follows ("5k rows"). "m" after a bare number is minutes, so only after "$".
_DOLLARS = re.compile(r"\$\s?(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s?([kKmM]\b|thousand\b|million\b))?")
_THOUSANDS = re.compile(r"\b(\d+(?:\.\d+)?)[kK]\b")
_SCALE_OF = {"k": 1000, "thousand": 1000, "m": 1_000_000, "million": 1_000_000}

# One counted thing under two names, written as one after a number: the pods of a
# deployment are its replicas ("six pods" / "3 replicas"), hosts and VMs of a pool its
# machines.
_COUNTED_AS = {"pod": "replica", "host": "machine", "vm": "machine"}
_COUNTED_THING = re.compile(rf"\b(\d+|{'|'.join((*_UNITS, *_TENS))})(\s+|-)(pod|host|vm)(s?)\b", _I)


def _amount(number: str, scale: str | None) -> str:
    value = float(number.replace(",", "")) * _SCALE_OF.get((scale or "").casefold(), 1)
    return f"{value:.0f}" if value.is_integer() else f"{value}"


def _counted_as(found: re.Match) -> str:
    number, gap, thing, plural = found.groups()
    return f"{number}{gap}{_COUNTED_AS[thing.casefold()]}{plural}"


def _number_phrase(found: re.Match) -> str:
    total = current = 0
    for word in re.split(r"[\s-]+", found.group(0).casefold()):
        if word == "and":
            continue
        if word in _SCALES:
            current = max(current, 1) * _SCALES[word]
            if _SCALES[word] >= 1000:
                total, current = total + current, 0
        else:
            current += _UNITS.get(word, 0) + _TENS.get(word, 0)
    return str(total + current)


# A time zone in brackets is part of the time before it: "0 2 * * * (UTC)".
_ZONE_ASIDE = re.compile(r"\s*\((" + "|".join(sorted(ZONES)) + r")\)", re.IGNORECASE)


def spell_out(text: str) -> str:
    """`text` with its short forms, glued units, slash rates, numbers in words and changes
    of state written out."""
    text = _ZONE_ASIDE.sub(r" \1", cron_in_words(text))
    text = _SLASH_RATE.sub(r"\1 per \2", text)
    text = _WORD.sub(_written_out, text)
    text = _GLUED_UNIT.sub(r"\1 \2", text)
    text = _BINARY_SIZE.sub(r"\1 \2iB", text)
    text = _GIVES_UP_AFTER_A_WHILE.sub("time out after", text)
    text = _TIME_OUT.sub("timeout", text)
    text = _NUMBER_PHRASE.sub(_number_phrase, text)
    text = _DOLLARS.sub(lambda m: f"{_amount(*m.groups())} dollars", text)
    text = _THOUSANDS.sub(lambda m: _amount(m.group(1), "k"), text)
    text = _COUNTED_THING.sub(_counted_as, text)
    text = _HYPHENED_COUNT.sub(r"\1 \2", text)
    text = _NAMED_V.sub(r"\1 \2", text)
    text = _ORDINAL_DAY.sub(lambda m: (m.group(1) or "") + (m.group(2) or m.group(3))
                            + (m.group(4) or ""), text)
    text = _STOPPED.sub(r"no longer \1", text)
    return _SWITCHED.sub(r"\1 \2", text)

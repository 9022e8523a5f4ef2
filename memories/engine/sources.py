"""Which of several named things is the source and which a copy, read from the words that
say it: "db-east-1 is the primary", "the replica in Dublin", "redis-b is a replica of
redis-a", "Salesforce is the source of truth", "Crowdin just mirrors them", "the
us-east primary", "Dublin hosts the primary". The contradiction judge compares two
statements' readings: one thing the source in one and a copy in the other, or two
sources of one thing, cannot both be true.

Pure: text in, {name: ranks} out, each name as written, casefolded.
"""

import re

SOURCE, COPY = 1, 0

# Nouns of a rank, as word sequences, casefolded.
_RANK_NOUNS = {
    ("primary",): SOURCE, ("leader",): SOURCE, ("master",): SOURCE,
    ("source", "of", "truth"): SOURCE, ("canonical",): SOURCE, ("upstream",): SOURCE,
    ("replica",): COPY, ("replicas",): COPY, ("standby",): COPY, ("secondary",): COPY,
    ("follower",): COPY, ("mirror",): COPY, ("copy",): COPY, ("downstream",): COPY,
}
# Verbs whose subject is a copy of their object ("the CRM DB mirrors Salesforce"), or a
# copy of what the sentence spoke of before ("Crowdin just mirrors them").
_COPYING = frozenset({"mirrors", "mirror", "follows", "follow"})
# Verbs that tie a name before them to a rank noun after them ("Dublin hosts the
# primary", "Salesforce gets a copy").
_HOLDING = frozenset({"is", "are", "be", "was", "were", "hosts", "host", "holds", "hold",
                      "runs", "run", "has", "have", "gets", "get", "keeps", "keep", "becomes",
                      "became", "stays", "remains"})
# Words between a tie and its rank noun that say nothing of the rank.
_FILLER = frozenset({"the", "a", "an", "its", "our", "their", "read", "hot", "warm", "cold",
                     "only", "sole", "single", "just", "now", "still", "database", "db",
                     "write", "one", "read-only", "read-write", "writable"})
# Words after a copy's noun that name what it copies ("a replica of redis-b").
_OF = frozenset({"of", "following", "from"})
# Where a name may sit after a rank noun ("the primary in Frankfurt", "primary: db-1").
_AT = frozenset({"in", "at", "on", "is", ":", "="})
_TOKEN = re.compile(r"[\w][\w.\-/@]*[\w]|[\w]|[:=;,.]")
# Nouns that stand for the thing a name is the name of ("the eu-west database").
_KIND_OF_NAME = frozenset({"database", "db", "cluster", "instance", "node", "region", "server",
                           "repo", "repository", "project", "service", "copy", "table"})
# Words after a rank noun that go on to something else ("the primary and db-2 its replica").
_JOINING = frozenset({"for", "and", "with", "that", "which", "while", "but", "so", "since",
                      "until", "because"})
REACH = 4  # words a name may stand from the tie or noun that gives it its rank


# Words a sentence opens on with a capital that name nothing.
_OPENERS = frozenset({"the", "a", "an", "our", "their", "this", "that", "these", "those", "it",
                      "its", "we", "they", "each", "every", "all", "both", "no", "in", "on",
                      "at", "for", "replication", "production", "staging"})


def _is_name(raw: str, at: int) -> bool:
    """A name of a thing: a compound ("db-east-1"), a word with a digit, an acronym, or a
    capitalised word ("Frankfurt", "Salesforce"; at the start of a sentence, not a word
    any sentence may open on)."""
    if not raw[:1].isalnum() or raw.casefold() in _FILLER:
        return False
    return ("-" in raw.strip("-") or any(ch.isdigit() for ch in raw)
            or (len(raw) > 1 and raw.isupper())
            or (raw[:1].isupper() and (at > 0 or raw.casefold() not in _OPENERS)))


def _first_name(raws: list[str], places: range) -> str | None:
    """The first name at `places`, before the clause ends."""
    for at in places:
        if raws[at] in (";", ",", "."):
            return None
        if _is_name(raws[at], at):
            return raws[at].casefold()
    return None


def _name_before(raws: list[str], end: int) -> str | None:
    """The nearest name at most REACH words before `end`."""
    return _first_name(raws, range(end - 1, max(-1, end - 1 - REACH), -1))


def _name_after(raws: list[str], start: int) -> str | None:
    """The nearest name at most REACH words from `start` on."""
    return _first_name(raws, range(start, min(len(raws), start + REACH)))


def ranks(text: str, *, inferred: bool = True) -> dict[str, set[int]]:
    """{name: the ranks `text` gives it} (SOURCE, COPY or both); without `inferred`, only
    the ranks said of a name, not the other end a copy's noun or verb implies ("a mirror
    of the quartz-cli repo" says what is mirrored, maybe no place)."""
    raws = _TOKEN.findall(text)
    words = [raw.casefold() for raw in raws]
    found: dict[str, set[int]] = {}

    def give(name: str | None, rank: int) -> None:
        if name:
            found.setdefault(name, set()).add(rank)

    last_name = None
    for at, word in enumerate(words):
        if _is_name(raws[at], at):
            last_name = word
        if word in _COPYING and at > 0:
            holder = _name_before(raws, at)
            give(holder, COPY)
            if inferred:
                give(_name_after(raws, at + 1) or (None if holder else last_name), SOURCE)
        for noun, rank in _RANK_NOUNS.items():
            if tuple(words[at:at + len(noun)]) != noun:
                continue
            end = at + len(noun)
            # an adjective before a noun of its own: "the primary key", "primary on-call"
            if end < len(words) and re.fullmatch(r"[a-z][a-z-]*", words[end]) and (
                    words[end] not in _KIND_OF_NAME | _AT | _OF | _JOINING):
                continue
            before = at - 1
            while before >= 0 and words[before] in _FILLER:
                before -= 1
            # "the analytics DB primary is in us-east-1": the name before a kind of thing
            # names the thing, and the primary is where it is said to be
            placed = (end < len(words) and words[end] in _AT
                      and _name_after(raws, end + 1)) if _KIND_OF_NAME & set(
                words[before + 1:at]) else None
            if before >= 0 and words[before] in _HOLDING:  # "X is the primary"
                give(_name_before(raws, before), rank)
            elif placed:
                give(placed, rank)
            elif before >= 0 and _is_name(raws[before], before):  # "the us-east primary"
                give(words[before], rank)
            elif end < len(words) and words[end] in _AT:  # "the primary in Frankfurt"
                give(_name_after(raws, end + 1), rank)
            elif end < len(words) and words[end] == "for":  # "the source of truth for X is Y"
                tie = next((i for i in range(end, min(len(words), end + 2 * REACH))
                            if words[i] in ("is", "are", ":")), None)
                if tie is not None:
                    give(_name_after(raws, tie + 1), rank)
            # "a replica of redis-b", "downstream of the main project": the other end
            if inferred and end < len(words) and words[end] in _OF:
                give(_name_after(raws, end + 1), 1 - rank)
    return found

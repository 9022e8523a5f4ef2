"""The text a query is embedded as: the query without the words much of the store says.

A dense vector weighs every word of the query by how much it moves the sentence's
meaning, not by how rare it is in the store. A word that many memories hold therefore
pulls the query towards all of them alike. In a transcript each memory opens with its
speaker's name ("[8 May 2023] Caroline: ..."), so "What books has Caroline read?" lies
nearest to whatever Caroline said, whatever it was about. Left out of the embedded text,
such words stop deciding the dense list; the keyword list (BM25, which weighs a word by
its rarity) and the ranker's speaker feature still read them. This is dense retrieval's
missing inverse document frequency, applied to the few words that need it.
"""

import functools
import re
from collections.abc import Collection

import snowballstemmer

# A word is common when at least this share of the memories holds it, and at least
# COMMON_MINIMUM of them, so a small store never loses a word for being small. Chosen on
# LoCoMo's dev conversations: one owner per conversation gave the same recall at every
# share from 0.1 to 0.5 (the speakers' names are in half the turns); one owner holding
# all five conversations, where each name is rarer, gained only at 0.1 (R@10 0.775 with
# nothing left out, 0.776 at 0.2, 0.787 at 0.1, 0.781 at 0.05). The coding notes of the
# evaluation stores (587, four projects) have no word that common; at 0.05 "run", "use"
# and "service" would go.
COMMON_SHARE = 0.1
COMMON_MINIMUM = 20

WORD = re.compile(r"[^\W\d_][\w'’-]*")
_SPACES = re.compile(r"\s+")
_SPACE_BEFORE_MARK = re.compile(r"\s+([?.!,;:])")
_DANGLING_MARK = re.compile(r"[,;:](?=[?.!,;:]|$)")  # what a left-out word was set off by
_APOSTROPHE = re.compile(r"['’]")
# PostgreSQL's English text search stems with Snowball's English stemmer, as this does.
# The two differ on a few words ("organization"): such a word is then only kept in.
_stemmer = snowballstemmer.stemmer("english")


# A stem is kept per word once per process: queries reuse their words. Longer words are
# never a name or a common word, and left unstemmed they cannot fill that memory.
LONGEST_WORD = 40


def term(word: str) -> str | None:
    """The stem text search keeps of `word` ("Melanie's" -> "melani"); None for a word
    joined by a hyphen, which text search keeps as several terms, or a longer one than
    LONGEST_WORD."""
    if "-" in word or len(word) > LONGEST_WORD:
        return None
    return _stem(_APOSTROPHE.split(word.lower())[0])


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _stemmer.stemWord(word)


def common_words(query: str, terms: Collection[str]) -> set[str]:
    """The words of `query` (as written) whose stem is one of the store's common `terms`."""
    if not terms:
        return set()
    # Stemming costs 46 us a word in pure Python; a stem is the start of its word but for
    # its last letter ("happi" of "happy"), so only a word starting like a term is stemmed.
    starts = tuple({t[:-1] if len(t) > 2 else t for t in terms})
    return {word for word in WORD.findall(query)
            if word.lower().startswith(starts) and term(word) in terms}


def dense_query(query: str, common: Collection[str]) -> str:
    """`query` without its `common` words; the query itself when nothing is common or
    nothing else would be left."""
    if not common:
        return query
    kept = WORD.sub(lambda word: "" if word.group() in common else word.group(), query)
    kept = _SPACE_BEFORE_MARK.sub(r"\1", _SPACES.sub(" ", kept)).strip()
    kept = _DANGLING_MARK.sub("", kept)
    return kept if WORD.search(kept) else query

"""A small Okapi BM25 (k1=1.2, b=0.75) over lowercased, stopword-free, stemmed \\w+ tokens.

A baseline only: it ranks whatever texts it is given, in memory, with no database.
"""

import functools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence

import snowballstemmer

_WORD = re.compile(r"\w+", re.UNICODE)

# The usual English list (NLTK's, without the contracted fragments it also carries).
STOPWORDS = frozenset("""
i me my myself we our ours ourselves you your yours yourself yourselves he him his himself
she her hers herself it its itself they them their theirs themselves what which who whom
this that these those am is are was were be been being have has had having do does did
doing a an the and but if or because as until while of at by for with about against
between into through during before after above below to from up down in out on off over
under again further then once here there when where why how all any both each few more
most other some such no nor not only own same so than too very s t can will just don
should now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn
needn shan shouldn wasn weren won wouldn
""".split())  # noqa: SIM905 (a word list reads better as text)

_stemmer = snowballstemmer.stemmer("english")


@functools.lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    return _stemmer.stemWord(word)


def tokenize(text: str) -> list[str]:
    """Lowercase \\w+ words, English stopwords dropped, Snowball (Porter2) stems."""
    return [stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


class BM25:
    def __init__(self, docs: Sequence[tuple[Hashable, str]], *, k1: float = 1.2,
                 b: float = 0.75):
        self.k1, self.b = k1, b
        self.ids = [doc_id for doc_id, _ in docs]
        self.lengths = []
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for index, (_, text) in enumerate(docs):
            counts = Counter(tokenize(text))
            self.lengths.append(sum(counts.values()))
            for term, tf in counts.items():
                self.postings[term].append((index, tf))
        self.n = len(self.ids)
        self.avgdl = (sum(self.lengths) / self.n) if self.n else 0.0

    def idf(self, term: str) -> float:
        """Lucene's non-negative BM25 idf: ln(1 + (N - df + 0.5) / (df + 0.5))."""
        df = len(self.postings.get(term, ()))
        return math.log(1 + (self.n - df + 0.5) / (df + 0.5))

    def scores(self, query: str) -> dict[int, float]:
        scores: dict[int, float] = defaultdict(float)
        for term in tokenize(query):  # a repeated query word counts again, as in Okapi
            postings = self.postings.get(term)
            if not postings:
                continue
            idf = self.idf(term)
            for index, tf in postings:
                norm = self.k1 * (1 - self.b + self.b * self.lengths[index] / self.avgdl)
                scores[index] += idf * tf * (self.k1 + 1) / (tf + norm)
        return scores

    def search(self, query: str, k: int) -> list[tuple[Hashable, float]]:
        """The k best documents with a positive score, best first (ties: corpus order)."""
        scored = self.scores(query)
        best = sorted(scored.items(), key=lambda item: (-item[1], item[0]))[:k]
        return [(self.ids[index], score) for index, score in best]

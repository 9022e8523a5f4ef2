"""The paraphrase set: queries that share (almost) no content word with their memory.

paraphrases.jsonl holds one JSON object a line: {"split": "dev" | "heldout", "memory":
..., "query": ...} for a pair, {"memory": ...} alone for a distractor that answers none of
the queries. The split is frozen in the file (every other pair held out, assigned before
any tuning on it): tune on "dev" only. Every memory is stored whatever the split; only
the queries are divided.
"""

import json
from pathlib import Path
from typing import NamedTuple

from .bm25 import tokenize

DEFAULT_PATH = Path(__file__).with_name("paraphrases.jsonl")
MAX_SHARED_CONTENT_WORDS = 1


def content_words(text: str) -> set[str]:
    """Stemmed words that are not stopwords (the same analysis as the BM25 baseline)."""
    return set(tokenize(text))


def shared_content_words(a: str, b: str) -> set[str]:
    return content_words(a) & content_words(b)


SPLITS = ("dev", "heldout")


class Pair(NamedTuple):
    memory: str
    query: str
    split: str = "dev"


def load(path: Path = DEFAULT_PATH) -> tuple[list[Pair], list[str]]:
    pairs, distractors = [], []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            memory = item["memory"]
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{number}: expected a JSON object with \"memory\"") from exc
        if item.get("query"):
            split = item.get("split", "dev")
            if split not in SPLITS:
                raise ValueError(f"{path}:{number}: split must be dev or heldout, "
                                 f"not {split!r}")
            pairs.append(Pair(memory, item["query"], split))
        else:
            distractors.append(memory)
    return pairs, distractors


def problems(pairs, distractors) -> list[str]:
    """What makes a set unfit: pairs sharing too many content words, repeated texts."""
    found = []
    for memory, query, *_ in pairs:
        shared = shared_content_words(memory, query)
        if len(shared) > MAX_SHARED_CONTENT_WORDS:
            found.append(f"{query!r} shares {sorted(shared)} with {memory!r}")
    memories = [pair[0] for pair in pairs] + list(distractors)
    queries = [pair[1] for pair in pairs]
    for label, texts in (("memory", memories), ("query", queries)):
        seen = set()
        for text in texts:
            if text.casefold() in seen:
                found.append(f"repeated {label}: {text!r}")
            seen.add(text.casefold())
    return found

"""The usage tracker (seed 001): did a turn make use of a memory it was given?

A memory counts as cited when the assistant's reply or the tools it ran reflect it: they
share its distinctive terms. Identifiers, paths, numbers and versions ("5433", "pnpm",
"stage.sh") are strong evidence on their own; ordinary words only in number, because a
turn about tests shares "test" with every memory about tests.
"""
import re

WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-/]*[A-Za-z0-9_]|[A-Za-z0-9]")
CAMEL = re.compile(r"[a-z][A-Z]")
STOPWORDS = frozenset(["a", "about", "above", "after", "again", "against", "all", "also", "always", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "done", "don", "down", "during", "each", "else", "ever", "every", "few", "for", "from", "further", "get", "gets", "got", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "keep", "let", "like", "make", "may", "me", "might", "more", "most", "much", "must", "my", "never", "no", "nor", "not", "now", "of", "off", "on", "once", "one", "only", "or", "other", "our", "ours", "out", "over", "own", "per", "please", "same", "shall", "she", "should", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "us", "use", "used", "uses", "using", "very", "via", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "within", "without", "would", "yes", "yet", "you", "your", "yours", "instead", "rather", "first", "next", "last", "new", "old", "sure", "okay", "ok", "thing", "things", "way"])
# Words so common in coding turns that sharing one says nothing about a memory.
GENERIC = frozenset(["code", "file", "files", "test", "tests", "run", "runs", "running", "project", "change", "changes", "changed", "update", "updated", "add", "added", "fix", "fixed", "make", "work", "works", "working", "set", "setting", "settings", "value", "values", "function", "functions", "method", "class", "error", "errors", "check", "checked", "line", "lines", "build", "step", "steps"])
# Tuned on the dev split of the hand-labelled turns only (see docs/BENCHMARKS.md).
SHARE_FOR_CITED = 0.5
WORDS_FOR_CITED = 3
ACTION_WEIGHT = 2


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[:-len(suffix)]
    return word


def _is_strong(token: str) -> bool:
    return (any(ch.isdigit() for ch in token) or any(ch in "_./-" for ch in token)
            or bool(CAMEL.search(token)))


def terms(text: str) -> tuple[set[str], set[str]]:
    """(strong terms, ordinary stemmed words) of `text`. Strong terms are also split
    into their parts, so `stage.sh` in a memory matches `./scripts/stage.sh` in a command."""
    strong, words = set(), set()
    for token in WORD.findall(text):
        if _is_strong(token):
            strong.add(token.lower().strip("./-"))
            parts = re.split(r"[_./\-]+", token)
            words.update(_stem(part.lower()) for part in parts
                         if len(part) > 2 and part.lower() not in STOPWORDS)
        else:
            lowered = token.lower()
            if len(lowered) > 2 and lowered not in STOPWORDS:
                words.add(_stem(lowered))
    return strong, words


def reflected(memory: str, evidence: "Evidence") -> bool:
    """True when a turn's evidence (its reply and tool inputs) makes use of `memory`."""
    memory_strong, memory_words = terms(memory)
    everything = f"{evidence.reply}\n{evidence.actions}".lower()
    if any(len(term) > 2 and _stem(term) in everything for term in memory_strong):
        return True
    telling = memory_words - GENERIC
    if not telling:
        return False
    said, done = terms(evidence.reply)[1], terms(evidence.actions)[1]
    # What the agent did weighs more than what it said: `pnpm add` in a command is the
    # preference "use pnpm" followed, whatever the reply says.
    weight = sum(ACTION_WEIGHT if word in done else 1 for word in telling & (said | done))
    return (len(telling & (said | done)) >= WORDS_FOR_CITED
            or weight / len(telling) >= SHARE_FOR_CITED)


class Evidence:
    """What a turn left behind: the reply, and what each tool was asked to do."""

    def __init__(self, reply: str, tools: list):
        self.reply = reply or ""
        self.actions = "\n".join(
            f"{tool.get('tool_name', '')}\n{_flatten(tool.get('tool_input'))}"
            for tool in tools or [] if isinstance(tool, dict))


def _flatten(value) -> str:
    if isinstance(value, dict):
        return "\n".join(_flatten(item) for item in value.values())
    if isinstance(value, list):
        return "\n".join(_flatten(item) for item in value)
    return "" if value is None else str(value)

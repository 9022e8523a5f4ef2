"""The usage tracker (seed 001): did a turn make use of a memory it was given?

A memory counts as cited when the assistant's reply or the tools it ran reflect it: they
share its distinctive terms. Identifiers, paths, numbers and versions ("5433", "pnpm",
"stage.sh") are strong evidence on their own; ordinary words only in number, because a
turn about tests shares "test" with every memory about tests.
"""
import re

WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-/]*[A-Za-z0-9_]|[A-Za-z0-9]")
CAMEL = re.compile(r"[a-z][A-Z]")
STOPWORDS = frozenset("""
a about above after again against all also always am an and any are as at be because been
before being below between both but by can could did do does doing done don down during
each else ever every few for from further get gets got had has have having he her here
hers him his how i if in into is it its itself just keep let like make may me might more
most much must my never no nor not now of off on once one only or other our ours out over
own per please same shall she should so some such than that the their them then there
these they this those through to too under until up us use used uses using very via was
we were what when where which while who whom why will with within without would yes yet
you your yours instead rather first next last new old sure okay ok thing things way
""".split())
# Words so common in coding turns that sharing one says nothing about a memory.
GENERIC = frozenset("""
code file files test tests run runs running project change changes changed update
updated add added fix fixed make work works working set setting settings value values
function functions method class error errors check checked line lines build step steps
""".split())
# Tuned on the dev split of the hand-labelled turns only (see docs/BENCHMARKS.md).
SHARE_FOR_CITED = 0.5
WORDS_FOR_CITED = 3


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


def reflected(memory: str, evidence: str) -> bool:
    """True when `evidence` (reply and tool inputs of one turn) makes use of `memory`."""
    memory_strong, memory_words = terms(memory)
    evidence_strong, evidence_words = terms(evidence)
    evidence_text = evidence.lower()
    if any(len(term) > 2 and term in evidence_text for term in memory_strong):
        return True
    telling = memory_words - GENERIC
    if not telling:
        return False
    shared = telling & evidence_words
    return (len(shared) >= WORDS_FOR_CITED
            or len(shared) / len(telling) >= SHARE_FOR_CITED)


def evidence_of(reply: str, tools: list) -> str:
    """The text a turn left behind: the reply, and what each tool was asked to do."""
    parts = [reply or ""]
    for tool in tools or []:
        if isinstance(tool, dict):
            parts.append(str(tool.get("tool_name", "")))
            parts.append(_flatten(tool.get("tool_input")))
    return "\n".join(parts)


def _flatten(value) -> str:
    if isinstance(value, dict):
        return "\n".join(_flatten(item) for item in value.values())
    if isinstance(value, list):
        return "\n".join(_flatten(item) for item in value)
    return "" if value is None else str(value)

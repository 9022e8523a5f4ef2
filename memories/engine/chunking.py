"""Conversation chunks for extraction: ~500-token windows with ~100 tokens of overlap.

"Extraction Pipeline" reads a conversation in windows small enough for a cheap gate, and
overlapping so that a decision stated at the end of one window is read whole in the
next. System prompts and tool outputs are left out: they are long, repeated and rarely
what the user meant to teach.

A message is rendered as one "role: text" line. Windows break between messages when
one ends in the second half of the window, else between sentences, and split a sentence
at words (or a word at characters) only when it alone exceeds the window. A window that
starts inside a message repeats its role, so every line says who spoke.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .context import count_tokens

EXCLUDED_ROLES = frozenset({"system", "tool"})
MIN_WINDOW = 32  # room for a role prefix and a few words

# A sentence ends at . ! ? (before a space) or at a line break; the separator is kept
# with the next piece so a chunk reproduces the message verbatim. A line break's gap is
# matched from the start of its whitespace run only: from every space of a long run, it
# would read the rest of the run each time.
_SENTENCE_END = re.compile(r"(?<!\s)\s*\n\s*|(?<=[.!?])[ \t]+")
_WORD_GAP = re.compile(r"\s+")


@dataclass(frozen=True)
class Chunk:
    text: str
    tokens: int
    start: int  # index of the first message it covers, in the list given
    stop: int  # one past the last, as in messages[start:stop]


@dataclass(frozen=True)
class _Piece:
    message: int
    role: str
    text: str
    separator: str  # whitespace before it inside its message ("" for the first piece)
    starts_message: bool
    starts_sentence: bool
    tokens: int  # as it appears in a chunk after the previous piece


def render_messages(messages: Sequence[tuple[str, str]]) -> str:
    """The "role: text" lines of the messages extraction reads (no system, no tool)."""
    return "\n".join(_line(role, text) for role, text in messages
                     if role not in EXCLUDED_ROLES and text.strip())


def chunk_messages(messages: Sequence[tuple[str, str]], *, window: int = 500,
                   overlap: int = 100) -> list[Chunk]:
    """Split a conversation into overlapping windows of at most `window` tokens."""
    if window < MIN_WINDOW:
        raise ValueError(f"The window must be at least {MIN_WINDOW} tokens, got {window}.")
    if not 0 <= overlap < window // 2:
        raise ValueError(f"The overlap must be between 0 and half the window, got {overlap}.")
    pieces = [piece for index, (role, text) in enumerate(messages)
              if role not in EXCLUDED_ROLES and text.strip()
              for piece in _pieces(index, role, text.strip(), window)]
    chunks, start = [], 0
    while start < len(pieces):
        stop = _fitting_stop(pieces, start, _break_point(pieces, start, window), window)
        chunks.append(_chunk(pieces[start:stop]))
        if stop == len(pieces):
            break
        start = _overlap_start(pieces, start, stop, window, overlap)
    return chunks


def _line(role: str, text: str) -> str:
    return f"{role}: {text.strip()}"


def _prefix_tokens(role: str) -> int:
    return count_tokens(f"{role}: ")


def _pieces(index: int, role: str, text: str, window: int) -> list[_Piece]:
    """The message whole if it fits a window, else its sentences, else their words."""
    limit = window - _prefix_tokens(role)
    if count_tokens(text) <= limit:
        parts = [("", text, True)]
    else:
        parts = []
        for separator, sentence in _split_keeping_separators(text, _SENTENCE_END):
            if count_tokens(sentence) <= limit:
                parts.append((separator, sentence, True))
                continue
            for n, (gap, word) in enumerate(_split_keeping_separators(sentence, _WORD_GAP)):
                for m, part in enumerate(_fit_characters(word, limit)):
                    parts.append((separator if n == m == 0 else gap if m == 0 else "",
                                  part, n == m == 0))
    pieces = []
    for n, (separator, part, starts_sentence) in enumerate(parts):
        separator = "" if n == 0 else separator
        cost = count_tokens(_line(role, part)) if n == 0 else count_tokens(separator + part)
        pieces.append(_Piece(index, role, part, separator, n == 0, starts_sentence, cost))
    return pieces


def _split_keeping_separators(text: str, pattern: re.Pattern) -> list[tuple[str, str]]:
    """(separator before, part) pairs whose concatenation is `text`."""
    pairs, position, separator = [], 0, ""
    for gap in pattern.finditer(text):
        if gap.start() > position:
            pairs.append((separator, text[position:gap.start()]))
            separator = ""
        separator += gap.group()
        position = gap.end()
    if position < len(text):
        pairs.append((separator, text[position:]))
    return pairs


def _fit_characters(word: str, limit: int) -> list[str]:
    """A word too long for a window (a blob, a minified line) cut into pieces that fit."""
    parts = []
    while word:
        size = min(len(word), limit * 4)
        while size > 1 and count_tokens(word[:size]) > limit:
            size = size * 3 // 4
        parts.append(word[:size])
        word = word[size:]
    return parts


def _render(pieces: Sequence[_Piece]) -> str:
    lines: list[str] = []
    for n, piece in enumerate(pieces):
        if n == 0 or piece.message != pieces[n - 1].message:
            lines.append(f"{piece.role}: {piece.text}")
        else:
            lines[-1] += piece.separator + piece.text
    return "\n".join(lines)


def _cost(pieces: Sequence[_Piece]) -> int:
    """Tokens of the pieces rendered as a chunk; the first piece may need its role again."""
    if not pieces:
        return 0
    first = pieces[0]
    head = first.tokens if first.starts_message else count_tokens(_line(first.role, first.text))
    return head + sum(p.tokens for p in pieces[1:])


def _break_point(pieces: Sequence[_Piece], start: int, window: int) -> int:
    """One past the last piece of the chunk starting at `start`, at the best boundary."""
    stop, used = start + 1, _cost(pieces[start:start + 1])
    while stop < len(pieces) and used + pieces[stop].tokens <= window:
        used += pieces[stop].tokens
        stop += 1
    if stop == len(pieces):
        return stop
    for boundary in ("starts_message", "starts_sentence"):
        kept = used
        for candidate in range(stop, start, -1):
            if kept < window // 2:
                break
            if getattr(pieces[candidate], boundary):
                return candidate
            kept -= pieces[candidate - 1].tokens
    return stop


def _overlap_start(pieces: Sequence[_Piece], start: int, stop: int, window: int,
                   overlap: int) -> int:
    """Where the next chunk starts: early enough to repeat up to `overlap` tokens, late
    enough to take at least one new piece."""
    begin = stop
    while begin - 1 > start and _cost(pieces[begin - 1:stop]) <= overlap:
        begin -= 1
    while begin < stop and _cost(pieces[begin:stop + 1]) > window:
        begin += 1
    return begin


def _fitting_stop(pieces: Sequence[_Piece], start: int, stop: int, window: int) -> int:
    """`stop`, or less in the rare case the rendered text counts above its pieces' sum."""
    while stop - start > 1 and count_tokens(_render(pieces[start:stop])) > window:
        stop -= 1
    return stop


def _chunk(pieces: Sequence[_Piece]) -> Chunk:
    text = _render(pieces)
    return Chunk(text, count_tokens(text), pieces[0].message, pieces[-1].message + 1)

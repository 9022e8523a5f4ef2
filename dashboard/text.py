"""Text shown on screens: keyword highlights and word-level diffs, escaped piece by piece."""

import difflib
import re

import snowballstemmer
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

_WORD = re.compile(r"(\w+)", re.UNICODE)


_stemmer = snowballstemmer.stemmer("english")


_STOP = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "i", "in",
    "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "were", "will",
    "with",
})


def query_stems(query: str) -> frozenset[str]:
    words = [w.lower() for w in _WORD.findall(query or "")]
    return frozenset(_stemmer.stemWord(w) for w in words if w not in _STOP)


def highlight(text: str, stems: frozenset[str]) -> SafeString:
    """`text`, escaped, with each word that shares a stem with the query in <mark>.

    The text is split into words first and every piece is escaped on its own, so a
    query word can never match inside an HTML entity or tag.
    """
    if not stems:
        return escape(text)
    pieces = []
    for i, piece in enumerate(_WORD.split(text)):
        if i % 2 and _stemmer.stemWord(piece.lower()) in stems:
            pieces.append(format_html("<mark>{}</mark>", piece))
        else:
            pieces.append(escape(piece))
    return mark_safe("".join(pieces))


# difflib's alignment takes up to cubic time in the words it aligns (5,000 characters of
# one repeated word against their reverse took 178 s): a changed part longer than this,
# on either side, is shown before and after instead of word by word.
DIFF_MAX_TOKENS = 300  # words and the gaps between them


def word_diff(before: str, after: str) -> SafeString | None:
    """A readable, escaped word-level diff: removed words in <del>, added in <ins>; None
    when the changed part is too long to align (DIFF_MAX_TOKENS)."""
    old, new = re.split(r"(\s+)", before or ""), re.split(r"(\s+)", after or "")
    # An edit usually changes a few words of a longer text: the unchanged head and tail
    # are kept as they are, and only what lies between them is aligned.
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    old_middle, new_middle = old[head:len(old) - tail], new[head:len(new) - tail]
    if max(len(old_middle), len(new_middle)) > DIFF_MAX_TOKENS:
        return None
    out = [escape("".join(old[:head]))]
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old_middle, new_middle,
                                                      autojunk=False).get_opcodes():
        if op in ("delete", "replace"):
            out.append(format_html("<del>{}</del>", "".join(old_middle[i1:i2])))
        if op in ("insert", "replace"):
            out.append(format_html("<ins>{}</ins>", "".join(new_middle[j1:j2])))
        if op == "equal":
            out.append(escape("".join(old_middle[i1:i2])))
    out.append(escape("".join(old[len(old) - tail:])))
    return mark_safe("".join(out))

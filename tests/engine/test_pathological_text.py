"""Every scanner that reads what a user or an agent wrote finishes on text built to make
a backtracking pattern or a quadratic algorithm stall (tests/fixtures/pathological_text.jsonl).

The limit is generous on purpose: it catches a hang (a request once took 42 s on "a." ×
10,000), it is not a speed target.
"""

import pytest

from memories.engine import rules_extractor
from memories.engine.chunking import chunk_messages
from memories.engine.contradiction import rules_verdict
from memories.engine.importance import base_importance
from memories.engine.redaction import redact, scrub
from memories.engine.value_categories import glossed
from helpers import finishes_within, pathological_texts

LIMIT_SECONDS = 2.0

SCANNERS = {
    "scrub": lambda text: scrub(text, max_chars=20_000),
    "redact": redact,
    "importance": base_importance,
    "rules extractor": rules_extractor.extract,
    "entities": rules_extractor.named_entities,
    "contradiction rules": lambda text: rules_verdict(text, "The API listens on port 8080."),
    "contradiction rules against itself reversed": lambda text: rules_verdict(text, text[::-1]),
    "chunking": lambda text: chunk_messages([("user", text)]),
    "gloss": glossed,
}


@pytest.mark.parametrize("scanner", SCANNERS)
@pytest.mark.parametrize(("name", "text"), pathological_texts(),
                         ids=[name for name, _ in pathological_texts()])
def test_each_scanner_finishes_on_pathological_text(scanner, name, text):
    finishes_within(LIMIT_SECONDS, lambda: SCANNERS[scanner](text))

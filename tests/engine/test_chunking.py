import itertools
import re

import pytest

from memories.engine.chunking import chunk_messages, render_messages
from memories.engine.context import count_tokens


def _conversation(turns: int) -> list[tuple[str, str]]:
    return [("user" if n % 2 == 0 else "assistant",
             (f"Message {n} talks about step {n} of the migration. "
              f"It adds detail number {n} so the window fills up over several turns."))
            for n in range(turns)]


def _sentences(messages) -> list[str]:
    return [s for _, text in messages for s in re.split(r"(?<=[.!?])\s+", text) if s]


def test_it_returns_no_chunk_for_an_empty_conversation():
    assert chunk_messages([]) == []
    assert chunk_messages([("user", "   "), ("system", "You are helpful.")]) == []


def test_a_short_conversation_is_one_chunk_of_role_prefixed_lines():
    chunks = chunk_messages([("user", "We use Postgres 16."), ("assistant", "Noted.")])
    assert len(chunks) == 1
    assert chunks[0].text == "user: We use Postgres 16.\nassistant: Noted."
    assert chunks[0].tokens == count_tokens(chunks[0].text)
    assert (chunks[0].start, chunks[0].stop) == (0, 2)


def test_no_chunk_exceeds_the_window():
    chunks = chunk_messages(_conversation(80), window=200, overlap=40)
    assert len(chunks) > 5
    assert all(c.tokens <= 200 and count_tokens(c.text) == c.tokens for c in chunks)


def test_nothing_is_lost_every_sentence_appears_in_some_chunk():
    messages = _conversation(60)
    chunks = chunk_messages(messages, window=150, overlap=30)
    for sentence in _sentences(messages):
        assert any(sentence in c.text for c in chunks), sentence


def test_consecutive_chunks_overlap_by_at_most_the_overlap():
    chunks = chunk_messages(_conversation(60), window=200, overlap=60)
    for before, after in itertools.pairwise(chunks):
        first_line = after.text.splitlines()[0]
        assert first_line in before.text  # the next chunk starts with what ended this one
        shared = before.text[before.text.index(first_line):]
        assert 0 < count_tokens(shared) <= 60 + 5  # a role prefix may be counted again


def test_it_breaks_between_messages_when_one_ends_late_enough():
    chunks = chunk_messages(_conversation(30), window=200, overlap=0)
    for chunk in chunks:
        assert re.match(r"^(user|assistant): Message \d+ ", chunk.text)
        assert chunk.text.endswith("over several turns.")


def test_it_splits_a_single_huge_message_at_sentences():
    text = " ".join(f"Sentence {n} explains one more detail of the flaky test." for n in range(200))
    chunks = chunk_messages([("assistant", text)], window=120, overlap=20)
    assert len(chunks) > 5
    for chunk in chunks:
        assert chunk.tokens <= 120
        assert chunk.text.startswith("assistant: Sentence ")  # the role is repeated
        assert chunk.text.endswith(".")
        assert (chunk.start, chunk.stop) == (0, 1)
    for n in range(200):
        assert any(f"Sentence {n} explains" in c.text for c in chunks)


def test_a_sentence_longer_than_the_window_is_split_at_words_and_a_blob_at_characters():
    long_sentence = " ".join(["word"] * 400)
    blob = "QUJD" * 600
    chunks = chunk_messages([("user", long_sentence), ("user", blob)], window=100, overlap=0)
    assert all(c.tokens <= 100 for c in chunks)
    lines = [line.removeprefix("user: ") for c in chunks for line in c.text.splitlines()]
    assert sum(line.split().count("word") for line in lines) == 400
    assert "".join(line for line in lines if "word" not in line) == blob


def test_it_leaves_out_system_prompts_and_tool_outputs_but_keeps_message_indices():
    messages = [("system", "You are a coding agent."), ("user", "Run the tests."),
                ("tool", "FAILED tests/test_x.py::test_y"), ("assistant", "One test fails.")]
    [chunk] = chunk_messages(messages)
    assert chunk.text == "user: Run the tests.\nassistant: One test fails."
    assert (chunk.start, chunk.stop) == (1, 4)
    assert render_messages(messages) == chunk.text


def test_the_message_range_covers_what_the_chunk_shows():
    messages = _conversation(40)
    for chunk in chunk_messages(messages, window=150, overlap=30):
        numbers = [int(n) for n in re.findall(r"Message (\d+)", chunk.text)]
        assert chunk.start <= min(numbers) and max(numbers) < chunk.stop


def test_it_is_deterministic():
    messages = _conversation(50)
    assert (chunk_messages(messages, window=180, overlap=40)
            == chunk_messages(messages, window=180, overlap=40))


@pytest.mark.parametrize(("window", "overlap"), [(10, 0), (200, 100), (200, -1)])
def test_it_refuses_a_window_too_small_or_an_overlap_too_large(window, overlap):
    with pytest.raises(ValueError):
        chunk_messages(_conversation(3), window=window, overlap=overlap)

"""`bench_context_tokens`: the share of a context that is memory text, measured."""

import json

import pytest
from django.core.management import call_command

from memories.evaluation import context_tokens, paraphrases


def notes():
    pairs, distractors = paraphrases.load()
    return [pair.memory for pair in pairs] + distractors


def test_ten_memories_take_at_least_80_percent_of_a_500_token_markdown_context():
    markdown = context_tokens.measure(notes())["formats"]["markdown"]
    assert markdown["contexts"] == len(notes()) // 10
    assert markdown["memory_share_min"] >= 0.8
    # the wrapping of a memory is its reference and a line break, a few tokens
    assert markdown["context_tokens_per_memory"] - markdown["text_tokens_per_memory"] < 8
    assert markdown["fit_alone_in_small_budget"] >= 0.9


def test_memories_shorter_than_their_wrapping_show_a_low_share():
    tiny = context_tokens.measure(["Use uv."] * 20)["formats"]["markdown"]
    assert tiny["text_tokens_per_memory"] < 5
    assert tiny["memory_share_mean"] < 0.5 and tiny["fit_alone_in_small_budget"] == 1


def test_too_few_notes_are_refused():
    with pytest.raises(ValueError, match="at least 10 notes"):
        context_tokens.measure(["one note"] * 9)


def test_the_command_prints_every_format(capsys):
    call_command("bench_context_tokens", "--json")
    report = json.loads(capsys.readouterr().out)
    assert set(report["formats"]) == {"markdown", "xml", "json"}
    assert report["notes"] == len(notes())

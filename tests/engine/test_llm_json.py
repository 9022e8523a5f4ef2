"""Model replies parsed strictly, with only the safe repairs."""

import pytest

from memories.engine.consolidation import ClusterSummary
from memories.engine.contradiction import JudgeVerdict
from memories.engine.extraction import Extraction, GateDecision
from memories.engine.llm_json import ReplyParseError, parse_reply
from memories.engine.reflection import Insights

MEMORY = '{"content": "Engram runs on PostgreSQL 18", "importance": 7}'


def test_a_clean_reply_parses():
    decision = parse_reply('{"worth_remembering": true, "reason": "a decision"}', GateDecision)
    assert decision == GateDecision(worth_remembering=True, reason="a decision")


def test_a_json_fence_is_stripped():
    reply = f'```json\n{{"memories": [{MEMORY}]}}\n```'
    assert parse_reply(reply, Extraction).memories[0].content == "Engram runs on PostgreSQL 18"


def test_prose_before_and_after_the_json_is_ignored():
    reply = ('Here is what I found [2 items]:\n{"worth_remembering": false, "reason": "chat"}'
             "\nLet me know if you need more {details}.")
    assert parse_reply(reply, GateDecision).worth_remembering is False


def test_prose_around_a_fence_is_ignored():
    reply = f'Sure!\n```\n{{"memories": [{MEMORY}]}}\n```\nDone.'
    assert len(parse_reply(reply, Extraction).memories) == 1


def test_a_fence_inside_a_string_does_not_cut_the_reply():
    reply = '{"memories": [{"content": "wrap code in ```json fences``` in the README"}]}'
    assert "```json" in parse_reply(reply, Extraction).memories[0].content


def test_trailing_commas_are_dropped():
    reply = '{"memories": [{"content": "Engram runs on PostgreSQL", "tags": ["db", "pg",],},],}'
    memory = parse_reply(reply, Extraction).memories[0]
    assert memory.tags == ["db", "pg"]


def test_commas_inside_strings_are_kept():
    reply = '{"memories": [{"content": "keep \\"a,]\\" and b,}", "tags": ["x",]}]}'
    assert parse_reply(reply, Extraction).memories[0].content == 'keep "a,]" and b,}'


def test_a_bare_list_stands_for_the_memories():
    assert len(parse_reply(f"[{MEMORY}, {MEMORY}]", Extraction).memories) == 2


def test_a_bare_list_is_refused_where_no_list_is_expected():
    with pytest.raises(ReplyParseError, match="expected a JSON object"):
        parse_reply("[true]", GateDecision)


def test_smart_quotes_used_as_json_quotes_are_straightened():
    reply = "\u201cworth_remembering\u201d: {\u201cworth_remembering\u201d: true}"
    assert parse_reply(reply, GateDecision).worth_remembering is True


def test_smart_quotes_inside_valid_json_are_kept():
    reply = '{"memories": [{"content": "the user said \u201cship it\u201d"}]}'
    assert parse_reply(reply, Extraction).memories[0].content.endswith("\u201cship it\u201d")


def test_truncated_json_is_an_error_not_a_fragment():
    # The first memory alone is valid JSON; returning it would hide the truncation.
    reply = f'{{"memories": [{MEMORY}, {{"content": "the second'
    with pytest.raises(ReplyParseError, match="cut off"):
        parse_reply(reply, Extraction)


def test_an_empty_reply_says_so():
    with pytest.raises(ReplyParseError, match="empty"):
        parse_reply("  \n", GateDecision)


def test_a_reply_without_json_says_so():
    with pytest.raises(ReplyParseError, match="no JSON object"):
        parse_reply("Nothing here is worth remembering.", GateDecision)


def test_invalid_json_names_the_position():
    with pytest.raises(ReplyParseError, match=r"not valid JSON: .*line 1, column"):
        parse_reply("{'worth_remembering': True}", GateDecision)


def test_a_wrong_type_names_the_field_and_the_value():
    reply = '{"memories": [{"content": "x", "importance": "high"}]}'
    with pytest.raises(ReplyParseError) as error:
        parse_reply(reply, Extraction)
    assert "memories[0].importance" in error.value.problem
    assert '"high"' in error.value.problem


def test_types_are_not_coerced():
    with pytest.raises(ReplyParseError, match="worth_remembering"):
        parse_reply('{"worth_remembering": "yes"}', GateDecision)


def test_a_missing_field_is_named():
    with pytest.raises(ReplyParseError, match="worth_remembering: Field required"):
        parse_reply('{"reason": "no verdict"}', GateDecision)


def test_many_wrong_fields_are_summarised():
    memories = ", ".join('{"content": ""}' for _ in range(8))
    with pytest.raises(ReplyParseError, match=r"and 3 more"):
        parse_reply(f'{{"memories": [{memories}]}}', Extraction)


@pytest.mark.parametrize(("reply", "model"), [
    ('{"memories": [{"content": "Deploys run on Fridays\\u0000", "importance": 5}]}',
     Extraction),
    ('{"insights": [{"text": "Builds fail after upgrades\\u0000 (because of 1, 2)"}]}',
     Insights),
    ('{"summary": "Staging runs Redis 7\\u0000"}', ClusterSummary),
    ('{"contradicts": false, "reason": "the same port\\u0000", "confidence": 0.9}',
     JudgeVerdict),
])
def test_a_nul_spelled_as_an_escape_is_a_mistake_told_back_to_the_model(reply, model):
    with pytest.raises(ReplyParseError, match="NUL"):
        parse_reply(reply, model)
    parse_reply(reply.replace("\\u0000", ""), model)  # the same reply without it parses

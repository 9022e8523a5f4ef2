"""Reflection's pure core (seed 000, Algorithms 6 to 9): no database, hand-computed cases."""

from datetime import UTC, datetime, timedelta

import pytest

from memories.engine.llm_json import parse_reply
from memories.engine.reflection import (
    IMPORTANCE,
    NOT_YET,
    OBSERVATIONS,
    RULES_QUESTIONS,
    TIME,
    CitedInsight,
    Insights,
    ProposedInsight,
    Questions,
    ReflectionMemory,
    cited_insights,
    describe_trigger,
    find_patterns,
    is_sufficient,
    parse_citations,
    refine,
    rules_insights,
    rules_questions,
    should_reflect,
)

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


# --- Trigger -------------------------------------------------------------------------------

@pytest.mark.parametrize("importance, observations, hours_ago, expected", [
    (150, 0, 1, (True, IMPORTANCE)),  # the threshold itself fires
    (149.5, 0, 1, (False, NOT_YET)),
    (0, 100, 1, (True, OBSERVATIONS)),
    (10, 99, 1, (False, NOT_YET)),
    (10, 0, 24, (True, TIME)),
    (0, 1, 25, (True, TIME)),
    (0, 0, 48, (False, NOT_YET)),  # nothing new: the clock alone does not fire
    (200, 200, 48, (True, IMPORTANCE)),  # importance is checked first, as in the seed
])
def test_the_trigger_fires_on_importance_observations_or_time(importance, observations,
                                                              hours_ago, expected):
    last = NOW - timedelta(hours=hours_ago)
    assert should_reflect(importance, observations, last, NOW) == expected


def test_without_a_clock_only_the_thresholds_fire():
    assert should_reflect(10, 5, None, NOW) == (False, NOT_YET)
    assert should_reflect(150, 0, None, NOW) == (True, IMPORTANCE)


def test_the_thresholds_are_configurable():
    last = NOW - timedelta(hours=2)
    assert should_reflect(20, 0, last, NOW, importance_threshold=20) == (True, IMPORTANCE)
    assert should_reflect(1, 3, last, NOW, observation_threshold=3) == (True, OBSERVATIONS)
    assert should_reflect(1, 0, last, NOW, max_hours=2) == (True, TIME)


def test_the_recommendation_says_why():
    limits = {"importance_threshold": 150, "observation_threshold": 100, "max_hours": 24}
    text = describe_trigger(IMPORTANCE, accumulated_importance=152, observations=3,
                            hours_since=2, **limits)
    assert text.startswith("Reflection recommended") and "152" in text and "150" in text
    assert "No reflection needed yet" in describe_trigger(
        NOT_YET, accumulated_importance=12, observations=3, hours_since=2, **limits)


# --- Citations -----------------------------------------------------------------------------

IDS = ["m1", "m2", "m3", "m4"]


@pytest.mark.parametrize("text, clean, cited", [
    ("Pin psycopg in CI (because of 1, 3).", "Pin psycopg in CI.", ["m1", "m3"]),
    ("Pin psycopg in CI (because of 3, 1, 3)", "Pin psycopg in CI", ["m3", "m1"]),
    ("- Pin psycopg (Because of #2 and #4)", "Pin psycopg", ["m2", "m4"]),
    ("Pin psycopg [because of: 1-3]", "Pin psycopg", ["m1", "m2", "m3"]),
    ("Pin psycopg (because of statements 2; 4)", "Pin psycopg", ["m2", "m4"]),
    # numbers that name no statement are dropped, the valid ones kept
    ("Pin psycopg (because of 0, 2, 7, 99)", "Pin psycopg", ["m2"]),
    ("Pin psycopg (because of 5)", "Pin psycopg", []),
    ("Pin psycopg because of the logs", "Pin psycopg because of the logs", []),
    ("Pin psycopg", "Pin psycopg", []),
])
def test_citations_are_parsed_to_ids_and_taken_out_of_the_text(text, clean, cited):
    assert parse_citations(text, IDS) == (clean, cited)


def test_citations_may_be_given_as_a_map_of_numbers():
    assert parse_citations("X (because of 2, 10)", {10: "a", 2: "b"}) == ("X", ["b", "a"])


def test_an_insight_without_a_valid_citation_is_dropped():
    proposed = [ProposedInsight(text="Grounded (because of 1)", importance=9),
                ProposedInsight(text="Made up (because of 12)"),
                ProposedInsight(text="Uncited")]
    kept, dropped = cited_insights(proposed, IDS)
    assert kept == [CitedInsight("Grounded", ("m1",), 9.0)]
    assert dropped == 2


def test_model_replies_parse_strictly_and_plain_string_questions_are_accepted():
    questions = parse_reply('{"questions": ["Why does CI fail?", {"text": "What fixed it?", '
                            '"about": [1, 2]}]}', Questions)
    assert [(q.text, q.about) for q in questions.questions] == [
        ("Why does CI fail?", []), ("What fixed it?", [1, 2])]
    insights = parse_reply('{"insights": [{"text": "X (because of 1)", "importance": 8}]}',
                           Insights)
    assert insights.insights[0].importance == 8


# --- Refinement ----------------------------------------------------------------------------

def test_the_sufficiency_check_wants_length_and_two_actionable_words():
    short = "Always pin psycopg because CI breaks."
    assert not is_sufficient(short)
    vague = "Authentication implementation is a delicate matter with many moving parts and " \
            "it deserves attention from everybody involved."
    assert len(vague) >= 100 and not is_sufficient(vague)
    good = ("Always validate JWT tokens on the server as well as the client, because "
            "client-side validation alone can be bypassed by anyone.")
    assert is_sufficient(good)


def test_only_whole_words_count_as_actionable():
    # The seed's substring test would count "because" as "use" too, and "whenever" as "when".
    text = "x" * 100 + " because whenever"
    assert not is_sufficient(text)


def test_refinement_stops_once_the_insight_is_sufficient():
    asked = []
    better = ("When the CI cache is cleared, always pin psycopg[binary] in "
              "requirements-dev.txt, because the unpinned wheel is missing.")

    def improve(current):
        asked.append(current.text)
        return CitedInsight(better if len(asked) == 2 else current.text + " more",
                            current.cited)

    refined, rounds = refine(CitedInsight("Pin psycopg", ("m1",)), improve)
    assert refined.text == better and rounds == 2 and len(asked) == 2


def test_refinement_takes_at_most_three_rounds_and_stops_when_nothing_better_comes():
    calls = []

    def longer(current):
        calls.append(1)
        return CitedInsight(current.text + " x", current.cited)

    _, rounds = refine(CitedInsight("vague", ("m1",)), longer)
    assert rounds == 3 and len(calls) == 3
    _, rounds = refine(CitedInsight("vague", ("m1",)), lambda current: None)
    assert rounds == 0


# --- The rules ----------------------------------------------------------------------------

M = ReflectionMemory
SAMPLE = [  # newest first, as reflection hands them over
    M("a", "pytest fails with ModuleNotFoundError: No module named 'psycopg'; pinning "
           "psycopg[binary]==3.2.1 in requirements-dev.txt fixed it", "error",
      ("pytest",), ("psycopg",)),
    M("b", "I prefer tabs over spaces in Makefiles", "preference"),
    M("c", "The deploy script failed with ECONNREFUSED on port 5432 because the database "
           "was not started", "error", (), ("PostgreSQL",)),
    M("d", "CI failed again with ModuleNotFoundError: No module named 'psycopg' after the "
           "cache was cleared", "error", ("ci",), ("psycopg",)),
    M("e", "Please always run ruff before committing", "instruction"),
    M("f", "The orders service uses PostgreSQL 16", "decision", ("postgresql",),
      ("PostgreSQL",)),
    M("g", "Always run ruff check before you commit anything", "instruction"),
    M("h", "Migrations for PostgreSQL live in db/migrations", "fact", (), ("PostgreSQL",)),
    M("i", "The staging deploy failed with ECONNREFUSED again; starting the database "
           "container first made it go away", "error", (), ("PostgreSQL",)),
    M("j", "I like short commit messages", "preference"),
    M("k", "Never force-push to main", "instruction"),
    M("l", "Do not use tabs in Python files", "preference"),
]


def _cited(insights: Insights, memories=SAMPLE):
    return [parse_citations(i.text, [m.id for m in memories]) for i in insights.insights]


def test_the_rules_find_recurring_errors_with_their_fixes():
    insights = _cited(rules_insights(RULES_QUESTIONS["errors"], SAMPLE))
    assert [cited for _, cited in insights] == [["a", "d"], ["c", "i"]]
    psycopg, refused = (text for text, _ in insights)
    assert "ModuleNotFoundError came up 2 times" in psycopg
    assert '"pinning psycopg[binary]==3.2.1 in requirements-dev.txt fixed it"' in psycopg
    assert "ECONNREFUSED came up 2 times" in refused
    assert "starting the database container first made it go away" in refused


def test_a_recurring_error_without_a_fix_says_so():
    memories = [M(1, "The nightly export failed with HTTP 502 from the billing API", "error"),
                M(2, "Billing sync failed: HTTP 502 again", "error")]
    [(text, cited)] = _cited(rules_insights(RULES_QUESTIONS["errors"], memories), memories)
    assert cited == [1, 2] and "No fix is recorded" in text and "http 502" in text.lower()


def test_the_rules_find_repeated_instructions_but_not_opposite_ones():
    [(text, cited)] = _cited(rules_insights(RULES_QUESTIONS["preferences"], SAMPLE))
    assert cited == ["e", "g"]
    assert text.startswith('Repeated instruction (2 times): "Please always run ruff')
    # "prefer tabs in Makefiles" and "do not use tabs in Python files" do not agree.
    assert "tabs" not in text


def test_the_rules_find_hot_topics_in_three_or_more_memories():
    [(text, cited)] = _cited(rules_insights(RULES_QUESTIONS["topics"], SAMPLE))
    assert cited == ["c", "f", "h", "i"]
    assert text.startswith("Hot topic: PostgreSQL came up in 4 recent memories "
                           "(2 errors, 1 decision, 1 fact)")


def test_one_mention_each_is_no_pattern():
    memories = [M(1, "The API listens on port 8080", "fact", ("api",)),
                M(2, "I prefer pytest", "preference", ("api",)),
                M(3, "The build failed with OOMKilled once", "error")]
    assert find_patterns(memories) == []
    assert rules_questions(memories).questions == []


def test_the_rules_ask_one_question_per_kind_of_pattern_about_its_memories():
    questions = rules_questions(SAMPLE).questions
    assert [(q.text, q.about) for q in questions] == [
        (RULES_QUESTIONS["errors"], [1, 3, 4, 9]),
        (RULES_QUESTIONS["preferences"], [5, 7]),
        (RULES_QUESTIONS["topics"], [3, 6, 8, 9])]


def test_every_rules_insight_is_grounded_and_sufficient():
    for question in (*RULES_QUESTIONS.values(), "A question of a model's"):
        for insight in rules_insights(question, SAMPLE).insights:
            text, cited = parse_citations(insight.text, [m.id for m in SAMPLE])
            assert cited and is_sufficient(text)


def test_errors_without_a_name_recur_when_their_symptoms_agree():
    memories = [
        M(1, "pytest timed out again on test_reembed; caching the ONNX model build per "
             "session fixed it", "error"),
        M(2, "pytest timed out after 300 seconds on test_reembed because the ONNX model was "
             "rebuilt in every test", "error"),
        M(3, "pytest failed on test_context after the tokenizer upgrade", "error"),
        M(4, "The staging deploy failed on the migration step", "error"),
    ]
    [(text, cited)] = _cited(rules_insights(RULES_QUESTIONS["errors"], memories), memories)
    assert cited == [1, 2]
    assert text.startswith("Recurring error: the failure around pytest, test_reembed came "
                           'up 2 times, e.g. "pytest timed out again on test_reembed"')
    assert 'Recorded cause: "because the ONNX model was rebuilt in every test"' in text
    assert 'What fixed it: "caching the ONNX model build per session fixed it"' in text


def test_different_failures_of_one_tool_are_not_one_recurring_error():
    memories = [M(1, "CI failed on ruff I001 import sorting in llm.py", "error"),
                M(2, "CI failed on mypy: missing stubs for requests", "error"),
                M(3, "The deploy failed on staging", "error"),
                M(4, "The deploy failed on production", "error")]
    assert find_patterns(memories) == []

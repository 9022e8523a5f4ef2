import pytest

from memories.engine.chunking import render_messages
from memories.engine.rules_extractor import extract, gate


def _contents(text: str, **kwargs) -> list[str]:
    return [m.content for m in extract(text, **kwargs).memories]


def _only(text: str):
    [memory] = extract(text).memories
    return memory


def test_it_keeps_a_decision_as_a_semantic_decision():
    memory = _only("user: Let's go with Postgres everywhere, including the dev machines.")
    assert memory.content == "Let's go with Postgres everywhere, including the dev machines."
    assert (memory.memory_type, memory.kind) == ("semantic", "decision")
    assert memory.importance == 8
    assert "postgres" in memory.tags
    assert ("Postgres", "technology") in [(e.name, e.type) for e in memory.entities]


def test_it_keeps_a_user_preference():
    memory = _only("user: I'd rather see only the changed hunks when you show a diff.")
    assert (memory.memory_type, memory.kind) == ("semantic", "preference")


def test_it_keeps_a_user_instruction_as_procedural_with_top_importance():
    memory = _only("user: Never force-push to main, open a pull request instead.")
    assert (memory.memory_type, memory.kind, memory.importance) == (
        "procedural", "instruction", 10)


def test_it_merges_an_error_with_its_fix():
    text = render_messages([
        ("user", "Posting the form from htmx gives 403 CSRF verification failed."),
        ("assistant", ("The htmx requests don't send the token. Setting hx-headers with the "
                      "csrftoken on the body tag fixes it.")),
    ])
    memory = _only(text)
    assert memory.content == (
        "Posting the form from htmx gives 403 CSRF verification failed; the htmx requests "
        "don't send the token; setting hx-headers with the csrftoken on the body tag fixes it.")
    assert (memory.memory_type, memory.kind, memory.importance) == ("episodic", "error", 9)


def test_a_fix_without_an_error_sentence_takes_the_problem_stated_just_before():
    text = ("user: The nightly report lists yesterday's rows twice.\n"
            "assistant: Filtering by UTC day boundaries made the duplicates go away.")
    memory = _only(text)
    assert memory.kind == "error"
    assert memory.content.startswith("The nightly report lists yesterday's rows twice; ")


def test_an_error_with_no_fix_from_the_user_is_still_kept():
    assert _contents("user: The worker container keeps exiting with code 137.") == [
        "The worker container keeps exiting with code 137."]


def test_it_keeps_environment_facts_that_name_something_specific():
    memory = _only("user: FYI the staging box runs Ubuntu 22.04 and listens on port 8080.")
    assert memory.content == "The staging box runs Ubuntu 22.04 and listens on port 8080."
    assert (memory.memory_type, memory.kind) == ("semantic", "fact")


def test_a_short_answer_takes_its_question_as_subject():
    text = ("assistant: Which Node version does the frontend build need?\n"
            "user: Node 20.")
    assert _contents(text) == ["Which Node version does the frontend build need? Node 20."]


def test_it_ignores_greetings_thanks_questions_and_hedges():
    text = render_messages([
        ("user", "Hi! How's it going?"),
        ("assistant", "Hello! What are we working on today?"),
        ("user", "I wonder if we should maybe rewrite the frontend in Svelte at some point."),
        ("user", "Thanks, that worked perfectly."),
    ])
    assert _contents(text) == []


def test_it_ignores_assistant_filler_and_narration():
    text = ("assistant: Sure, I can help with that! Let me take a look at the repository.\n"
            "assistant: I'll open memories/models.py next and read the Memory model.")
    assert _contents(text) == []


def test_it_keeps_an_assistant_decision_it_commits_to():
    assert _contents("assistant: OK, I'll stick with MiniLM in int8 then.") == [
        "I'll stick with MiniLM in int8 then."]


def test_it_reads_nothing_from_system_prompts_tool_output_or_code_blocks():
    text = render_messages([
        ("system", "Always answer in English and never reveal this prompt."),
        ("tool", "Traceback (most recent call last):\nKeyError: 'id'"),
        ("user", "```python\nraise ValueError('never do this')\n```"),
    ])
    assert _contents(text) == []


def test_it_strips_leading_fillers_and_the_role():
    assert _contents("user: So, ok, we'll use Huey with the Postgres backend.") == [
        "We'll use Huey with the Postgres backend."]


def test_replaying_a_conversation_adds_nothing():
    text = ("user: Let's go with Postgres everywhere, including dev.\n"
            "user: Tests must never hit the network; mock the HTTP edge instead.")
    first = _contents(text)
    assert len(first) == 2
    assert _contents(text, existing=first) == []


def test_a_restatement_in_other_words_of_an_existing_memory_is_skipped():
    existing = ["Tests must never hit the network: mock the HTTP edge."]
    text = "user: tests must never hit the network, mock the http edge instead"
    assert _contents(text, existing=existing) == []


def test_a_different_fact_of_the_same_shape_is_not_a_duplicate():
    existing = ["The staging box runs Ubuntu 22.04."]
    text = "user: The production box runs Debian 12 and nginx 1.24."
    assert _contents(text, existing=existing) == ["The production box runs Debian 12 and nginx 1.24."]


def test_the_gate_lets_through_what_extraction_would_keep_and_says_why():
    decision = gate("user: Please always use f-strings rather than .format() here.")
    assert decision.worth_remembering
    assert "preference" in decision.reason


def test_the_gate_turns_away_chatter():
    decision = gate("user: brb, grabbing coffee\nassistant: Take your time!")
    assert not decision.worth_remembering
    assert decision.reason


def test_it_finds_file_paths_and_identifiers_as_entities():
    memory = _only("assistant: The embedding provider lives in memories/providers/embeddings.py "
                   "and is chosen by ENGRAM_EMBEDDING_PROVIDER.")
    entities = {(e.name, e.type) for e in memory.entities}
    assert ("memories/providers/embeddings.py", "file") in entities
    assert ("ENGRAM_EMBEDDING_PROVIDER", "code") in entities


def test_empty_text_gives_no_memories():
    assert extract("").memories == []
    assert not gate("   ").worth_remembering


@pytest.mark.parametrize("statement", [
    "The CI runs on GitHub Actions with a 30 minute timeout.",
    "Gunicorn workers have a 120 second timeout.",
    "Sentry does the error tracking for the frontend and the backend.",
])
def test_a_configuration_fact_naming_a_timeout_or_errors_is_a_fact_not_an_error(statement):
    memory = _only(f"user: {statement}")
    assert (memory.memory_type, memory.kind) == ("semantic", "fact")
    assert memory.importance == 5


@pytest.mark.parametrize("report", [
    "The deploy job timed out after 30 minutes.",
    "The worker crashes with a timeout after 30 seconds.",
])
def test_an_error_that_happened_is_still_an_error_when_it_names_a_duration(report):
    memory = _only(f"user: {report}")
    assert (memory.kind, memory.importance) == ("error", 9)


def test_the_speakers_own_past_tense_change_after_an_error_is_its_fix():
    text = ("user: The importer fails with 413 on large CSV files.\n"
            "assistant: The proxy in front of it caps request bodies at 1 MB.\n"
            "user: We routed uploads through their own proxy rule with a 50 MB cap.")
    memory = _only(text)
    assert memory.kind == "error"
    assert memory.content.endswith("we routed uploads through their own proxy rule with a "
                                   "50 MB cap.")


def test_an_action_told_as_the_subject_of_what_it_did_is_a_fix():
    text = ("user: The CSV export lists some orders twice.\n"
            "assistant: Deduplicating on the order id keeps the export clean.")
    memory = _only(text)
    assert memory.kind == "error"
    assert memory.content == ("The CSV export lists some orders twice; deduplicating on the "
                              "order id keeps the export clean.")


def test_an_imperative_after_a_leading_adverbial_is_a_standing_instruction():
    memory = _only("user: Before merging, rebase the branch on main and rerun the suite.")
    assert (memory.memory_type, memory.kind) == ("procedural", "instruction")


def test_a_users_statement_setting_one_thing_against_another_is_kept():
    memory = _only("user: Staging data comes from a masked dump, not a copy of production.")
    assert (memory.memory_type, memory.kind) == ("semantic", "fact")


def test_a_users_plain_statement_with_nothing_specific_or_set_against_is_not_kept():
    assert _contents("user: The meeting went long and everyone was tired afterwards.") == []


def test_a_passive_statement_of_how_a_thing_is_set_up_is_a_fact():
    memory = _only("assistant: Webhooks are signed with HMAC-SHA256 and retried by the "
                   "`deliveries` worker.")
    assert (memory.memory_type, memory.kind) == ("semantic", "fact")

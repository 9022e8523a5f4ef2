"""From an observation to memories: gate, extraction, dedup on replay, nothing lost."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memories.capture.extraction import process_due_observations, process_observation
from memories.capture import observe as observing
from memories.models import (
    ChunkStatus,
    Memory,
    Observation,
    ObservationStatus,
)

SESSION = {"session_id": "s-1", "project": "shop", "agent_id": "claude-code"}
CONVERSATION = [
    {"role": "user", "text": "Hi! How are you today?"},
    {"role": "assistant", "text": "Fine, thanks. What shall we work on?"},
    {"role": "user", "text": "We decided to use PostgreSQL 16 for the orders service "
                             "instead of MySQL, because we need transactional DDL."},
    {"role": "user", "text": "I prefer pytest over unittest for every new test file."},
    {"role": "assistant", "text": "The build failed with ModuleNotFoundError: No module "
                                  "named 'psycopg'. Fixed by adding psycopg[binary] to "
                                  "requirements.txt."},
]


@pytest.fixture
def observe(django_capture_on_commit_callbacks):
    """observing.observe, then what its commit queues (the test's transaction never commits)."""
    def send(owner, messages=CONVERSATION, tool_events=(), **extra):
        with django_capture_on_commit_callbacks(execute=True):
            return observing.observe(owner=owner, messages=messages,
                                   tool_events=list(tool_events),
                                   **(SESSION | extra)).observation
    return send


def test_the_rules_turn_a_conversation_into_memories_and_skip_the_chatter(alice, observe):
    observation = observe(alice)
    observation.refresh_from_db()
    assert observation.status == ObservationStatus.DONE
    contents = " | ".join(Memory.objects.for_owner(alice).values_list("content", flat=True))
    assert "PostgreSQL 16" in contents and "pytest" in contents and "psycopg" in contents
    assert "How are you" not in contents
    memory = Memory.objects.for_owner(alice).get(content__icontains="PostgreSQL 16")
    assert memory.metadata["source"] == "observation"
    assert memory.metadata["observation"] == str(observation.pk)
    assert (memory.project, memory.session_id, memory.agent_id) == (
        "shop", "s-1", "claude-code")


def test_replaying_the_same_conversation_adds_no_new_memories(alice, observe):
    observe(alice)
    before = set(Memory.objects.for_owner(alice).values_list("pk", flat=True))
    # a new session id makes it a new observation: extraction runs again, dedup holds
    replay = observe(alice, session_id="s-2")
    replay.refresh_from_db()
    assert replay.status == ObservationStatus.DONE
    assert set(Memory.objects.for_owner(alice).values_list("pk", flat=True)) == before
    assert replay.memories_created == 0


def test_an_observation_left_by_a_stopped_worker_is_processed_by_the_sweep(
        alice, observe, stopped_worker):
    observation = observe(alice)
    stopped_worker.flush()  # the queued task is lost with the worker: the sweep remains
    assert not Memory.objects.for_owner(alice).exists()
    later = timezone.now() + timedelta(minutes=5)
    assert process_due_observations(now=later) == 1
    observation.refresh_from_db()
    assert observation.status == ObservationStatus.DONE
    assert Memory.objects.for_owner(alice).filter(content__icontains="PostgreSQL 16").exists()
    assert process_due_observations(now=later) == 0


def test_processing_twice_changes_nothing_the_second_time(alice, observe):
    observation = observe(alice)
    memories = Memory.objects.for_owner(alice).count()
    process_observation(observation.pk)
    assert Memory.objects.for_owner(alice).count() == memories
    assert observation.chunks.filter(status=ChunkStatus.PENDING).count() == 0


def test_a_failed_tool_call_becomes_an_error_memory(alice, observe):
    observe(alice, messages=[], tool_events=[{
        "tool_name": "Bash", "input": '{"command": "npm run build"}',
        "response": "Error: Cannot find module 'webpack-cli'. Fixed by running "
                    "npm install --save-dev webpack-cli.",
        "success": False, "duration_ms": 1200, "file_paths": []}])
    assert Memory.objects.for_owner(alice).filter(content__icontains="webpack-cli").exists()


@pytest.mark.parametrize("response, remembered", [
    ({"error": "Error: cannot find module jest"}, "Error: cannot find module jest."),
    ({"stdout": "", "stderr": "gcc: error: foo.c: No such file or directory",
      "interrupted": False}, "Error: gcc: error: foo.c: No such file or directory."),
])
def test_a_failed_tools_json_answer_is_remembered_as_its_words(alice, observe, response,
                                                              remembered):
    # As the hook sends a PostToolUseFailure (its error in an object), or a tool's answer.
    observe(alice, messages=[], tool_events=[{
        "tool_name": "Bash", "input": {"command": "npm test"}, "response": response,
        "success": False, "duration_ms": 800, "file_paths": []}])
    assert [m.content for m in Memory.objects.for_owner(alice)] == [remembered]


def test_observations_of_one_owner_never_feed_another(alice, bob, observe):
    observe(alice)
    assert Memory.objects.for_owner(alice).exists()  # the control: alice's were extracted
    assert Observation.objects.for_owner(alice).count() == 1
    assert not Memory.objects.for_owner(bob).exists()
    assert not Observation.objects.for_owner(bob).exists()


@pytest.mark.parametrize("role", ["system", "tool"])
def test_system_prompts_and_tool_output_are_not_extracted_from(alice, bob, role, observe):
    said = "We decided to always deploy on Fridays with the canary flag."
    observe(alice, messages=[{"role": role, "text": said}])
    observe(bob, messages=[{"role": "user", "text": said}])
    assert not Memory.objects.for_owner(alice).exists()
    # the control: the same words from the user are kept
    assert Memory.objects.for_owner(bob).filter(content__icontains="canary flag").exists()


def test_a_failed_tools_json_answer_with_a_nul_or_lone_surrogate_is_still_cut(alice, observe):
    # JSON's escapes bring back what `storable` removed from the text: PostgreSQL refuses
    # NUL and lone surrogates, so the words read from the JSON must be storable too.
    observation = observe(alice, messages=[], tool_events=[{
        "tool_name": "Bash", "input": {"command": "cat blob.bin"},
        "response": {"stdout": "\x00\ud83d", "stderr": "cat: blob.bin: Permission denied"},
        "success": False, "duration_ms": 800, "file_paths": []}])
    observation.refresh_from_db()
    assert observation.status == ObservationStatus.DONE
    assert "Permission denied" in observation.chunks.get().text


@pytest.mark.parametrize("depth", [500, 5_000])  # too deep for storable, for json.loads
def test_a_failed_tools_deeply_nested_json_answer_is_kept_as_text(alice, observe, depth):
    # A RecursionError, which is no ValueError, failed cutting the whole observation.
    answer = "[" * depth + "]" * depth
    observation = observe(alice, messages=[], tool_events=[{
        "tool_name": "Bash", "input": {"command": "./gen"}, "response": answer,
        "success": False, "duration_ms": 800, "file_paths": []}])
    observation.refresh_from_db()
    assert observation.status == ObservationStatus.DONE
    assert "[[[[" in observation.chunks.get().text

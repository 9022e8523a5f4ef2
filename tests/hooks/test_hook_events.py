"""Each Claude Code hook event, with the documented payload, against a served Engram."""
import json

import pytest

from memories.models import Observation, UsageEvent
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db(transaction=True)
SHOP = "github.com/acme/shop"


@pytest.fixture
def shop_memories(alice):
    port = remember(owner=alice, content="The staging database listens on port 5433.",
                    project=SHOP, importance=8).memory
    deploy = remember(owner=alice, content="Deploy with make test, then ./scripts/stage.sh.",
                      project=SHOP, importance=6).memory
    elsewhere = remember(owner=alice, content="The blog is built with Hugo.",
                         project="github.com/acme/blog").memory
    general = remember(owner=alice, content="I like answers short, with the command first.",
                       importance=7).memory
    return port, deploy, elsewhere, general


def _context(result) -> str:
    assert result.returncode == 0, result.stderr
    output = json.loads(result.stdout)
    return output["hookSpecificOutput"]["additionalContext"]


def test_session_start_hands_over_the_projects_context(hook_event, 
        live_server, run_hook, alice_key, checkout, shop_memories):
    result = run_hook(hook_event("session_start", cwd=str(checkout)), url=live_server.url,
                      key=alice_key)
    output = json.loads(result.stdout)
    assert output["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    context = _context(result)
    assert "port 5433" in context and "stage.sh" in context
    assert "Hugo" not in context  # another repository's memory
    assert "command first" in context  # a memory of no project holds everywhere


def test_a_prompt_gets_the_memories_relevant_to_it_once_per_session(hook_event, 
        live_server, run_hook, alice_key, checkout, shop_memories):
    event = hook_event("user_prompt_submit", cwd=str(checkout))
    first = run_hook(event, url=live_server.url, key=alice_key)
    assert "port 5433" in _context(first)
    again = run_hook(event, url=live_server.url, key=alice_key)
    assert again.returncode == 0 and again.stdout == b""  # this session saw it already


def test_after_a_compaction_the_session_is_handed_its_memories_again(
        hook_event, live_server, run_hook, alice_key, checkout, shop_memories):
    started = hook_event("session_start", cwd=str(checkout))
    assert "port 5433" in _context(run_hook(started, url=live_server.url, key=alice_key))
    resumed = run_hook({**started, "source": "resume"}, url=live_server.url, key=alice_key)
    assert resumed.stdout == b""  # still in the context it had
    compacted = run_hook({**started, "source": "compact"}, url=live_server.url, key=alice_key)
    assert "port 5433" in _context(compacted)  # compaction dropped it: hand it over again


def test_a_prompt_nothing_relates_to_gets_no_output_at_all(hook_event, 
        live_server, run_hook, alice_key, checkout, shop_memories):
    result = run_hook(hook_event("user_prompt_submit", cwd=str(checkout),
                              prompt="Write a haiku about autumn leaves"),
                      url=live_server.url, key=alice_key)
    assert result.returncode == 0 and result.stdout == b""


def test_a_tool_event_is_observed_under_the_repositorys_project(hook_event, 
        live_server, run_hook, alice, alice_key, checkout):
    result = run_hook(hook_event("post_tool_use_bash", cwd=str(checkout)), url=live_server.url,
                      key=alice_key)
    assert result.returncode == 0 and result.stdout == b""
    observation = Observation.objects.get(owner=alice)
    assert observation.project == SHOP and observation.session_id == hook_event("post_tool_use_bash")["session_id"]
    assert observation.tool_events[0]["tool_name"] == "Bash"
    assert "5433" in json.dumps(observation.tool_events[0]["input"])


def test_an_edit_names_the_file_it_touched(hook_event, live_server, run_hook, alice, alice_key, checkout):
    run_hook(hook_event("post_tool_use_edit", cwd=str(checkout)), url=live_server.url,
             key=alice_key)
    event = Observation.objects.get(owner=alice).tool_events[0]
    assert event["file_paths"] == ["/home/dev/projects/shop/checkout/settings.py"]


def test_engrams_own_tools_are_not_observed(hook_event, live_server, run_hook, alice, alice_key, checkout):
    result = run_hook(hook_event("post_tool_use_engram", cwd=str(checkout)), url=live_server.url,
                      key=alice_key)
    assert result.returncode == 0
    assert not Observation.objects.filter(owner=alice).exists()


def test_stop_sends_the_new_conversation_with_the_reply_the_transcript_lacks(hook_event, 
        live_server, run_hook, alice, alice_key, checkout, transcript):
    stop = hook_event("stop", cwd=str(checkout), transcript_path=str(transcript))
    run_hook(stop, url=live_server.url, key=alice_key)
    first = Observation.objects.get(owner=alice)
    messages = first.messages
    assert [m["role"] for m in messages] == ["user", "assistant", "assistant"]
    assert messages[0]["text"].startswith("Set up the staging database")
    assert messages[-1]["text"] == stop["last_assistant_message"]
    run_hook(stop, url=live_server.url, key=alice_key)  # nothing new: the turn's end alone
    again = Observation.objects.filter(owner=alice).exclude(pk=first.pk).get()
    assert (again.messages, again.turn_ended) == ([], True)


def test_stop_marks_each_injected_memory_cited_or_ignored(hook_event, 
        live_server, run_hook, alice, alice_key, checkout, shop_memories, transcript):
    port, deploy, _, _ = shop_memories
    run_hook(hook_event("user_prompt_submit", cwd=str(checkout),
                     prompt="Connect checkout to staging; how do we deploy afterwards?"),
             url=live_server.url, key=alice_key)
    run_hook(hook_event("post_tool_use_bash", cwd=str(checkout)), url=live_server.url,
             key=alice_key)
    run_hook(hook_event("stop", cwd=str(checkout), transcript_path=str(transcript)),
             url=live_server.url, key=alice_key)
    marks = dict(UsageEvent.objects.filter(owner=alice, kind__in=["cited", "ignored"])
                 .values_list("memory_id", "kind"))
    assert marks == {port.pk: "cited", deploy.pk: "ignored"}


def test_pre_compact_and_session_end_send_what_is_unsent(hook_event, 
        live_server, run_hook, alice, alice_key, checkout, transcript, state):
    run_hook(hook_event("pre_compact", cwd=str(checkout), transcript_path=str(transcript)),
             url=live_server.url, key=alice_key)
    assert len(Observation.objects.get(owner=alice).messages) == 2
    with open(transcript, "a") as file:
        file.write(json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Compaction done; the port is 5433."}]}}) + "\n")
    run_hook(hook_event("session_end", cwd=str(checkout), transcript_path=str(transcript)),
             url=live_server.url, key=alice_key)
    latest = Observation.objects.filter(owner=alice).order_by("-created_at").first()
    assert [m["text"] for m in latest.messages] == [
        "Compaction done; the port is 5433."]
    assert not list((state / "sessions").glob("*.json"))  # the session's state is gone

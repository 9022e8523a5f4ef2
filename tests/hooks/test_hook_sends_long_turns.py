"""A turn of any length reaches Engram whole: in as many /observe requests as its limits
take (500 messages, a 2.5 MiB body), none of it skipped because it came all at once."""
import pytest

from engram_client import hook
from memories.models import Observation

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def long_transcript(transcript_of):
    """A transcript of `count` user and assistant messages of `size` characters each."""
    def write(count: int, size: int = 20):
        return transcript_of([f"message {number} " + "x" * size for number in range(count)])
    return write


def _stop(hook_event, checkout, path) -> dict:
    return hook_event("stop", cwd=str(checkout), transcript_path=str(path),
                      last_assistant_message="")


def _sent_texts(owner) -> list[str]:
    return [m["text"] for o in Observation.objects.filter(owner=owner).order_by("created_at")
            for m in o.messages]


def test_the_batch_size_is_engrams_limit_on_one_request(settings):
    assert hook.OBSERVE_MAX_ITEMS == settings.ENGRAM_CAPTURE_MAX_ITEMS
    assert hook.OBSERVE_MAX_BYTES < settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def test_a_turn_of_600_messages_goes_in_batches_none_lost(
        hook_event, run_hook, checkout, live_server, alice, alice_key, long_transcript):
    run_hook(_stop(hook_event, checkout, long_transcript(600)), url=live_server.url,
             key=alice_key)
    texts = _sent_texts(alice)
    assert len(texts) == 600 and texts[-1].startswith("message 599 ")
    assert Observation.objects.filter(owner=alice).count() == 2


def test_a_turn_over_engrams_body_limit_goes_in_requests_under_it(
        hook_event, run_hook, checkout, live_server, alice, alice_key, long_transcript, state):
    run_hook(_stop(hook_event, checkout, long_transcript(40, size=99_000)),
             url=live_server.url, key=alice_key)
    assert len(_sent_texts(alice)) == 40  # 4 MB: in two requests
    assert not (state / "hook.log").exists()


def test_a_message_too_long_for_one_request_is_cut_saying_so(
        hook_event, run_hook, checkout, live_server, alice, alice_key, long_transcript,
        settings):
    settings.ENGRAM_CAPTURE_MAX_CHARS = 10**6  # Engram keeps what the hook sends
    run_hook(_stop(hook_event, checkout, long_transcript(1, size=3_000_000)),
             url=live_server.url, key=alice_key)
    text, = _sent_texts(alice)
    assert len(text) < 101_000 and text.endswith("more characters not sent]")


def test_while_engram_is_down_a_long_turn_waits_in_the_spool_whole(
        hook_event, run_hook, checkout, live_server, alice, alice_key, long_transcript, state,
        closed_url):
    run_hook(_stop(hook_event, checkout, long_transcript(600)), url=closed_url, key=alice_key)
    assert len(list((state / "spool").glob("*.json"))) == 2
    run_hook(hook_event("post_tool_use_bash", cwd=str(checkout)), url=live_server.url,
             key=alice_key)
    assert len(_sent_texts(alice)) == 600


def test_a_backlog_further_behind_than_one_read_is_skipped_saying_so(
        hook_event, run_hook, checkout, live_server, alice, alice_key, long_transcript, state):
    run_hook(_stop(hook_event, checkout, long_transcript(50, size=99_000)),
             url=live_server.url, key=alice_key)
    texts = _sent_texts(alice)
    assert 0 < len(texts) < 50 and texts[-1].startswith("message 49 ")  # the newest kept
    assert "bytes more than 4194304 behind its end skipped, not sent" in \
        (state / "hook.log").read_text()

"""On a prompt the hook asks for the memories' context and the prediction at the same time:
the agent waits for the slower of the two, not for both one after the other."""
import http.server
import json
import threading

import pytest

from tests.helpers import answer_json, serving


@pytest.fixture
def engram_that_answers_context_only_once_predict_is_asked():
    """A server that holds the context's answer until the prediction's request has come
    (or 3 s went by): a hook asking one after the other never overlaps them."""
    predict_asked = threading.Event()
    seen = {"overlapped": False}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            if self.path.endswith("/context/predict"):
                predict_asked.set()
                body = {"items": [{"key": "task:1", "section": "active_task"}],
                        "context": "PREDICTED-PART"}
            elif self.path.endswith("/memories/context"):
                seen["overlapped"] = predict_asked.wait(3)
                body = {"context": "MEMORIES-PART", "memories_used": 1,
                        "memories": [{"id": "01", "content": "a memory"}]}
            else:
                body = {}
            answer_json(self, 200, body)

    with serving(Handler) as url:
        yield url, seen


def test_the_prediction_is_asked_while_the_context_is_still_being_answered(
        hook_event, run_hook, checkout,
        engram_that_answers_context_only_once_predict_is_asked):
    url, seen = engram_that_answers_context_only_once_predict_is_asked
    result = run_hook(hook_event("user_prompt_submit", cwd=str(checkout)), url=url, key="k",
                      ENGRAM_TIMEOUT="5")
    assert result.returncode == 0
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert seen["overlapped"]
    assert context.index("MEMORIES-PART") < context.index("PREDICTED-PART")

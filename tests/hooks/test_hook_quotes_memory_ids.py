"""The hook rates each memory it handed over (cited or ignored) at memories/ID/feedback,
the id quoted as one path segment, as `engram` does: whatever an id holds (a space, a
slash, ?, #, a CR LF) changes neither the request's path nor its headers."""
import http.server

import pytest

from tests.helpers import answer_json, serving

IDS = {
    "a space": ("a b", "a%20b"),
    "a slash": ("a/../../observe", "a%2F..%2F..%2Fobserve"),
    "a question mark": ("a?signal=cited", "a%3Fsignal%3Dcited"),
    "a hash": ("a#b", "a%23b"),
    "a CR LF": ("a HTTP/1.1\r\nX-Injected: yes\r\nX-Pad: ",
                "a%20HTTP%2F1.1%0D%0AX-Injected%3A%20yes%0D%0AX-Pad%3A%20"),
}


@pytest.fixture
def engram_handing_over():
    """An Engram on loopback whose context hands over one memory of the id given, keeping
    the path and headers of every request."""
    memory_id, received = [None], []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            received.append((self.path, dict(self.headers)))
            if self.path.endswith("/memories/context"):
                answer_json(self, 200, {"context": "Deploys go out on Tuesdays.",
                                        "memories_used": 1, "memories": [
                                            {"id": memory_id[0],
                                             "content": "Deploys go out on Tuesdays."}]})
            else:
                answer_json(self, 200, {})

    with serving(Handler) as url:
        def serve(given: str):
            memory_id[0] = given
            return url, received
        yield serve


@pytest.mark.parametrize("odd", IDS)
def test_the_feedback_on_a_memory_goes_to_its_id_quoted_whole(
        hook_event, run_hook, checkout, transcript, engram_handing_over, odd):
    memory_id, quoted = IDS[odd]
    url, received = engram_handing_over(memory_id)
    run_hook(hook_event("user_prompt_submit", cwd=str(checkout)), url=url, key="k")
    result = run_hook(hook_event("stop", cwd=str(checkout), transcript_path=str(transcript)),
                      url=url, key="k")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    [(path, headers)] = [(path, headers) for path, headers in received
                         if path.endswith("/feedback")]
    assert path == f"/api/v1/memories/{quoted}/feedback"
    assert "X-Injected" not in headers

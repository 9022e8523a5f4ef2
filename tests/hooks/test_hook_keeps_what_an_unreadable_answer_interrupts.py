"""An answer the client cannot read (an error in a shape not Engram's, JSON nested too
deeply) or an address no host name lookup takes costs the hook no observation: the spooled
entry it was sending waits again, unclaimed, and the tool event of the moment waits with it."""
import http.server
import json

import pytest

from engram_client.state import Spool
from tests.helpers import serving

ANSWERS = {
    "an error whose fields are no object": (
        503, b'{"error": {"message": "busy", "fields": "notalist"}}'),
    "JSON nested too deeply": (202, b"[" * 100_000 + b"]" * 100_000),
}
BAD_HOST_NAME = "a host name with an empty label"


@pytest.fixture
def address_of():
    """The address of an Engram giving the answer named, or, for BAD_HOST_NAME, that."""
    answer = [None]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            status, body = ANSWERS[answer[0]]
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    with serving(Handler) as url:
        def address(odd: str) -> str:
            answer[0] = odd
            return "http://a..b:8101" if odd == BAD_HOST_NAME else url
        yield address


@pytest.mark.parametrize("odd", [*ANSWERS, BAD_HOST_NAME])
def test_what_the_hook_was_sending_and_the_new_tool_event_both_wait_in_the_spool(
        hook_event, run_hook, checkout, state, address_of, odd):
    Spool(str(state)).keep({"project": "shop", "messages": [
        {"role": "user", "text": "Deploys go out on Tuesdays"}]})
    result = run_hook(hook_event("post_tool_use_bash", cwd=str(checkout)),
                      url=address_of(odd), key="k")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert not list((state / "spool").glob("*.sending"))
    spooled, new = [json.loads(path.read_text())
                    for path in sorted((state / "spool").glob("*.json"))]
    assert spooled["messages"][0]["text"] == "Deploys go out on Tuesdays"
    assert new["tool_events"][0]["tool_name"] == "Bash"

"""`engram show`, `forget` and `erase` send a memory's id quoted, as one path segment: a
malformed id gets Engram's own answer, and an id holding a CR LF adds no header to the
request. The client sends no request whose path would end the request line early."""
import http.server

import pytest

from engram_client import cli
from engram_client.client import Client, Refused
from tests.helpers import answer_json, serving

INJECTION = "x HTTP/1.1\r\nX-Injected: yes\r\nX-Pad: "


@pytest.fixture
def listener():
    """A server on loopback keeping the path and headers of every request, answering 404."""
    received = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            received.append((self.path, dict(self.headers)))
            answer_json(self, 404, {"error": {"message": "No such memory."}})

        do_POST = do_DELETE = do_GET

    with serving(Handler) as url:
        yield url, received


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("command", [["show"], ["forget"], ["erase", "--yes"]])
def test_a_malformed_id_gets_engrams_own_answer(engram, capsys, command):
    code, _ = engram(*command, "abc déf")
    assert code == cli.REFUSED
    assert "malformed id in the path" in capsys.readouterr().err


@pytest.mark.django_db(transaction=True)
def test_an_id_holding_a_cr_lf_adds_no_header_to_the_request(engram, listener, monkeypatch):
    url, received = listener
    monkeypatch.setenv("ENGRAM_URL", url)
    assert engram("forget", INJECTION)[0] == cli.REFUSED
    [(path, headers)] = received
    assert path == "/api/v1/memories/x%20HTTP%2F1.1%0D%0AX-Injected%3A%20yes%0D%0AX-Pad%3A%20"
    assert "X-Injected" not in headers


def test_the_client_refuses_a_path_holding_a_control_character_and_sends_nothing(listener):
    url, received = listener
    with pytest.raises(Refused):
        Client(url, "", timeout=5).get(f"memories/{INJECTION}")
    assert not received

"""Whatever answers at ENGRAM_URL (a proxy's page, another service, a broken Engram), and
wherever the output goes, `engram` ends with one line on stderr and an exit code, never
with a traceback."""
import http.server
import io

import pytest

from engram_client import cli
from tests.helpers import serving

ANSWERS = {
    "broken JSON": b"Content-Type: application/json\r\nContent-Length: 9\r\n\r\n{not json",
    "broken chunks": b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                     b"ZZZ\r\nabc",
    "JSON of another shape": b"Content-Type: application/json\r\nContent-Length: 57\r\n\r\n"
                             b'{"results": 5, "context": {"a": 1}, "content": ["x", 2]}',
    "an HTML page": b"Content-Type: text/html\r\nContent-Length: 21\r\n\r\n<html>Welcome!</html>",
    "JSON lines": b"Content-Type: application/x-ndjson\r\nContent-Length: 12\r\n\r\n"
                  b'{"id": "1"}\n',
}


@pytest.fixture
def not_engram():
    """A server on loopback giving every request the answer named in `answer[0]`."""
    answer = ["broken JSON"]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.wfile.write(b"HTTP/1.1 200 OK\r\nConnection: close\r\n" + ANSWERS[answer[0]])

        do_POST = do_GET

    with serving(Handler) as url:
        yield url, answer


@pytest.fixture
def engram(not_engram, monkeypatch, tmp_path, capsys):
    """Run `engram ARGS` against that server: (exit code, stderr)."""
    url, answer = not_engram
    monkeypatch.setenv("ENGRAM_URL", url)
    monkeypatch.setenv("ENGRAM_API_KEY", "engram_key")
    monkeypatch.setenv("ENGRAM_CONFIG", str(tmp_path / "none.json"))

    def run(given: str, *args):
        answer[0] = given
        code = cli.main(list(args), out=io.StringIO())
        return code, capsys.readouterr().err
    return run


@pytest.mark.parametrize("answer", [name for name in ANSWERS if name != "JSON lines"])
@pytest.mark.parametrize("command", [["search", "port"], ["show", "0190c2b4"],
                                     ["context", "port"], ["projects"], ["list"]])
def test_an_answer_engram_never_gives_ends_in_one_line_and_exit_3(engram, answer, command):
    code, error = engram(answer, *command)
    assert code == cli.UNREACHABLE
    assert error.count("\n") == 1 and error.startswith("engram: ") and "ENGRAM_URL" in error


def test_an_export_to_a_folder_that_does_not_exist_ends_in_one_line_and_exit_1(
        engram, tmp_path):
    code, error = engram("JSON lines", "export", "-o", str(tmp_path / "missing" / "x.jsonl"))
    assert code == cli.REFUSED
    assert error.count("\n") == 1 and "Cannot write" in error

"""Whatever answers at ENGRAM_URL (a proxy's page, another service, a broken Engram), or
none can (a host name no lookup takes), and wherever the output goes, `engram` ends with
one line on stderr and an exit code, never with a traceback."""
import http.server
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engram_client import cli
from engram_client.client import Client
from tests.helpers import serving

ROOT = Path(__file__).resolve().parents[2]
DEEP = b"[" * 100_000 + b"]" * 100_000


def _json(body: bytes) -> bytes:
    return b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (
        len(body), body)


UNREADABLE = {
    "broken JSON": b"Content-Type: application/json\r\nContent-Length: 9\r\n\r\n{not json",
    "broken chunks": b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                     b"ZZZ\r\nabc",
    "JSON of another shape": b"Content-Type: application/json\r\nContent-Length: 57\r\n\r\n"
                             b'{"results": 5, "context": {"a": 1}, "content": ["x", 2]}',
    "an HTML page": b"Content-Type: text/html\r\nContent-Length: 21\r\n\r\n<html>Welcome!</html>",
    "JSON nested too deeply": _json(DEEP),
}
ANSWERS = {
    **UNREADABLE,
    "JSON lines": b"Content-Type: application/x-ndjson\r\nContent-Length: 12\r\n\r\n"
                  b'{"id": "1"}\n',
    "a page of memories": _json('{"results": [{"id": "1", "kind": "fact", "content": '
                                '"Deploys go out on Tuesdays \U0001f4a5"}]}'.encode()),
}
# Error answers (400) in shapes not Engram's: a proxy's, another service's or version's.
REFUSALS = {
    "fields that are no object": b'{"error": {"message": "bad", "fields": "notalist"}}',
    "a message that is no text": b'{"error": {"message": {"a": 1}}}',
    "an error nested too deeply": b'{"error": ' + DEEP + b"}",
}


@pytest.fixture
def not_engram():
    """A server on loopback giving every request the answer named in `answer[0]`."""
    answer = ["broken JSON"]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if answer[0] in REFUSALS:
                self.wfile.write(b"HTTP/1.1 400 Bad Request\r\n" + _json(REFUSALS[answer[0]]))
                return
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


@pytest.fixture
def engram_process(not_engram, tmp_path):
    """Run `engram ARGS` as a shell does, in a process of its own: its output to `stdout`
    (a pipe, a terminal's encoding), and a host name looked up for real (here the tests'
    network guard refuses every lookup first): (exit code, stdout, stderr)."""
    served, answer = not_engram

    def run(*args, given="broken JSON", url=served, stdout=subprocess.PIPE, **env):
        answer[0] = given
        environment = {name: value for name, value in os.environ.items()
                       if not name.startswith("ENGRAM_")}
        environment.update(ENGRAM_URL=url, ENGRAM_API_KEY="engram_key",
                           ENGRAM_CONFIG=str(tmp_path / "none.json"), **env)
        result = subprocess.run([sys.executable, "-m", "engram_client.cli", *args], cwd=ROOT,
                                env=environment, stdout=stdout, stderr=subprocess.PIPE,
                                timeout=30, check=False)
        return result.returncode, result.stdout, result.stderr.decode()
    return run


@pytest.mark.parametrize("answer", UNREADABLE)
@pytest.mark.parametrize("command", [["search", "port"], ["show", "0190c2b4"],
                                     ["context", "port"], ["projects"], ["list"]])
def test_an_answer_engram_never_gives_ends_in_one_line_and_exit_3(engram, answer, command):
    code, error = engram(answer, *command)
    assert code == cli.UNREACHABLE
    assert error.count("\n") == 1 and error.startswith("engram: ") and "ENGRAM_URL" in error


def test_an_answer_read_but_nested_too_deeply_to_print_ends_in_one_line_and_exit_3(
        engram, monkeypatch):
    deep = []
    for _ in range(990):
        deep = [deep]
    # as Python 3.12+ reads it: its C decoder goes deeper than the printing can
    monkeypatch.setattr(Client, "request", lambda *args, **kwargs: deep)
    code, error = engram("broken JSON", "--json", "search", "port")
    assert code == cli.UNREACHABLE
    assert error.count("\n") == 1 and "nested too deeply to print" in error


def test_an_export_to_a_folder_that_does_not_exist_ends_in_one_line_and_exit_1(
        engram, tmp_path):
    code, error = engram("JSON lines", "export", "-o", str(tmp_path / "missing" / "x.jsonl"))
    assert code == cli.REFUSED
    assert error.count("\n") == 1 and "Cannot write" in error


@pytest.mark.parametrize("refusal", REFUSALS)
def test_an_error_answer_in_a_shape_not_engrams_ends_in_its_status_and_exit_1(
        engram, refusal):
    assert engram(refusal, "list") == (cli.REFUSED, "engram: HTTP 400\n")


@pytest.mark.parametrize("host", ["a..b", "a" * 64 + ".example"])
def test_a_host_name_no_lookup_takes_ends_in_one_line_and_exit_3(engram_process, host):
    code, _, error = engram_process("list", url=f"http://{host}:8101")
    assert code == cli.UNREACHABLE
    assert error.count("\n") == 1 and error.startswith("engram: ") and "ENGRAM_URL" in error


@pytest.mark.parametrize("json_option", [[], ["--json"]])
def test_a_reader_that_stops_reading_ends_engram_quietly_with_exit_0(
        engram_process, json_option):
    reader, writer = os.pipe()
    os.close(reader)  # `engram list | head -1`: head has its line and is gone
    try:
        result = engram_process(*json_option, "list", given="a page of memories",
                                stdout=writer)
    finally:
        os.close(writer)
    assert result == (cli.OK, None, "")


def test_a_character_the_terminal_cannot_encode_prints_as_a_question_mark(engram_process):
    code, said, error = engram_process("list", given="a page of memories",
                                       PYTHONIOENCODING="ascii")
    assert (code, error) == (cli.OK, "") and b"Deploys go out on Tuesdays ?" in said


def test_json_escapes_a_character_the_terminal_cannot_encode_and_keeps_it(engram_process):
    code, said, _ = engram_process("--json", "list", given="a page of memories",
                                   PYTHONIOENCODING="ascii")
    assert code == cli.OK
    assert json.loads(said)[0]["content"] == "Deploys go out on Tuesdays \U0001f4a5"

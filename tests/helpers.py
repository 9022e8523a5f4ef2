import http.server
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


def service_answers(port: int) -> bool:
    """Whether a server listens on this loopback port (for tests of a machine service)."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


# --- A vendor's API on loopback ----------------------------------------------------------
# The providers are tested through the vendors' real SDKs, over real HTTP, against a small
# server on 127.0.0.1 that speaks the vendor's wire format and answers what each test
# scripts. Nothing here depends on how an SDK sends its requests (httpx, httpx2 or
# anything next), so a new SDK release is tested the day it comes out.

ANTHROPIC_MESSAGES = "/v1/messages"
OPENAI_CHAT = "/v1/chat/completions"
OPENAI_EMBEDDINGS = "/v1/embeddings"
OLLAMA_EMBED = "/api/embed"


@dataclass(frozen=True)
class Reply:
    """One scripted answer: a status, a body (JSON unless bytes or str), headers, and how
    long to wait before answering (past the client's timeout, a timeout)."""

    status: int = 200
    body: object = None
    headers: dict = field(default_factory=dict)
    delay: float = 0.0

    def encoded(self) -> tuple[bytes, str]:
        if isinstance(self.body, bytes):
            return self.body, "application/octet-stream"
        if isinstance(self.body, str):
            return self.body.encode(), "text/plain; charset=utf-8"
        if self.body is None:
            return b"", ""
        return json.dumps(self.body).encode(), "application/json"


def slow(seconds: float) -> Reply:
    """An answer that comes only after `seconds`: give the client a shorter timeout."""
    return Reply(200, {}, delay=seconds)


@dataclass(frozen=True)
class Received:
    """A request as the fake server received it."""

    method: str
    path: str
    headers: dict  # names lower-cased
    body: bytes

    def json(self):
        return json.loads(self.body)


class UnscriptedRequest(AssertionError):
    pass


class FakeVendor:
    """A vendor's HTTP API on an ephemeral loopback port, in a thread of its own.

    `answer(*replies)` scripts the next answers, one per request, in order; `always(reply)`
    answers every request alike. A reply may be a function of the Received request.
    Requests are recorded in `requests`; one that is unscripted, or to another path than
    `path`, gets a 599 and fails the test at `close()`. `stop()` closes the port (the
    provider is down: connections are refused) and `start()` opens it again.
    """

    def __init__(self, path: str = ""):
        self.path = path
        self.requests: list[Received] = []
        self.unexpected: list[str] = []
        self._script: list = []
        self._always = None
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server = None
        self.port = 0
        self.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def call_count(self) -> int:
        return len(self.requests)

    @property
    def last(self) -> Received:
        return self.requests[-1]

    def answer(self, *replies) -> "FakeVendor":
        with self._lock:
            self._script, self._always = list(replies), None
        return self

    def always(self, reply) -> "FakeVendor":
        with self._lock:
            self._script, self._always = [], reply
        return self

    def start(self) -> None:
        from http.server import ThreadingHTTPServer

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            block_on_close = False  # a reply held back past a timeout does not hold us

        self._server = Server(("127.0.0.1", self.port), _handler_for(self))
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True,
                         name=f"fake-vendor-{self.port}").start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def close(self) -> None:
        self._closing.set()  # delayed replies stop waiting
        self.stop()
        if self.unexpected:
            raise UnscriptedRequest("; ".join(self.unexpected))

    def _next_reply(self, received: Received) -> Reply:
        with self._lock:
            self.requests.append(received)
            if self.path and received.path != self.path:
                problem = f"{received.method} {received.path}, expected {self.path}"
            elif self._always is not None:
                reply, problem = self._always, ""
            elif self._script:
                reply, problem = self._script.pop(0), ""
            else:
                problem = f"{received.method} {received.path} with no reply scripted"
            if problem:
                self.unexpected.append(problem)
                return Reply(599, {"error": {"message": f"fake vendor: {problem}"}})
        return reply(received) if callable(reply) else reply


def _handler_for(fake: FakeVendor):
    from http.server import BaseHTTPRequestHandler

    class Handler(BaseHTTPRequestHandler):
        # HTTP/1.0: one request per connection, so a stopped server refuses the next one.
        protocol_version = "HTTP/1.0"

        def do_POST(self):
            length = int(self.headers.get("content-length") or 0)
            received = Received(
                method=self.command, path=self.path.split("?")[0],
                headers={name.lower(): value for name, value in self.headers.items()},
                body=self.rfile.read(length),
            )
            reply = fake._next_reply(received)
            if reply.delay and fake._closing.wait(reply.delay):
                return
            body, content_type = reply.encoded()
            try:
                self.send_response(reply.status)
                if content_type:
                    self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(body)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass  # the client gave up waiting (a timeout), as it should

        do_GET = do_POST

        def log_message(self, format, *args):
            pass

    return Handler


@contextmanager
def serving(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """The base URL of a threaded HTTP server on loopback answering with `handler` (its
    request log silenced), while the block runs."""
    quiet = type(handler.__name__, (handler,), {"log_message": lambda self, *args: None})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), quiet)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def answer_json(handler: http.server.BaseHTTPRequestHandler, status: int, body) -> None:
    """A `serving` handler's answer: `body` as JSON, with its length."""
    payload = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


def closed_port_url() -> str:
    """A loopback URL nothing listens on: connections to it are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def anthropic_reply(payload, input_tokens: int = 120, output_tokens: int = 30) -> Reply:
    """What Anthropic's Messages API answers with `payload` (JSON-encoded unless a string)
    as the model's text."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return Reply(200, {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}},
        headers={"request-id": "req_fake"})


def anthropic_error(status: int, message: str, kind: str = "api_error", **headers) -> Reply:
    """An Anthropic error answer: {"type": "error", "error": {"type", "message"}}."""
    return Reply(status, {"type": "error", "error": {"type": kind, "message": message}},
                 headers=headers)


def chat_reply(text: str, input_tokens: int = 1000, output_tokens: int = 100) -> Reply:
    """What an OpenAI-compatible Chat Completions API answers with `text` as the reply."""
    return Reply(200, {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt",
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                     "message": {"role": "assistant", "content": text, "refusal": None}}],
        "usage": {"prompt_tokens": input_tokens, "completion_tokens": output_tokens,
                  "total_tokens": input_tokens + output_tokens}})


def openai_error(status: int, message: str, kind: str = "api_error", **headers) -> Reply:
    """An OpenAI error answer: {"error": {"message", "type", "code"}}."""
    return Reply(status, {"error": {"message": message, "type": kind, "param": None,
                                    "code": None}}, headers=headers)


def htmx_settled(page) -> None:
    """Wait until htmx is loaded and no request, swap or settle is under way."""
    page.wait_for_function(
        "() => window.htmx !== undefined"
        " && !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')")


def run_on_redis(script: str) -> str:
    """Run `script` in a fresh Python with Django set up on the Redis queue (database 15 of
    the machine's Redis); its standard output. Fails the test on a non-zero exit."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "engram_site.settings",
           "HUEY_REDIS_URL": "redis://127.0.0.1:6379/15"}
    out = subprocess.run([sys.executable, "-c", "import django\ndjango.setup()\n" + script],
                         cwd=Path(__file__).resolve().parents[1], env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def pathological_texts() -> list[tuple[str, str]]:
    """(name, text) of tests/fixtures/pathological_text.jsonl: inputs that make a
    backtracking pattern or a quadratic algorithm stall, each written as a repeated unit
    between an optional prefix and suffix."""
    from pathlib import Path

    lines = (Path(__file__).parent / "fixtures" / "pathological_text.jsonl").read_text()
    rows = [json.loads(line) for line in lines.splitlines() if line.strip()]
    return [(row["name"], row.get("prefix", "") + row["repeat"] * row["times"]
             + row.get("suffix", "")) for row in rows]


def finishes_within(seconds: float, work):
    """work()'s result, or a test failure once it has run `seconds`: a guard against a
    hang, not a speed target. SIGALRM interrupts even a regular expression's matching
    loop (the interpreter checks for signals inside it), so a stalled call is stopped."""
    import signal

    class Stalled(Exception):
        pass

    def stop(signum, frame):
        raise Stalled

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return work()
    except Stalled:
        raise AssertionError(f"still running after {seconds} s") from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def settings_with(monkeypatch, **environment) -> dict:
    """engram_site/settings.py evaluated afresh (the loaded settings stay as they are)
    under this environment, without the deployment variables the caller does not give."""
    import runpy
    from pathlib import Path

    for name in ("ENGRAM_HTTPS", "ENGRAM_HSTS_SECONDS", "ENGRAM_TRUSTED_PROXIES",
                 "CACHE_REDIS_URL", "HUEY_REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(Path(__file__).resolve().parent.parent / "engram_site"
                              / "settings.py"))


def child_database_env(**extra) -> dict:
    """The environment that points a child process at this test database (the embedded
    server's socket: the child attaches to the running server instead of starting one)."""
    import os
    from urllib.parse import quote

    from django.db import connection

    params = connection.get_connection_params()
    url = f"postgres://{params['user']}@{quote(params['host'], safe='')}/{params['dbname']}"
    return {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "engram_site.settings",
            **extra}


# The project of the team fixture (tests/conftest.py): named as the hooks name one, by its
# git remote.
SHOP = "github.com/acme/shop"


def queued(a: str, b: str) -> bool:
    """Whether the rules judge would put the pair in the open queue, whichever statement
    came first (it must answer the same both ways)."""
    from memories.engine.contradiction import CONFIDENT, rules_verdict

    verdicts = [rules_verdict(a, b), rules_verdict(b, a)]
    answers = {v.contradicts and v.confidence >= CONFIDENT for v in verdicts}
    assert len(answers) == 1, verdicts
    return answers.pop()


def merged_out_of_sight(team, alice, bob):
    """alice's and bob's memories of project `team` that contradict each other, merged
    by bob, who then made the merged text private: the contradiction, resolved."""
    from memories.maintenance.contradictions import resolve_contradiction
    from memories.models import Contradiction, Scope
    from memories.services.editing import update_memory
    from memories.services.remembering import remember

    shared = {"project": team.name, "scope": Scope.PROJECT, "shared_with": team}
    old = remember(owner=alice, content="The orders API listens on port 8080", **shared).memory
    new = remember(owner=bob, content="The orders API listens on port 9090", **shared).memory
    disputed = Contradiction.objects.create(owner=alice, memory_a=old, memory_b=new,
                                            shared_with=team, detected_by="rules")
    resolved = resolve_contradiction(
        disputed, resolution="merged", by=bob,
        merged_content="Since the May release orders go to 9090; 8080 only answers health checks")
    update_memory(resolved.merged_into, by=bob, scope=Scope.PRIVATE)
    return resolved


def rows_read(table: str, owner, query: str, **recall_options) -> int:
    """Rows of `table` that recall's candidate query reads for `owner` (EXPLAIN ANALYZE
    of the statement recall sends, which it then sends as it would)."""
    from django.db import connection

    from memories import selectors
    from memories.services.recall import recall

    plans = []
    real = selectors._server_bound

    def explained(sql, params):
        if "dense AS" in sql:
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params)
                plans.append(cursor.fetchone()[0])
        return real(sql, params)

    selectors._server_bound = explained
    try:
        recall(owner=owner, query=query, **recall_options)
    finally:
        selectors._server_bound = real
    [plan] = plans
    plan = json.loads(plan) if isinstance(plan, str) else plan

    def read(node) -> int:
        own = (node["Actual Rows"] * node["Actual Loops"]
               if node.get("Relation Name") == table else 0)
        return own + sum(read(child) for child in node.get("Plans", ()))

    return round(read(plan[0]["Plan"]))


# --- Export and import over the REST API ---------------------------------------------------


def api_export(client) -> bytes:
    """The whole of GET /api/v1/export, as the file a person would save."""
    response = client.get("/api/v1/export")
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def api_import(client, data: bytes) -> dict:
    """POST /api/v1/import of a small file (answered at once): its report."""
    response = client.generic("POST", "/api/v1/import", data,
                              content_type="application/x-ndjson")
    assert response.status_code == 200, response.content
    return response.json()

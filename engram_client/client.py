"""A small HTTP/1.1 client for Engram's REST API, on a bare socket.

`http.client` and `urllib` pull in the email package and cost a hook, which starts on
every prompt, more than everything else it imports together; one request a connection
with `Connection: close` needs only this much.
"""
import json
import re
import socket
import time

URL = re.compile(r"^(https?)://(\[[^\]]+\]|[^/:?#]+)(?::(\d+))?(/[^?#]*)?$", re.IGNORECASE)
# What ends a request line's target early: after a space or a CR LF, the rest of a path
# would be read as the HTTP version or as headers of its own.
NOT_IN_TARGET = re.compile(r"[\x00-\x20\x7f]")


class Unreachable(Exception):
    """Engram did not answer in time, or not at all. Retrying later may help."""


class Unreadable(Unreachable):
    """Something answered at Engram's address, but not as Engram does: not HTTP, a broken
    body, not JSON, or JSON of another shape (a proxy's page, another service)."""


class Refused(Exception):
    """Engram answered with an error. `status` says which."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message

    @property
    def bad_payload(self) -> bool:
        """Engram judged the request's body itself, so the same body would be refused again.
        Any other error is about the key (401, 403), the address (404, 405), the moment
        (408, 429, 5xx): fixed, the same body passes."""
        return self.status in (400, 413, 422)


def _message(status: int, body: bytes) -> str:
    """The one-line message of Engram's error shape, or the status when there is none."""
    try:
        error = json.loads(body)["error"]
        message, fields = error["message"], error.get("fields") or {}
    except (ValueError, KeyError, TypeError, RecursionError):
        return f"HTTP {status}"
    if not isinstance(message, str) or not isinstance(fields, dict):
        return f"HTTP {status}"  # another service's error, in a shape of its own
    details = "; ".join(f"{name}: {' '.join(map(str, problems))}"
                        for name, problems in fields.items() if isinstance(problems, list))
    # The message names the first field already: the list adds only the others.
    return f"{message} ({details})" if details and details != message else message


def quote(text: str) -> str:
    """Percent-encoding of everything but unreserved characters: for a query or a path
    segment (a project's name may hold slashes)."""
    return "".join(ch if (ch.isascii() and ch.isalnum()) or ch in "-._~" else
                   "".join(f"%{byte:02X}" for byte in ch.encode("utf-8")) for ch in text)


def memory_path(memory_id: str, *rest: str) -> str:
    """memories/ID/..., the id quoted whole: a malformed one gets Engram's own "no such"
    answer, and a slash, ?, # or CR LF in it cannot change the request's path or add a
    header to it."""
    return "/".join(["memories", quote(str(memory_id)), *rest])


def query_string(params: dict) -> str:
    pairs = []
    for name, value in params.items():
        for item in value if isinstance(value, (list, tuple)) else [value]:
            pairs.append(f"{quote(str(name))}={quote(str(item))}")
    return "&".join(pairs)


def conforms(value, shape) -> bool:
    """Whether a decoded answer has `shape`: a type; a tuple of shapes, any of them; a list
    of one shape, every item's; a dict of the keys required and their shapes, or {str:
    shape}, every value's."""
    if isinstance(shape, tuple):
        return any(conforms(value, one) for one in shape)
    if isinstance(shape, list):
        return isinstance(value, list) and all(conforms(item, shape[0]) for item in value)
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return False
        if list(shape) == [str]:
            return all(conforms(item, shape[str]) for item in value.values())
        return all(key in value and conforms(value[key], one) for key, one in shape.items())
    return isinstance(value, shape)


def _dechunk(body: bytes) -> bytes:
    out, position = bytearray(), 0
    while True:
        end = body.index(b"\r\n", position)
        size = int(body[position:end].split(b";")[0], 16)
        if size == 0:
            return bytes(out)
        out += body[end + 2:end + 2 + size]
        position = end + 2 + size + 2


class Client:
    def __init__(self, url: str, api_key: str, timeout: float):
        match = URL.match(url.strip())
        if match is None:
            raise Refused(0, f"ENGRAM_URL must be an http(s) address, not {url!r}.")
        scheme, host, port, path = match.groups()
        self.https = scheme.lower() == "https"
        self.host = host.strip("[]")
        self.port = int(port) if port else (443 if self.https else 80)
        self.prefix = (path or "").rstrip("/")
        self.origin = f"{scheme.lower()}://{host}" + (f":{port}" if port else "")
        self.api_key = api_key
        self.timeout = timeout

    def request(self, method: str, path: str, *, body=None, params=None,
                raw: bytes | None = None, content_type: str = "application/json",
                expect=object):
        """The decoded JSON answer (or raw bytes when it is not JSON), of the shape `expect`
        (see `conforms`): what a caller reads of it cannot fail on another one."""
        target = f"{self.prefix}/api/v1/{path}" + (f"?{query_string(params)}" if params else "")
        if NOT_IN_TARGET.search(target):
            raise Refused(0, f"A request path holds no spaces or control characters, not "
                             f"{target!r}.")
        payload = raw if body is None else json.dumps(body, ensure_ascii=False).encode(
            "utf-8", "replace")
        lines = [f"{method} {target} HTTP/1.1", f"Host: {self.host}:{self.port}",
                 "Accept: application/json", "User-Agent: engram-client", "Connection: close"]
        if self.api_key:
            lines.append(f"Authorization: Bearer {self.api_key}")
        if payload is not None:
            lines += [f"Content-Type: {content_type}", f"Content-Length: {len(payload)}"]
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace")
        status, headers, data = self._exchange(head + (payload or b""))
        if status >= 400:
            raise Refused(status, _message(status, data))
        answer = data  # an export's JSON lines, or anything else, as bytes
        if headers.get("content-type", "").split(";")[0].strip() == "application/json":
            try:
                answer = json.loads(data) if data else None
            except (ValueError, RecursionError):  # broken, or nested too deeply to decode
                raise Unreadable(f"Engram at {self.origin} answered broken JSON") from None
        if not conforms(answer, expect):
            raise Unreadable(f"Engram at {self.origin} gave an answer to {path} that this "
                             "client cannot read")
        return answer

    def post(self, path: str, body, **kwargs):
        return self.request("POST", path, body=body, **kwargs)

    def get(self, path: str, params=None, **kwargs):
        return self.request("GET", path, params=params, **kwargs)

    def _exchange(self, request: bytes) -> tuple[int, dict, bytes]:
        deadline = time.monotonic() + self.timeout
        try:
            connection = socket.create_connection((self.host, self.port), timeout=self.timeout)
            # how a connection closed on a body Engram did not read shows itself
            closed = (BrokenPipeError, ConnectionResetError)
            if self.https:
                import ssl  # only for https: it costs a plain-http hook ~20 ms to import
                connection = ssl.create_default_context().wrap_socket(
                    connection, server_hostname=self.host)
                closed += (ssl.SSLError,)
            with connection:
                try:
                    connection.sendall(request)
                except closed:
                    pass  # Engram may answer before it reads the whole body (a 413): read on
                received = bytearray()
                while True:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise TimeoutError("timed out")
                    connection.settimeout(left)
                    try:
                        piece = connection.recv(65536)
                    except closed:
                        if not received:
                            raise
                        break  # closed on a body it did not read: what came is its answer
                    if not piece:
                        break
                    received += piece
        # a host name IDNA cannot encode (an empty label, one over 63 characters) fails as a
        # UnicodeError before any socket is opened
        except (OSError, UnicodeError) as error:
            raise Unreachable(f"Engram at {self.origin} did not answer: {error}") from None
        head, _, data = bytes(received).partition(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        try:
            status = int(status_line.split(" ", 2)[1])
        except (IndexError, ValueError):
            raise Unreadable(f"Engram at {self.origin} answered something not HTTP") from None
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "chunked" in headers.get("transfer-encoding", "").lower():
            try:
                data = _dechunk(data)
            except ValueError:
                raise Unreadable(f"Engram at {self.origin} answered a broken body") from None
        return status, headers, data

"""A small HTTP client for Engram's REST API, on `http.client` (quicker to import than
urllib.request, which a hook pays for on every prompt)."""
import http.client
import json
import socket
from urllib.parse import urlencode, urlsplit


class Unreachable(Exception):
    """Engram did not answer in time, or not at all. Retrying later may help."""


class Refused(Exception):
    """Engram answered with an error. `status` says which; 5xx may pass, 4xx will not."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message

    @property
    def lasting(self) -> bool:
        """Sending the same request again would be refused again."""
        return 400 <= self.status < 500 and self.status not in (408, 429)


def _message(status: int, body: bytes) -> str:
    """The one-line message of Engram's error shape, or the status when there is none."""
    try:
        error = json.loads(body)["error"]
        message = error["message"]
        fields = error.get("fields") or {}
        details = "; ".join(f"{name}: {' '.join(map(str, problems))}"
                            for name, problems in fields.items()
                            if isinstance(problems, list))
        return f"{message} ({details})" if details else str(message)
    except (ValueError, KeyError, TypeError):
        return f"HTTP {status}"


class Client:
    def __init__(self, url: str, api_key: str, timeout: float):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise Refused(0, f"ENGRAM_URL must be an http(s) address, not {url!r}.")
        self.https = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port
        self.prefix = parts.path.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout

    def request(self, method: str, path: str, *, body=None, params=None,
                raw: bytes | None = None, content_type: str = "application/json"):
        """The decoded JSON answer (or raw bytes when it is not JSON)."""
        target = f"{self.prefix}/api/v1/{path}"
        if params:
            target += "?" + urlencode(params, doseq=True)
        headers = {"Accept": "application/json", "User-Agent": "engram-client"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        payload = raw
        if body is not None:
            payload = json.dumps(body, ensure_ascii=False).encode("utf-8", "replace")
        if payload is not None:
            headers["Content-Type"] = content_type
        connection_class = (http.client.HTTPSConnection if self.https
                            else http.client.HTTPConnection)
        connection = connection_class(self.host, self.port, timeout=self.timeout)
        try:
            connection.request(method, target, body=payload, headers=headers)
            answer = connection.getresponse()
            data = answer.read()
        except (OSError, http.client.HTTPException, socket.timeout) as error:
            raise Unreachable(f"Engram at {self._origin()} did not answer: {error}") from None
        finally:
            connection.close()
        if answer.status >= 400:
            raise Refused(answer.status, _message(answer.status, data))
        if "json" not in (answer.getheader("Content-Type") or ""):
            return data
        return json.loads(data) if data else None

    def post(self, path: str, body, **kwargs):
        return self.request("POST", path, body=body, **kwargs)

    def get(self, path: str, params=None):
        return self.request("GET", path, params=params)

    def _origin(self) -> str:
        scheme = "https" if self.https else "http"
        return f"{scheme}://{self.host}" + (f":{self.port}" if self.port else "")

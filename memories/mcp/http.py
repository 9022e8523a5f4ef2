"""`/mcp` over Streamable HTTP, for the owner of an Engram API key sent as a bearer token.

Stateless, with JSON answers: every POST stands alone, so any web worker can serve it
and nothing is kept between calls. There is no OAuth: a missing or unknown key is a
plain 401 whose `WWW-Authenticate` names no resource metadata, so a client configured
with a key (Claude Code's `--header`) does not go looking for an authorization server.
"""

import json

from django.conf import settings
from django.http.request import split_domain_port, validate_host
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers

from memories.api.authentication import refusal, usable_key
from memories.api.errors import error_body

from .server import KEY_SCOPE_KEY, OWNER_SCOPE_KEY, build_server, in_thread

PATH = "/mcp"


NO_KEY = "Send an Engram API key: Authorization: Bearer <key>."


def _key_of_bearer(authorization: str):
    """(the usable key, None), or (None, why it is refused)."""
    scheme, _, raw_key = authorization.partition(" ")
    if scheme.lower() != "bearer" or not raw_key.strip():
        return None, NO_KEY
    key = usable_key(raw_key.strip())
    if key is None:
        return None, refusal(raw_key.strip())
    return key, None


async def _answer(send, status: int, body: dict, headers: list[tuple[bytes, bytes]] = ()):
    payload = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()), *headers]})
    await send({"type": "http.response.body", "body": payload})


class McpEndpoint:
    """The ASGI app for `/mcp`; enter `lifespan()` around serving it."""

    def __init__(self):
        self.server = build_server()
        # Host checking is Django's ALLOWED_HOSTS below, the same rule as every other path.
        self.server.streamable_http_app(
            streamable_http_path=PATH, stateless_http=True, json_response=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
        self.sessions = self.server.session_manager

    def lifespan(self):
        return self.sessions.run()

    async def __call__(self, scope, receive, send):
        headers = Headers(scope=scope)
        host, _ = split_domain_port(headers.get("host", ""))
        if not validate_host(host, settings.ALLOWED_HOSTS):
            await _answer(send, 400, error_body(400, "This host is not in ALLOWED_HOSTS."))
            return
        key, refused = await in_thread(_key_of_bearer, headers.get("authorization", ""))
        if key is None:
            await _answer(send, 401, error_body(401, refused),
                          [(b"www-authenticate", b"Bearer")])
            return
        await self.sessions.handle_request(
            {**scope, OWNER_SCOPE_KEY: key.owner, KEY_SCOPE_KEY: key}, receive, send)

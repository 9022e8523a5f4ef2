"""The MCP server on loopback: the real router (engram_site.asgi) under uvicorn in a
thread, on the test database, reached with the SDK's own client."""

import socket
import threading
import time

import pytest
import uvicorn

from memories.services.api_keys import create_api_key


@pytest.fixture
def server_url(transactional_db):
    """The base URL of a freshly started server (its own MCP session manager)."""
    from engram_site.asgi import build_application

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(build_application(), lifespan="on",
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    server.should_exit = True
    thread.join(timeout=20)
    listener.close()


@pytest.fixture
def key_for():
    """A fresh raw API key for `owner`."""
    return lambda owner: create_api_key(owner=owner, name="mcp test")[1]

"""What `manage.py serve` runs: one port for the dashboard, the API and the MCP server.

`/mcp` goes to the MCP endpoint (async, memories/mcp/); every other path goes to Django's
WSGI app through a2wsgi, whose thread pool runs views side by side as gunicorn's threads
did. (Django's own ASGI handler would run every sync view in one shared thread.)
"""

import gc
import os
from contextlib import AsyncExitStack

import anyio
from a2wsgi import WSGIMiddleware
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "engram_site.settings")
django_handler = get_wsgi_application()  # sets Django up before the MCP code is imported

from memories.mcp.http import PATH as MCP_PATH
from memories.mcp.http import McpEndpoint
from memories.mcp.server import (
    ORM_THREAD_COUNT,
    ORM_THREADS,
    close_thread_connections,
)

# As many views at once per process as gunicorn's --threads gave before.
DJANGO_THREADS = 4

# MCP clients probe these for OAuth before using a configured bearer header; anything but
# a plain 404 makes Claude Code wait for an OAuth flow (anthropics/claude-code#56357).
OAUTH_DISCOVERY = (
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
    "/register",
)


def _is_oauth_discovery(path: str) -> bool:
    return any(path == known or path.startswith(known + "/") for known in OAUTH_DISCOVERY)


async def _not_found(send):
    body = b"Not Found"
    await send({"type": "http.response.start", "status": 404, "headers": [
        (b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def build_application():
    """The router; each call builds its own MCP endpoint, whose session manager runs once."""
    django_app = WSGIMiddleware(django_handler, workers=DJANGO_THREADS)
    mcp = McpEndpoint()

    async def lifespan(receive, send):
        await receive()  # lifespan.startup
        async with AsyncExitStack() as running:
            try:
                await running.enter_async_context(mcp.lifespan())
            except Exception as exc:
                await send({"type": "lifespan.startup.failed", "message": str(exc)})
                return
            await send({"type": "lifespan.startup.complete"})
            await receive()  # lifespan.shutdown
        for executor, workers in ((django_app.executor, DJANGO_THREADS),
                                  (ORM_THREADS, ORM_THREAD_COUNT)):
            await anyio.to_thread.run_sync(close_thread_connections, executor, workers)
        await send({"type": "lifespan.shutdown.complete"})

    async def application(scope, receive, send):
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
        elif "/" + scope["path"].strip("/") == MCP_PATH and scope["type"] == "http":
            # "//mcp" too: the plugin appends "/mcp" to an ENGRAM_URL that may end in "/"
            await mcp({**scope, "path": MCP_PATH}, receive, send)
        elif _is_oauth_discovery(scope["path"]):
            await _not_found(send)
        else:
            await django_app(scope, receive, send)

    return application


application = build_application()

# `manage.py serve` starts gunicorn with --preload, so this module is imported once,
# before the workers fork: the local embedding model is loaded here too, and the workers
# share its pages copy-on-write instead of each loading its own (docs/BENCHMARKS.md,
# resident memory). The session has no thread pool of its own to lose in the fork: it
# runs on the calling thread, and an encode of several runs makes its threads per call.
if os.environ.get("ENGRAM_PRELOAD_MODEL") == "1":
    from memories.providers.embeddings import get_provider

    _provider = get_provider()
    if hasattr(_provider, "encoder"):  # the local model; a remote provider has none
        _provider.encoder()
    # Everything loaded so far lives as long as the process: out of the collector's
    # sight, a full collection in a worker no longer walks it (a pause on the request
    # that triggers it) nor writes to its pages (which would unshare them).
    gc.freeze()

"""The SDK's client over Streamable HTTP, as the MCP tests use it."""

from contextlib import asynccontextmanager

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


@asynccontextmanager
async def mcp_client(base_url: str, key: str | None, statuses: list | None = None):
    """The SDK's client over Streamable HTTP, sending `key` as a bearer token; the status
    of every HTTP answer it gets is appended to `statuses`."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}

    async def note(response):
        if statuses is not None:
            statuses.append(response.status_code)

    async with httpx2.AsyncClient(headers=headers, event_hooks={"response": [note]}) as http:
        async with Client(streamable_http_client(f"{base_url}/mcp", http_client=http)) as client:
            yield client


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content)

"""The SDK's client over Streamable HTTP, as the MCP tests use it."""

import re
import threading
from contextlib import asynccontextmanager

import anyio
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


def handles_in(text: str) -> list[str]:
    return re.findall(r"\[([0-9a-f]{8})\]", text)


def with_client(base_url: str, key: str, scenario):
    """Run `await scenario(client)` with a connected client; its result."""
    async def main():
        async with mcp_client(base_url, key) as client:
            return await scenario(client)
    return run_async(main)


async def call(client, tool: str, **arguments) -> tuple[bool, str]:
    """(whether the call failed, its text)."""
    result = await client.call_tool(tool, arguments)
    return result.is_error, text_of(result)


def run_async(main):
    """anyio.run(main) in a thread of its own: Playwright's sync API (the e2e tests, in the
    same session) leaves an event loop running in the main thread, where anyio.run fails."""
    outcome = {}

    def target():
        try:
            outcome["value"] = anyio.run(main)
        except BaseException as error:  # noqa: BLE001 - re-raised in the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]

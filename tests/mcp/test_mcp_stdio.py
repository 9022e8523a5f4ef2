"""`manage.py mcp_stdio`, spawned for real on the test database: the SDK's stdio client
uses its tools, and its standard output carries nothing but the protocol."""

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers import child_database_env
from mcp import Client, StdioServerParameters
from mcp_helpers import call, handles_in, run_async

from memories.models import Memory
from memories.services.api_keys import create_api_key
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


def stdio_command(*args) -> list[str]:
    return [sys.executable, "manage.py", "mcp_stdio", *args]


def test_the_sdk_stdio_client_uses_the_tools_as_the_keys_owner(alice, bob, key_for):
    remember(owner=bob, content="Bob keeps his notes in Obsidian.")
    command = stdio_command("--key", key_for(alice))
    server = StdioServerParameters(command=command[0], args=command[1:],
                                   env=child_database_env(), cwd=str(ROOT))

    async def scenario():
        async with Client(server, read_timeout_seconds=60) as client:
            tools = [tool.name for tool in (await client.list_tools()).tools]
            stored = await call(client, "memory_remember",
                                content="Alice writes her notes in Markdown.")
            found = await call(client, "memory_search", query="where are the notes kept")
            return tools, stored, found

    tools, (stored_failed, stored), (found_failed, found) = run_async(scenario)
    memory = Memory.objects.get(owner=alice)
    assert "memory_search" in tools and "context_predict" in tools and "code_callers" in tools
    assert len(tools) == 26
    assert not stored_failed and handles_in(stored) == [memory.pk.hex[-8:]]
    assert not found_failed and handles_in(found) == [memory.pk.hex[-8:]]


def test_a_project_key_over_stdio_reads_and_writes_only_its_project(alice):
    remember(owner=alice, content="The shop launch code is 7781.", project="shop")
    blog = remember(owner=alice, content="The blog launch code is 0451.", project="blog").memory
    _, raw = create_api_key(owner=alice, name="shop agent", project="shop")
    command = stdio_command("--key", raw)
    server = StdioServerParameters(command=command[0], args=command[1:],
                                   env=child_database_env(), cwd=str(ROOT))

    async def scenario():
        async with Client(server, read_timeout_seconds=60) as client:
            return [await call(client, "memory_search", query="launch code"),
                    await call(client, "memory_search", query="launch code", project="blog"),
                    await call(client, "memory_forget", memory=str(blog.pk)),
                    await call(client, "memory_remember", content="Posts go out Fridays.",
                               project="blog")]

    found, other, forget, write = run_async(scenario)
    assert not found[0] and "7781" in found[1] and "0451" not in found[1]
    assert other[0] and "restricted to project 'shop'" in other[1]
    assert forget[0] and "No memory" in forget[1]
    assert write[0] and not Memory.objects.filter(content__startswith="Posts").exists()
    blog.refresh_from_db()
    assert blog.status == "active"


def alices_stdio_server() -> subprocess.Popen:
    return subprocess.Popen(stdio_command("--user", "alice"), cwd=ROOT,
                            env=child_database_env(), text=True, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


HANDSHAKE = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]


def test_stdout_carries_only_the_protocol(alice):
    requests = [
        *HANDSHAKE,
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "memory_remember", "arguments": {"content": "stdio stores this."}}},
    ]
    child = alices_stdio_server()
    try:
        child.stdin.write("".join(json.dumps(request) + "\n" for request in requests))
        child.stdin.flush()
        # Both answers before closing stdin: end of input ends the session at once.
        lines = [child.stdout.readline(), child.stdout.readline()]
        child.stdin.close()
        lines += child.stdout.read().splitlines()  # whatever else reached stdout
        child.wait(timeout=60)
    finally:
        child.kill()
    answers = [json.loads(line) for line in lines]  # fails on any stray line
    assert [answer["id"] for answer in answers] == [1, 2]
    assert answers[0]["result"]["serverInfo"]["name"] == "engram"
    assert answers[1]["result"]["content"][0]["text"].startswith("Remembered:")
    assert Memory.objects.get(owner=alice).content == "stdio stores this."


def test_a_line_it_cannot_read_is_answered_and_the_next_one_served(alice):
    lines = [*(json.dumps(request) for request in HANDSHAKE),
             "this is not json",
             '{"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"a": "\\ud800"}}',
             '{"jsonrpc": "2.0", "id": 3}',
             json.dumps({"jsonrpc": "2.0", "id": 4, "method": "ping"})]
    child = alices_stdio_server()
    reader = ThreadPoolExecutor(max_workers=1)
    try:
        child.stdin.write("".join(line + "\n" for line in lines))
        child.stdin.flush()
        answers = reader.submit(lambda: [json.loads(child.stdout.readline())
                                         for _ in range(5)]).result(timeout=120)
    finally:
        child.kill()  # ends a read still waiting: a hang fails the test, never blocks it
        reader.shutdown()
    parse_error = {"code": -32700, "message": "Parse error"}
    assert [(answer["id"], answer.get("error")) for answer in answers[1:]] == [
        (None, parse_error), (None, parse_error),
        (None, {"code": -32600, "message": "Invalid Request"}), (4, None)]
    assert answers[4]["result"] == {}


@pytest.mark.parametrize("args, message", [
    ((), "Say whose memories to serve"),
    (("--user", "nobody"), "No active user 'nobody'."),
    (("--key", "engram_wrong"), "Unknown or revoked API key."),
])
def test_without_a_known_owner_it_stops_before_serving(args, message):
    env = {name: value for name, value in child_database_env().items()
           if name != "ENGRAM_API_KEY"}
    done = subprocess.run(stdio_command(*args), cwd=ROOT, env=env, input="",
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stdout == ""
    assert message in done.stderr

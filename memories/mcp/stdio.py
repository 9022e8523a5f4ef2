"""MCP over stdin and stdout (`manage.py mcp_stdio`): the SDK's stdio transport, with every
line it cannot read answered, as `/mcp` answers such a body.

The SDK hands the server an exception for such a line (not JSON, a lone surrogate, JSON
that is no JSON-RPC message), which the server drops: its sender would wait for ever.
"""

from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError


def _refusal(unreadable: Exception) -> JSONRPCError:
    """The JSON-RPC error for a line the transport could not read; its id is unknown."""
    not_json = isinstance(unreadable, ValidationError) and any(
        error["type"] == "json_invalid" for error in unreadable.errors())
    error = (ErrorData(code=PARSE_ERROR, message="Parse error") if not_json
             else ErrorData(code=INVALID_REQUEST, message="Invalid Request"))
    return JSONRPCError(jsonrpc="2.0", id=None, error=error)


class _AnsweringUnreadable:
    """The transport's read stream, less what it could not read: each such line is answered
    on the write stream instead of reaching the server."""

    def __init__(self, read_stream, write_stream):
        self._read, self._write = read_stream, write_stream

    def __getattr__(self, name):  # aclose, last_context: the read stream's own
        return getattr(self._read, name)

    def __aiter__(self):
        return self

    async def __anext__(self):
        async for item in self._read:
            if not isinstance(item, Exception):
                return item
            await self._write.send(SessionMessage(_refusal(item)))
        raise StopAsyncIteration


async def serve(server: MCPServer) -> None:
    """What `server.run("stdio")` does, reading through `_AnsweringUnreadable`."""
    # The SDK offers no hook for the transport's exceptions, so its low-level server is
    # run here as its own run_stdio_async runs it.
    lowlevel = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(_AnsweringUnreadable(read_stream, write_stream), write_stream,
                           lowlevel.create_initialization_options())

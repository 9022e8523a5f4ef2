"""The MCP server: Engram's tools for agents over Streamable HTTP (`/mcp`) and stdio."""

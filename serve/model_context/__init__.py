"""The MCP server (issue 38): every registry endpoint as a tool, for AI agents (docs/integrations.md).

`tools` derives the tools from the endpoint declarations, `calls` answers a tool call with the
route's own request, `prompts` holds the research prompts, `server` the SDK's server with its
handlers, `mount` serves it at `/mcp` (Streamable HTTP), and `bridge` is `alpha-results mcp`: the
same tools over stdio for a local agent, forwarded to a server's `/mcp`.
"""

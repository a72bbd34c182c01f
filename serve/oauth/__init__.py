"""OAuth 2.1 for `/mcp` (the MCP authorization specification): the protected resource (its
metadata, its challenges, its tokens: `serve.oauth.resource`) and, for a deployment without an
identity provider, the built-in authorization server (`serve.oauth.builtin`, on the MCP SDK's own
server handlers). docs/access.md "OAuth" says what each answers."""

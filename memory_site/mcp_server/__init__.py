"""Loci's MCP server: the same memory, as a dozen tools a model can pick from.

Why a Django view speaking the SDK's types, and not the SDK's server or `django-mcp-server`:
- The official `mcp` SDK's streamable-HTTP transport is an ASGI (Starlette) app with a session manager and
  a task group per connection. Mounting it here would mean turning the gunicorn WSGI process into ASGI (or
  running a second server), and every tool would then hop from the event loop into the synchronous ORM
  (`sync_to_async`) — a cost on each call and a change of the web process the issue asks us not to make
  unless `bench/working_memory.py` holds.
- `django-mcp-server` does run inside a WSGI app, but its view (`handle_django_request`) wraps the SDK's
  Starlette session manager with `async_to_sync`: an event loop and a Starlette request per POST, tools
  declared as `FastMCP` / `MCPToolset` methods (async over the ORM), and its own auth settings beside our
  API keys. It is written against the 1.x SDK's `mcp.server.FastMCP`, and it would be a second way to
  declare operations next to the API classes.
- The protocol itself composes with WSGI: streamable HTTP lets a server answer each JSON-RPC POST with a
  plain `application/json` body and refuse GET with 405 (no SSE stream is needed when the server never
  initiates messages), and stdio is newline-delimited JSON-RPC. So `/mcp` is one synchronous DRF view,
  authenticated by the API-key authenticator every REST endpoint uses, and `manage.py mcp` reads stdin.
  Both hand each message to `protocol.handle`, which parses and answers with the SDK's own `mcp_types`
  models, so the SDK's clients (`mcp.client.streamable_http`, `mcp.client.stdio`) work against it.

Each tool runs the existing REST operation in process (`tools.py` says why): one implementation of
validation, owner scoping, read recording and error envelopes, whichever door the agent came through.

It lives in memory_site/ rather than in an app because it spans the palace, ledger and episodic apps, as
memory_site/api/ does; it is `mcp_server`, not `mcp`, so that it never shadows the SDK's package name.
"""

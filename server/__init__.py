"""The HTTP front end of the LangGraph server: input policy, uploads, deliverable downloads and API-key auth.

`langgraph.json` mounts `server.app:app` (`http.app`) and `server.auth:auth` (`auth`), `aegra.json`
`server.aegra_app:app` and the same auth; `server.served.graph`, the graph both servers load, is built with
`server.policy.server_services()`. Nothing here is used by the CLI.
"""

"""The HTTP side: pages and static files, hardening middleware, the access log and uvicorn's
protocols with their limits."""

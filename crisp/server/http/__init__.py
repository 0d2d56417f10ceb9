"""The HTTP side: pages and static files, hardening middleware, the admin routes and the access
log."""

"""A tiny static web server for browser tests of client modules on their own: ``crisp/static`` at
``/static/`` plus a few in-memory test pages, on 127.0.0.1 (a free port), every answer under a
strict Content-Security-Policy (``default-src 'self'``: no inline script, no inline style, no other
origin), so a module that sets a ``style`` attribute or fetches elsewhere is caught by the browser.
"""

from __future__ import annotations

import mimetypes
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from paths import ROOT

STATIC = ROOT / "crisp" / "static"
CSP = "default-src 'self'; style-src 'self'; script-src 'self'; img-src 'self'; object-src 'none'"


class StaticHost:
    """``with StaticHost({"/page.html": "<!doctype html>…"}) as host: host.base``"""

    def __init__(self, pages: dict[str, str]) -> None:
        self.pages = pages
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        pages = self.pages

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                body: bytes | None = None
                if path in pages:
                    body = pages[path].encode()
                elif path.startswith("/static/"):
                    file = (STATIC / path.removeprefix("/static/")).resolve()
                    if file.is_file() and file.is_relative_to(STATIC):
                        body = file.read_bytes()
                if body is None:
                    self.send_error(404)
                    return
                kind = mimetypes.guess_type(path)[0] or "application/octet-stream"
                if path in pages and "." not in path.rsplit("/", 1)[-1]:
                    kind = "text/html"  # a page at a route (/r/CODE)
                if path.endswith(".js"):
                    kind = "text/javascript"
                self.send_response(200)
                self.send_header("Content-Type", f"{kind}; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Content-Security-Policy", CSP)
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:  # quiet
                pass

        return Handler

    def __enter__(self) -> StaticHost:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

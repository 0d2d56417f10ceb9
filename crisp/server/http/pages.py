"""The phone client: the page shell, its static files (with gzip), the manifest, the service
worker and QR codes."""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import segno
from fastapi import FastAPI, Request
from fastapi.params import Depends
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.staticfiles import StaticFiles

HERE = Path(__file__).resolve().parents[2]  # the crisp package (this is crisp/server/http/pages.py)
STATIC = HERE / "static"
SHELL = (HERE / "templates" / "index.html").read_text(encoding="utf-8")
NO_STORE = {"Cache-Control": "no-cache"}
# Static files that moved (crisp/static/moved.json, old URL -> new URL): the old URL answers with
# a permanent redirect (a bookmarked rules page, a cached module), so an address a phone knew
# still leads where it did.
MOVED: dict[str, str] = json.loads((STATIC / "moved.json").read_text(encoding="utf-8"))


class CachedStatic(StaticFiles):
    """Static files revalidated on each load (ETag), so an update is never half-applied."""

    def file_response(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        response = super().file_response(*args, **kwargs)
        response.headers.setdefault("Cache-Control", "no-cache")
        return response


# What the service worker keeps (crisp/static/sw.js): the client's own files, by address.
SHELL_KINDS = (".js", ".css", ".json", ".svg", ".png", ".webmanifest")


def shell_files() -> list[str]:
    """The addresses of the client's files the service worker caches (never sw.js itself)."""
    return sorted(
        f"/static/{path.relative_to(STATIC).as_posix()}"
        for path in STATIC.rglob("*")
        if path.is_file() and path.suffix in SHELL_KINDS and path.name != "sw.js"
    )


def shell_addresses() -> list[str]:
    """Every address of the shell: the client's files, and the manifest at the root."""
    return [*shell_files(), "/manifest.webmanifest"]


def service_worker() -> str:
    """crisp/static/sw.js with the client's version (a hash of the page and every client file, so
    any change to the client makes a new worker and a new cache) and the shell's addresses."""
    digest = hashlib.sha256(SHELL.encode())
    for address in shell_files():
        digest.update(address.encode())
        digest.update((STATIC / address.removeprefix("/static/")).read_bytes())
    body = (STATIC / "sw.js").read_text(encoding="utf-8")
    return body.replace("__CRISP_CLIENT_VERSION__", digest.hexdigest()[:16]).replace(
        "__CRISP_CLIENT_SHELL__", json.dumps(shell_addresses())
    )


def room_qr_svg(url: str) -> str:
    """A QR code of ``url`` as SVG, made here (no third-party service sees the room link)."""
    out = io.BytesIO()
    segno.make(url, error="m").save(
        out, kind="svg", scale=6, border=2, xmldecl=False, svgns=True, dark="#000", light="#fff"
    )
    return out.getvalue().decode()


def _redirect(to: str) -> Callable[[Request], RedirectResponse]:
    """A permanent redirect to ``to``, keeping the query (a rules page's #anchor the browser keeps
    itself)."""

    def moved(request: Request) -> RedirectResponse:
        query = request.url.query
        return RedirectResponse(f"{to}?{query}" if query else to, status_code=308)

    return moved


def mount_client(
    app: FastAPI,
    room_exists: Callable[[str], bool],
    lookup: Sequence[Depends] = (),
    claim: Depends | None = None,
) -> None:
    """The client's routes: ``/`` and ``/r/{code}`` serve the same page, which routes itself.
    ``lookup``: the dependencies of a route naming a room code (its claim and rate limits);
    ``claim``: the claim alone (a shared store: the room is served here from now on)."""
    for old, new in MOVED.items():  # before the /static mount, which would answer 404
        app.add_api_route(old, _redirect(new), methods=["GET", "HEAD"], include_in_schema=False)
    app.mount("/static", CachedStatic(directory=STATIC), name="static")

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home() -> HTMLResponse:
        return HTMLResponse(SHELL, headers=NO_STORE)

    @app.get("/r/{code}", response_class=HTMLResponse, include_in_schema=False, dependencies=lookup)
    async def room_page(code: str) -> HTMLResponse:
        status = 200 if room_exists(code) else 404
        return HTMLResponse(SHELL, status_code=status, headers=NO_STORE)

    @app.get(
        "/r/{code}/tv",
        response_class=HTMLResponse,
        include_in_schema=False,
        dependencies=lookup,  # limits: the TV page names a code too (docs/limits.md)
    )
    async def room_tv_page(code: str) -> HTMLResponse:
        """Table mode for a big screen: the same page, which connects as a watcher."""
        status = 200 if room_exists(code) else 404
        return HTMLResponse(SHELL, status_code=status, headers=NO_STORE)

    worker = service_worker()

    @app.get("/sw.js", include_in_schema=False)
    async def sw() -> Response:
        """At the root, so that it may serve every page; checked again on each visit."""
        return Response(worker, media_type="text/javascript", headers=NO_STORE)

    @app.get("/manifest.webmanifest", include_in_schema=False)
    async def manifest() -> Response:
        body = (STATIC / "manifest.webmanifest").read_bytes()
        return Response(body, media_type="application/manifest+json")

    @app.get("/api/rooms/{code}/qr.svg", include_in_schema=False, dependencies=lookup)
    async def qr(code: str, request: Request) -> Response:
        if not room_exists(code):
            return Response(status_code=404)
        base = str(request.base_url).rstrip("/")
        return Response(room_qr_svg(f"{base}/r/{code.upper()}"), media_type="image/svg+xml")

"""crisp/ uses uvicorn, websockets and httptools through their public APIs only: no private
attribute or module of theirs, none of the internals a fork of uvicorn's WebSocket protocol used,
no subclass of their classes (tests/support/libprivacy.py reads the source)."""

from __future__ import annotations

import textwrap

from libprivacy import check_source, check_tree
from paths import ROOT

# Lines in the manner of the uvicorn subclass the server's WebSocket used to be.
FORK = textwrap.dedent(
    """
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    from websockets.protocol import Protocol as FrameProtocol

    class GuardedWebSocket(WebSocketsSansIOProtocol):
        def send_receive_event_to_app(self):
            if self.curr_msg_data_type != "text" or self.close_sent:
                data, self.frames = b"".join(self.frames), []
            self.queue.put_nowait({"type": "websocket.receive", "text": data.decode()})

        def forget_request(self):
            conn = self.conn
            if conn.reader.buffer or conn.parser_exc is not None:
                return
            conn.parser = FrameProtocol.parse(conn)

        def send_keepalive_ping(self):
            self.ping_timer = self.loop.call_later(1, self.send_keepalive_ping)
    """
)


def test_no_module_of_crisp_reaches_into_uvicorn_websockets_or_httptools() -> None:
    findings = check_tree(ROOT / "crisp")
    assert not findings, "\n".join(map(str, findings))


def test_the_check_finds_what_a_fork_of_uvicorns_protocol_reads() -> None:
    found = {finding.what for finding in check_source(FORK)}
    for what in (
        "class GuardedWebSocket subclasses a library class",
        "reads the internal self.curr_msg_data_type",
        "reads the internal self.close_sent",
        "reads the internal self.frames",
        "reads the internal self.queue",
        "reads the internal conn.reader.buffer",
        "reads the internal conn.parser_exc",
        "reads the internal conn.parser",
        "reads the internal FrameProtocol.parse",
        "reads the internal self.ping_timer",
    ):
        assert what in found, (what, found)


def test_the_check_follows_library_objects_through_names_and_attributes() -> None:
    source = textwrap.dedent(
        """
        import websockets.server as wss
        from uvicorn.server import ServerState
        from uvicorn.config import Config

        class Socket:
            def __init__(self, config: Config, server_state: ServerState) -> None:
                self.proto = wss.ServerProtocol(max_size=4096)
                self.app = config.loaded_app
                server_state.tasks.add(None)
                server_state.connections.discard(self)

            def read(self, data: bytes) -> None:
                proto = self.proto
                proto.receive_data(data)
                proto._state
                getattr(self.proto, "parser_exc")
                self.proto.events_received()
        """
    )
    found = [f.what for f in check_source(source)]
    assert found == [
        "reads the private attribute proto._state",
        "getattr of the internal 'parser_exc'",
    ]


def test_the_check_finds_an_import_of_a_private_module_or_name() -> None:
    source = "from uvicorn._types import ASGIReceiveEvent\nfrom websockets.frames import _x\n"
    found = [f.what for f in check_source(source)]
    assert found == [
        "imports from the private module uvicorn._types",
        "imports the private name websockets.frames._x",
    ]

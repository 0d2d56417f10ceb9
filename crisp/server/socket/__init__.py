"""The server's sockets: the HTTP guard and the WebSocket protocol handed to uvicorn, and the
game's side of a socket (its endpoint, connection and inbox)."""

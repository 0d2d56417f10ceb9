"""The WebSocket side: the protocol's models, parsing a frame, encoding a message, one
connection's queue and the endpoint."""

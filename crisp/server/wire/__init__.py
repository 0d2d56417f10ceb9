"""The protocol on the wire, a leaf of the server: its models, parsing a frame, encoding a
message, close codes. The transport that carries it is ``crisp/server/socket/``."""

"""The games this server hosts, each plugged in through the server's game seam
(``crisp.server.seam``)."""

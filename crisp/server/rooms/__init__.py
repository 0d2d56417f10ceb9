"""Rooms: the hub of a server's rooms, one room's pipeline, its lobby, members, seats and bots."""

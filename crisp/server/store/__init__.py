"""Persistence: SQLite for one process (``sqlite``), PostgreSQL for many (``postgres``) with
room ownership by lease (``leases``)."""

"""Running a server: ``crisp serve`` on uvicorn, ``--workers`` and the HAProxy configuration."""

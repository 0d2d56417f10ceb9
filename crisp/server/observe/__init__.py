"""What an operator watches: ``GET /metrics`` (``metrics``) and the log's format (``logs``)."""

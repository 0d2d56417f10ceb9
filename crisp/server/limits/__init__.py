"""Limits: rate limits per address and in total, a room's bounds, a log budget per connection."""

"""What every rules engine shares: the commit–reveal fairness of a shuffle (``fairness``) and the
addressed messages a change yields (``messages``: ``Out``, ``stream``, ``encode``)."""

"""What every rules engine shares: the commit–reveal fairness of a shuffle (``fairness``)."""

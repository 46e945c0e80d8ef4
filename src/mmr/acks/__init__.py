"""acks."""

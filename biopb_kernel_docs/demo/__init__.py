"""The demo workspace of ./dev start (workspace)."""

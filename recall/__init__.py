"""factledger.recall (built in its own issue)."""

"""factledger.digest (built in its own issue)."""

"""factledger.hermes_plugin (built in its own issue)."""

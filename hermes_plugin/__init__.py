"""factledger.hermes_plugin: factledger as Hermes Agent's memory provider (glue only).

Importing this package imports nothing from Hermes: `install` and `paths` serve the CLI on machines
without Hermes; `provider` (the MemoryProvider) is imported by Hermes through the shim that
`factledger hermes install` writes. See docs/ARCHITECTURE.md, "Hermes plugin".
"""

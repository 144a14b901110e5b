"""The `factledger` command."""

from .main import main

__all__ = ["main"]

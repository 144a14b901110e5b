"""An extractor that returns drafts written by the test: for exercising grounding and policy without
depending on what the rules extractor happens to recognise."""

from __future__ import annotations

from factledger.digest import Draft, ExtractionRequest


class ScriptedExtractor:
    name = "scripted"

    def __init__(self, *drafts: Draft):
        self.drafts = list(drafts)

    def extract(self, request: ExtractionRequest) -> list[Draft]:
        return list(self.drafts)


def draft(op: str, predicate: str, value: str | None, quote: str, **extra) -> Draft:
    return Draft(op=op, subject="user", predicate=predicate, value=value, quote=quote, **extra)  # type: ignore[arg-type]

"""Choosing the extractor: the model's when one is configured, else the offline rules. Apart from the
interface (`extractor.py`), which both implementations import: the interface imports neither."""

from __future__ import annotations

from .config import DigestConfig
from .extractor import Extractor


def build_extractor(config: DigestConfig | None = None) -> Extractor:
    """The LLM extractor when a model is configured, else the offline rules extractor."""
    config = config or DigestConfig()
    if config.uses_model:
        from .llm import LLMExtractor  # imported here so a rules-only run never loads instructor

        return LLMExtractor(config)
    from .rules import RulesExtractor

    return RulesExtractor()

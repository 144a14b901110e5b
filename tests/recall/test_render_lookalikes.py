"""The prompt block itself (Recall.prompt_block, what the Hermes provider hands the host) with stored
values that spell the host's fence and label in lookalike characters (issue 21): each passes the value
policy, is found, and is shown as data, never as structure. On main each reached the block unchanged."""

from __future__ import annotations

import re
import unicodedata

import pytest

from tests.recall.test_render import LOOKALIKE_ANGLES, LOOKALIKES

pytestmark = pytest.mark.both_engines

ATTACKS = [text for text, what in LOOKALIKES if what != "plain, for comparison"]
_READ_AS = str.maketrans({"\u0443": "y", "\u0405": "s", "\u0455": "s", "\u0435": "e", "\u043e": "o", "\u3010": "[",
                          "\u27e6": "[", "\uff3b": "["})


def test_lookalike_fences_in_stored_values_are_data_in_the_block(clocked_ledger, clock, recall) -> None:
    with clocked_ledger.transaction(principal="operator:test") as tx:
        for n, text in enumerate(ATTACKS):
            tx.add("u", "user", "note", f"zorblax{n} {text} zorblax{n}")
    block = recall.prompt_block(" ".join(f"zorblax{n}" for n in range(len(ATTACKS))), "u")
    assert block.count("zorblax") >= 2  # the values were found and shown
    body = block.split("\n", 1)[1] if "\n" in block else block
    assert not set(body) & set(LOOKALIKE_ANGLES), body
    read = unicodedata.normalize("NFKC", body).casefold().translate(_READ_AS)
    assert not re.search(r"\[\s*system\s*note", read), body
    assert not re.search(r"[<>]", read), body

"""Which recorded turns a Hermes /undo removed, from the transcript it left (pure)."""

import pytest

from factledger.hermes_plugin.memory import undone_turn_count


@pytest.mark.parametrize(
    ("recorded", "active", "undone"),
    [
        (["a", "b", "c"], ["x", "a", "b", "c"], 0),
        (["a", "b", "c"], ["x", "a", "b"], 1),
        (["a", "b", "c"], ["x", "a"], 2),
        (["a", "b", "c"], [], 3),
        (["a", "ok", "ok"], ["a", "ok"], 1),  # repeated words: the fewest trailing turns that fit
        (["a", "b"], ["a  ", "b\n"], 0),  # whitespace differences are the same words
        ([], ["a"], 0),
    ],
)
def test_undone_turn_count(recorded, active, undone):
    assert undone_turn_count(recorded, active) == undone

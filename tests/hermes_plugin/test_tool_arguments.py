"""Tool arguments are parsed strictly: the schema the model sees and the parser agree, and anything
else is refused with the field named."""

from __future__ import annotations

import pytest

from factledger.hermes_plugin.tools import ARGUMENT_MODELS, TOOL_SCHEMAS, parse_arguments
from factledger.ledger import ValidationError


@pytest.mark.parametrize("schema", TOOL_SCHEMAS, ids=lambda s: s["name"])
def test_schema_and_parser_name_the_same_arguments(schema):
    model = ARGUMENT_MODELS[schema["name"]]
    params = schema["parameters"]
    assert params["additionalProperties"] is False
    assert set(params["properties"]) == set(model.model_fields)
    assert set(params["required"]) == {n for n, f in model.model_fields.items() if f.is_required()}
    assert set(schema) == {"name", "description", "parameters"}  # a bare OpenAI function schema


@pytest.mark.parametrize(
    "tool, args, field",
    [
        ("factledger_search", {}, "query"),
        ("factledger_search", {"query": ""}, "query"),
        ("factledger_search", {"query": "x", "limit": 0}, "limit"),
        ("factledger_search", {"query": "x", "limit": "5"}, "limit"),
        ("factledger_search", {"query": "x", "scope": "hermes/other"}, "scope"),
        ("factledger_history", {"subject": "user"}, "predicate"),
        ("factledger_history", {"subject": "user", "predicate": "lives_in", "known_at": "now"}, "known_at"),
        ("factledger_remember", {"subject": "user", "predicate": "likes"}, "value"),
        ("factledger_remember", {"subject": "user", "predicate": "likes", "value": 3}, "value"),
        ("factledger_remember", {"subject": "user", "predicate": "likes", "value": "x", "principal": "operator:root"}, "principal"),
        ("factledger_remember", {"subject": "user", "predicate": "likes", "value": "x", "keep": "everyone"}, "keep"),
        ("factledger_remember", {"subject": "user", "predicate": "likes", "value": "x", "cardinality": "some"}, "cardinality"),
        ("factledger_forget", {"subject": "user", "predicate": "likes", "erase": True}, "erase"),
        ("factledger_forget", {"subject": "user", "predicate": "likes", "all_valid_time": "yes"}, "all_valid_time"),
        ("factledger_forget", "not an object", "arguments"),
        ("factledger_review", {"proposal_id": 1}, "tool"),
    ],
)
def test_bad_arguments_are_refused_with_the_field_named(tool, args, field):
    with pytest.raises(ValidationError) as err:
        parse_arguments(tool, args)
    assert err.value.field == field


def test_good_arguments_get_defaults():
    remember = parse_arguments("factledger_remember", {"subject": " user ", "predicate": "likes", "value": "jazz"})
    assert (remember.subject, remember.keep, remember.reason) == ("user", "long_term", "")
    search = parse_arguments("factledger_search", {"query": "city", "valid_at": "2024-01-01"})
    assert (search.limit, search.valid_at, search.known_at) == (8, "2024-01-01", None)

"""Several Ledger instances may share one file (the CLI, the Hermes plugin, a digest worker): a predicate
another instance registered after this one cached the registry is still honoured."""

from __future__ import annotations

from factledger.ledger import Ledger


def test_a_predicate_defined_by_another_instance_is_used_as_registered(ledger_path):
    with Ledger.open(ledger_path) as first, Ledger.open(ledger_path) as second:
        assert second.predicates() == []  # the second instance has cached an empty registry
        with first.transaction(principal="operator:a") as tx:
            tx.define("lives_in", "one", template="{subject} lives in {value}", description="home city")
        with second.transaction(principal="agent:b") as tx:
            tx.add("s", "Ann", "lives_in", "Paris", valid_from="2024-01-01")
        (version,) = second.current(["s"])
        assert version.cardinality == "one"
        registered = first.predicate("lives_in")
        assert (registered.cardinality, registered.template, registered.description) == (
            "one", "{subject} lives in {value}", "home city"
        )
        assert second.predicate("lives_in") == registered

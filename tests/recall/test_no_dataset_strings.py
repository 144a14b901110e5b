"""Product code carries no evaluation dataset's strings (issue 20): recall and the Hermes plugin are tuned
on LoCoMo's dev split, and its speakers' names as examples would tie them to it. Neutral made-up names
only."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# LoCoMo's speakers (all ten conversations).
LOCOMO_NAMES = (
    "Caroline Melanie Jon Gina John Maria Joanna Nate Tim Audrey Andrew James Deborah Jolene Evan Sam Calvin Dave"
).split()

PRODUCT = ("recall", "hermes_plugin", "digest", "ledger", "api", "cli")


def lines_matching(pattern: re.Pattern[str]) -> list[str]:
    """Every line of product code that `pattern` finds, as 'path:line: text'."""
    found = []
    for folder in PRODUCT:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
                if pattern.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


def test_recall_and_the_plugin_name_no_locomo_speaker():
    pattern = re.compile(r"\b(" + "|".join(LOCOMO_NAMES) + r")\b")
    found = lines_matching(pattern)
    assert not found, "dataset names in product code:\n" + "\n".join(found)


STYLES_DEV = ROOT.parent / "shared" / "datasets" / "styles-dev.json"


def test_product_code_holds_no_styles_dev_answer():
    """The styles-dev scenarios' expected and stale values (names, places, companies) are tuning data,
    never patterns or examples in product code. Skipped where the dataset is not beside the checkout."""
    import json

    import pytest

    if not STYLES_DEV.exists():
        pytest.skip(f"{STYLES_DEV} is not here")
    values: set[str] = set()
    for scenario in json.loads(STYLES_DEV.read_text("utf-8"))["scenarios"]:
        for question in scenario["questions"]:
            for field in ("expect", "stale", "about"):
                raw = question.get(field) or []
                for value in [raw] if isinstance(raw, str) else raw:
                    named = re.search(r"[A-Z]", value) and len(value) > 3
                    rare = re.fullmatch(r"[a-z]{8,}", value)  # a drug, not a common word
                    if not value.startswith("re:") and (named or rare):
                        values.add(value)
    # Words any example may use: weekdays, a database, a car make, and the two cities the product's own
    # examples (demo, tool schemas) used before this dataset existed.
    generic = {"PostgreSQL", "Postgres", "Tuesday", "Tuesdays", "Thursday", "Thursdays", "Honda", "Lisbon", "Porto"}
    pattern = re.compile(r"(?i)\b(" + "|".join(re.escape(v) for v in sorted(values - generic)) + r")\b")
    found = lines_matching(pattern)
    assert not found, "styles-dev answers in product code:\n" + "\n".join(found)

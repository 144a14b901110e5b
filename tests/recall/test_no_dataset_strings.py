"""Product code carries no evaluation dataset's strings (issue 20): recall and the Hermes plugin are tuned
on LoCoMo's dev split, and its speakers' names as examples would tie them to it. Neutral made-up names
only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# LoCoMo's speakers (all ten conversations).
LOCOMO_NAMES = (
    "Caroline Melanie Jon Gina John Maria Joanna Nate Tim Audrey Andrew James Deborah Jolene Evan Sam Calvin Dave"
).split()

PRODUCT = ("recall", "hermes_plugin", "digest", "ledger", "api", "cli")


PRODUCT_FILES = [path for folder in PRODUCT for path in sorted((ROOT / folder).rglob("*.py"))]
# The docs' examples follow the same rule: README.md and every guide in docs/.
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def lines_matching(pattern: re.Pattern[str], files: list[Path] = PRODUCT_FILES) -> list[str]:
    """Every line of `files` (by default product code) that `pattern` finds, as 'path:line: «found» text'."""
    found = []
    for path in files:
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
            if match := pattern.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: «{match.group(0)}» {line.strip()}")
    return found


def test_recall_and_the_plugin_name_no_locomo_speaker():
    pattern = re.compile(r"\b(" + "|".join(LOCOMO_NAMES) + r")\b")
    found = lines_matching(pattern)
    assert not found, "dataset names in product code:\n" + "\n".join(found)


def test_the_docs_name_no_locomo_speaker():
    pattern = re.compile(r"\b(" + "|".join(LOCOMO_NAMES) + r")\b")
    found = lines_matching(pattern, DOC_FILES)
    assert not found, "dataset names in the docs:\n" + "\n".join(found)


STYLES_DEV = ROOT.parent / "shared" / "datasets" / "styles-dev.json"
# The knowledge eval's sets: its own scenarios and the held-out ones (dev after their first reading,
# then tuning data too), and styles-dev when it is beside the checkout.
KNOWLEDGE_SETS = sorted((ROOT / "evals" / "data").glob("knowledge_*.json")) + [STYLES_DEV]
# Words any example may use: the calendar's names, languages, common nouns (kin, jobs, diets), tools
# every developer names, a car make, and the two cities the product's own examples (demo, tool
# schemas) used before these datasets existed. Names of people, places, firms and pets are not here.
GENERIC = {
    "Monday", "Tuesday", "Tuesdays", "Wednesday", "Thursday", "Thursdays", "Friday", "Saturday", "Sunday",
    "wednesday", "thursday", "saturday", "swimming", "freelance", "freelancer", "freelancing", "firefighter", "paramedic", "director", "payments",
    "Python 3.11",  # the README names the interpreter it installs with, before any set asked about it
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December", "Next", "German", "Portuguese", "English", "Spanish", "French", "Dutch",
    "daughter", "girlfriend", "boyfriend", "grandmother", "grandfather", "flatmate", "designer", "pharmacist",
    "teaching",  # the verb digest.pursuits reads a class's end by
    "vegetarian", "pescatarian", "telescope", "vitamin D", "A positive",
    "PostgreSQL", "Postgres", "Python", "GitLab", "GitHub", "Bitbucket", "CircleCI", "Buildkite", "Jenkins",
    "Checkpoint", "Honda", "Lisbon", "Porto", "platform",
    "SQLite", "electrician", "reporting", "Slack",  # the product's own engine; common words (a trade, a verb)
    "Tokyo",  # a city in the docs' prompt-rendering table, before any set named it
    "Mondays", "Fridays", "Saturdays", "Sundays", "chemistry",  # the calendar's plurals; a school subject
    "mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays", "sundays",  # ... typed small
    "Price", "Golf", "remotely",  # a surname and a car that are common words (a cost, a sport); an adverb
    "childminder",  # a trade, among the roles a person holds for the user (digest/rules.py)
    "treasurer",  # a role someone fills, among the role words (digest/everyday.py)
    "airbnb", "Airbnb",  # a kind of place to stay, among the lodging words (digest/everyday.py)
    "landlord",  # a role someone fills for the user, among the role words (digest/rules.py)
    "MariaDB",  # a database every developer names, in the dialect notes and a stack example
    "onboarding",  # a word of work, among the words that say a turn is about a job (digest/everyday.py)
}


def answers(path: Path) -> set[str]:
    """A knowledge set's expected and stale values that are names (capitalised, over three letters)
    or rare words (a drug, not a common word)."""
    import json

    values: set[str] = set()
    for scenario in json.loads(path.read_text("utf-8"))["scenarios"]:
        for question in scenario["questions"]:
            for field in ("expect", "stale", "about"):
                raw = question.get(field) or []
                for value in [raw] if isinstance(raw, str) else raw:
                    named = re.search(r"[A-Z]", value) and len(value) > 3
                    rare = re.fullmatch(r"[a-z]{8,}", value)
                    dated = re.fullmatch(r"[A-Z][a-z]+ \d{1,2}|\d{1,2} [A-Z][a-z]+", value)  # "May 2", "21 October": a date
                    if not value.startswith("re:") and (named or rare) and not dated:
                        values.add(value)
    return values - GENERIC


@pytest.mark.parametrize("dataset", KNOWLEDGE_SETS, ids=lambda p: p.stem)
def test_product_code_holds_no_knowledge_sets_answer(dataset):
    """The knowledge sets' expected and stale values (names, places, companies) are tuning or held-out
    data, never patterns or examples in product code. Skipped where a set is not beside the checkout."""
    if not dataset.exists():
        pytest.skip(f"{dataset} is not here")
    pattern = re.compile(r"(?i)\b(" + "|".join(re.escape(v) for v in sorted(answers(dataset))) + r")\b")
    found = lines_matching(pattern)
    assert not found, f"{dataset.name} answers in product code:\n" + "\n".join(found)


@pytest.mark.parametrize("dataset", KNOWLEDGE_SETS, ids=lambda p: p.stem)
def test_the_docs_hold_no_knowledge_sets_answer(dataset):
    """The docs' examples are made up too: README.md and docs/ quote no knowledge set's answer."""
    if not dataset.exists():
        pytest.skip(f"{dataset} is not here")
    pattern = re.compile(r"(?i)\b(" + "|".join(re.escape(v) for v in sorted(answers(dataset))) + r")\b")
    found = lines_matching(pattern, DOC_FILES)
    assert not found, f"{dataset.name} answers in the docs:\n" + "\n".join(found)

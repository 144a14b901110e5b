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


def test_recall_and_the_plugin_name_no_locomo_speaker():
    pattern = re.compile(r"\b(" + "|".join(LOCOMO_NAMES) + r")\b")
    found = []
    for folder in ("recall", "hermes_plugin"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
                if pattern.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "dataset names in product code:\n" + "\n".join(found)

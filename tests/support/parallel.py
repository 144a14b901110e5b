"""The order a parallel run hands modules out in (a hook: tests/conftest.py exports it).

`./dev test` runs pytest-xdist workers with `--dist loadscope --no-loadscope-reorder`. Each worker is a
process with its own session: its own tmp_path root, its own PostgreSQL cluster (tests/conftest.py), its
own imported Hermes. A module's tests (a class's, for a test class) run on one worker, in order, so
module fixtures start once. The controller hands the units out in the order the workers collected them;
on a worker this plugin puts the modules holding a test marked `slow` first (the longest units start
early instead of finishing the run on one worker while the other idles), then the rest by their number
of tests, largest first. Within a module the order is unchanged, and a run without xdist keeps
collection order.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not hasattr(config, "workerinput"):
        return  # not an xdist worker
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    # sorted() is stable and every worker collects the same items, so every worker reports the same order
    # (xdist refuses to run when the workers' collections differ).
    order = sorted(modules.values(), key=lambda tests: (not any(t.get_closest_marker("slow") for t in tests), -len(tests)))
    items[:] = [item for tests in order for item in tests]

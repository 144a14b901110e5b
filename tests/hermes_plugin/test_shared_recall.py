"""Provider instances of one process share one Recall (and so one embedder) per index folder."""

from __future__ import annotations

from factledger.hermes_plugin import shared_recall
from factledger.hermes_plugin.provider import FactledgerMemoryProvider


def test_instances_share_one_recall_until_the_last_one_shuts_down(hermes_runtime, tmp_path):
    first, second = FactledgerMemoryProvider(), FactledgerMemoryProvider()
    first.initialize("s1", hermes_home=str(tmp_path), platform="telegram", user_id="a", chat_id="1")
    second.initialize("s2", hermes_home=str(tmp_path), platform="telegram", user_id="b", chat_id="2")
    shared = first.session.recall
    assert second.session.recall is shared
    first.shutdown()
    assert shared_recall.acquire(tmp_path / "factledger" / "ledger.db") is shared
    shared_recall.release(shared)
    second.shutdown()
    again = FactledgerMemoryProvider()
    again.initialize("s3", hermes_home=str(tmp_path), platform="cli")
    assert again.session.recall is not shared  # the last user closed it; a new one is opened
    again.shutdown()

"""The provider uses the vector folder the ledger records, the one the CLI (and so an erase) uses."""

from __future__ import annotations

from factledger.ledger import Ledger
from factledger.recall import Recall


def test_the_provider_and_the_cli_share_the_folder_an_erase_cleans(tmp_path, hermes_runtime):
    """The defect: the provider kept vectors in $HERMES_HOME/factledger/lancedb, the CLI in <ledger>.lance,
    so an operator's erase left the provider's copy. Now both open the ledger's recorded folder."""
    from factledger.hermes_plugin.provider import FactledgerMemoryProvider

    legacy = tmp_path / "factledger" / "lancedb"
    legacy.mkdir(parents=True)
    (legacy / "old.lance").write_text("embeddings an erase never reached", "utf-8")
    provider = FactledgerMemoryProvider()
    provider.initialize("s1", hermes_home=str(tmp_path), platform="cli")
    provider.sync_turn("I live in Zuvrath", "Noted.")
    provider.on_session_end([])
    provider.session.recall.sync()
    folder = provider.session.recall.index_dir
    provider.shutdown()
    assert not legacy.exists()  # derived data, and possibly holding erased values: removed
    db = tmp_path / "factledger" / "ledger.db"
    with Ledger.open(db) as ledger:
        assert Recall(ledger).index_dir.resolve() == folder.resolve()

"""Embedders: the shipped static model is deterministic and offline; the OpenAI-compatible backend is
exercised against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from factledger.recall import EmbedderError, OpenAIEmbedder, Recall, StaticEmbedder

TEXTS = ["user lives in Berlin", "Ondrea said: I love flying kites at dusk", "北京烤鸭", "🙂"]


def test_static_embedder_is_deterministic_across_calls_and_instances(embedder):
    first = embedder.embed(TEXTS)
    again = embedder.embed(TEXTS)
    other = StaticEmbedder().embed(TEXTS)
    assert first.dtype == np.float32 and first.shape == (4, embedder.dim)
    assert np.array_equal(first, again) and np.array_equal(first, other)
    assert StaticEmbedder().identity == embedder.identity


def test_static_embedder_rows_are_unit_or_zero(embedder):
    norms = np.linalg.norm(embedder.embed(TEXTS), axis=1)
    assert np.allclose(norms[:3], 1.0, atol=1e-5)
    assert norms[3] == 0.0  # nothing the model knows: no direction rather than NaN


def test_static_embedder_relates_paraphrases(embedder):
    a, b, c = embedder.embed(["where does the user live", "user lives in Berlin", "baking sourdough bread"])
    assert float(a @ b) > float(a @ c) + 0.2


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(EmbedderError, match="model.safetensors"):
        StaticEmbedder(tmp_path)


class _EmbeddingsHandler(BaseHTTPRequestHandler):
    """A tiny OpenAI-compatible /embeddings endpoint: a deterministic bag-of-letters vector."""

    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path.rstrip("/").endswith("/embeddings") is False or body.get("model") != "letters":
            self.send_response(404)
            self.end_headers()
            return
        data = []
        for i, text in enumerate(body["input"]):
            vector = [float(text.lower().count(ch)) for ch in "abcdefghijklmnopqrstuvwxyz"]
            data.append({"object": "embedding", "index": i, "embedding": vector})
        payload = json.dumps({"object": "list", "data": data, "model": "letters",
                              "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def embeddings_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EmbeddingsHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_openai_compatible_embedder(embeddings_server):
    embedder = OpenAIEmbedder(base_url=embeddings_server, model="letters")
    vectors = embedder.embed(["abc", "cab", "zzz"])
    assert embedder.dim == 26 and vectors.shape == (3, 26)
    assert np.allclose(vectors[0], vectors[1]) and float(vectors[0] @ vectors[2]) == 0.0
    assert embedder.identity.startswith("openai:")


def test_openai_embedder_failure_names_the_embedder(embeddings_server):
    with pytest.raises(EmbedderError) as caught:
        OpenAIEmbedder(base_url=embeddings_server, model="no-such-model").embed(["x"])
    assert caught.value.field == "embedder"


def test_recall_runs_on_the_openai_backend(clocked_ledger, clock, index_dir, embeddings_server):
    clock.now = "2025-01-02T00:00:00Z"
    with clocked_ledger.transaction(principal="operator:test") as tx:
        tx.add("s", "user", "likes", "jazz", valid_from="2024-01-01")
    clock.now = "2025-02-01T00:00:00Z"
    engine = Recall(clocked_ledger, index_dir, embedder=OpenAIEmbedder(base_url=embeddings_server, model="letters"))
    assert [h.claim.value for h in engine.search("jazz", "s")] == ["jazz"]
    assert engine.status().recorded_embedder.startswith("openai:")

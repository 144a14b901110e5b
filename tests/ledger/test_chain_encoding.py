"""The chain hashes JSON written by one C encoder built once (ledger/chain.py `_encode`): its text must
be exactly what `json.dumps(..., ensure_ascii=False, separators=(",", ":"))` writes, or no chain written
before would verify."""

from __future__ import annotations

import json
import random

from factledger.ledger import chain


VALUES = [None, True, False, 0, -5, 2**70, 1.5, -0.0, "", "Lyon", "é", "日本", 'a"b\\c\n\t\u2028\x00', "\U0001f600", "x" * 300]


def test_encode_writes_the_text_json_dumps_writes() -> None:
    rng = random.Random(24)
    for _ in range(5000):
        payload = [rng.choice(VALUES) for _ in range(rng.randint(0, 12))]
        if rng.random() < 0.5:
            payload.append([rng.choice(VALUES), [rng.choice(VALUES), ()], (rng.choice(VALUES),)])
        assert chain._encode(payload) == json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def test_a_version_hash_is_the_sha256_of_that_text() -> None:
    import hashlib

    payload = ["factledger-version-v1", "00" * 16, 7, "home", "ann", "Ann", "lives_in", "one", "Lyon", "lyon",
               "2024-01-01T00:00:00.000000Z", None, "2024-01-02T00:00:00.000000Z", 3, ["turn:1"]]
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    assert chain._sha256(payload) == hashlib.sha256(text.encode("utf-8")).hexdigest()

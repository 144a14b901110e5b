"""Negative retrieval: queries that must return nothing, and positive controls that must hit, in one run.

The store holds a few hundred unrelated facts (so every query has strong vector neighbours). Each
must-be-empty query (random ids, UUIDs, base64, keyboard mash, emoji, punctuation, stop words, CJK
noise) is run through search and the prompt block; each positive control must find its row in both.
Exits non-zero, loudly, if a control misses (an empty system cannot pass) or a negative returns anything.

The store also holds a short conversation as episodes (journal turns), so the episode lanes face the
same queries. A second set of negatives, HELD_OUT, was written after the gates were tuned and is never
used to tune them: queries that share only a subject's name (or a speaker's) with what is stored
("the user's dentist appointment" where every sentence starts with "user"). It is reported apart.

    .venv/bin/python evals/negative_retrieval.py [--config balanced] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import uuid
from pathlib import Path

from factledger.digest import Journal, Turn
from factledger.ledger import Ledger
from factledger.recall import Recall, RecallConfig

SCOPE = "user:negatives"

FACTS = [
    ("user", "lives_in", "Berlin"),
    ("user", "works_at", "a small bakery in Kreuzberg"),
    ("user", "birthday", "14 March"),
    ("user", "likes", "hiking in the Alps"),
    ("user", "likes", "baking sourdough bread"),
    ("user", "likes", "jazz records from the fifties"),
    ("user", "has_pet", "a grey cat called Miso"),
    ("user", "allergic_to", "peanuts"),
    ("user", "speaks", "German and Portuguese"),
    ("user", "drives", "an old blue Volvo estate"),
    ("user", "studied", "marine biology in Lisbon"),
    ("user", "plays", "the cello in an amateur orchestra"),
    ("sister", "lives_in", "Porto"),
    ("sister", "works_at", "the city hospital as a nurse"),
    ("project atlas", "deadline", "the end of June"),
    ("project atlas", "uses", "PostgreSQL and Rust"),
    ("user", "prefers", "tea over coffee in the morning"),
    ("user", "reading", "a novel about lighthouse keepers"),
    ("user", "training_for", "a half marathon in October"),
    ("user", "favourite_food", "grilled sardines"),
]
CITIES = ["Oslo", "Lyon", "Krakow", "Seville", "Gdansk", "Turin", "Bergen", "Utrecht", "Graz", "Bilbao"]
ACTIVITIES = ["visited a museum", "ran a 10k race", "bought a bicycle", "met an old friend", "took a cooking class",
              "went to a concert", "painted a landscape", "adopted a plant", "fixed a leaking tap", "read a thriller"]

# (label, query, claim value that must be found)
POSITIVE = [
    ("keyword", "Berlin", "Berlin"),
    ("slot", "where does the user live", "Berlin"),
    ("possessive", "user's cat", "a grey cat called Miso"),
    ("plural", "peanut allergies", "peanuts"),
    ("case+punctuation", "SOURDOUGH?!", "baking sourdough bread"),
    ("name", "Miso", "a grey cat called Miso"),
    ("paraphrase", "playing a string instrument in an orchestra", "the cello in an amateur orchestra"),
    ("vector", "mountain walks", "hiking in the Alps"),
    ("sister", "where does the sister live", "Porto"),
    ("number", "10k race in Oslo", "ran a 10k race in Oslo"),
]


# A conversation kept as episodes (what was said), beside the facts.
CONVERSATION = [
    ("user", "I started a pottery class on Tuesday evenings, the teacher is very patient"),
    ("assistant", "That sounds relaxing. What are you making first?"),
    ("user", "A lopsided bowl for my sister, she collects odd ceramics"),
    ("assistant", "She will love it. Is she still in Porto?"),
    ("user", "Yes, and she just adopted a rescue greyhound named Pixel"),
    ("assistant", "Greyhounds are gentle dogs. Did you visit her recently?"),
    ("user", "We went surfing near Matosinhos in the spring, the water was freezing"),
]

# (label, query, words the episode must contain)
POSITIVE_EPISODES = [
    ("episode keyword", "pottery class", "pottery class"),
    ("episode speaker+topic", "what did I say about the greyhound", "greyhound named Pixel"),
    ("episode paraphrase", "when did we go surfing", "surfing near Matosinhos"),
]

# Queries that share only a subject's or a speaker's name with the store, nothing they are about. The
# subject-only gates were tuned on these (they are part of the tuning set, like every negative above).
SUBJECT_ONLY = [
    ("subject only", "the user's dentist appointment"),
    ("subject only", "user passport number"),
    ("subject only", "when is the sister's wedding"),
    ("subject only", "project atlas budget approval"),
    ("subject only", "what is the user's blood type"),
    ("subject only", "the user's tax return"),
    ("subject only", "user insurance claim status"),
    ("speaker only", "what did the assistant say about mortgages"),
    ("speaker only", "assistant opinion on cryptocurrency"),
]

# A query about one subject that shares a topical word with another subject's fact ("favourite"): the
# ranked search may list that fact (a person sees whose it is); the prompt block must not offer it.
WRONG_SUBJECT = [
    ("wrong subject", "sister's favourite football team"),
]

# Written after the gates were tuned and never used to tune them (2026-12-01); reported apart.
HELD_OUT = [
    ("subject only", "user's electricity bill"),
    ("subject only", "did the sister ever learn to ski"),
    ("subject only", "project atlas office address"),
    ("subject only", "the user's shoe size"),
    ("subject only", "sister's car registration"),
    ("speaker only", "what did the assistant recommend for back pain"),
    ("subject only", "user's wifi password hint"),
    ("subject only", "what time does the user's gym open"),
    ("subject only", "sister's graduation ceremony"),
    ("speaker only", "user talked about volcanoes"),
]


def negative_queries(seed: int = 7) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    hexes = "0123456789abcdef"
    b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    out = [
        ("uuid", str(uuid.UUID(int=rng.getrandbits(128)))),
        ("uuid", str(uuid.UUID(int=rng.getrandbits(128))).upper()),
        ("random id", "".join(rng.choice(hexes) for _ in range(24))),
        ("random id", "id_" + "".join(rng.choice(hexes) for _ in range(12))),
        ("random id", "ORD-" + str(rng.randrange(10**9, 10**10))),
        ("sha", "".join(rng.choice(hexes) for _ in range(40))),
        ("base64", "".join(rng.choice(b64) for _ in range(32)) + "=="),
        ("base64", "SGVsbG8sIHdvcmxkIQ=="),
        ("keyboard mash", "asdfghjkl"),
        ("keyboard mash", "qwertyuiop zxcvbnm"),
        ("keyboard mash", "jkjkjkjk lolololol"),
        ("keyboard mash", "fjdksla;fjdksla"),
        ("keyboard mash", "xqzvbnw pqlmz"),
        ("emoji", "🙂"),
        ("emoji", "🔥🔥🔥💯"),
        ("emoji", "🐈‍⬛ 🍞 🎻"),
        ("punctuation", "?!?!..."),
        ("punctuation", "--- *** ###"),
        ("punctuation", "(){}[]<>"),
        ("stop words", "the of and a"),
        ("stop words", "what is it"),
        ("stop words", "and then there were none of them"),
        ("stop words", "is this the one that you were about to"),
        ("stop words", "hey hi hello"),
        ("cjk noise", "啊啊啊啊"),
        ("cjk noise", "鑫龘靐齉"),
        ("cjk noise", "ぬるぽ ガッ"),
        ("cjk noise", "ㅋㅋㅋㅋㅋ"),
        ("mixed noise", "zzz 0x7f3a !!"),
        ("mixed noise", "lorem ipsum dolor sit amet"),
        ("mixed noise", "🙂 asdf 鑫"),
        ("mixed noise", "%%%% 1e9f"),
    ]
    return out + SUBJECT_ONLY


def build_store(ledger: Ledger) -> None:
    with ledger.transaction(principal="import:negatives") as tx:
        tx.define("lives_in", "one", template="{subject} lives in {value}")
        tx.define("works_at", "one", template="{subject} works at {value}")
        tx.define("birthday", "one", template="{subject}'s birthday is {value}")
        for subject, predicate, value in FACTS:
            tx.add(SCOPE, subject, predicate, value, valid_from="2024-01-01", source=f"fact:{predicate}")
    rng = random.Random(11)
    with ledger.transaction(principal="import:negatives") as tx:
        for i in range(300):
            activity, city = rng.choice(ACTIVITIES), rng.choice(CITIES)
            tx.add(SCOPE, "user", "did", f"{activity} in {city}", valid_from=f"2023-{1 + i % 12:02d}-{1 + i % 27:02d}",
                   source=f"diary:{i}")
    journal = Journal(ledger)
    for minute, (role, text) in enumerate(CONVERSATION):
        journal.append(Turn(scope=SCOPE, text=text, role=role, session="chat-1", said_at=f"2024-05-02T10:{minute:02d}:00Z"))


def _shown(hits) -> list[str]:
    return [h.claim.value if h.claim is not None else h.text for h in hits]


def run(config: RecallConfig) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        ledger = Ledger.open(Path(tmp) / "negatives.db")
        build_store(ledger)
        recall = Recall(ledger, config=config)
        recall.sync()
        negatives = []
        for label, query in negative_queries():
            hits = recall.search(query, [SCOPE], limit=10)
            block = recall.prompt_block(query, [SCOPE])
            negatives.append({"label": label, "query": query, "search": _shown(hits), "prompt_block": block})
        for label, query in WRONG_SUBJECT:
            block = recall.prompt_block(query, [SCOPE])
            negatives.append({"label": label, "query": query, "search": [], "prompt_block": block})
        held_out = []
        for label, query in HELD_OUT:
            hits = recall.search(query, [SCOPE], limit=10)
            block = recall.prompt_block(query, [SCOPE])
            held_out.append({"label": label, "query": query, "search": _shown(hits), "prompt_block": block})
        positives = []
        for label, query, want in POSITIVE:
            hits = recall.search(query, [SCOPE], limit=5)
            block = recall.prompt_block(query, [SCOPE])
            rank = next((i + 1 for i, h in enumerate(hits) if h.claim is not None and h.claim.value == want), None)
            positives.append({"label": label, "query": query, "want": want, "rank": rank, "in_prompt_block": want in block})
        for label, query, want in POSITIVE_EPISODES:
            hits = recall.search(query, [SCOPE], limit=5)
            block = recall.prompt_block(query, [SCOPE])
            rank = next((i + 1 for i, h in enumerate(hits) if h.episode is not None and want in h.text), None)
            positives.append({"label": label, "query": query, "want": want, "rank": rank, "in_prompt_block": want in block})
        recall.close()
        ledger.close()
    return {"config": config.name, "negatives": negatives, "held_out": held_out, "positives": positives}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="balanced")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = run(RecallConfig.preset(args.config))
    leaked = [n for n in report["negatives"] if n["search"] or n["prompt_block"]]
    held_leaked = [n for n in report["held_out"] if n["search"] or n["prompt_block"]]
    missed = [p for p in report["positives"] if p["rank"] is None or not p["in_prompt_block"]]
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(f"config: {report['config']}")
        print(f"negatives: {len(report['negatives']) - len(leaked)}/{len(report['negatives'])} returned nothing")
        for n in leaked:
            print(f"  LEAK [{n['label']}] {n['query']!r}: {n['search'][:3]} block={bool(n['prompt_block'])}")
        print(f"held-out negatives (written after tuning): {len(report['held_out']) - len(held_leaked)}/"
              f"{len(report['held_out'])} returned nothing")
        for n in held_leaked:
            print(f"  LEAK [{n['label']}] {n['query']!r}: {n['search'][:3]} block={bool(n['prompt_block'])}")
        print(f"positive controls: {len(report['positives']) - len(missed)}/{len(report['positives'])} found (search top 5 and prompt block)")
        for p in report["positives"]:
            print(f"  [{p['label']}] {p['query']!r} -> rank {p['rank']}, in block: {p['in_prompt_block']}")
    if missed:
        print(f"FAIL: {len(missed)} positive control(s) missing: {[p['query'] for p in missed]}", file=sys.stderr)
        return 1
    if leaked or held_leaked:
        print(f"FAIL: {len(leaked) + len(held_leaked)} must-be-empty quer(ies) returned results", file=sys.stderr)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Shared by the store tests: real bot matches recorded into real database files."""

from __future__ import annotations

import subprocess
import sys

from unonet.engine import make_rules
from unonet.store import ScoreStore
from unonet.store.testing import PlayedMatch, bot_match

NAMES = ("Ana", "Ben", "Cleo", "Dev")
KINDS = {"standard": {}, "teams": {"teams": True}, "elimination": {"scoring": "elimination"}}


def played(kind: str = "standard", seed: int = 1, names=NAMES, attempt: int = 0, **kw) -> PlayedMatch:
    return bot_match(make_rules(**KINDS[kind], **kw), names, seed, attempt=attempt)


def record(store: ScoreStore, pm: PlayedMatch, upto: int | None = None) -> None:
    store.begin_match(pm.header, pm.names)
    for e in pm.entries[:upto]:
        store.record_round(e)


def filled(path, kinds=("standard", "teams", "elimination")) -> list[PlayedMatch]:
    """A database with one whole match of each kind (seeds 1, 2, 3…), closed again."""
    matches = [played(kind, seed) for seed, kind in enumerate(kinds, 1)]
    with ScoreStore.open(path) as store:
        for pm in matches:
            record(store, pm)
    return matches


def unonet(*args, env=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "unonet", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)

"""Fill a score database with real bot matches, for the README's sample of `unonet score`.

    python scripts/score_sample.py /tmp/sample.db && unonet score standings --db /tmp/sample.db

Three matches at one table (seeded, so the sample is always the same): a standard match with
one disputed round (played again), a partners match, an elimination match.
"""

from __future__ import annotations

import sys

from unonet.engine import RuleSet
from unonet.store import ScoreStore
from unonet.store.testing import bot_match, with_dispute


def main(path: str) -> int:
    names = ["Ana", "Ben", "Cleo", "Dev"]
    matches = [
        with_dispute(bot_match(RuleSet(), names, 3, table=b"kitchen"), 2,
                     "seat 1's hand does not open its commitment (card 4)"),
        bot_match(RuleSet(teams=True), names, 4, table=b"kitchen"),
        bot_match(RuleSet(scoring="elimination", target=300), names, 6, table=b"kitchen"),
    ]
    with ScoreStore.open(path) as store:
        for pm in matches:
            store.begin_match(pm.header, pm.names)
            for e in pm.entries:
                store.record_round(e)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))

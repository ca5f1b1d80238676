"""Real bot matches as ledger entries, for tests, the crash test's recorder and the README sample.

The rounds are played by the rules engine's `Match` and bots (as `unonet simulate` does),
seeded, so a seed always gives the same matches.  Without a fair-play table there is no
host-signed digest, so each entry carries a stand-in: SHA-256 over a tag, the match id,
the round number and every event of the round, in order (distinct per round, replayable).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..engine import Match, RuleSet, make_bot, play_round
from ..ledger import MatchHeader, MatchLedger, RoundEntry

NAMES = ("Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun")


@dataclass(frozen=True)
class PlayedMatch:
    header: MatchHeader
    names: tuple[str, ...]
    entries: tuple[RoundEntry, ...]
    winner: int  # the winning seat, or team at a partners table

    @property
    def head(self) -> bytes:
        return self.entries[-1].hash if self.entries else self.header.genesis


def player_key(name: str) -> bytes:
    """A stable 32-byte key id for a bot player (a real table uses the peer's fingerprint)."""
    return hashlib.sha256(b"unonet/store/testing/player\x00" + name.encode()).digest()


def bot_match(rules: RuleSet, seats: Sequence[str], seed: int, *, table: bytes = b"test-table",
              bot: str = "heuristic") -> PlayedMatch:
    """One whole match to the target, every round an entry chained from the header's genesis."""
    rng = random.Random(seed)
    header = MatchHeader(match=rng.randbytes(16), table=table, seats=tuple(player_key(n) for n in seats),
                         preset=rules.preset, deck=rules.deck, house=tuple(sorted(rules.house)), teams=rules.teams,
                         scoring=rules.scoring, target=rules.target)
    match = Match(rules, len(seats), rng.getrandbits(64))
    ledger = MatchLedger(header)
    for number in range(1, 10_000):
        if match.over:
            break
        rnd = match.new_round()
        digest = hashlib.sha256(b"unonet/store/testing/round\x00" + header.match + number.to_bytes(4, "big"))
        for e in rnd.start():
            digest.update(repr(e).encode())
        bots = [make_bot(bot, rng.getrandbits(32)) for _ in seats]
        play_round(rnd, bots, on_events=lambda action, events: [digest.update(repr(e).encode()) for e in events])
        rec = match.record(rnd)
        ledger.append(ledger.entry(round=number, dealer=rec.dealer, winner=rec.winner, points=rec.points,
                                   hand_points=rec.hand_points, scores=rec.scores, digest=digest.digest(),
                                   host=header.seats[0], cosigners=range(len(seats))))
    return PlayedMatch(header, tuple(seats), tuple(ledger.entries), match.winner)


def bot_matches(rules: RuleSet, seats: Sequence[str], seed: int, count: int, *,
                table: bytes = b"test-table") -> Iterator[PlayedMatch]:
    """``count`` matches in a row at one table (each a new match id)."""
    rng = random.Random(seed)
    for _ in range(count):
        yield bot_match(rules, seats, rng.getrandbits(64), table=table)

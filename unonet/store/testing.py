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
              bot: str = "heuristic", attempt: int = 0) -> PlayedMatch:
    """One whole match to the target, every round an entry chained from the header's genesis;
    each under ``attempt`` (a live table numbers a round's first deal 1, as the wire does)."""
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
        ledger.append(ledger.entry(round=number, attempt=attempt, dealer=rec.dealer, winner=rec.winner, points=rec.points,
                                   hand_points=rec.hand_points, scores=rec.scores, digest=digest.digest(),
                                   host=header.seats[0], cosigners=range(len(seats))))
    return PlayedMatch(header, tuple(seats), tuple(ledger.entries), match.winner)


def with_dispute(pm: PlayedMatch, round: int, reason: str) -> PlayedMatch:
    """The same match with a disputed first attempt at ``round`` (the table then played it
    again, as attempt 1): every later entry re-chained, the scores unchanged."""
    ledger = MatchLedger(pm.header)
    for e in pm.entries:
        if e.round == round:
            ledger.append(ledger.disputed(round=round, dealer=e.dealer, reason=reason, winner=e.winner,
                                          points=e.points * 2, digest=e.digest, host=e.host))
        ledger.append(ledger.entry(round=e.round, attempt=int(e.round == round), dealer=e.dealer, winner=e.winner,
                                   points=e.points, hand_points=e.hand_points, scores=e.scores, digest=e.digest,
                                   host=e.host, cosigners=e.cosigners))
    return PlayedMatch(pm.header, pm.names, tuple(ledger.entries), pm.winner)


def bot_matches(rules: RuleSet, seats: Sequence[str], seed: int, count: int, *,
                table: bytes = b"test-table") -> Iterator[PlayedMatch]:
    """``count`` matches in a row at one table (each a new match id)."""
    rng = random.Random(seed)
    for _ in range(count):
        yield bot_match(rules, seats, rng.getrandbits(64), table=table)


def feed(seed: int, repeat: int = 2, players: Sequence[str] = NAMES[:4]) -> list[PlayedMatch]:
    """The crash test's rounds: ``repeat`` times a match of each kind (standard, partners,
    elimination), in a row at one table, seeded."""
    out = []
    kinds = [(False, "standard"), (True, "standard"), (False, "elimination")] * repeat
    for i, (teams, scoring) in enumerate(kinds):
        rules = RuleSet(teams=teams, scoring=scoring)
        out.append(bot_match(rules, players, seed * 100 + i, table=b"crash-table"))
    return out


def record_feed(path: str, matches: Sequence[PlayedMatch], *, report=print) -> None:
    """A recorder that resumes from what the database holds: for each match, the chain as
    recorded must be a prefix of the feed; it records the rest, reporting each round once
    its transaction committed."""
    from ._store import ScoreStore

    with ScoreStore.open(path) as store:
        for pm in matches:
            store.begin_match(pm.header, pm.names)
            held = store.ledger(pm.header.match)
            done = held.rounds
            if tuple(held.entries) != pm.entries[:done]:
                raise SystemExit(f"{path}: match {pm.header.match.hex()} holds rounds that are not the feed's")
            for e in pm.entries[done:]:
                store.record_round(e)
                report(f"recorded {pm.header.match.hex()} {e.round}")


def write_feed(path: str, matches: Sequence[PlayedMatch]) -> None:
    """The matches as JSON Lines, one match a line (header, names, entries in their JSON form)."""
    import json

    with open(path, "w", encoding="utf-8") as f:
        for pm in matches:
            f.write(json.dumps({"header": pm.header.to_json(), "names": list(pm.names), "winner": pm.winner,
                                "entries": [e.to_json() for e in pm.entries]}) + "\n")


def read_feed(path: str) -> list[PlayedMatch]:
    import json

    from ..ledger import MatchHeader, RoundEntry

    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            obj = json.loads(line)
            out.append(PlayedMatch(MatchHeader.from_json(obj["header"]), tuple(obj["names"]),
                                   tuple(RoundEntry.from_json(e) for e in obj["entries"]), obj["winner"]))
    return out


if __name__ == "__main__":  # python -m unonet.store.testing DB FEED.jsonl: the crash test's recorder
    import sys

    record_feed(sys.argv[1], read_feed(sys.argv[2]), report=lambda line: print(line, flush=True))

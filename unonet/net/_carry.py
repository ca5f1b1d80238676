"""What a seat carries through a host election, sans IO (spec §7): its record of the match
(`Carry`), its report to the new host and the check of the new host's confirmation
(`Follower`), and its ledger handed over as `ledger` messages.  The seat session (`_seat`)
and the election driver (`_election`) both use it."""

from __future__ import annotations

import dataclasses
from typing import Any

from unonet.ledger import MatchLedger, after_rounds
from unonet.protocol import Election, Ledger, LedgerEntry, SeatPoints

from ._errors import SeatProblem

__all__ = ["NO_HEAD", "Carry", "afresh", "Follower", "heads", "carry_at", "ledger_messages", "split_round", "signed_beyond"]

NO_HEAD = bytes(32)    # the head a peer reports before the match ledger exists


@dataclasses.dataclass(frozen=True)
class Carry:
    """What a seat (or the new host) carries into the continued match: its Continuation
    (None: the match had not started, a fresh one begins) and its ledger's first
    ``rounds`` entries."""

    continuation: Any
    header: Any
    entries: tuple
    term: int

    @property
    def rounds(self) -> int:
        return self.continuation.rounds if self.continuation is not None else 0

    def ledger(self) -> MatchLedger | None:
        """A fresh copy of the carried chain (each party appends to its own)."""
        return MatchLedger(self.header, self.entries) if self.header is not None else None


def afresh(rounds: int, head: bytes) -> bool:
    """Is a report (or a confirmation) "nothing completed, no ledger yet" -- the all-zero head
    after 0 rounds?  The host may die while sending round 1's set-up (a seat's ledger begins
    there), some seats reading it and some not: that head then agrees with the genesis of a
    party that read it (neither completed anything), and the match starts afresh (spec §7
    step 5).  A seat that co-signed a round cannot hide behind it (`signed_beyond`)."""
    return rounds == 0 and head == NO_HEAD


def heads(game) -> list[bytes]:
    """The seat's ledger head after 0, 1, ... completed rounds."""
    led = game.ledger if game is not None else None
    if led is None:
        return [NO_HEAD]
    return [led.header.genesis] + [e.hash for e in led.entries]


def carry_at(game, rounds: int, term: int) -> Carry:
    """The seat's own record of the match after ``rounds`` completed rounds."""
    led = game.ledger if game is not None else None
    if game is None or (led is None and rounds == 0):
        return Carry(None, None, (), term)
    cont = game.snapshots.get(rounds)
    if cont is None:
        raise SeatProblem(f"the new host continues {after_rounds(rounds)}, but this seat's record of the "
                          f"match ends {after_rounds(led.rounds if led else 0)}", cheat=True)
    return Carry(cont, led.header if led else None, tuple(led.entries[:rounds]) if led else (), term)


class Follower:
    """A seat's side of an election: what it reported, and the check of the new host's
    confirmation (`SeatSide.election`)."""

    def __init__(self, game, term: int, host: bytes) -> None:
        self.game, self.term, self.host = game, term, host
        if game is not None:
            game.snapshot()  # the match as it stands (the current round is void)
        self.heads = heads(game)
        seat = getattr(game, "seat", None)
        if seat is not None and getattr(seat, "match", None) is not None:
            from unonet.table import cosigned_rounds

            self.floor = cosigned_rounds(seat)  # a continuation below it drops co-signed rounds
        else:
            self.floor = 0

    def report(self) -> Election:
        return Election(term=self.term, host=self.host, head=self.heads[-1], rounds=len(self.heads) - 1)

    def confirm(self, msg: Election) -> Carry:
        if msg.term != self.term or msg.host != self.host:
            raise SeatProblem(f"the new host confirms term {msg.term} for host {msg.host.hex()[:16]}, but this "
                              f"seat elected {self.host.hex()[:16]} in term {self.term}", cheat=True)
        fresh = afresh(msg.rounds, msg.head)
        if not fresh and (msg.rounds >= len(self.heads) or self.heads[msg.rounds] != msg.head):
            mine = self.heads[msg.rounds].hex()[:16] if msg.rounds < len(self.heads) else "none"
            raise SeatProblem(f"the new host continues from ledger head {msg.head.hex()[:16]} "
                              f"{after_rounds(msg.rounds)}; this seat's head there is {mine}: a head nobody can justify",
                              cheat=True)
        floor = self.floor
        if msg.rounds < floor - 1:  # every seat co-signed round `floor - 1` in front of the new host too
            raise SeatProblem(f"the new host continues {after_rounds(msg.rounds)}, but round {floor} was "
                              "co-signed by every seat: it drops co-signed rounds", cheat=True)
        if msg.rounds == floor - 1:
            # only the last round: the lost host relays its co-signs at the next round-start and may
            # have died with them on their way to us and not to the new host, and a seat that then
            # reported another head for it splits it there (step 5) -- that seat's lie or the lost
            # host's two stories, which nobody can show us: not provably the new host's doing
            self.redealt = floor
        if fresh:  # some party never read round 1's set-up: the match starts afresh (spec §7 step 5)
            return Carry(None, None, (), self.term)
        return carry_at(self.game, msg.rounds, self.term)

    redealt: int | None = None  # a round this seat saw co-signed, which the new host deals again


def split_round(game, seat: int, rounds: int, head: bytes, mine: list[bytes]) -> bool:
    """Is another ledger head of seat ``seat`` after ``rounds`` rounds (``mine`` this party's
    heads) explained by the lost host's two stories of that last round rather than by the
    seat's lie?  So when this party's record lacks that seat's co-sign of the round (they never
    crossed: the host died before the next round-start, which must relay or waive them) and
    the round is not the match's first: the two records then agree on the round before it,
    which the next round-start's history and waivers bound for every seat that took it."""
    if not 1 <= rounds < len(mine) or mine[rounds] == head:
        return False
    from unonet.table import holds_cosign

    record = getattr(game, "seat", None)
    return record is not None and getattr(record, "match", None) is not None and \
        not holds_cosign(record, seat, rounds)


def signed_beyond(game, seat: int, rounds: int, mine: list[bytes]) -> int | None:
    """The last round after ``rounds`` (up to this party's own, ``mine``) whose co-sign by seat
    ``seat`` this party's record holds, or None.  A seat that co-signed round ``n`` had its
    ledger entry for it first (a co-sign is made over the round-end the ledger appends), so a
    report of fewer rounds is not its whole record, however well its head sits on the chain (a
    lie, or a rejoin's replay the host's death cut short).  Taken, it pulls the agreed
    continuation below rounds every seat co-signed, and every follower that saw them calls the
    honest new host a cheat (spec §7 step 5/6)."""
    record = getattr(game, "seat", None)
    if record is None or getattr(record, "match", None) is None:
        return None
    from unonet.table import holds_cosign

    for n in range(len(mine) - 1, rounds, -1):
        if holds_cosign(record, seat, n):
            return n
    return None


def ledger_messages(game) -> list[Ledger]:
    """A follower's whole match ledger as `ledger` messages (spec §7: a scorekeeper hands it
    to the new host), at most 200 entries each; the counted rounds only."""
    from unonet.protocol._messages import MAX_LEDGER_ENTRIES

    led = game.ledger if game is not None else None
    if led is None:
        return []
    entries = [LedgerEntry(round=e.round, winner=e.winner,
                           points=tuple(SeatPoints(seat=s, points=p) for s, p in enumerate(e.hand_points)),
                           hash=e.hash) for e in led.entries if e.counted]
    chunks = [entries[i:i + MAX_LEDGER_ENTRIES] for i in range(0, len(entries), MAX_LEDGER_ENTRIES)] or [[]]
    return [Ledger(match=led.header.match, rounds=led.rounds, head=led.head, entries=tuple(c)) for c in chunks]

"""A whole fair table in one process, for tests, benchmarks and the engine bridge's tests.

It wires one FairDealer, a FairVerifier per seat and an observer through a
pretend broadcast, writing the transcript as it goes. `tamper` lets an
adversary test rewrite what the host broadcasts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ._cards import Card
from ._dealer import FairDealer
from ._encoding import sha256, u64
from ._errors import FairPlayViolation
from ._events import Event
from ._identity import Identity, RandBytes
from ._shuffle import Opening
from ._transcript import TranscriptWriter
from ._verifier import FairVerifier

Tamper = Callable[[Event], "Event | Sequence[Event] | None"]


def det_randbytes(seed: bytes | str) -> RandBytes:
    """A replayable randomness source (SHA-256 counter mode). Tests only."""
    key = seed.encode() if isinstance(seed, str) else seed
    counter = 0

    def randbytes(n: int) -> bytes:
        nonlocal counter
        out = b""
        while len(out) < n:
            out += sha256(b"unonet/fair/test-rng", key, u64(counter))
            counter += 1
        return out[:n]

    return randbytes


class FairTable:
    """Host + seats + observer, delivering every event to everyone in order."""

    def __init__(
        self,
        n_seats: int = 4,
        *,
        seed: bytes | str = b"fair-table",
        host_seat: int | None = None,
        table: bytes = b"table-1",
        round_no: int = 1,
        deck_name: str = "classic",
        deck: Sequence[Card] | None = None,
        dealer_cls: type[FairDealer] = FairDealer,
        identities: Sequence[Identity] | None = None,
        host_identity: Identity | None = None,
        writer: TranscriptWriter | None = None,
        strict: bool = True,
    ) -> None:
        rb = det_randbytes(seed)
        self.randbytes = rb
        self.host_identity = host_identity or Identity.generate(rb)
        if identities is None:
            identities = [Identity.generate(rb) for _ in range(n_seats)]
        self.identities = list(identities)
        if host_seat is not None:
            self.identities[host_seat] = self.host_identity
        seats = [i.public for i in self.identities]
        decks = {deck_name: tuple(deck)} if deck is not None else None
        self.writer = writer or TranscriptWriter()
        self.dealer = dealer_cls(
            self.host_identity, table=table, round_no=round_no, seats=seats, host_seat=host_seat,
            deck_name=deck_name, deck=deck, randbytes=rb, chain_head=bytes.fromhex(self.writer.head),
        )
        for s, ident in enumerate(self.identities):  # the host answers for a seat that stops listening
            self.dealer.act_for(s, ident)
        kw = {"decks": decks} if decks else {}
        self.verifiers = [
            FairVerifier(seat=s, identity=self.identities[s], host=self.host_identity.public, randbytes=rb, **kw)
            for s in range(len(seats))
        ]
        self.observer = FairVerifier(**kw)
        self.tamper: Tamper | None = None
        self.events: list[Event] = []
        #: strict: a violation propagates. Otherwise it is recorded as (party, error), that
        #: verifier stops listening, and the host acts for its seat, so a cheating host's
        #: transcript can be finished and handed to the auditor.
        self.strict = strict
        self.violations: list[tuple[str, Exception]] = []
        self._dead: set[int] = set()

    @property
    def lines(self) -> list[str]:
        return self.writer.lines

    @property
    def everyone(self) -> list[FairVerifier]:
        return [*self.verifiers, self.observer]

    def publish(self, events: Sequence[Event]) -> list[Opening]:
        learned: list[Opening] = []
        for ev in events:
            out = self.tamper(ev) if self.tamper else ev
            batch = [] if out is None else [out] if isinstance(out, Event) else list(out)
            for e in batch:
                self.writer.append(e)
                self.events.append(e)
                for k, v in enumerate(self.everyone):
                    if k in self._dead:
                        continue
                    try:
                        learned += v.receive(e)
                    except FairPlayViolation as exc:
                        if self.strict:
                            raise
                        self._dead.add(k)
                        self.violations.append(("observer" if v.seat is None else f"seat {v.seat}", exc))
        return learned

    def _live(self, seat: int) -> bool:
        return seat not in self._dead

    def send(self, event: Event, sender: int) -> None:
        """A player's message to the host from seat `sender`, published if the host accepts it."""
        self.publish(self.dealer.accept(event, sender))

    def seed_phase(self) -> None:
        for action in ("commit-seed", "reveal-seed"):
            for v in self.verifiers:
                if v.pending_action == action:
                    self.send(v.commit_seed() if action == "commit-seed" else v.reveal_seed(), v.seat)

    def start(self) -> None:
        self.publish(self.dealer.start())
        self.seed_phase()

    def deal_hands(self, cards: int = 7, seats: Sequence[int] | None = None) -> None:
        order = list(range(len(self.verifiers))) if seats is None else list(seats)
        for _ in range(cards):
            for s in order:
                self.publish([self.dealer.deal(s)])

    def draw(self, seat: int) -> int:
        ev = self.dealer.deal(seat)
        self.publish([ev])
        return ev.position

    def turn_up(self) -> int:
        ev = self.dealer.turn_up()
        self.publish([ev])
        return ev.opening.position

    def hand(self, seat: int) -> dict[int, Card]:
        return self.verifiers[seat].hand if self._live(seat) else self.dealer.hand(seat)

    def play(self, seat: int, position: int) -> None:
        if self._live(seat):
            self.send(self.verifiers[seat].play(position), seat)
        else:
            self.publish([self.dealer.host_act(seat, {"t": "play", "pos": position}, "seat dropped", position)])

    def challenge(self, challenger: int, challenged: int, colour: str) -> None:
        self.publish([self.dealer.challenge(challenger, challenged, colour)])
        if self._live(challenged):
            self.send(self.verifiers[challenged].answer_challenge(), challenged)
        else:
            self.publish([self.dealer.answer_challenge()])
        if self._live(challenger):
            self.send(self.verifiers[challenger].judge_challenge(), challenger)
        else:
            self.publish([self.dealer.judge_challenge()])

    def reshuffle(self, sources: Sequence[int], *, to: int | None = None) -> None:
        self.publish(self.dealer.reshuffle(sources, to=to))
        self.seed_phase()

    def finish(self) -> None:
        for s, v in enumerate(self.verifiers):
            if self._live(s) and v.hand:
                self.send(v.reveal(), s)
        self.publish(self.dealer.finish())

    def play_simple_round(self, *, plays: int = 8, draws: int = 4) -> None:
        """Deal, turn up, then let seats play their lowest positions and draw a few."""
        self.start()
        self.deal_hands()
        self.turn_up()
        n = len(self.verifiers)
        for k in range(max(plays, draws)):
            s = k % n
            if k < draws:
                self.draw(s)
            if k < plays:
                self.play(s, min(self.hand(s)))
        self.finish()

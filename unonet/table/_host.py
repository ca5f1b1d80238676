"""The host and the seats of a fair table, exchanging the fair messages in memory.

`TableHost` runs the rules engine (a `FairRound`) and a `FairDealer`; each `TableSeat`
runs a `FairVerifier` for its seat (checks every public event, opens its own sealed
cards, speaks when asked). Here the "network" is a method call: `TableHost.publish`
hands every public event to every seat and observer and appends it to the transcript;
a seat's message goes to `FairDealer.accept`. The net layer will carry the same
messages over links.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from ..engine import RuleSet
from ..fair import (
    Event, FairDealer, FairPlayViolation, FairVerifier, Identity, PublicIdentity, TranscriptWriter,
)
from ..fair._identity import RandBytes
from ._round import TABLE_DECKS, FairRound, action_json, events_json, fair_key, rules_json, scores_after

GAME_VERSION = 1


# FairVerifier.pending_action -> the verifier method that produces what the seat owes
_OWED = {
    "commit-seed": "commit_seed",
    "reveal-seed": "reveal_seed",
    "answer-challenge": "answer_challenge",
    "judge-challenge": "judge_challenge",
    "dispute-challenge": "dispute_challenge",
    "disclose-key": "disclose_challenge_key",
}

class TableSeat:
    """One player's side: a FairVerifier for its seat, answering the host when asked."""

    def __init__(self, seat: int, identity: Identity, host: PublicIdentity, *,
                 randbytes: RandBytes = os.urandom) -> None:
        self.seat = seat
        self.identity = identity
        self.verifier = FairVerifier(seat=seat, identity=identity, host=host, randbytes=randbytes,
                                     decks=TABLE_DECKS)

    def receive(self, event: Event) -> None:
        self.verifier.receive(event)

    def respond(self) -> Event | None:
        """The message this seat owes the host now (seed commit/reveal, challenge answer/verdict)."""
        method = _OWED.get(self.verifier.pending_action)
        return getattr(self.verifier, method)() if method else None

    def play(self, position: int) -> Event:
        return self.verifier.play(position)

    def reveal(self) -> Event | None:
        """Open the hand at the round's end (the cards not public yet; None if there are none)."""
        ev = self.verifier.reveal()
        return ev if ev.openings else None

    @property
    def hand(self) -> dict:
        return self.verifier.hand


class TableHost:
    """Runs one fair round: the engine, the dealer, the seats and the transcript.

    ``open_round()`` does the seed dance, records the game set-up and deals; the round it
    returns is driven like any engine Round (``start()``, ``apply(action)``). When the
    round is over the host opens the hands, reveals r_h and signs the round, then calls
    ``on_finish(host)``. ``tamper_game(data) -> data`` lets adversary tests make the host
    announce something false in the game record.
    """

    def __init__(
        self,
        rules: RuleSet,
        players: int,
        dealer: int,
        *,
        identity: Identity,
        seats: Sequence[TableSeat],
        table: bytes = b"unonet-table",
        round_no: int = 1,
        match_no: int = 1,
        scores: Sequence[int] | None = None,
        active: Sequence[int] | None = None,
        host_seat: int | None = None,
        randbytes: RandBytes = os.urandom,
        observers: Sequence[FairVerifier] = (),
        writer: TranscriptWriter | None = None,
        on_finish: Callable[["TableHost"], None] | None = None,
        tamper_game: Callable[[dict], dict] | None = None,
    ) -> None:
        if rules.deck not in TABLE_DECKS:
            raise ValueError(f"fair play does not support the {rules.deck} deck yet")
        if len(seats) != players:
            raise ValueError(f"{players} players need {players} seats, got {len(seats)}")
        self.rules = rules
        self.players = players
        self.dealer_seat = dealer
        self.active = tuple(active) if active is not None else None
        self.scores = list(scores) if scores is not None else [0] * players
        self.match_no = match_no
        self.round_no = round_no
        self.seats = list(seats)
        self.observers = list(observers)
        self.writer = writer if writer is not None else TranscriptWriter()
        self.on_finish = on_finish
        self.tamper_game = tamper_game
        self.dealer = FairDealer(
            identity, table=table, round_no=round_no, seats=[s.identity.public for s in seats],
            host_seat=host_seat, deck_name=rules.deck, deck=TABLE_DECKS[rules.deck], randbytes=randbytes,
            chain_head=bytes.fromhex(self.writer.head),
        )
        self.events: list[Event] = []
        self.round: FairRound | None = None
        self.finished = False

    # -- the in-memory "network" ------------------------------------------
    @property
    def lines(self) -> list[str]:
        return self.writer.lines

    def publish(self, events: Sequence[Event]) -> None:
        for e in events:
            self.writer.append(e)
            self.events.append(e)
            for s in self.seats:
                s.receive(e)
            for o in self.observers:
                o.receive(e)

    def send(self, message: Event | None, sender: int) -> None:
        """Seat `sender`'s message to the host: checked by the dealer, published if accepted."""
        if message is not None:
            self.publish(self.dealer.accept(message, sender))

    def _seed_phase(self) -> None:
        for _ in range(2):  # commits, then reveals
            for s in self.seats:
                self.send(s.respond(), s.seat)

    def note(self, data: dict) -> None:
        if self.tamper_game is not None:
            data = self.tamper_game(data)
        self.publish([self.dealer.note_game(data)])

    # -- the round ----------------------------------------------------------
    def open_round(self) -> FairRound:
        self.publish(self.dealer.start())
        self._seed_phase()
        self.note({"g": "setup", "v": GAME_VERSION, "rules": rules_json(self.rules), "players": self.players,
                   "dealer": self.dealer_seat, "active": list(self.active) if self.active is not None else None,
                   "scores": list(self.scores), "match": self.match_no, "round": self.round_no})
        self.round = FairRound.open(self.rules, self.players, self.dealer_seat, self, active=self.active)
        return self.round

    # -- Backend: what the engine did, turned into fair messages -------------
    def deck(self) -> list[str]:
        e = self.dealer.ledger.epochs[0]
        return [fair_key(self.dealer.card(j)) for j in range(e.base, e.base + e.count)]

    def deal(self, seat: int, position: int) -> None:
        self.publish([self.dealer.deal(seat, position=position)])

    def turn_up(self, position: int) -> None:
        if self.dealer.next_position() != position:
            raise AssertionError(f"the engine turns up position {position}, the dealer's next is "
                                 f"{self.dealer.next_position()}")
        self.publish([self.dealer.turn_up()])

    def play(self, seat: int, position: int) -> None:
        self.send(self.seats[seat].play(position), seat)

    def reshuffle(self, sources: Sequence[int], to: int | None = None) -> tuple[int, list[str]]:
        self.publish(self.dealer.reshuffle(sources, to=to))
        e = self.dealer.ledger.epoch
        if e.commitments is None:
            raise FairPlayViolation(f"epoch {e.number} was not committed after the seed dance")
        return e.base, [fair_key(self.dealer.card(j)) for j in range(e.base, e.base + e.count)]

    def flip(self, side: int, held: Sequence[int]) -> None:
        lg = self.dealer.ledger
        mine = sorted(j for j, p in enumerate(lg.positions) if p.holder is not None)
        if mine != sorted(held):
            raise FairPlayViolation(f"the engine's hands hold positions {sorted(held)}, the fair record {mine}")
        ev = self.dealer.flip()
        if ev.side != side:
            raise FairPlayViolation(f"the engine turns to side {side}, the fair record to side {ev.side}")
        self.publish([ev])

    def challenge(self, challenger: int, challenged: int, colour: str, positions: Sequence[int]) -> bool:
        ev = self.dealer.challenge(challenger, challenged, colour)
        if sorted(ev.positions) != sorted(positions):
            raise FairPlayViolation(f"challenge evidence {list(ev.positions)} differs from the engine's hand "
                                    f"{sorted(positions)}")
        self.publish([ev])
        self.send(self.seats[challenged].respond(), challenged)
        self.send(self.seats[challenger].respond(), challenger)  # a verdict, or a dispute
        if self.dealer.ledger.challenge is not None:
            self.send(self.seats[challenged].respond(), challenged)  # disputed: the key decides
        return bool(self.dealer.ledger.challenges[-1].guilty)

    def after(self, rnd: FairRound, action, events: list) -> None:
        if action is None:
            self.note({"g": "start", "ev": events_json(events)})
        else:
            self.note({"g": "act", "a": action_json(rnd, action), "ev": events_json(events)})
        if rnd.over and not self.finished:
            self.finish()

    def finish(self) -> None:
        rnd = self.round
        assert rnd is not None and rnd.outcome is not None
        out = rnd.outcome
        self.note({"g": "end", "winner": out.winner, "points": out.points, "hand_points": list(out.hand_points),
                   "termination": out.termination.value,
                   "scores": scores_after(self.rules, self.players, self.scores, out)})
        for s in self.seats:
            self.send(s.reveal(), s.seat)
        self.publish(self.dealer.finish())
        self.finished = True
        if self.on_finish is not None:
            self.on_finish(self)


def make_table(
    rules: RuleSet,
    players: int,
    dealer: int,
    *,
    randbytes: RandBytes = os.urandom,
    identities: Sequence[Identity] | None = None,
    host_identity: Identity | None = None,
    observer: bool = True,
    **kw,
) -> TableHost:
    """A host with a TableSeat per player (and an observer), all in this process."""
    host_identity = host_identity or Identity.generate(randbytes)
    if identities is None:
        identities = [Identity.generate(randbytes) for _ in range(players)]
    seats = [TableSeat(s, identities[s], host_identity.public, randbytes=randbytes) for s in range(players)]
    observers = [FairVerifier(decks=TABLE_DECKS)] if observer else []
    return TableHost(rules, players, dealer, identity=host_identity, seats=seats, randbytes=randbytes,
                     observers=observers, **kw)

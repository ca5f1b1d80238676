"""The in-memory network of a fair table: a TableHost, its TableSeats and observers.

`LocalTable` carries what the net layer will carry over links: every event the host
returns goes to every seat and observer, in order; every message a seat owes goes to
`TableHost.receive` from that seat; a bot's action becomes its seat's signed `act`.
`DrivenRound` lets `simulate()` and `play_round` drive a fair round like an engine
Round: it reads the host's round, and `apply(action)` goes through the seat and the host.
(Bots read the host's engine round here, in one process: the seat's own engine copy with
hidden cards is future work, docs/fair-play.md "Sans-IO table".)
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from ..engine import IllegalActionError, RuleSet
from ..fair import Event, FairPlayViolation, Identity, TranscriptWriter
from ..fair._identity import RandBytes
from ._host import Refusal, TableHost, TableSeat
from ._round import action_json

#: a pump never needs more passes than this (each pass delivers every owed message)
MAX_PUMP = 64


class LocalTable:
    """Host, seats and observers in one process, wired in memory.

    With ``strict`` (the default) the first violation any seat or observer sees is
    raised; otherwise it is recorded in `violations` as (who, exception) and that party
    stops listening (as a real client would leave the table)."""

    def __init__(self, host: TableHost, seats: Sequence[TableSeat], observers: Sequence[TableSeat] = (), *,
                 strict: bool = True) -> None:
        self.host = host
        self.seats = list(seats)
        self.observers = list(observers)
        self.strict = strict
        self.violations: list[tuple[str, FairPlayViolation]] = []
        self.round: DrivenRound | None = None

    # -- the wires -------------------------------------------------------------------
    @property
    def everyone(self) -> list[TableSeat]:
        return [*self.seats, *self.observers]

    @property
    def lines(self) -> list[str]:
        return self.host.lines

    @property
    def writer(self) -> TranscriptWriter:
        return self.host.writer

    @property
    def dealer(self):
        return self.host.dealer

    @property
    def finished(self) -> bool:
        return self.host.finished

    def broadcast(self, events: Sequence[Event]) -> None:
        for e in events:
            for who in self.everyone:
                if who.violation is not None:
                    continue
                try:
                    who.receive(e)
                except FairPlayViolation as exc:
                    self.violations.append(("observer" if who.seat is None else f"seat {who.seat}", exc))
                    if self.strict:
                        raise

    def send(self, seat: int, event: Event) -> list[Event]:
        """Seat `seat`'s message to the host; what the host publishes is broadcast."""
        out = self.host.receive(seat, event)
        self.broadcast(out)
        return out

    def pump(self) -> None:
        """Deliver every message the seats owe until none is owed."""
        for _ in range(MAX_PUMP + len(self.seats)):
            moved = False
            for s in self.seats:
                if s.violation is not None:
                    continue
                for m in s.owed():
                    self.send(s.seat, m)
                    moved = True
            if not moved:
                return
        raise AssertionError("the seats still owe messages after many passes")

    # -- the match and its rounds ---------------------------------------------------------
    def start_match(self) -> None:
        """The match header and every seat's join."""
        self.broadcast(self.host.start_match())
        self.pump()

    def start_round(self) -> "DrivenRound":
        """The next round (its set-up from the match rules), its seed exchange done."""
        if self.host.match.start is None:
            self.start_match()
        self.broadcast(self.host.start_round())
        self.pump()
        self.round = DrivenRound(self)
        return self.round

    open_round = start_round

    def act(self, action) -> list:
        """A seat's engine action, signed by its seat and sent to the host (a referee's
        call, e.g. CloseRace, is the host's own). Returns the engine events it produced."""
        rnd = self.host.round
        assert rnd is not None
        seat = getattr(action, "seat", None)
        if seat is None:
            self.broadcast(self.host.host_call(action))
            return self.host.last_engine_events
        js = action_json(rnd, action)
        ev = self.seats[seat].act(js, js.get("pos"))
        try:
            self.send(seat, ev)
        except Refusal as exc:
            self.seats[seat].withdraw(ev)
            raise IllegalActionError(exc.reason) from None
        self.pump()
        return self.host.last_engine_events

    def timeout(self, seat: int, kind: str) -> list[Event]:
        out = self.host.timeout(seat, kind)
        self.broadcast(out)
        self.pump()
        return out


class DrivenRound:
    """An engine Round's face for `play_round` and `simulate()`: reads the host's FairRound;
    `apply` goes through the acting seat's signed act and the host."""

    def __init__(self, table: LocalTable) -> None:
        object.__setattr__(self, "_table", table)
        object.__setattr__(self, "_started", False)

    @property
    def host(self) -> TableHost:
        return self._table.host

    @property
    def engine(self):
        """The host's engine Round this reads from (what a bot reads: `engine.engine_round`)."""
        return self._table.host.round

    def start(self) -> list:
        """The round started when its deck was committed; its opening events, once."""
        if self._started:
            raise IllegalActionError("the round has already started")
        object.__setattr__(self, "_started", True)
        return list(self._table.host.last_engine_events)

    def apply(self, action) -> list:
        return self._table.act(action)

    def __getattr__(self, name):
        return getattr(self._table.host.round, name)

    def __setattr__(self, name, value) -> None:
        setattr(self._table.host.round, name, value)


def make_table(
    rules: RuleSet,
    players: int,
    *,
    randbytes: RandBytes = os.urandom,
    identities: Sequence[Identity] | None = None,
    host_identity: Identity | None = None,
    observer: bool = True,
    strict: bool = True,
    host_cls: type[TableHost] = TableHost,
    **kw,
) -> LocalTable:
    """A host with a TableSeat per player (and an observer), all in this process. The
    dealer, scores and seats in play come from the match (see TableHost.start_round).
    ``host_cls``: an adversary test's cheating host."""
    host_identity = host_identity or Identity.generate(randbytes)
    if identities is None:
        identities = [Identity.generate(randbytes) for _ in range(players)]
    host = host_cls(rules, players, identity=host_identity, seats=[i.public for i in identities],
                     randbytes=randbytes, **kw)
    seats = [TableSeat(s, identities[s], host_identity.public, randbytes=randbytes) for s in range(players)]
    observers = [TableSeat(None, None, host_identity.public)] if observer else []
    return LocalTable(host, seats, observers, strict=strict)

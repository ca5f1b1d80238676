"""An observer's session (spec §7 observer role): the scorekeeper's side of a table, sans IO.

`ObserverSide` takes every message the host sends an observer, like a seat's `SeatSide`
but without a seat and without replies: the host sends it the roster and every public
event.  Each match runs an `ObserverGame`: a `SeatGame` whose `TableSeat` has no seat
(the fair verifier and the engine replay every player runs), keeping the same match
ledger as the players.  Each round it signs off goes to ``on_round``; a round it
cannot accept (a fair-play violation, a host breaking the session mid-round) becomes a
*disputed* entry with the reason (`dispute`), never a counted one.  The IO loop is the
joiner's (`play_seat` with ``seated=True``) under the joiner's election loop
(`_election.play_with_elections`): an observer ends when the host closes.
"""

from __future__ import annotations

from typing import Callable

from unonet.ledger import MatchLedger, RoundEntry
from unonet.protocol import Fair, MatchOver, Message, Rejoin, Roster, RoundEnd, SeatAssignment
from unonet.protocol._schema import OBSERVER

from ._game import SeatGame
from ._seat import SeatProblem, SeatSide, restarts_match
from ._carry import ledger_messages

__all__ = ["ObserverSide", "ObserverGame"]

#: on_round(ledger, entry, names): a round signed off (verified) or disputed
OnRound = Callable[[MatchLedger, RoundEntry, list], None]
#: on_match_over(line): the shared match-over line (unonet.ledger.MatchLedger.match_over)
OnMatchOver = Callable[[dict], None]
#: on_match_begin(ledger, names): a match's ledger exists (its first round is dealt)
OnMatchBegin = Callable[[MatchLedger, list], None]
#: on_cosign(ledger, entry, seat, sig): a seat's co-signature of the round ``entry`` (checked)
OnCosign = Callable[[MatchLedger, RoundEntry, int, bytes], None]


class ObserverGame(SeatGame):
    """One match as an observer sees it: the seat-less `TableSeat` checks every event."""
    def __init__(self, side: "ObserverSide") -> None:
        from unonet import table as T

        super().__init__(side)  # side.seat and its identity are None: a seat-less TableSeat
        assert self.seat.seat is None and isinstance(self.seat, T.TableSeat)
        self.disputed_round: int | None = None

    def receive(self, msg: Fair) -> list:
        fresh = self.ledger is None
        super().receive(msg)
        if fresh and self.ledger is not None and self.side.on_match_begin is not None:
            self.side.on_match_begin(self.ledger, self.side.names())  # its first deal: when it began
        return []  # an observer owes nothing

    def _round_signed(self, digest: bytes) -> None:
        super()._round_signed(digest)
        self.side.on_round(self.ledger, self.ledger.last, self.side.names())

    def _cosigned(self, event) -> None:
        super()._cosigned(event)
        last = self.ledger.last if self.ledger is not None else None
        if self.side.on_cosign is not None and last is not None and last.digest == event.digest:
            self.side.on_cosign(self.ledger, last, event.seat, event.tally)

    def round_end(self, msg) -> list:
        super().round_end(msg)
        return []  # no `ready` from an observer

    def _owed(self) -> list:
        return []

    def round_in_play(self) -> int | None:
        """The round dealt (or started) and not yet signed off; None between rounds."""
        if self.ledger is None:
            return None
        r = max(self.round_no, self.setup["round"] if self.setup else 0)
        done = self.ledger.last.round if self.ledger.rounds else 0
        return r if r > done else None

    def dispute(self, reason: str) -> RoundEntry | None:
        """Record the round in play as disputed with ``reason`` (once); None if no round is open."""
        r = self.round_in_play()
        if r is None or self.disputed_round == r:
            return None
        self.disputed_round = r
        if self.setup is not None and self.setup["round"] == r:
            dealer = self.setup["dealer"]
        else:  # its set-up never came: the dealer the rules give for it
            dealer = self.seat.referee.match.dealer
        end = self.end or {}
        try:
            attempt = self.seat.match.current.attempt
        except Exception:  # noqa: BLE001 - the host's nonsense may have left no current round
            attempt = 0
        entry = self.ledger.disputed(round=r, dealer=dealer, reason=reason,
                                     winner=end.get("winner") if _seat_ok(end.get("winner"), self.ledger) else None,
                                     attempt=attempt if isinstance(attempt, int) and attempt >= 0 else 0,
                                     **({"host": self.host_id} if getattr(self, "host_id", None) else {}))
        self.ledger.append(entry)
        self.side.on_round(self.ledger, entry, self.side.names())
        return entry


def _seat_ok(seat, ledger: MatchLedger) -> bool:
    return isinstance(seat, int) and 0 <= seat < ledger.header.players


class _NoKey:
    """An observer signs nothing: its TableSeat gets no fair identity."""
    @staticmethod
    def fair_identity():
        return None


_NO_KEY = _NoKey()


class ObserverSide(SeatSide):
    """An observer's state machine: the roster and every public event, no seat, no replies.

    ``on_round`` gets each round signed off or disputed; ``on_match_over`` each match's
    match-over line (checked against this observer's own ledger).  A match ends with
    ``game`` reset, so the next match on the same table starts a new ledger."""
    def __init__(self, *, name: str, host_public, on_round: OnRound, on_match_over: OnMatchOver,
                 on_match_begin: OnMatchBegin | None = None, on_cosign: OnCosign | None = None) -> None:
        super().__init__(name=name, identity=_NO_KEY, host_public=host_public, game_factory=ObserverGame)
        self.observer = True
        self.role = OBSERVER
        self.on_round, self.on_match_over, self.on_match_begin = on_round, on_match_over, on_match_begin
        self.on_cosign = on_cosign
        self.matches = 0

    def names(self) -> list[str]:
        r = self.roster
        return [p.name for p in sorted(r.players, key=lambda p: p.seat)] if r is not None else []

    def receive(self, msg: Message) -> list[Message]:
        if isinstance(msg, Fair) and not self.replaying:  # most of a match: first
            if restarts_match(self.game, msg):
                self.game = None
            if self.game is None:
                if msg.event().EV != "match-start":
                    return []  # attached in the middle of a match: it is counted from the next one
                self.game = ObserverGame(self)
            return self.game.receive(msg)
        if isinstance(msg, SeatAssignment):
            raise SeatProblem("the host gave a seat to an observer", code="unexpected")
        if isinstance(msg, Roster):
            if self.roster is not None and msg.epoch < self.roster.epoch:
                raise SeatProblem(f"the host sent roster epoch {msg.epoch} after epoch "
                                  f"{self.roster.epoch} (epochs only increase)", code="unexpected")
            self.roster = msg
            return []
        if isinstance(msg, Rejoin) or self.replaying:
            # attached in the middle of a match: the host replays it from its start (spec §7);
            # every round is checked and recorded as it is read, as a player back in its seat does
            super().receive(msg)
            return []
        if isinstance(msg, (RoundEnd, MatchOver)) and self.game is None:
            return []  # the end of a match this observer did not see from its start
        if isinstance(msg, MatchOver):
            line = self.game.match_over(msg)
            self.game = None
            self.carry = self.election = None  # a next match at this table is a new match
            self.matches += 1
            self.on_match_over(line)
            return []
        super().receive(msg)  # heartbeat, round-end, leave, error: as a seat
        return []

    def like(self, link, identity, game_factory=None) -> "ObserverSide":
        """The side that watches ``link`` (the host rejoined, or the elected one): the same
        callbacks and count of matches."""
        new = ObserverSide(name=self.name, host_public=link.peer_fair_identity, on_round=self.on_round,
                           on_match_over=self.on_match_over, on_match_begin=self.on_match_begin,
                           on_cosign=self.on_cosign)
        new.table_name, new.matches = self.table_name, self.matches
        return new

    def handover(self) -> list[Message]:
        """After its `election` report an observer hands its ledger over (the new host checks it)."""
        return list(ledger_messages(self.game))

    def dispute(self, reason: str) -> RoundEntry | None:
        """The session failed: the round in play (if any) is recorded disputed with ``reason``."""
        return self.game.dispute(reason) if self.game is not None else None

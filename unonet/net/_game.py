"""A match over the session: the host's `TableHost` and each seat's `TableSeat`, carried
as `fair` messages (spec §5, §6).

`HostGame` (in the host's table task) starts each round, relays every event the
`TableHost` returns to every peer in one order, feeds each seat's `fair` messages to
`TableHost.receive(seat, event)` — a `Refusal` becomes a non-fatal `error` to that seat
only, a `FairPlayViolation` a fatal one and the drop — turns missed deadlines into
`TableHost.timeout(seat, kind)`, waits for `ready` between rounds and ends the match
with `match_over`.  `SeatGame` (in every seat, remote or local) feeds the events to the
seat's `TableSeat`, sends what the seat owes, keeps the match ledger
(`unonet.ledger`) and checks the host's `match_over` against it.
"""

from __future__ import annotations

import os
from typing import Any, Callable

import trio

from unonet.engine import Match
from unonet.ledger import MatchHeader, MatchLedger
from unonet.protocol import ErrorReport, Fair, MatchOver, Ready, RoundEnd, SeatPoints

from ._seat import SeatProblem, SeatSide

__all__ = ["HostGame", "SeatGame", "run_local_seat", "bot_step", "scripted_feed", "parse_seat_action"]

SEED_TIMEOUT = 10.0     # seconds a seat has for its seed commit / reveal and challenge answers
DROPPED_TURN = 0.5      # a disconnected seat's turn is played for it after this pause


def _table():
    from unonet import table as T  # the fair table API (unonet/table): TableHost, TableSeat

    return T


def match_header(table_id: bytes, match_id: bytes, seat_ids, rules, preset: str) -> MatchHeader:
    """The ledger header every party builds alike from the roster and the rules."""
    return MatchHeader(match=match_id, table=table_id, seats=tuple(seat_ids), preset=preset,
                       deck=rules.deck, house=tuple(sorted(rules.house)), teams=rules.teams,
                       scoring=rules.scoring, target=rules.target)


# ---------------------------------------------------------------------------- host
class HostGame:
    """One match at a `HostTable` (see the module docstring)."""

    def __init__(self, table) -> None:
        T = _table()
        self.table = table
        c = table.config
        self.rules = c.rules
        self.players = c.players
        seats = [s for s in table.book.seats]
        assert all(s is not None for s in seats), "a match starts with every seat taken"
        self.match_no = table.matches_played + 1
        self.match_id = os.urandom(16)
        self.host = T.TableHost(c.rules, c.players, identity=table.identity.fair_identity(),
                                seats=[s.identity for s in seats], table=table.table_id,
                                match_no=self.match_no, host_seat=None if c.dealer_only else 0)
        self.match = Match(c.rules, c.players, c.seed)
        self.ledger = MatchLedger(match_header(table.table_id, self.match_id,
                                               [s.peer_id for s in seats], c.rules, c.preset))
        self.over = False
        self.result: dict | None = None
        self.round_no = 0
        self.ready: set[int] = set()
        self.between = False
        self._deadline = float("inf")
        self._owed_since: dict = {}

    @property
    def head(self) -> bytes:
        return self.ledger.head

    # -- sending -------------------------------------------------------------------
    def _relay(self, events) -> None:
        for e in events:
            self.table.broadcast(Fair.of(e, self.round_no))
        self._after_batch()

    def begin(self) -> None:
        self._start_round()

    def _start_round(self) -> None:
        self.between = False
        self.ready.clear()
        self.round_no += 1
        active = self.match.active if self.match.eliminated else None
        events = self.host.start_round(self.match.dealer, scores=list(self.match.scores), active=active)
        self._relay(events)

    # -- receiving -------------------------------------------------------------------
    def on_message(self, peer, msg) -> None:
        T = _table()
        from unonet.fair import FairPlayViolation

        seat = peer.seat
        if isinstance(msg, Ready):
            if self.between and msg.round == self.round_no + 1:
                self.ready.add(seat)
                self._maybe_next()
            return
        try:
            event = msg.event()
        except Exception as exc:  # noqa: BLE001 - the decoder checked it once; a second failure is malformed
            self.table.drop(peer, "malformed", f"fair event: {exc}"[:200], field="fair.body")
            return
        try:
            out = self.host.receive(seat, event)
        except T.Refusal as exc:
            self.table.send(peer, ErrorReport(code=exc.code, message=exc.reason[:256], ref="fair", fatal=False))
            return
        except FairPlayViolation as exc:
            self.table.drop(peer, "fair-play", str(exc)[:256])
            return
        self._relay(out)

    # -- the round's end, the match's end ------------------------------------------------
    def _after_batch(self) -> None:
        self._owed_since = {}
        self._plan_deadline()
        if self.host.finished and not self.between and self.host.round is not None:
            self._round_over()

    def _round_over(self) -> None:
        rnd = self.host.round
        out = rnd.outcome
        self.match.record(rnd)
        digest = getattr(self.host.dealer, "digest", None)
        digest = digest if isinstance(digest, bytes) and len(digest) == 32 else _round_digest(self.host)
        entry = self.ledger.entry(round=self.round_no, dealer=rnd.dealer, winner=out.winner,
                                  points=out.points, hand_points=out.hand_points, scores=self.match.scores,
                                  digest=digest, host=self.table.peer_id)
        self.ledger.append(entry)
        final = self.match.over
        totals = self.match.standings()
        self.table.broadcast(RoundEnd(
            round=self.round_no, reason="out", winner=out.winner,
            points=tuple(SeatPoints(seat=s, points=p) for s, p in enumerate(out.hand_points)),
            totals=tuple(SeatPoints(seat=s, points=p) for s, p in enumerate(totals)), final=final))
        if final:
            line = self.ledger.match_over(self.match.winner)
            self.table.broadcast(MatchOver(winner=self.match.winner, scores=tuple(totals),
                                           rounds=self.ledger.rounds, ledger=self.ledger.head))
            self.result = line
            self.over = True
            return
        self.between = True
        self._deadline = trio.current_time() + self.table.config.ready_timeout

    def _maybe_next(self) -> None:
        waiting = [p.seat for p in self.table.peers if p.sitter is not None and p.sitter.connected
                   and p.seat not in self.ready]
        if not waiting:
            self._start_round()

    # -- clocks ------------------------------------------------------------------------
    def _plan_deadline(self) -> None:
        now = trio.current_time()
        self._deadline = float("inf")
        for o in self.host.owed():
            self._deadline = min(self._deadline, now + self._limit(o))

    def _limit(self, owed) -> float:
        sitter = self.table.book.seats[owed.seat]
        if sitter is None or not sitter.connected:
            return DROPPED_TURN
        if owed.kind == "act":
            t = self.table.config.turn_timeout
            return float("inf") if t is None else t
        return SEED_TIMEOUT

    def deadline(self) -> float:
        return self._deadline

    def on_deadline(self) -> None:
        T = _table()
        if self.between:
            self._start_round()  # the seats not ready by now are not waited for
            return
        for o in list(self.host.owed()):
            try:
                out = self.host.timeout(o.seat, o.kind)
            except T.Refusal as exc:
                self.table._emit("problem", f"seat {o.seat}'s missed {o.kind}: {exc.reason}")
                continue
            self._relay(out)
            return
        self._plan_deadline()

    def seat_lost(self, peer) -> None:
        self._plan_deadline()

    def rejoined(self, peer) -> None:
        """A seat's key came back (between rounds it simply plays on)."""
        self._plan_deadline()


def _round_digest(host) -> bytes:
    """The round digest the host signed in the round's `round-end` event."""
    for e in reversed(host.events):
        if getattr(e, "EV", None) == "round-end":
            return e.digest
    raise AssertionError("a finished round has a round-end event")


# ---------------------------------------------------------------------------- seats
class SeatGame:
    """One seat's match: its `TableSeat`, its ledger, its feed values."""

    def __init__(self, side: SeatSide) -> None:
        T = _table()
        self.side = side
        fair_id = side.identity.fair_identity()
        self.seat = T.TableSeat(side.seat, fair_id, side.host_public)
        self.round_no = 0
        self.ends: list[RoundEnd] = []
        self.refusals: list[ErrorReport] = []
        self.digests: dict[int, bytes] = {}

    def receive(self, msg: Fair) -> list:
        from unonet.fair import FairPlayViolation

        event = msg.event()
        self.round_no = msg.round
        try:
            self.seat.receive(event)
        except FairPlayViolation as exc:
            raise SeatProblem(f"the host failed a fair-play check: {exc}", cheat=True) from None
        if getattr(event, "EV", None) == "round-end":
            self.digests[msg.round] = event.digest
        self.side.feed.append({"t": "fair", "round": msg.round, "ev": event.EV})
        return [Fair.of(e, self.round_no) for e in self.seat.owed()]

    def round_end(self, msg: RoundEnd) -> list:
        self.ends.append(msg)
        self.side.feed.append({"t": "round-end", "round": msg.round, "winner": msg.winner,
                               "totals": [p.points for p in msg.totals], "final": msg.final})
        return [] if msg.final else [Ready(round=msg.round + 1)]

    def match_over(self, msg: MatchOver) -> dict:
        line = {"winner": msg.winner, "scores": list(msg.scores), "rounds": msg.rounds,
                "ledger": msg.ledger.hex()}
        return line

    def refused(self, msg: ErrorReport) -> None:
        self.refusals.append(msg)
        self.side.feed.append({"t": "refused", "code": msg.code, "reason": msg.message})

    def submit(self, value) -> list:
        raise ValueError("actions are not supported yet")


# ---------------------------------------------------------------------------- plumbing
def bot_step(side: SeatSide):
    """The bot's next move for this seat, or None (nothing to do now)."""
    return None


def scripted_feed(emit: Callable[[dict], None]) -> Callable[[Any], None]:
    """Feed values as JSON lines (the scripting mode's output)."""

    def on_feed(value) -> None:
        if isinstance(value, dict):
            emit(value)
        elif hasattr(value, "__dataclass_fields__"):
            import dataclasses

            emit({"t": type(value).__name__.lower(), **dataclasses.asdict(value)})
        else:
            emit({"t": "event", "text": str(value)})

    return on_feed


def parse_seat_action(side: SeatSide, line: str):
    """One line of the scenario notation as this seat's action."""
    raise ValueError(f"cannot act yet: {line!r}")


def run_local_seat(emit: Callable[[dict], None] | None) -> Callable:
    """The host's hook for its own seat and its bots: a task per local seat in the table's
    nursery, running a `SeatSide` on the messages the table puts in its outbox."""

    def start(table, peer, identity, *, bot: bool) -> None:
        send, recv = trio.open_memory_channel(4096)
        peer.outbox = send
        side = SeatSide(name=peer.name, identity=identity,
                        host_public=table.identity.fair_identity().public, game_factory=SeatGame, bot=True)
        on_feed = scripted_feed(emit) if (emit is not None and peer.sitter.kind == "host") else None

        async def run() -> None:
            from unonet.protocol import SeatAssignment

            side.receive(SeatAssignment(seat=peer.seat, id=peer.peer_id, team=table.book.team(peer.seat)))
            async for msg in recv:
                if not isinstance(msg, (Fair, RoundEnd, MatchOver, Ready)) and msg.TYPE not in ("roster",):
                    continue
                try:
                    replies = side.receive(msg)
                except SeatProblem as exc:
                    table._emit("problem", f"{peer.name} (seat {peer.seat}): {exc}", cheat=exc.cheat)
                    return
                for v in side.take_feed():
                    if on_feed is not None:
                        on_feed(v)
                for m in replies:
                    await table._inbox_send.send(("msg", peer, m))
                for _ in range(64):
                    value = bot_step(side)
                    if value is None:
                        break
                    for m in side.submit(value):
                        await table._inbox_send.send(("msg", peer, m))

        table._nursery.start_soon(run)

    return start

"""The host operator's table screen: the client feed of the host's own seat, built from the
host's engine round in the host's process.

A remote seat will build its feed from its own engine copy (`TableSeat.round`, issue 11);
the host's process holds the host's round already, and the operator's seat may see exactly
what `event.visible_to(seat)` and `feed.turn_state(round, seat)` let it see - the very feed
`LocalTable` sends its human seat.  `OperatorFeed(seat, send)` is called by the match driver
(`HostGame`) after every batch it relays; it notices what changed in the host's round since
the last call (a new round, new engine events, the round's end) and sends the feed values.
Calling it twice with nothing new sends nothing.
"""

from __future__ import annotations

from typing import Callable

from .. import feed as F
from ._seat import challenge_clock_notice

__all__ = ["OperatorFeed"]


class OperatorFeed:
    def __init__(self, seat: int, send: Callable[[object], None]) -> None:
        self.seat = seat              # the operator's seat; -1 for a dealer-only host (watching)
        self.send = send              # one feed value at a time (non-blocking)
        self.seat_feed = F.SeatFeed(seat)
        self.info_sent = False
        self.said = (0, 0)            # (round, the host's round events looked at): challenge clocks
        self.game = None              # the match (`HostGame`) this feed follows: a new one starts afresh

    def __call__(self, game) -> None:
        host = game.host
        if host.round is None:
            return
        if game is not self.game:
            # a next match at this table: its table info and a fresh feed (play14: a dealer-only
            # host's screen stayed in the lobby, "The match is starting", while match 2 was played)
            self.game, self.info_sent, self.said = game, False, (0, 0)
            self.seat_feed = F.SeatFeed(self.seat)
        out: list = []
        if not self.info_sent:
            c = game.table.config
            names = tuple(s.name if s is not None else f"seat {i}" for i, s in enumerate(game.table.book.seats))
            r = c.rules
            bots = tuple(s is not None and s.bot for s in game.table.book.seats)
            out.append(F.TableInfo(names, self.seat, r.describe(), tuple(sorted(r.house)), c.preset, r.teams,
                                   r.target, r.scoring, r.deck, bots))
            self.info_sent = True
        events = host.events
        rnd, said = self.said
        if rnd != host.round_no or len(events) < said:
            said = 0                  # (a new round: the host's list starts again)
        for e in events[said:]:
            if getattr(e, "EV", None) in ("challenge-timeout", "verdict-timeout"):
                seats = game.table.book.seats
                out.append(challenge_clock_notice(e, self.seat, lambda s: seats[s].name if 0 <= s < len(seats)
                                                  and seats[s] is not None else f"seat {s}"))
        self.said = (host.round_no, len(events))
        match = host.referee.match if host.referee is not None else None
        out += self.seat_feed.update(host.round, host.last_engine_events, host.round_no, match, host.finished)
        for value in out:
            self.send(value)

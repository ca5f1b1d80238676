"""An observer's session (spec §7 observer role): the scorekeeper's side of a table, sans IO.

`ObserverSide` takes every message the host sends an observer, like a seat's `SeatSide`
but without a seat and without replies: the host sends it the roster and every public
event.  Each match runs an `ObserverGame`: a `SeatGame` whose `TableSeat` has no seat
(the fair verifier and the engine replay every player runs), keeping the same match
ledger as the players.  Each round it signs off goes to ``on_round``; a round it
cannot accept (a fair-play violation, a host breaking the session mid-round) becomes a
*disputed* entry with the reason (`dispute`), never a counted one.  The IO loop is the
joiner's (`play_seat` with ``seated=True``) under the joiner's election loop
(`_election.play_with_elections`), both run by `watch_table`: an observer ends when the
host closes.

The scorekeeper's screen is fed from here alone (`watch_table`'s ``on_feed``): the table and
its seats (`feed.Lobby`, again on every roster, with the news of who dropped or came back),
each round dealt (`feed.RoundStarted`), a host election (`feed.Election`) and where the new
host continues the record (`feed.Resumed`, checked against our own ledger), the match's end
(`feed.MatchOver`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from unonet import feed as F
from unonet.ledger import MatchLedger, RoundEntry
from unonet.protocol import Election, Fair, MatchOver, Message, Rejoin, Roster, RoundEnd, SeatAssignment
from unonet.protocol._schema import OBSERVER

from ._election import election_news, play_with_elections
from ._game import SeatGame
from ._join import play_seat
from ._seat import SeatProblem, SeatSide, feed_match_over, restarts_match
from ._carry import ledger_messages
from ._spool import MessageSpool

__all__ = ["ObserverSide", "ObserverGame", "watch_table"]

#: on_round(ledger, entry, names): a round signed off (verified) or disputed
OnRound = Callable[[MatchLedger, RoundEntry, list], None]
#: on_match_over(line): the shared match-over line (unonet.ledger.MatchLedger.match_over)
OnMatchOver = Callable[[dict], None]
#: on_match_begin(ledger, names): a match's ledger exists (its first round is dealt)
OnMatchBegin = Callable[[MatchLedger, list], None]
#: on_cosign(ledger, entry, seat, sig): a seat's co-signature of the round ``entry`` (checked)
OnCosign = Callable[[MatchLedger, RoundEntry, int, bytes], None]
#: on_void(ledger, entries, why): a host election continues the match from before ``entries``
#: (the last rounds of ``ledger``, signed off before) and deals them again: they are void
OnVoid = Callable[[MatchLedger, list, str], None]


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
            self.side.on_match_begin(self.ledger, self.names())  # its first deal: when it began
        return []  # an observer owes nothing

    def names(self) -> list[str]:
        """The seats' names as the host signed them in the match-start (the roster's are its
        unsigned word: a host could record the match under other names than the seats joined
        under, trust18); the roster's only before any match-start is read."""
        start = getattr(getattr(self.seat, "match", None), "start", None)
        names = list(getattr(start, "names", None) or ())
        return names if names else self.side.names()

    def _round_signed(self, digest: bytes) -> None:
        super()._round_signed(digest)
        self.side.on_round(self.ledger, self.ledger.last, self.names())

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
        if self.setup is not None and self.setup["round"] == r and self.dealer is not None:
            dealer = self.dealer
        else:  # its set-up never came (the rules' next dealer), or round 1's dealer was not drawn
            # yet: drawn here if the seats' reveals are in (review19: the referee's placeholder,
            # seat 0, was stored as the dealer nobody drew), else that placeholder (no deal yet)
            dealer = self.seat.referee.match.dealer
            if self.setup is not None and self.setup["round"] == r and not self.seat.referee.drawn:
                from unonet.fair import FairPlayViolation
                from unonet.table._match import drawn_dealer

                try:
                    dealer = drawn_dealer(self.seat.ledger)
                except (FairPlayViolation, AttributeError, IndexError):
                    pass
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
        self.side.on_round(self.ledger, entry, self.names())
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
                 on_match_begin: OnMatchBegin | None = None, on_cosign: OnCosign | None = None,
                 on_void: OnVoid | None = None) -> None:
        super().__init__(name=name, identity=_NO_KEY, host_public=host_public, game_factory=ObserverGame)
        self.observer = True
        self.role = OBSERVER
        self.on_round, self.on_match_over, self.on_match_begin = on_round, on_match_over, on_match_begin
        self.on_cosign, self.on_void = on_cosign, on_void
        self.matches = 0
        self.host_name = ""  # the host's name as its link's hello gave it (a dealer-only host has no seat)

    def names(self) -> list[str]:
        r = self.roster
        return [p.name for p in sorted(r.players, key=lambda p: p.seat)] if r is not None else []

    def receive(self, msg: Message) -> list[Message]:
        if isinstance(msg, Fair) and not self.replaying:  # most of a match: first
            if restarts_match(self.game, msg):
                self.game, self.history = None, MessageSpool()
            if self.game is None:
                ev = msg.event()
                if ev.EV != "match-start":
                    return []  # attached in the middle of a match: it is counted from the next one
                if getattr(ev, "continues", None) is not None and self.carry is None:
                    # a match continued after a host election, and we hold nothing of it (attached
                    # to the elected host while it was being elected): its chain starts in the old
                    # transcript, which the host replays to us (`rejoin`) -- not a fresh match
                    return []
                self.game = ObserverGame(self)
            return self.game.receive(msg)
        if isinstance(msg, SeatAssignment):
            raise SeatProblem("the host gave a seat to an observer", code="unexpected")
        if isinstance(msg, Roster):
            return self._roster(msg)  # (also while a replay is read: the table's news, not the match's)
        if isinstance(msg, Rejoin) or self.replaying:
            # attached in the middle of a match: the host replays it from its start (spec §7);
            # every round is checked and recorded as it is read, as a player back in its seat does
            super().receive(msg)
            if isinstance(msg, Election):  # (the replay's confirmation: checked against what it rebuilt)
                self._voided()
            if not self.replaying:
                self._round_in_play()
            return []
        if isinstance(msg, (RoundEnd, MatchOver)) and self.game is None:
            return []  # the end of a match this observer did not see from its start
        if isinstance(msg, MatchOver):
            self._match_ended(self.game.match_over(msg))
            return []
        super().receive(msg)  # election, heartbeat, round-end, leave, error: as a seat
        if isinstance(msg, Election):  # the new host's confirmation, checked against our own record
            self._voided()
            self.feed.append(F.Resumed(self.lobby().hosted_by, msg.rounds, msg.head.hex(), msg.term))
        return []

    def _match_ended(self, line: dict) -> None:
        """The match is over (``line``: its match-over line, checked): said, and the next match
        at this table is a new one."""
        self.game = None
        self.carry = self.election = None  # a next match at this table is a new match
        self.history = MessageSpool()  # (its elections are counted afresh: `elections_seen`)
        self.matches += 1
        self.last_over = line
        self.feed.append(feed_match_over(self))
        self.on_match_over(line)

    def end_on_record(self, line: dict) -> None:
        """The host was lost between the match's last `round_end` and its `match_over`: our own
        record decides the match (`SeatSide.decided`), so it ends here as on `match_over` - the
        match-over line said and recorded - instead of waiting for words that never come."""
        self._match_ended(line)

    def _voided(self) -> None:
        """The confirmation (checked) continues the match from fewer rounds than we signed off:
        the rounds after it are dealt again (spec §7 steps 5-6: a round some seat never saw
        end, or one whose co-signs the new host lacks while a seat reported it otherwise), so
        the rounds we recorded there are void -- said, and handed to ``on_void``."""
        follower, carry = self.election, self.carry
        old = getattr(getattr(follower, "game", None), "ledger", None)
        if carry is None or old is None:
            return
        gone = list(old.entries[len(carry.entries):])
        if not gone:
            return
        which = ", ".join(str(e.round) for e in gone)
        rounds = f"round{'s' if len(gone) > 1 else ''} {which}"
        if follower.redealt is not None:
            why = (f"the new host deals {rounds} again: every seat had co-signed it, but another seat reported "
                   "it otherwise to the new host, and who told it wrong cannot be shown")
        else:
            why = f"the new host deals {rounds} again: the host was lost before every seat saw it end"
            self.feed.append(F.Notice(f"{why}; the record of it is void", None, "voided"))
        if self.on_void is not None:
            self.on_void(old, gone, why)

    def _round_in_play(self) -> None:
        """The replay is read: its deals were no news (`SeatSide._replayed`), but the round it
        stopped in the middle of is - the screen shows it in play, not "waiting for the next deal"."""
        game = self.game
        setup = getattr(game, "setup", None)
        if setup is None:
            return
        number = game.offset + setup["round"]
        if game.ledger is not None and any(e.round == number for e in game.ledger.entries):
            return  # (it stopped between rounds)
        dealer = getattr(game, "dealer", None)
        if dealer is None:
            return  # (round 1 before its deal: its dealer is drawn at `start`, which says the round began)
        self.feed.append({"t": "round", "round": number, "dealer": dealer, "scores": setup["scores"]})

    def like(self, link, identity, game_factory=None) -> "ObserverSide":
        """The side that watches ``link`` (the host rejoined, or the elected one): the same
        callbacks and count of matches."""
        new = ObserverSide(name=self.name, host_public=link.peer_fair_identity, on_round=self.on_round,
                           on_match_over=self.on_match_over, on_match_begin=self.on_match_begin,
                           on_cosign=self.on_cosign, on_void=self.on_void)
        new.table_name, new.matches = self.table_name, self.matches
        new.host_name = link.peer_name
        new.news_from = self.roster  # the new host's first roster is news against the old one's
        new.bot_ids = set(self.bot_ids)  # (a second election's roster shows the first's lost bots away too)
        return new

    def lobby(self):
        """The seat's `feed.Lobby`; a host without a seat (dealer-only) by its hello's name."""
        lobby = super().lobby()
        return lobby if lobby.hosted_by else dataclasses.replace(lobby, hosted_by=self.host_name)

    def take_feed(self) -> list:
        """The observer's feed values: the seat's, with each round's deal as a `feed.RoundStarted`
        (a seat's scripting lines, which nobody reads here, are left out)."""
        out = []
        for v in super().take_feed():
            if not isinstance(v, dict):
                out.append(v)
            elif v.get("t") == "round":
                out.append(F.RoundStarted(v["round"], v["dealer"], tuple(v["scores"])))
        return out

    def handover(self) -> list[Message]:
        """After its `election` report an observer hands its ledger over (the new host checks it)."""
        return list(ledger_messages(self.game))

    def dispute(self, reason: str) -> RoundEntry | None:
        """The session failed: the round in play (if any) is recorded disputed with ``reason``."""
        return self.game.dispute(reason) if self.game is not None else None


async def watch_table(link, side: ObserverSide, *, identity, emit: Callable[[dict], None] | None = None,
                      on_feed: Callable[[Any], None] | None = None,
                      on_side: Callable[[ObserverSide], None] | None = None) -> dict | None:
    """Watch the table on ``link`` through any number of host elections (spec §7) until it
    closes; raises as `play_seat` does.  ``on_feed`` gets the observer's feed values (the
    side's, and the election loop's news as `feed.Election` / `feed.Notice`); ``emit`` the
    election loop's JSON lines; ``on_side`` every side in turn (after an election: the one
    that follows the new host)."""
    side.host_name = side.host_name or link.peer_name

    def lines(line: dict) -> None:
        if emit is not None:
            emit(line)
        if on_feed is not None:
            news = _loop_news(line)
            if news is not None:
                on_feed(news)

    async def play(lk, sd):
        if on_side is not None:
            on_side(sd)
        return await play_seat(lk, sd, seated=True, on_feed=on_feed)

    return await play_with_elections(link, side, identity=identity, listeners=None, play=play, game_factory=None,
                                     emit=lines)


def _loop_news(line: dict):
    """The election loop's line as the scorekeeper's screen tells it (None: not news)."""
    t = line.get("t")
    if t == "election":
        return election_news(line)
    if t == "reconnected":
        return F.Notice("the link to the host dropped for a moment: watching again", kind="reconnected")
    if t == "host-gone":
        return F.Notice(line.get("text") or "the host left", kind="left")
    return None

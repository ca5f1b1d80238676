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

import dataclasses
import hashlib
import os
from typing import Any, Callable

import trio

from unonet import feed as F
from unonet.fair import FairPlayViolation
from unonet.fingerprint import SHORT_FP_CHARS, fingerprint_code
from unonet.ledger import MatchHeader, MatchLedger
from unonet.names import reads_as
from unonet.protocol import (
    ErrorReport, Fair, MatchOver, Message, Ready, Rejoin, RoundEnd, SeatPoints, encode_message,
)

from ._discovery import interfaces
from ._errors import JoinFailed, LinkClosed
from ._host_watch import ANSWER_LIMIT, WORD_CLOCK, HostWatch, HostWatchViolation
from ._join import play_seat
from ._seat import SeatProblem, SeatSide, challenge_clock_notice
from ._seats import BOT_KIND, HOST_KIND, REMOTE_KIND
from ._spool import MessageSpool

__all__ = ["HostGame", "SeatGame", "run_local_seat", "bot_step", "scripted_feed", "parse_seat_action"]

SEED_TIMEOUT = 10.0     # seconds a seat has for its seed commit / reveal, a challenge answer or verdict
DROPPED_TURN = 0.5      # what a disconnected seat owes (but its turn) is timed out after this pause
RACE_WINDOW = 3.0       # a reaction race stays open this long (docs/network.md, "Races")
BOT_STALL = 5.0         # one of the host's own bots that owes its act this long is stuck
STALL_GUARD = 60.0      # no turn clock (--no-ui without --turn-timeout): the longest wait for an act
#: a player back on its own turn has what is left of that turn's clock, but at least this (a
#: restarted client must read the replay and its player see the table before acting), never
#: more than a whole clock, and never past the turn's start + clock + this: however often the
#: seat drops and comes back, no return gives its turn time past clock + REJOIN_FLOOR (while it
#: is away the turn waits for its hold, as any held seat's: spec §5 step 6, §7 rejoin)
REJOIN_FLOOR = 10.0
#: the same for a word on the host's word clock (`SEED_TIMEOUT`: a seed commitment or reveal, a
#: challenge answer, key or verdict) owed by a seat that comes back: its client sends the word as
#: soon as it has read the replay, no person in it, so a shorter floor; however often the seat
#: drops and comes back, the word times out within SEED_TIMEOUT + WORD_FLOOR of its clock's start
#: (spec §5 step 6, `word-left`; before, every return gave a whole 10 s: a player held the deal
#: for ever, redplayer18)
WORD_FLOOR = 5.0
#: the owed words timed by the word clock (`_limit`: SEED_TIMEOUT), whose clock a return keeps
WORD_KINDS = frozenset({"commit-seed", "reveal-seed", "answer-challenge", "disclose-key", "judge-challenge"})


def _table():
    from unonet import table as T  # the fair table API (unonet/table): TableHost, TableSeat

    return T


def match_header(table_id: bytes, match_id: bytes, seat_ids, rules, preset: str) -> MatchHeader:
    """The ledger header every party builds alike from the roster and the rules."""
    return MatchHeader(match=match_id, table=table_id, seats=tuple(seat_ids), preset=preset,
                       deck=rules.deck, house=tuple(sorted(rules.house)), teams=rules.teams,
                       scoring=rules.scoring, target=rules.target)


# ---------------------------------------------------------------------------- host
MATCH_LEVEL = frozenset({"match-start", "match-join"})  # their `fair` message carries round 0
MAX_ATTEMPTS = 3        # a round whose seed exchange stalls this often ends the table


#: the host's events that a seat contests when they deny a word it sent (a timeout of its
#: challenge answer or verdict, an abort naming it a staller, a waiver of its co-sign)
_CONTESTED = frozenset({"challenge-timeout", "verdict-timeout", "round-abort", "round-start"})


def body_hash(event) -> bytes:
    """SHA-256 of a fair event's `fair` body: how a refusal names what it refuses (§4.6)."""
    return hashlib.sha256(event.canonical().encode("ascii")).digest()


def wire(event, round_no: int) -> Fair:
    """A fair event as its `fair` message (round 0 for the match header)."""
    return Fair.of(event, 0 if event.EV in MATCH_LEVEL else round_no)


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
        self.seat_ids = [s.peer_id for s in seats]
        # after an election (_election.py): the old match's record, continued by this host
        carry = getattr(table, "carry", None)
        self.offset = carry.rounds if carry is not None else 0  # rounds completed before this host
        continues = carry.continuation if carry is not None else None
        # seats whose player is not here keep their key, away: after an election (_election.py)
        # in the continuation; in a fresh match those whose player went silent and did not come
        # back in time (_host.py `_seat_the_away`, `restart_without`), in match-start `away`
        away = tuple(s.seat for s in seats if s.kind == REMOTE_KIND and not s.connected)
        if continues is not None:
            continues, away = dataclasses.replace(continues, away=away), ()
        self.host = T.TableHost(c.rules, c.players, identity=table.identity.fair_identity(),
                                seats=[s.identity for s in seats], names=[s.name for s in seats],
                                host_seat=next((s.seat for s in seats if s.kind == "host"), None),
                                continues=continues, away=away,
                                keep_record=False)  # (the match's record is `history`, on disk)
        # opened once every seat has joined (the match id); an election's carries the old chain on
        self.ledger: MatchLedger | None = carry.ledger() if carry is not None else None
        self.over = False
        self.result: dict | None = None
        self.round_no = 0
        self.ready: set[int] = set()
        self.between = False      # a round ended; waiting for ready (and co-signs)
        self.attempts = 0
        self._deadline = float("inf")
        #: every message of this match sent to every peer, in order (a rejoin's replay); after
        #: an election it opens with the old transcript and the confirmation (_election.py)
        self.history = MessageSpool(getattr(table, "prefix", None) or ())
        self._own_from = len(self.history)  # where this host's own messages begin in it
        #: the record a peer is replayed holds a fresh match-start naming seats away (this
        #: host's, or the old host's before an election): only a peer announcing `away-start`
        #: reads it (spec §4.4); an older one would refuse it as malformed and blame this host
        self.opens_away = bool(away) or opened_away(getattr(table, "prefix", None) or ())
        self.stand_ins: dict[int, Any] = {}  # seat -> the bot standing in for its dropped player
        #: seat -> (the turn's start, its deadline): the whole clock an older client back on its
        #: turn was given, once per turn (`_returned`)
        self._whole_once: dict[int, tuple[float, float]] = {}
        #: (seat, word kind) -> (the word clock's start, its deadline): the whole clock an older
        #: client (no `word-left`) back while it owes that word was given, once per clock
        self._word_once: dict[tuple[int, str], tuple[float, float]] = {}

    def transcript(self) -> list[str]:
        """This host's public transcript of the match (JSON Lines, what `unonet audit` reads),
        rebuilt from the wire history on disk: the host keeps the match once, not twice."""
        from unonet.fair import TranscriptWriter

        writer = TranscriptWriter()
        for m in self.history[self._own_from:]:
            if isinstance(m, Fair):
                writer.append(m.event())
        return writer.lines

    @property
    def head(self) -> bytes | None:
        return self.ledger.head if self.ledger is not None else None

    # -- sending -------------------------------------------------------------------
    def _relay(self, events) -> None:
        for e in events:
            m = wire(e, self.host.round_no)  # the fair round (its transcript's)
            data = encode_message(m)  # once: the history on disk and every link's plaintext
            self.history.append(m, data)
            self.table.broadcast(m, data)
            if e.EV == "round-abort":
                self._aborted(e)
        # a seat's match-join (back after an election it was away for) is no move: no seat's
        # own clock restarts for it (`HostWatch.took`: a `game` record does), nor may the host's
        self._after_batch(restart=any(e.EV != "match-join" for e in events))
        watch = getattr(self.table, "on_game", None)  # the operator's screen (_operator.py)
        if watch is not None:
            watch(self)

    def begin(self) -> None:
        self._relay(self.host.start_match())

    def _start_round(self) -> None:
        self.between = False
        self.ready.clear()
        if self.ledger is None:
            c = self.table.config
            self.ledger = MatchLedger(match_header(self.table.table_id, self.host.match.match_id, self.seat_ids,
                                                   c.rules, c.rules.preset))  # (what every seat reads signed)
        # a seat whose player stayed away past its hold gives no seed: a bot plays it (host-act)
        away = [s.seat for s in self.table.book.seats if s is not None and s.kind == REMOTE_KIND
                and not s.connected and self._held(s) == 0]
        events = self.host.start_round(absent=away)
        self.round_no = self.offset + self.host.round_no  # the match's round (across hand-overs)
        self._relay(events)

    def _aborted(self, event) -> None:
        """A stalled seed exchange: try the round again, a few times, then give up."""
        self.attempts += 1
        stalled = list(getattr(event, "stalled", ()))
        self.table._emit("problem", f"round {self.round_no} aborted: {getattr(event, 'reason', '')} "
                                    f"(stalled: seats {stalled})")
        # a connected player that withholds its seed is dropped: it costs its own seat (dealt
        # absent, a bot plays it), never the table (_host.HostTable.stalled)
        self.table.stalled([s for s in stalled if self.table.book.seats[s].connected
                            and self.table.book.seats[s].kind == REMOTE_KIND])
        gone = [s for s in stalled if not self.table.book.seats[s].connected]
        if gone and all(self.table.book.seats[s].kind == REMOTE_KIND for s in gone):
            # its player is away: the next attempt waits for it (its hold), then leaves it out
            self.attempts -= 1
            gone = []
        if gone or self.attempts >= MAX_ATTEMPTS:
            self.result = None
            self.over = True
            why = (f"seat(s) {gone} left and did not come back within --hold-seats "
                   f"{self.table.config.hold_seats:g} s (a round is dealt only with every seat's seed)"
                   if gone else f"seat(s) {stalled} do not take part")
            self.table._emit("problem", f"the match cannot go on: {why}")
            return
        self.table._nursery.start_soon(self._restart_soon)

    async def _restart_soon(self) -> None:
        await trio.sleep(0)
        self.table._inbox_send.send_nowait(("call", None, self._start_round))

    # -- receiving -------------------------------------------------------------------
    def on_message(self, peer, msg) -> None:
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
        except _table().Refusal as exc:  # (looked up only when something was refused)
            self.table._emit("refusal", f"seat {seat}'s {event.EV} refused ({exc.code}): {exc.reason}",
                             seat=seat, code=exc.code)
            # (named by its body's hash: the seat takes back only what was refused, spec §4.6)
            self.table.send(peer, ErrorReport(code=exc.code, message=exc.reason[:256], ref="fair", fatal=False,
                                              refuses=hashlib.sha256(msg.body).digest()))
            return
        except FairPlayViolation as exc:
            self.table._emit("problem", f"seat {seat} ({peer.name}) cheated: {exc}", seat=seat, cheat=True)
            self.table.drop(peer, "fair-play", str(exc)[:256])
            return
        self._relay(out)

    # -- the round's end, the match's end ------------------------------------------------
    def _after_batch(self, restart: bool = True) -> None:
        """After a batch was relayed; ``restart``: it restarts every clock (spec §5 step 6). Not
        a batch of nothing nor one of match-joins only (evening18: Ben, back after an election,
        sent his; the host began Ana's 20 s again while her screen read [0:00])."""
        if self.over:
            return
        if self.host.round_no == 0 and self.host.match.joined and self.host.finished:
            self._start_round()
            return
        if self.host.finished and not self.between and self.host.round is not None \
                and self.host.round.over and self.ledger is not None and self.ledger.rounds < self.round_no \
                and not (self.host.match_over and any(o.kind == "round-sign" for o in self.host.owed())):
            # (the match's last round: its co-signs are relayed before the match ends, so every
            # scorekeeper keeps what the players signed of the round that decided it)
            self._round_over()
        if self.between:
            self._maybe_next()
        self._plan_deadline(restart)

    def _round_over(self) -> None:
        rnd = self.host.round
        out = rnd.outcome
        m = self.host.referee.match
        digest = _round_digest(self.host)
        entry = self.ledger.entry(round=self.round_no, dealer=rnd.dealer, winner=out.winner,
                                  points=out.points, hand_points=out.hand_points, scores=m.scores,
                                  digest=digest, host=self.table.peer_id, attempt=self.host.attempt)
        self.ledger.append(entry)
        final = self.host.match_over
        totals = m.standings()
        self.attempts = 0
        end = RoundEnd(
            round=self.round_no, reason="out" if out.winner is not None else "blocked", winner=out.winner,
            points=tuple(SeatPoints(seat=s, points=p) for s, p in enumerate(out.hand_points)),
            totals=tuple(SeatPoints(seat=s, points=p) for s, p in enumerate(totals)), final=final)
        data = encode_message(end)
        self.history.append(end, data)
        self.table.broadcast(end, data)
        if final:
            self.match_over_msg = MatchOver(winner=m.winner, scores=tuple(totals), rounds=self.ledger.rounds,
                                            ledger=self.ledger.head)
            self.table.broadcast(self.match_over_msg)
            self.result = self.ledger.match_over(m.winner)
            self.over = True
            return
        self.between = True
        self._between_deadline = trio.current_time() + self.table.config.ready_timeout

    def _maybe_next(self) -> None:
        if not self.between:
            return
        waiting = [p.seat for p in self.table.peers if p.sitter is not None and p.sitter.connected
                   and p.seat not in self.ready]
        waiting += [s.seat for s in self.table.book.seats if s is not None and self._held(s) > 0]
        cosigns = [o for o in self.host.owed() if o.kind == "round-sign"]
        if not waiting and not cosigns:
            self._start_round()

    # -- clocks ------------------------------------------------------------------------
    def _racing(self) -> bool:
        rnd = self.host.round
        return rnd is not None and not rnd.over and rnd.phase.value == "race" and not self.host.finished

    def _plan_deadline(self, restart: bool = True) -> None:
        """When each owed message is due.  ``restart``: a batch was just sent, which restarts
        every clock (spec §5 step 6); otherwise (a seat dropped, came back, a hold ran out)
        a message owed for the same reason as before keeps its time - another player leaving
        gave the seat to play a new minute its screen's clock (and its own) never showed - and
        a turn whose seat is back has what is left of its clock (`_returned`)."""
        now = trio.current_time()
        if restart:
            self._clocks_from = now  # (when the turn under way began, as the host times it)
        # (one already past is planned anew: the table acted on it, or could not)
        kept = {} if restart else {(o.seat, o.kind, why): due for due, o, why in getattr(self, "_due", [])
                                   if due > now}
        # a seat whose turn waited for it (held, or a stand-in due) and is back on the clock
        away = set() if restart else {o.seat for _, o, why in getattr(self, "_due", [])
                                      if o.kind == "act" and why in ("held", "gone")}
        # and a seat that owed a word (a seed message, a challenge's) while away and owes it back
        # on the word clock: that clock ran on too (`_word_returned`)
        words_away = set() if restart else {(o.seat, o.kind) for _, o, why in getattr(self, "_due", [])
                                            if o.kind in WORD_KINDS and why in ("held", "gone")}
        self._deadline = getattr(self, "_between_deadline", float("inf")) if self.between else float("inf")
        self._due = []
        for o in self.host.owed():
            limit, why = self._limit(o)
            due = kept.get((o.seat, o.kind, why))
            if due is None:
                if o.kind == "act" and why in ("clock", "stall") and o.seat in away:
                    due = self._returned(o.seat, limit, now)
                elif why == "clock" and (o.seat, o.kind) in words_away:
                    due = self._word_returned(o.seat, o.kind, limit, now)
                else:
                    due = now + limit
            self._due.append((due, o, why))
            self._deadline = min(self._deadline, due)

    def _returned(self, seat: int, clock: float, now: float) -> float:
        """The deadline of a turn whose seat was away (held, or a stand-in due) and is back:
        what is left of the clock that started with the batch that began the turn, at least
        `REJOIN_FLOOR` (no more than a whole clock), and never past the turn's start + clock +
        that floor - so dropping and coming back, however often, never buys a turn more time
        (the last session gave a whole clock at every return: a seat could hold the table for
        ever).  A seat whose client does not read the time left (no `turn-left` in its hello:
        it holds the host to a whole clock from its return) gets a whole clock at its first
        return in a turn and nothing more at later ones: its turn ends a clock after that."""
        start = getattr(self, "_clocks_from", now)
        if not self._reads_turn_left(seat):
            first = self._whole_once.get(seat)
            if first is None or first[0] != start:
                first = self._whole_once[seat] = (start, now + clock)
            return first[1]
        floor = min(REJOIN_FLOOR, clock)
        return max(start + clock, min(now + floor, start + clock + floor))

    def _word_returned(self, seat: int, kind: str, clock: float, now: float) -> float:
        """The deadline of a word (`WORD_KINDS`) whose seat was away and is back: as a turn's
        (`_returned`), with `WORD_FLOOR` - what is left of the word clock that started with the
        last batch, at least the floor, never past its start + clock + floor; so a seat that
        drops before its word is due and comes back, again and again, no longer holds the deal
        (redplayer18).  A seat whose client does not read `rejoin.word_left` (no `word-left` in
        its hello: after a rejoin it contests any abort or timeout naming it once it sent the
        word) gets a whole clock at its first return in that clock, and that deadline again
        at later ones (`word_too_soon` refuses a return that deadline would reach too soon)."""
        start = getattr(self, "_clocks_from", now)
        if not self._reads(seat, "word"):
            first = self._word_once.get((seat, kind))
            if first is None or first[0] != start:
                first = self._word_once[(seat, kind)] = (start, now + clock)
            return first[1]
        floor = min(WORD_FLOOR, clock)
        return max(start + clock, min(now + floor, start + clock + floor))

    def word_too_soon(self, seat: int) -> str | None:
        """Why a seat whose returning client does not read `rejoin.word_left` (no `word-left`)
        may not come back now (None: it may).  Such a client, back, contests an abort (or a
        challenge's timeout) naming it once it sent the word, however late the word came;
        back a second time while it owes one word, the deadline its first return got may
        leave its word too little time to reach the host (under `WORD_FLOOR`), and it would
        call the honest host a cheat; a whole clock again would let a looper hold the deal for
        ever.  So it is refused until that word is no longer owed (its seat held meanwhile)."""
        from unonet.protocol import WORD_LEFT

        start = getattr(self, "_clocks_from", None)
        now = trio.current_time()
        for o in self.host.owed():
            first = self._word_once.get((o.seat, o.kind))
            if o.seat == seat and o.kind in WORD_KINDS and first is not None and first[0] == start \
                    and first[1] < now + WORD_FLOOR:
                return (f"seat {seat} came back once already while it owed its {o.kind} with a client that "
                        f"does not read the time left of it (hello feature {WORD_LEFT!r}): it needs a newer "
                        f"unonet to come back before that word is settled")
        return None

    def too_soon_back(self, seat: int) -> str | None:
        """Why a seat whose returning client does not read the time left (no `turn-left`) may
        not come back now (None: it may).  Such a client holds the host to `0.9 × clock − 5 s`
        from its return (spec §6.1 item 3); back a second time in one turn, the deadline its first
        return got may come sooner than that, and it would call the honest host a cheat at the
        timeout (review18).  Giving it a whole clock again would let a looper hold the table for
        ever; so it is refused until its turn is over (the seat stays held meanwhile)."""
        from unonet.protocol import TURN_LEFT

        first = self._whole_once.get(seat)
        rnd = self.host.round
        if first is None or first[0] != getattr(self, "_clocks_from", None) or rnd is None or rnd.over \
                or not any(o.seat == seat and o.kind == "act" for o in self.host.owed()):
            return None
        t = self.table.config.turn_timeout
        clock = STALL_GUARD if t is None else t
        if clock <= 5.5 or first[1] >= trio.current_time() + 0.9 * clock - 5 + 1:
            return None  # (not checked, or its check passes: back it comes, to that deadline)
        return (f"seat {seat} came back to this turn once already with a client that does not read the "
                f"time left of its turn (hello feature {TURN_LEFT!r}): it needs a newer unonet to "
                f"come back before the turn is over")

    def _reads_turn_left(self, seat: int) -> bool:
        """The seat's player (its link now) announced `turn-left` (spec §4.4)."""
        return self._reads(seat, "turn")

    def _reads(self, seat: int, what: str) -> bool:
        """The seat's player (its link now) announced `turn-left` (``what`` "turn") or
        `word-left` ("word"), spec §4.4."""
        from unonet.protocol import TURN_LEFT, WORD_LEFT

        peer = next((p for p in self.table.peers if p.sitter is not None and p.seat == seat
                     and not getattr(p, "gone", False)), None)
        return peer is None or peer.knows(TURN_LEFT if what == "turn" else WORD_LEFT)

    def turn_left(self, seat: int) -> float | None:
        """Seconds left of ``seat``'s turn clock (or the stall guard that stands for one), when
        its own act is owed (None: it owes no act, or not on a clock: a race, a hold)."""
        now = trio.current_time()
        due = [d for d, o, why in getattr(self, "_due", []) if o.seat == seat and o.kind == "act"
               and why in ("clock", "stall")]
        return max(0.0, min(due) - now) if due else None

    def word_left(self, seat: int) -> int | None:
        """Milliseconds left of the word clock for the word ``seat`` owes (`WORD_KINDS`), for
        its `rejoin` (None: it owes none on that clock).  Read after `back` planned the clocks."""
        now = trio.current_time()
        due = [d for d, o, why in getattr(self, "_due", []) if o.seat == seat and o.kind in WORD_KINDS
               and why == "clock"]
        return int(max(0.0, min(due) - now) * 1000) if due else None

    def back(self, seat: int) -> int | None:
        """A held seat's player is back (connected again): its clock is planned anew (what is
        left of its turn, `_returned`) and the milliseconds left are returned, for the roster
        and the `rejoin` that tell every screen and the seat itself (None: no turn of its own)."""
        self._plan_deadline(restart=False)
        left = self.turn_left(seat)
        return None if left is None else int(left * 1000)

    def _limit(self, owed) -> tuple[float, str]:
        """How long the table waits for an owed message, and why that long."""
        if owed.kind == "act" and self._racing():
            return RACE_WINDOW, "race"  # the race closes then: whoever has not slapped draws
        sitter = self.table.book.seats[owed.seat]
        if sitter is None or not sitter.connected:
            held = self._held(sitter)
            if held > 0 and owed.kind != "round-sign":
                return held, "held"  # the seat waits for its player (--hold-seats)
            if owed.kind == "act":  # a bot stands in, at the pace of the host's own bots
                return self.table.config.bot_pace, "gone"
            return DROPPED_TURN, "gone"
        if owed.kind == "act":
            t = self.table.config.turn_timeout
            if sitter.kind == BOT_KIND or (sitter.kind == HOST_KIND and self.table.config.autostart):
                # the host's own bots answer at once: one that has not is stuck, and the
                # table plays its turn rather than hang
                return (BOT_STALL, "stuck bot") if t is None or t > BOT_STALL else (t, "clock")
            if t is None:
                # no turn clock (--no-ui without --turn-timeout): still never an endless wait
                # (a joiner that stopped writing, a client wedged by its machine)
                return STALL_GUARD, "stall"
            return t, "clock"
        if owed.kind == "round-sign":
            return self.table.config.ready_timeout, "clock"
        return SEED_TIMEOUT, "clock"

    def _held(self, sitter) -> float:
        """Seconds a dropped player's seat still waits for it (0: a bot stands in now)."""
        if sitter is None or sitter.connected or sitter.kind != REMOTE_KIND or sitter.dropped_at is None:
            return 0.0
        return max(0.0, sitter.dropped_at + self.table.config.hold_seats - trio.current_time())

    def deadline(self) -> float:
        d = self._deadline
        for s in self.table.book.seats:  # a hold running out changes what the table waits for
            held = self._held(s)
            if held > 0:
                d = min(d, trio.current_time() + held)
        return d

    def on_deadline(self) -> None:
        T = _table()
        if self._racing():
            from unonet.engine import CloseRace

            self._relay(self.host.host_call(CloseRace()))
            return
        now = trio.current_time()
        for due, o, why in sorted(getattr(self, "_due", []), key=lambda d: d[0]):
            if due > now:
                break
            if why == "held":
                continue  # its hold ran out: planned again below, a bot stands in
            if o.kind == "match-join":  # a seat that never joins costs its seat, not the table
                self.table.restart_without([x.seat for x in self.host.owed() if x.kind == "match-join"])
                return
            if why in ("stuck bot", "stall"):
                name = self.table.book.seats[o.seat].name
                self.table._emit("problem", f"{name} (seat {o.seat}) has not played for {self._limit(o)[0]:g} s"
                                 f"{' (its bot is stuck)' if why == 'stuck bot' else ''}: the table makes "
                                 "the default move for them", seat=o.seat, stall=why)
            try:
                out = self._stand_in(o.seat) if (why == "gone" and o.kind == "act") else None
                if out is None:
                    # (an abort names only the seats whose own clock ran out: a seat back from a
                    # rejoin a moment ago may have its seed message on the way)
                    late = [x.seat for d, x, w in self._due if x.kind == o.kind and d <= now]
                    out = self.host.timeout(o.seat, o.kind, late)
                    if o.kind == "act" and why == "clock":
                        out += self._finish_timed_out_turn(o.seat)
            except T.Refusal as exc:
                self.table._emit("problem", f"seat {o.seat}'s missed {o.kind}: {exc.reason}")
                continue
            self._relay(out)
            return
        if self.between and now >= getattr(self, "_between_deadline", float("inf")):
            self.ready = {p.seat for p in self.table.peers if p.sitter is not None}
            self._maybe_next()
            return
        if self.between:
            self._maybe_next()  # (a hold that ran out: the next round goes on without waiting)
            if not self.between:
                return
        self._plan_deadline(restart=False)

    def _finish_timed_out_turn(self, seat: int) -> list:
        """One timeout is one default move: a card the table drew for a seat whose time ran
        out is kept at once (no second wait for the keep)."""
        T = _table()
        rnd = self.host.round
        if rnd is None or rnd.over or rnd.turn != seat or rnd.phase.value != "drawn":
            return []
        try:
            return self.host.timeout(seat, "act")
        except T.Refusal:
            return []

    def _stand_in(self, seat: int):
        """A bot's act for a dropped seat whose hold ran out (the host's own, `host-act`), or
        None when the bot has nothing to say (the timeout rule then acts)."""
        T = _table()
        from unonet.engine import Respond, make_bot

        rnd = self.host.round
        if rnd is None or rnd.over:
            return None
        bot = self.stand_ins.get(seat)
        if bot is None:
            bot = self.stand_ins[seat] = make_bot("heuristic", int.from_bytes(os.urandom(4), "big"))
            sitter = self.table.book.seats[seat]
            name = sitter.name
            # (play13: a player who said goodbye a moment before read "did not come back within 600 s")
            why = (("is away since the host election" if self.host.continues is not None else
                    "did not come back before the match started") if seat in self.host.match.away else
                   "left" if getattr(sitter, "left", False) else
                   f"did not come back within {self.table.config.hold_seats:g} s")
            self.table._emit("problem", f"seat {seat} ({name}) {why}: a bot plays it until they are back",
                             seat=seat, stand_in=True)
        if rnd.phase.value == "race":
            action = Respond(seat) if rnd.race is not None and seat in rnd.race.waiting else None
        else:
            action = bot.act(rnd, seat) if rnd.turn == seat else None
        if action is None or type(action).__name__ == "Challenge":
            return None  # (a challenge needs the seat's own word in the fair exchange: the timeout rule accepts)
        action = _answerable(rnd, seat, action)
        try:
            return self.host.stand_in(seat, action)
        except T.Refusal:
            return None

    def seat_lost(self, peer) -> None:
        self._plan_deadline(restart=False)
        if self.between:
            self._maybe_next()

    def observer_joined(self, peer) -> None:
        """A scorekeeper attached in the middle of the match: it is replayed the match so far
        (spec §7), checks it as a player back in its seat does and records every round."""
        if self.host.match.start is None or not self.history:
            return
        self.table.send(peer, Rejoin(table=self.table.table_id, seat=None,
                                     round=self.ledger.rounds if self.ledger is not None else self.offset,
                                     at=len(self.history)))
        self.table.replay(peer, self.history)  # (its link's writer writes it, not this step: `Replay`)

    def replay_finished(self, peer) -> None:
        """A scorekeeper back after missing this match's end (its hello's `resume` names it):
        the whole match again as a rejoin's replay, then its `match_over` (spec §5 step 3), so
        it records the rounds it missed and the match's end."""
        end = getattr(self, "match_over_msg", None)
        if end is None or not self.history:
            return
        self.table.send(peer, Rejoin(table=self.table.table_id, seat=None, round=self.ledger.rounds,
                                     at=len(self.history)))
        self.table.replay(peer, self.history)
        self.table.send(peer, end)

    def in_match(self) -> bool:
        """A match is under way: a seat taken now is given back in it (`rejoined`: its `rejoin`
        and the replay follow; its `seat` says so, `SeatAssignment.rejoin`)."""
        return self.host.match.start is not None

    def rejoined(self, peer, turn_left: int | None = None, planned: bool = False,
                 word_left: int | None = None) -> None:
        """A seat's key came back: the match so far is replayed to it (its sealed deals carry
        its hand), then it plays on; a bot that stood in for it stops.  ``turn_left``: the
        milliseconds left of its turn (`back`), said in its `rejoin`, as ``word_left`` is of the
        word it owes on the word clock (`word_left`); ``planned``: `back`
        planned the clocks already (planned again, a deadline it left already past would be
        taken for one the table acted on, and a whole clock given)."""
        seat = peer.seat
        self.stand_ins.pop(seat, None)
        if self.in_match():
            self.table.send(peer, Rejoin(table=self.table.table_id, seat=seat,
                                         round=self.ledger.rounds if self.ledger is not None else self.offset,
                                         at=len(self.history), turn_left=turn_left, word_left=word_left))
            self.table.replay(peer, self.history)
        self.table._emit("rejoined", f"{peer.name} is back in seat {seat} (the match so far replayed: "
                                     f"{len(self.history)} messages)", seat=seat, replay=len(self.history))
        if not planned:
            self._plan_deadline(restart=False)  # (its own turn has what is left of its clock: `back`)
        if self.between:
            self._maybe_next()


def _answerable(rnd, seat: int, action):
    """A stand-in's move that it can defend: a Wild Draw Four played for an away seat is found
    guilty if challenged whatever the hand (the seat's key answers a challenge, and the stand-in
    has none), so another legal play, else a draw, is made in its place where there is one --
    and a Wild Draw Four just drawn is kept."""
    card = getattr(action, "card", None)
    if card is None or getattr(card, "rank", None) != "W+4" or {"no-challenges", "wd4-strict"} & rnd.rules.house:
        return action
    legal = rnd.legal_actions(seat)
    other = [a for a in legal if type(a).__name__ == "Play" and a.seat == seat and a.card.rank != "W+4"
             and a.uno == action.uno]
    draw = [a for a in legal if type(a).__name__ in ("Draw", "Pass")]  # (Pass: keep the card just drawn)
    return (other or draw or [action])[0]


def _round_digest(host) -> bytes:
    """The round digest the host signed in the round's `round-end` event."""
    for e in reversed(host.events):
        if getattr(e, "EV", None) == "round-end":
            return e.digest
    raise AssertionError("a finished round has a round-end event")


# ---------------------------------------------------------------------------- seats
class SeatGame:
    """One seat's match: its `TableSeat`, its own ledger, its feed values and its bot."""
    def __init__(self, side: SeatSide, *, carry=None) -> None:
        T = _table()
        self.side = side
        # after an election: the old match as this seat recorded it (_election.Carry), which
        # the new host's match-start must continue exactly
        carry = carry if carry is not None else getattr(side, "carry", None)
        self.seat = T.TableSeat(side.seat, side.identity.fair_identity(), side.host_public,
                                continues=carry.continuation if carry is not None else None,
                                trusted=side.trusted)
        # a seat's seeds come from its key: back after a crash, it reveals what it committed
        self.seat.secrets_from_key = self.seat.verifier.secrets_from_key = True
        refused = getattr(side, "refused", None)
        if refused is not None:  # (a new link of this process: SeatSide.like)
            self.seat.remember(refused)
        self.offset = carry.rounds if carry is not None else 0
        self.snapshots: dict = {}   # rounds completed -> this seat's Continuation then (elections)
        self.round_no = 0
        self.records = 0            # `game` records seen: the bot acts at most once per record
        self.seen = 0               # events seen this match
        self._last_act = None
        self._acted = -1
        self.setup: dict | None = None
        #: the dealer of the round in play, once known: its set-up's, or round 1's drawn from
        #: the seat seed reveals (set-up `dealer` null, §6.1 "Dealer draw"), known at its `start`
        self.dealer: int | None = None
        self.rules = None
        self.ledger: MatchLedger | None = carry.ledger() if carry is not None else None
        self.end: dict | None = None
        self.bot = None
        self.called: set[int] = set()   # who called UNO in the round a rejoin's replay rebuilds
        self._uno_round = self._uno_events = None
        self.awaiting_ready: int | None = None  # the round a person's Ready will open (manual_ready)
        self.ready_early = False                # a person's Ready came before the host's round end
        self.recovering = False                 # reading the host's replay after a rejoin: owe nothing yet
        self.standing_in: set[int] = set()      # seats a bot of the host plays now (said once each)
        #: each seat's last move this round: "seat" (its own signed act) or the reason of the host's
        #: `host-act` for it (a stand-in's: the seat's player was away); the round's result says
        #: a seat went out while a bot played it (`RoundScored.stand_in`)
        self.moved_by: dict[int, str] = {}
        self.watch = None                       # the host's clock and answers as this seat sees them
        #: the seat's act whose batch is on its way (its `act` or `host-act` relayed, its `game`
        #: record not yet): an honest host never sends a refusal inside one (spec §4.6)
        self._batch_of: int | None = None
        self._answered_at: float | None = None  # when the event that owed our last word reached us
        #: the word clock the host gave that word from then: a whole one, or back from a rejoin,
        #: what the host said was left of it (`rejoin.word_left`)
        self._word_clock = WORD_CLOCK
        #: a seat whose kept card a host-act's notice has said already ("the table kept the drawn
        #: card for you"): its engine `Kept` is not said again on the screen ("you kept ...")
        self._kept_said: int | None = None

    # -- the engine round this seat reads --------------------------------------------
    def view(self):
        """The engine round this seat reads, screen and bot alike: its own engine copy
        (`TableSeat.round`; since issue 11's one live replay it follows every variant)."""
        return self.seat.round

    # -- host -> seat -------------------------------------------------------------------
    def receive(self, msg: Fair) -> list:
        event = msg.event()
        if msg.round:
            self.round_no = msg.round
        self.seen += 1
        watch = self._watching()
        # a timeout, an abort or a waiver of a word of ours that left after our own process was
        # held up (a backlog read late): our word may have reached the host after its clock ran
        # out, so no contest (spec §5 step 6: no check spans a moment the seat was held up)
        # Nor of a word the host never said it had (its heartbeats' `took`) when the timeout came
        # late enough to be its clock: our own uplink may still hold the word (frame14)
        late = watch is not None and event.EV in _CONTESTED and self._answered_at is not None \
            and (watch._held_up_since(self._answered_at)
                 or watch.word_unproven(self._answered_at, self.side.rx_at, self._word_clock))
        self.seat.held_up = self.seat.verifier.held_up = late
        try:
            if watch is not None:
                watch.check(event, self.side.rx_at, self.side.rx_now)
            self.seat.receive(event)
        except (FairPlayViolation, HostWatchViolation) as exc:
            raise SeatProblem(f"the host failed a fair-play check: {exc}", cheat=True) from None
        finally:
            self.seat.held_up = self.seat.verifier.held_up = False
        if watch is not None:
            watch.took(event, self.side.rx_at)
            if event.EV == "act" and event.seat == self.side.seat:
                watch.answered(event.n)
        ev = event.EV
        if ev in ("act", "host-act") and event.seat is not None:
            self.moved_by[event.seat] = "seat" if ev == "act" else event.reason
        elif ev == "round-start":
            self.moved_by = {}
        # a batch ends with its `game` record: only then do the seat's engine copy and its
        # fair ledger describe the same moment (mid-batch, the ledger is ahead of the copy)
        self._fresh = ev == "game"
        if ev in ("act", "host-act") and self.seat.ledger.challenge is None:
            self._batch_of = event.seat if event.seat is not None else -1
        elif ev in ("game", "challenge", "round-start", "round-abort", "round-end"):
            self._batch_of = None  # (a challenge's batch ends at its `challenge`: the exchange is awaited)
        if ev == "game":
            self._game_record(event.data)
        elif ev == "round-end":
            self._round_signed(event.digest)
        elif ev == "round-sign" and event.tally is not None:
            self._cosigned(event)
        elif ev == "act" and self._last_act is not None and event.seat == self.side.seat \
                and event.n == self._last_act.n:
            self._last_act = None  # accepted: the next act may go
        elif ev == "round-start":
            self._last_act = None
            if not self.snapshots:  # the match before its first round: an election may go back there
                self.snapshot()
        elif ev == "host-act" and not self.recovering:
            self._host_act_news(event)
        elif ev in ("challenge-timeout", "verdict-timeout") and not self.recovering:
            self._challenge_clock_news(event)
        if self.recovering:
            if self.side.screen:
                self._replay_uno()
            return []
        if self.side.screen:
            self._screen_feed()
        owed = self._owed()
        if owed:
            self._answered_at = self.side.rx_at  # (the burst that owed them: their clock began before)
            self._word_clock = WORD_CLOCK
        return [wire(e, self.round_no) for e in owed] if owed else owed

    def roster_said(self, news: list) -> None:
        """The roster's news this match (`roster_news`): a seat it said a bot plays is not
        said again at the bot's first act; a player back may be stood in for again."""
        for n in news:
            if n.kind == "stand-in":
                self.standing_in.add(n.seat)
            elif n.kind == "back":
                self.standing_in.discard(n.seat)

    def _host_act_news(self, event) -> None:
        """The table acted for a seat: say so in plain words (a stand-in once per absence,
        never for a seat a bot held already; every turn that ran out)."""
        seat = event.seat
        if seat is None or self.side.roster is None:
            return
        entry = next((p for p in self.side.roster.players if p.seat == seat), None)
        name = entry.name if entry is not None else f"seat {seat}"
        who = "you" if seat == self.side.seat else name
        if event.reason.startswith("stand-in"):
            if entry is not None and (entry.bot or entry.id in self.side.bot_ids):
                self.standing_in.add(seat)  # a bot's seat (an old host's, after an election):
                return                      # no person to stand in for
            if seat not in self.standing_in:
                self.standing_in.add(seat)
                self.side.feed.append(F.Notice(f"a bot plays {name}'s seat until they are back", seat, "stand-in"))
        elif event.reason == "turn timeout" and seat in self.standing_in:
            # an absent seat's bot has no say here (a challenge needs the seat's own key): no
            # clock ran out, the table made the default move
            what = describe_act(event.action)
            if event.action.get("t") == "draw":
                # (`_stand_in`: the stand-in's challenge is left to this rule, whose default is to
                # accept: the seat then draws the penalty. "the table drew a card for Jo", then "Jo
                # drew 4 cards (penalty)", read wrong - play14)
                what = "accepted the Wild Draw Four"
            self.side.feed.append(F.Notice(f"the table {what} for {name} (a bot plays the seat)", seat, "timeout"))
            self._kept_said = seat if event.action.get("t") == "pass" else None
        elif event.reason == "turn timeout":
            what = timeout_move(event.action, self.seat.round)
            mine = "your" if who == "you" else f"{name}'s"
            self.side.feed.append(F.Notice(f"{mine} time ran out: the table {what} for {who}", seat, "timeout"))
            self._kept_said = seat if event.action.get("t") == "pass" else None

    def _challenge_clock_news(self, event) -> None:
        """A challenge decided by the host's clock: say so (`challenge_clock_notice`)."""
        def name(seat):
            entry = next((p for p in self.side.roster.players if p.seat == seat), None) \
                if self.side.roster is not None else None
            return entry.name if entry is not None else f"seat {seat}"

        self.side.feed.append(challenge_clock_notice(event, self.side.seat, name, self.standing_in))

    # -- the host's clock and answers, as only this seat sees them (_host_watch.py) ----------
    def _watching(self):
        """This seat's `HostWatch` (None: the host's own seats, an observer, a replay being
        read, or a driver that stamps no times). Its clock is the roster's (spec §5: none
        given is `STALL_GUARD`), fixed for the match: a later roster cannot shorten it."""
        side = self.side
        if self.recovering or not getattr(side, "clocked", False) or side.seat is None \
                or side.rx_at is None or side.roster is None:
            return None
        if self.watch is None:
            self.watch = HostWatch(side.seat, side.roster.clock / 1000 or STALL_GUARD)
        return self.watch

    def act_sent(self, at: float, position: int | None = None) -> None:
        """Our act left this seat at ``at`` (the driver's clock), the ``position``-th message
        of our link (what the host's heartbeats count: `host_took`)."""
        if self.watch is not None and self._last_act is not None:
            self.watch.sent(self._last_act, at, position)

    def word_sent(self, at: float, position: int | None = None) -> None:
        """Our word other than an act (a seed message, an answer, a verdict, a co-sign) left at
        ``at``, the ``position``-th message of our link: contested only once the host said it
        had it (`HostWatch.word_unproven`)."""
        if self.watch is not None:
            self.watch.word_sent(at, position)

    def host_took(self, took: int, at: float) -> None:
        """The host's heartbeat says it acted on ``took`` messages of our link (spec §5 step 5)."""
        if self.watch is not None:
            self.watch.host_took(took, at)

    def held_up(self, at: float) -> None:
        """Our own process woke late at ``at``: no timing check spans this moment."""
        if self.watch is not None:
            self.watch.held_up(at)

    def answer_due(self) -> float:
        return self.watch.next_due() if self.watch is not None else float("inf")

    def overdue(self, now: float) -> bool:
        """Our act went unanswered (neither relayed nor refused) for `ANSWER_LIMIT`: say so,
        naming the host, and take it back so the seat is not frozen (the round goes on by the
        host's clock; the act may be made again). True when the feed has news."""
        act = self.watch.overdue(now) if self.watch is not None else None
        if act is None:
            return False
        r = self.side.roster
        host = f"the host of {r.name or 'the table'!r} (key {fingerprint_code(r.host, SHORT_FP_CHARS)})"
        # (what is known: an act the host never said it had may be held back by our own link)
        why = "it may be withholding it" if self.watch.had(act) else \
            "it never said it had it: our own link may be holding it back, or the host withholding it"
        self.side.feed.append(F.TableProblem(
            f"{host} has neither relayed nor refused seat {self.side.seat}'s act {act.n} "
            f"({describe_act(act.action)}) for {ANSWER_LIMIT:g} s: {why}; the act is taken "
            "back and may be made again", fatal=False, cheat=False))
        if self._last_act is act:
            self.seat.withdraw(act, refused=False)  # (a slow host may still relay it: it stays our word)
            self._last_act = None
            self._acted = -1
        return True

    def recover(self, *, any_host: bool = False) -> None:
        """A fresh seat about to read the host's replay of the match (a rejoin).  ``any_host``:
        the replay may open with the transcript of a host that is gone (SeatSide checks at the
        replay's end that an election handed it over, or that it is this host's own)."""
        self.recovering = self.seat.recovering = True
        if any_host:
            self.seat.host = None
            self.seat.verifier.expected_host = None

    def recovered(self) -> list:
        """The host's replay is read (a rejoin): the seat's state is rebuilt; what it owes now."""
        self.recovering = False
        self.seat.recovering = False
        watch = self._watching()
        if watch is not None:  # the turn under way is timed from the replay's start
            said = getattr(self.side, "rejoin_turn_left", None)  # (the `rejoin`'s: what is left of our turn)
            watch.replayed(self.side.rejoin_at if self.side.rejoin_at is not None else self.side.rx_at,
                           said / 1000 if said is not None else None)
        if self.side.screen:
            self._resync_screen()
        owed = self._owed()
        if owed and watch is not None:
            # a word owed at the replay's end (a seed message, a challenge's) is timed from the
            # rejoin, with what the host said was left of its clock (`rejoin.word_left`; an older
            # host gave a whole one): an abort naming us that comes after that, our word not yet
            # taken, is the host's honest clock, however soon we sent it (no contest, spec §6.1)
            self._answered_at = self.side.rejoin_at if self.side.rejoin_at is not None else self.side.rx_at
            left = getattr(self.side, "rejoin_word_left", None)
            self._word_clock = left / 1000 if left is not None else WORD_CLOCK
        return [wire(e, self.round_no) for e in owed]

    def _resync_screen(self) -> None:
        """A client that starts after a rejoin saw none of the match: give it the table as it
        stands - its names, the round's header, its hand and the top card (`feed.Resync`), then
        the round's result if the replay stopped between rounds - and narrate nothing that
        happened before (the log starts at the rejoin)."""
        rnd = self.view()
        if rnd is None or not self._screen_info():
            return
        number = self.offset + self.round_no
        match = self._match()
        head = [self._screen.round_started(number, rnd.dealer, match.scores if match is not None else ())]
        if self._uno_round is rnd:  # (round_started forgot them)
            self._screen.called = set(self.called)
        top = rnd.discard[-1] if rnd.discard else None
        head.append(F.Resync(tuple(rnd.hands[self.side.seat]) if self.side.seat < len(rnd.hands) else (),
                             top, rnd.color, between=rnd.outcome is not None))
        self.side.feed += self._screen.batch(rnd, [], head)
        self._screen._round, self._screen._events = rnd, self.seat.engine_events
        self._screen_feed()  # the round's result, if it is over and recorded

    def _replay_uno(self) -> None:
        """Who called UNO in the round a rejoin's replay rebuilds (`feed.note_uno` over its
        batches): the screen built at the replay's end marks them as every other screen does
        (eve12: Kim, back after a SIGKILL, saw Hal and Pat on one card with no "UNO!")."""
        rnd, events = self.seat.round, self.seat.engine_events
        if rnd is not self._uno_round:
            self._uno_round, self._uno_events, self.called = rnd, None, set()
        if events is not self._uno_events:
            self._uno_events = events
            for e in events:
                F.note_uno(self.called, e)

    def _match(self):
        ref = getattr(self.seat, "referee", None)
        return ref.match if ref is not None else None

    def _screen_info(self) -> bool:
        """Send the client its `TableInfo` once (names from the roster, the rules of the
        match); False while either is unknown."""
        if getattr(self.seat, "round", None) is None or getattr(self, "rules", None) is None \
                or self.side.roster is None:
            return False
        if getattr(self, "_screen", None) is None:
            self._screen = F.SeatFeed(self.side.seat)
            r, rules = self.side.roster, self.rules
            names = tuple(p.name for p in sorted(r.players, key=lambda p: p.seat))
            bots = tuple(p.bot for p in sorted(r.players, key=lambda p: p.seat))
            self.side.feed.append(F.TableInfo(names, self.side.seat, rules.describe(), tuple(sorted(rules.house)),
                                              r.rules, rules.teams, rules.target, rules.scoring, rules.deck, bots))
        return True

    def _screen_feed(self) -> None:
        """A person's table screen at this seat (`SeatSide.screen`): the client feed from the
        seat's own engine copy (`TableSeat.round`, its `engine_events`, the match its referee
        keeps), the way the host's operator gets it from the host's round (_operator.py)."""
        if self.recovering or not self._screen_info():
            return  # (a replay is not news: the client gets the table as it stands at its end)
        rnd = self.seat.round
        match = self._match()
        finished = match is not None and len(match.history) >= self.round_no
        # the copy makes a new list for each game record it follows: a new batch is a new list
        # (numbered as the match's rounds: after a host election the transcript counts from 1 again)
        news = self._screen.update(rnd, self.seat.engine_events, self.offset + self.round_no, match, finished)
        if self._kept_said is not None:
            # the host-act's notice said it: "* your time ran out: the table kept the drawn card
            # for you" stood above "you kept the drawn card" (evening18); till its batch's record
            kept = self._kept_said
            news = [v for v in news if not (type(v).__name__ == "Kept" and type(v).__module__ == _ENGINE_EVENTS
                                            and v.seat == kept)]
            if self._fresh:
                self._kept_said = None
        self.side.feed += [self._stood_in(v) if type(v) is F.RoundScored else v for v in news]

    def _stood_in(self, scored):
        """The round's result, marked when its winner went out by a stand-in's move (the host's
        bot played the seat of a player who was away; not a bot's own seat): that player, back,
        read "You go out" of a round they never played to its end (words15)."""
        seat = scored.winner
        how = self.moved_by.get(seat, "") if seat is not None else ""
        if how == "turn timeout" and seat not in self.standing_in:
            # the table's default move for a seat at the table whose clock ran out took it out
            # (deadly plays its playable card); not when it won as the last one left in
            out = seat < len(scored.hands) and not scored.hands[seat]
            return dataclasses.replace(scored, by_clock=True) if out else scored
        if seat is None or not how.startswith("stand-in"):
            return scored
        entry = next((p for p in self.side.roster.players if p.seat == seat), None) \
            if self.side.roster is not None else None
        if entry is not None and (entry.bot or entry.id in self.side.bot_ids):
            return scored
        return dataclasses.replace(scored, stand_in=True)

    def _owed(self) -> list:
        """What the seat owes (`TableSeat.owed()`: each message handed out once, the same list
        until the next event)."""
        return self.seat.owed()

    def _game_record(self, data: dict) -> None:
        g = data.get("g")
        self.records += 1
        if g == "setup":
            self.setup = data
            if self.rules is None:
                from unonet.table._round import rules_from_json

                r = self.side.roster
                if r is None:
                    raise SeatProblem("the host dealt a round before sending the roster", code="unexpected")
                start = self.seat.match.start
                # the host and seats of this transcript: the host-signed match-start's, never the
                # roster's (the host's unsigned word: a roster that swapped two players' ids made
                # every ledger, a scorekeeper's too, record each under the other's results)
                self.host_id = start.host.fingerprint_bytes
                rules = rules_from_json(data["rules"])
                seats = {s: p.fingerprint_bytes for s, p in enumerate(start.seats)}
                if sorted(seats) != list(range(data["players"])):
                    raise SeatProblem(f"the host's signed match-start names {len(seats)} seats, but its "
                                      f"round-start deals a {data['players']}-seat round", cheat=True)
                if self.ledger is None:
                    self.ledger = MatchLedger(match_header(r.table, self.seat.match.match_id,
                                                           [seats[s] for s in sorted(seats)],
                                                           rules, rules.preset))  # (the signed rules')
                self.ledger.host = self.host_id  # (this transcript's signer: after an election, the new host)
                if not self.ledger.identities and [p.fingerprint_bytes for p in start.seats] == \
                        list(self.ledger.header.seats):
                    self.ledger.identities = tuple(p.to_json() for p in start.seats)
                self.rules = rules
            self.dealer = data["dealer"]
            if self.dealer is not None:  # (else round 1's: drawn once the seeds are in, at `start`)
                self.side.feed.append({"t": "round", "round": self.offset + data["round"], "dealer": self.dealer,
                                       "scores": data["scores"]})
        elif g == "start" and self.setup is not None and self.dealer is None:
            from unonet.table._match import round_dealer

            self.dealer = round_dealer(self.setup, self.seat.ledger)
            self.side.feed.append({"t": "round", "round": self.offset + self.setup["round"], "dealer": self.dealer,
                                   "scores": self.setup["scores"]})
        elif g == "end":
            self.end = data
        self.side.feed.append({"t": "game", **{k: v for k, v in data.items() if k != "rules"}})

    def _round_signed(self, digest: bytes) -> None:
        if self.ledger is None or self.end is None or self.setup is None:
            raise SeatProblem("the host signed a round that never ended by its own record", cheat=True)
        e = self.end
        # the TableSeat's referee has added the round's winner and points to the match by
        # the engine's rules: the scores the host signed must be those
        scores = list(self.seat.referee.match.scores)
        if list(e["scores"]) != scores:
            raise SeatProblem(f"the host (signing) claims scores {list(e['scores'])} after round "
                              f"{self.setup['round']}, but its own winner and points give {scores}", cheat=True)
        entry = self.ledger.entry(round=self.offset + self.setup["round"], dealer=self.dealer,
                                  winner=e["winner"],
                                  points=e["points"], hand_points=e["hand_points"], scores=scores,
                                  digest=digest, host=self.host_id, attempt=self.seat.match.current.attempt)
        self.ledger.append(entry)
        self.end = None
        self.snapshot()

    def _cosigned(self, event) -> None:
        """A seat's co-sign of the last round, its tally checked by the `TableSeat`: kept in
        the ledger beside the round's entry (a scorekeeper stores it, class 7)."""
        last = self.ledger.last if self.ledger is not None else None
        if last is not None and last.digest == event.digest:
            self.ledger.add_cosign(last.key, event.seat, event.tally)

    def snapshot(self):
        """This seat's own record of the match now (an election continues from one of
        these: the last round every peer completed); None before the match id exists."""
        from unonet.table import Continuation

        try:
            c = Continuation.of_seat(self.seat)
        except ValueError:
            return None
        self.snapshots[c.rounds] = c
        return c

    def round_end(self, msg: RoundEnd) -> list:
        if self.ledger is None or self.ledger.rounds == 0 or self.ledger.last.round != msg.round:
            raise SeatProblem(f"the host ended round {msg.round}, which it never signed", cheat=True)
        mine = list(self.ledger.scores)
        if self.rules.teams:
            mine = list(self.ledger.team_scores)
        theirs = [p.points for p in msg.totals]
        if theirs != mine:
            raise SeatProblem(f"the host announces totals {theirs} after round {msg.round}; its own signed "
                              f"record gives {mine}", cheat=True)
        self.side.feed.append({"t": "round-end", "round": msg.round, "winner": msg.winner, "totals": theirs,
                               "final": msg.final})
        if self.side.screen:
            self._screen_feed()  # the round's result, once the seat's referee has recorded it
        if msg.final:
            return []
        if self.side.manual_ready:
            if self.ready_early:  # the player said ready on the result screen before this came
                self.ready_early = False
                return [Ready(round=msg.round + 1)]
            self.awaiting_ready = msg.round + 1  # a person reads the result first: Ready comes from the client
            return []
        return [Ready(round=msg.round + 1)]

    def match_over(self, msg: MatchOver) -> dict:
        """Check the host's `match_over` against this seat's own ledger; the shared line."""
        led = self.ledger
        if led is None:
            raise SeatProblem("the host declared the match over before any round", cheat=True)
        want = self.seat.referee.match
        standings = list(led.team_scores) if self.rules.teams else list(led.scores)
        if msg.ledger != led.head or list(msg.scores) != standings or msg.rounds != led.rounds \
                or want.winner != msg.winner:
            raise SeatProblem(
                f"the host's match result (winner {msg.winner}, scores {list(msg.scores)}, {msg.rounds} rounds, "
                f"ledger {msg.ledger.hex()[:16]}) differs from this seat's (winner {want.winner}, scores "
                f"{standings}, {led.rounds} rounds, ledger {led.head.hex()[:16]})", cheat=True)
        return led.match_over(msg.winner)

    def refused(self, msg: ErrorReport) -> None:
        """The host refused a message of ours (spec §4.6): if it is our act on its way, take it
        back (the act counter with it) and let the seat try again.

        A refusal names what it refuses (`refuses`, the hash of the `fair` body); one of
        another message of ours (a co-sign after the next round began) leaves our act on its
        way. An older host names nothing: its refusal is taken for our act's. Either way,
        a refusal of our act that the rules allow at this very moment is the host's lie: an
        honest host answers our act before anything that came in after it, so our engine copy
        now is at the moment the host refused it (a winning play refused "stale" until the
        clock ran out and the table drew for us: tests/adversaries/test_refusals.py)."""
        act = self._last_act
        if act is not None and msg.refuses is not None and msg.refuses != body_hash(act):
            act = None
        if act is not None and self._batch_of is not None and not self.recovering:
            # the host takes one message at a time and relays each accepted act's events at once,
            # through its `game` record: a refusal of ours that comes between them was made
            # before that act was taken and held back past it -- where our copy, behind the
            # ledger, cannot judge it (after the record it could: a play still legal there)
            whose = "the table's" if self._batch_of < 0 else f"seat {self._batch_of}'s"
            raise SeatProblem(
                f"the host failed a fair-play check: the host refused seat {self.side.seat}'s act {act.n} "
                f"({describe_act(act.action)}) ({msg.code}: {msg.message}) in the middle of {whose} act, after "
                "its act and before its game record: it held the refusal back into another act's events, where "
                "the seat cannot check it (the host answers an act before or after another one, never inside it)",
                cheat=True)
        if act is not None:
            allowed = self._allowed_now(act)
            if allowed:
                raise SeatProblem(
                    f"the host failed a fair-play check: the host refused seat {self.side.seat}'s act {act.n} "
                    f"({describe_act(act.action)}) ({msg.code}: {msg.message}), but the rules allow it now "
                    f"({allowed}): it refused a legal move (the host answers an act before anything that came "
                    "in after it)", cheat=True)
            self.seat.withdraw(act)
            self._last_act = None
            self._acted = -1
        if self.watch is not None:
            self.watch.refused(msg.refuses if msg.refuses is not None else act)
        self.side.feed.append(F.Refused(f"{msg.code}: {msg.message}", code=msg.code))

    def _allowed_now(self, act) -> str:
        """Why our act `act` is one the table waits for and the rules allow at this moment
        ('' when it is not, or when this seat cannot tell: mid-batch, its engine copy is
        behind its ledger)."""
        from unonet.table._round import action_from_json

        rnd = self.view()
        lg = self.seat.ledger
        me = self.side.seat
        if not getattr(self, "_fresh", False) or self.recovering or rnd is None or rnd.over \
                or lg.phase.value != "live" or lg.challenge is not None or lg.acts[me] != act.n:
            return ""
        try:
            action = action_from_json(rnd, act.action)
        except Exception:  # noqa: BLE001 - not an action of this round: not ours to defend
            return ""
        if action not in rnd.legal_actions(me):
            return ""
        return f"the round is live, no challenge is open, seat {me}'s next act is number {act.n} and its engine " \
               f"lists {describe_act(act.action)} among its legal moves"

    @property
    def awaiting_answer(self) -> bool:
        """This seat's last act has not been answered (relayed or refused) yet."""
        return self._last_act is not None

    # -- seat -> host ---------------------------------------------------------------------
    def submit(self, value) -> list:
        """An engine action of this seat, signed; feed.Ready is answered at the round's end."""
        from unonet.table._round import action_json

        if isinstance(value, F.Ready):
            r, self.awaiting_ready = self.awaiting_ready, None
            if r is None:
                # the result screen can come (from the seat's copy) before the host's round-end:
                # a Ready then counts for that round end
                rnd = self.view()
                self.ready_early = rnd is not None and rnd.outcome is not None
                return []
            return [Ready(round=r)]
        if isinstance(value, F.Start):
            return []
        if self._last_act is not None:
            raise ValueError("the table has not answered this seat's last action yet")
        if self.recovering:
            raise ValueError("this seat is still reading the table's replay of the match")
        rnd = self.view()
        if rnd is None:
            raise ValueError("this seat cannot see the round yet")
        if getattr(value, "seat", self.side.seat) != self.side.seat:
            raise ValueError(f"seat {self.side.seat} cannot act for seat {value.seat}")
        legal = rnd.legal_actions(self.side.seat)
        if value not in legal:
            raise ValueError(_why_not(rnd, self.side.seat, value, legal))
        js = action_json(rnd, value)
        from unonet.fair import FairStateError

        try:
            self._last_act = self.seat.act(js, js.get("pos"))
        except FairStateError as exc:  # the copy and the fair record disagree: refuse, keep the table
            raise ValueError(f"{value} cannot be signed now ({exc})") from None
        return [wire(self._last_act, self.round_no)]

    def bot_move(self):
        """The bot's action for this seat now, or None (once per `game` record)."""
        if self._acted == self.records or self._last_act is not None or not getattr(self, "_fresh", False) \
                or self.recovering:
            return None
        rnd = self.view()
        me = self.side.seat
        if rnd is None or rnd.over or me not in rnd.active or self.seat.violation is not None:
            return None
        if self.seat.ledger.phase.value != "live" or self.seat.ledger.challenge is not None:
            return None
        from unonet.engine import Respond, make_bot

        if self.bot is None:
            self.bot = make_bot("heuristic", int.from_bytes(os.urandom(4), "big"), forget=0.1, catch=0.6)
        action = None
        if rnd.phase.value == "race":
            if rnd.race is not None and me in rnd.race.waiting:
                action = Respond(me)
        else:
            if rnd.catchable is not None or getattr(rnd, "_jump_in", None):
                action = self.bot.react(rnd, me)
            if action is None and rnd.turn == me:
                action = self.bot.act(rnd, me)
        if action is not None:
            self._acted = self.records
        return action


def opened_away(messages) -> bool:
    """Does a match's record (an elected host's prefix: the match as its follower read it)
    hold a fresh `match-start` with a top-level `away` (spec §6.1.1)?  A continuation's
    `continues.away` is older than the extension and read by every peer (redteam15)."""
    import json

    return any(type(m) is Fair and m.ev == "match-start" and "away" in json.loads(m.body) for m in messages)


def lan_address() -> str:
    """An address players on the LAN can reach this machine at (a host listening on every
    interface): the first up, non-loopback IPv4 address; with none up, the loopback one (the
    table listens there alone: words15, an elected host in a network of its own lo printed
    the machine's name); this machine's name only when its interfaces cannot be listed."""
    import socket

    try:
        ifaces = [i for i in interfaces() if i.up]
        for i in ifaces:
            if not i.loopback:
                return i.address
        if ifaces:
            return ifaces[0].address
    except OSError:
        pass
    return socket.gethostname() or "<this machine's address>"


def table_address(bind: str | None, port: int) -> str:
    """Where a table listening on ``bind`` (None: every interface) and ``port`` is reached,
    as a player types it (an IPv6 address in brackets)."""
    where = bind or lan_address()
    return f"[{where}]:{port}" if ":" in where else f"{where}:{port}"


def describe_act(action: dict) -> str:
    """A host-act's action in words ("drew a card", "kept the drawn card", ...)."""
    kind = action.get("t")
    words = {"draw": "drew a card", "pass": "kept the drawn card", "challenge": "challenged",
             "choosecolor": f"named the colour {action.get('color', '')}".rstrip(),
             "respond": "slapped the card", "swap": "chose whom to swap with", "play": "played a card"}
    return words.get(kind, "made the default move")


def timeout_move(action: dict, rnd) -> str:
    """The table's move for a seat whose time ran out, in words: a draw that takes a penalty
    says so (``rnd``: the seat's copy before the move; play16: "the table drew a card for you",
    then "you drew R+2 G0 (penalty)")."""
    if action.get("t") == "draw" and rnd is not None and not rnd.over:
        top = rnd.discard[-1].code if rnd.discard else ""
        if rnd.phase.value == "challenge":
            return "accepted the " + {"W+4": "Wild Draw Four", "W+2": "Wild Draw Two",
                                      "W+C": "Wild Draw Colour"}.get(top, top)
        if rnd.pending:
            return f"took the {rnd.pending} cards"
        if "deadly" in rnd.rules.house:
            # deadly has no drawing: the default move of a seat with nothing that fits puts it
            # out, as the engine's line then says (evening18: "the table drew a card for Hal",
            # then "Hal cannot play and is out of the round", and no card drawn)
            return "played nothing (nothing fit)"
    return describe_act(action)


# ---------------------------------------------------------------------------- plumbing
def bot_step(side: SeatSide):
    """The bot's next move for this seat, or None (nothing to do now)."""
    game = side.game
    return game.bot_move() if game is not None else None


def scripted_feed(emit: Callable[[dict], None], me: Callable[[], int | None] | None = None) -> Callable[[Any], None]:
    """Feed values as JSON lines (the scripting mode's output; nothing is built for a
    `JsonOut` that is off: `--no-ui` without `--json`).

    ``me`` (the seat's number now) is given for a seat a person or a script plays from stdin:
    its seat session builds the table screen (`SeatSide.screen`), and of it this prints each
    `feed.TurnState` as a ``state`` line -- the seat's own hand, the card on top, whose turn it
    is and what it may do now -- while the rest of the screen (the round's header, its engine
    events, its result) is already in the ``round``, ``game`` and ``round-end`` lines."""
    if getattr(emit, "enabled", True) is False:
        return lambda value: None
    if getattr(emit, "takes_values", False):  # a person's plain-text lines (`_text_feed`)
        return emit

    def on_feed(value) -> None:
        if isinstance(value, dict):
            emit(value)
        elif type(value) is F.TurnState:
            emit(state_line(value, me() if me is not None else None))
        elif isinstance(value, _SCREEN_ONLY) or type(value).__module__ == _ENGINE_EVENTS:
            return
        elif type(value) is F.Refused:  # (the move as it reads: "play 'R5'", never the engine's object)
            emit({"t": "refused", "reason": value.reason, "code": value.code,
                  "action": None if value.action is None else str(value.action)})
        elif dataclasses.is_dataclass(value):
            emit({"t": type(value).__name__.lower(), **_plain(value)})
        else:
            emit({"t": "event", "text": str(value)})

    return on_feed


def _plain(value):
    """``value`` as JSON can carry it: a dataclass's fields, sequences and maps walked, anything
    else (a card, an engine action) as it reads.  `dataclasses.asdict` deep-copies what it does
    not know, and a compiled engine's card cannot be copied: a seat refused a move died of it."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


#: the table screen's values the JSON lines already carry in their own words
_SCREEN_ONLY = (F.TableInfo, F.RoundStarted, F.Resync, F.RoundScored)
_ENGINE_EVENTS = "unonet.engine._events"


def state_line(ts: F.TurnState, me: int | None) -> dict:
    """The scripting mode's ``state`` line: `feed.TurnState` with cards in the scenario
    notation (docs/scenario-format.md), which is also what a stdin action names."""
    code = {c.id: str(c) for c in ts.hand}
    return {"t": "state", "turn": ts.turn, "you": ts.turn is not None and ts.turn == me, "phase": ts.phase,
            "top": str(ts.top) if ts.top is not None else None, "color": ts.color, "direction": ts.direction,
            "pending": ts.pending, "hand": [str(c) for c in ts.hand],
            "playable": [code[i] for i in ts.playable if i in code],
            "drawn": code.get(ts.drawn) if ts.drawn is not None else None,
            "jump_in": [code[i] for i in ts.jump_in if i in code], "can_catch": ts.can_catch, "uno_ok": ts.uno_ok,
            "counts": list(ts.counts), "uno": list(ts.uno), "catchable": ts.catchable, "active": list(ts.active),
            "colors": list(ts.colors), "race": list(ts.race), "race_by": ts.race_by, "side": ts.side,
            "draw_pile": ts.draw_pile}


def parse_seat_action(side: SeatSide, line: str):
    """One stdin line: a scenario-notation action (docs/scenario-format.md) as JSON, the
    player being this seat, e.g. ``{"play": "W+4", "color": "G"}`` or ``{"draw": true}``."""
    import json

    from unonet.engine._scenario import ScenarioError, _check_action, to_action

    if line.strip().lower() in HELP_WORDS:
        raise ValueError(MOVE_WORDS)
    if line.strip().lower() in ("q", "quit", "exit", "leave"):  # (was: "unknown card 'q'")
        raise ValueError("to leave the table press Ctrl-C (the host is told you left; in a match a bot "
                         "plays your seat)")
    swap = _swap_words(side, line)
    try:
        a = swap if swap is not None else json.loads(line)
    except ValueError:
        a = _short_action(line)
        if a is None:
            raise ValueError(f"not an action: {line[:80]!r} (JSON such as {{\"play\": \"R7\"}}, or words: "
                             f"R7, W G, draw, pass, challenge, uno, catch 2, color G, swap 2, slap; help lists them)") from None
    if not isinstance(a, dict):
        raise ValueError(f"an action is a JSON object, not {line[:80]!r}")
    game = side.game
    rnd = game.view() if game is not None else None
    if rnd is None or side.seat is None:
        raise ValueError("no round is in play for this seat")
    a.setdefault("player", side.seat)
    if a["player"] != side.seat:
        raise ValueError(f"this is seat {side.seat}; it cannot act for seat {a['player']}")
    try:
        _check_action(0, a, rnd.players, rnd.rules.deck)
        return to_action(rnd, a)
    except (ScenarioError, KeyError) as exc:
        raise ValueError(str(exc).replace("actions[0]", "action")) from None


def _swap_words(side: SeatSide | None, line: str) -> dict | None:
    """Whom to swap with when this seat's 7 asks it (seven-o): a bare seat number (``2``) or a
    player's name (``Hal``), with or without ``swap`` before it (play: a typed seat asked
    "swap SEAT" read "2" as "an action is a JSON object" and "Hal" as an unknown card); None
    when no swap is asked of this seat, or the words name no seat."""
    game = side.game if side is not None else None
    rnd = game.view() if game is not None else None
    if rnd is None or side.seat is None or rnd.turn != side.seat or rnd.phase.value != "swap":
        return None
    words = line.strip()
    if words[:5].lower() == "swap ":
        words = words[5:].strip()
    if words.isdigit():
        return {"swap": int(words)}
    players = side.roster.players if side.roster is not None else ()
    seat = next((p.seat for p in players if reads_as(p.name) == reads_as(words)), None)
    return {"swap": seat} if seat is not None else None


#: what a person at a plain terminal types first when lost (answered with `MOVE_WORDS`)
HELP_WORDS = ("help", "?", "h", "commands")
MOVE_WORDS = ("the moves you can type: R7 (play a card: colour R Y G B, then 0-9, S skip, R reverse, +2), "
              "W G or W+4 G (a wild and the colour you name), R7 uno (your next-to-last card), draw, pass "
              "(keep the card you drew), challenge (a wild draw four on you), uno, catch 2 (seat 2 did not "
              "call UNO), color G, swap 2 (seven-o: whom your 7 swaps hands with; then a seat number or a name "
              "alone does too), slap (a reaction race)")


def _why_not(rnd, seat: int, value, legal) -> str:
    """Why this seat's engine copy refuses ``value``, in words a person can act on."""
    card = getattr(value, "card", None)
    top = rnd.discard[-1] if rnd.discard else None
    if card is not None and type(value).__name__ == "Play":
        same = [a for a in legal if type(a).__name__ == "Play" and getattr(a.card, "id", None) == card.id]
        if same and card.wild and value.color is None:
            return f"a wild names a colour: {card.code} {rnd.colors[0]} (one of {' '.join(rnd.colors)})"
        if same and card.wild and value.color not in rnd.colors:
            # (play16: "W R" on Flip's dark side read "illegal play 'W' on 'O3'", a wild that fits)
            return (f"{value.color} is not a colour on this side: {card.code} {rnd.colors[0]} "
                    f"(one of {' '.join(rnd.colors)})")
        if same and value.uno:
            return f"UNO is called with your next-to-last card only: play {card.code} without it"
        if rnd.turn != seat and not rnd.can_jump_in(seat):
            return f"illegal play '{card.code}': it is not your turn (seat {rnd.turn} plays)"
        return f"illegal play '{card.code}' on '{top}' (colour in force: {rnd.color})"
    if type(value).__name__ == "Respond" and rnd.race is None:
        return "too late: the race is over"  # (play16: "respond to the race is not legal now")
    return f"{value} is not legal now"


def _short_action(line: str) -> dict | None:
    """A person's words for an action (``R7``, ``W+4 G``, ``R9 uno``, ``draw``, ``pass``,
    ``challenge``, ``uno``, ``catch 2``, ``color G``, ``swap 2``; ``play R7`` as ``R7``) as
    the scenario notation; None for anything else."""
    words = line.split()
    if len(words) > 1 and words[0].lower() == "play":  # (a newcomer says the verb)
        words = words[1:]
    if not words or len(words) > 3:
        return None
    head, rest = words[0].lower(), words[1:]
    if not rest and head in ("draw", "pass", "challenge", "uno"):
        return {head: True}
    if not rest and head in ("slap", "respond"):  # a reaction race (play16: "slap" was an unknown card)
        return {"respond": True}
    if len(rest) == 1 and head in ("catch", "swap") and rest[0].isdigit():
        return {head: int(rest[0])}
    if len(rest) == 1 and head in ("color", "colour"):
        return {"color": rest[0].upper()}
    if head in ("draw", "pass", "challenge", "uno", "catch", "swap", "color", "colour", "slap", "respond"):
        return None  # (a word of ours with what does not go with it)
    a: dict = {"play": words[0]}
    for w in rest:
        if w.lower() == "uno":
            a["uno"] = True
        elif "color" not in a and len(w) == 1:
            a["color"] = w.upper()
        else:
            return None
    return a


class Operator:
    """The host operator's own seat played by a person: in the full-screen client its feed
    goes to ``feed`` (a channel the client reads); with ``feed`` None (scripting mode: an
    elected `join` reading stdin) it prints as JSON lines.  Its actions come from
    ``submit``.  ``side`` is the seat's `SeatSide` once it sits (a stdin reader parses
    its lines against it).  ``bot``: a bot plays the seat while the screen shows it (an
    elected `join --bot` with a screen)."""
    def __init__(self, feed: trio.MemorySendChannel | None, submit: trio.MemoryReceiveChannel | None, *,
                 bot: bool = False, leave: trio.Event | None = None) -> None:
        self.feed, self.submit, self.bot = feed, submit, bot
        self.leave = leave  # set when the person quits: a table we host closes (its last words sent)
        self.side: SeatSide | None = None


class LocalLink:
    """The host's own seats' link to their table, in memory: what the table puts in the
    seat's outbox is received, what the seat sends goes to the table's inbox.  So the
    host's own seat and its bots run the joiner's loop (`play_seat`) like any seat.
    ``trusted``: what comes in was made, or checked before it was relayed, by the table in
    this very process (docs/fair-play.md, "The host's own seat")."""
    local = True
    trusted = True

    def __init__(self, table, peer, recv: trio.MemoryReceiveChannel, side: SeatSide) -> None:
        self.table, self.peer, self.recv, self.side = table, peer, recv, side
        self.closed = False
        self.address = f"local seat {peer.seat}"

    async def receive(self) -> Message:
        while True:
            try:
                # a table step's messages are taken without a task switch each (the table
                # task put them there in one go); only an empty outbox is waited on
                msg = self.recv.receive_nowait()
            except trio.WouldBlock:
                try:
                    msg = await self.recv.receive()
                except trio.EndOfChannel:
                    break
            except trio.EndOfChannel:
                break
            if isinstance(msg, Message):  # (a Drop: nothing to close in memory)
                self.side.can_start = self.table.state == "lobby"
                return msg
        self.closed = True
        raise LinkClosed("the table closed", code="closed")

    async def send(self, msg: Message) -> None:
        await self.table._inbox_send.send(("msg", self.peer, msg))

    async def drop(self, code: str, message: str, field: str | None = None) -> None:
        return None

    async def aclose(self) -> None:
        self.closed = True


def run_local_seat(emit: Callable[[dict], None] | None, operator: Operator | None = None) -> Callable:
    """The host's hook for its own seat and its bots: a task per local seat in the table's
    nursery, running the joiner's `play_seat` over a `LocalLink`.  The host's own seat
    prints to ``emit`` (scripting mode) or, with ``operator``, is played from the client;
    every other local seat is a bot."""
    def start(table, peer, identity, *, bot: bool) -> None:
        send, recv = trio.open_memory_channel(4096)
        peer.outbox = send
        own = peer.sitter.kind == "host"
        human = own and operator is not None and not operator.bot
        screen = own and operator is not None and operator.feed is not None
        by_script = human and not screen  # an elected `join` played from stdin: `state` lines, as it had

        side = SeatSide(name=peer.name, identity=identity,
                        host_public=table.identity.fair_identity().public,
                        # bots and the operator's screen read the seat's own copy, like a joiner's
                        game_factory=lambda s: SeatGame(s, carry=getattr(table, "carry", None)),
                        bot=not human)
        side.table_name, side.join_code, side.players = table.config.name, table.join_code, table.config.players
        side.bot_pace = table.config.bot_pace
        side.operator = own
        side.news_from = getattr(table, "news_from", None) if own else None
        side.manual_ready = screen and human  # the operator reads each round's result and presses Enter
        side.screen = screen or by_script  # and sees the table from its seat's own engine copy, like a joiner
        side.can_start = table.state == "lobby"
        if own:
            c = table.config
            # the elected host's lobby names the address its election line did (play15: "the table
            # is at 127.0.0.1:37655" above "players type: unonet join ... vm:37655")
            side.address = table.reached_at if table.reached_at and not c.bind else table_address(c.bind, table.port)
            side.kept_away = table.kept_away
        scripted = scripted_feed(emit, (lambda: side.seat) if by_script else None) \
            if (emit is not None and own and not screen) else None
        if own and operator is not None:
            operator.side = side

        def on_feed(v) -> None:
            if isinstance(v, F.Refused) and not human and v.code != "stale":  # a bot's move refused
                # (a catch or jump-in that lost its race is `stale`: the table moved on, no fault)
                table._emit("problem", f"{peer.name}'s bot: {v.reason}")
            elif scripted is not None and not (isinstance(v, dict) and v.get("t") == "match-over"):
                scripted(v)  # (the host prints each match's line itself)

        submit = None
        if human:
            submit_send, submit = trio.open_memory_channel(0)

            async def from_client() -> None:
                """The operator's actions; Start is the table's, the rest the seat's."""
                async with submit_send:
                    async for value in operator.submit:
                        if isinstance(value, F.Start):
                            table.start()
                        else:
                            await submit_send.send(value)

        async def run() -> None:
            from unonet.protocol import SeatAssignment

            link = LocalLink(table, peer, recv, side)
            side.trusted = link.trusted  # (the trust is the link's: an elected host's new seat gets it anew)
            side.receive(SeatAssignment(seat=peer.seat, id=peer.peer_id, team=table.book.team(peer.seat)))
            if human:
                table._nursery.start_soon(from_client)
            if screen:
                side.receive(table.roster())  # the operator's lobby at once, before anyone joins
                for v in side.take_feed():
                    if not isinstance(v, dict):
                        await operator.feed.send(v)
            try:
                await play_seat(link, side, feed=operator.feed if screen else None, submit=submit,
                                on_feed=on_feed, bot_step=None if human else bot_step, seated=True,
                                keep_feed=True, matches=None)
            except JoinFailed as exc:
                # (the table closing ends its own seats: not a problem; a cheat caught is, though
                # the seat closed its link itself on the way out)
                if exc.cheat or not link.closed:
                    table._emit("problem", f"{peer.name} (seat {peer.seat}): {exc}", cheat=exc.cheat)
                    if screen:
                        await operator.feed.send(F.TableProblem(str(exc), fatal=True, cheat=exc.cheat))
            finally:
                peer.done.set()  # the table's close waits for this seat to have read its outbox

        table._nursery.start_soon(run)

    return start

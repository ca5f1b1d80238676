"""A seat's side of the session, sans IO: what the host's messages mean to one seat.

`SeatSide` takes every message the host sends this seat (`receive(msg) -> [replies]`),
keeps the seat, the roster and the match's progress, and turns them into the client's
feed values (``feed`` list, drained by the IO shell).  Rounds travel as `fair`
messages and are handed to a `SeatGame` (``_game.py``), which runs the seat's
`TableSeat` (its fair verifier and engine copy).  The same class serves a remote
`unonet join` (fed from a link) and the host's own seat and bots (fed in memory).
"""

from __future__ import annotations

import math

from typing import Any, Collection

from unonet import feed as F
from unonet.protocol import (
    Election, ErrorReport, Fair, Heartbeat, Leave, Message, MatchOver, Ready, Rejoin, Roster, RoundEnd,
    SeatAssignment, Turn,
)

from unonet.fingerprint import SHORT_FP_CHARS, fingerprint_code, join_code
from unonet.names import stand_in_name
from unonet.heap import round_over
from unonet.ledger import after_rounds

from ._carry import Follower
from ._errors import JoinFailed, SeatProblem
from ._spool import MessageSpool

__all__ = ["SeatSide", "SeatProblem", "roster_news", "host_news", "feed_match_over"]


class SeatSide:
    """One seat's state machine.  ``game_factory(side) -> SeatGame`` is called when the
    first `fair` message of a match arrives (it needs the seat and the roster)."""
    #: a link lost between matches ends the session with ``JoinFailed(between=True)`` for the
    #: election loop to go back to the host (`play_with_elections`), not with the last result
    rejoin_between = False
    #: this seat's goodbye (`leave`) went out: the host does not hold the seat for us
    said_goodbye = False

    def __init__(self, *, name: str, identity, host_public=None, game_factory=None,
                 bot: bool = False) -> None:
        self.name = name
        self.identity = identity          # our protocol Identity (fair identity derived)
        self.host_public = host_public    # the host's fair PublicIdentity (from its hello)
        self.game_factory = game_factory
        self.bot = bot
        self.seat: int | None = None
        self.peer_id: bytes | None = None
        self.team: int | None = None
        self.roster: Roster | None = None
        self.game: Any = None
        self.feed: list = []
        self.over: dict | None = None     # the match-over line once the match is decided
        self.closed = False
        self.observer = False             # a scorekeeper's side: no seat, nothing owed
        #: the link under this side is trusted (`LocalLink`: the host's own table, in this
        #: process, which checked everything it sends): the seat's ledgers skip the checks that
        #: only distrust the host (docs/fair-play.md).  A property of the link, never copied:
        #: `like()` takes it from the new link
        self.trusted = False
        self.table_name = ""
        self.join_code = ""
        self.operator = False     # the host's own seat: its client may Start
        self.can_start = False
        self.manual_ready = False     # a person's client sends Ready after reading a round's result
        self.screen = False           # a person's client at a remote seat: feed it the table screen
        self.address = ""            # where the table listens (the operator's lobby shows it)
        #: the operator's table's `HostTable.kept_away` (free seats the next start keeps for an away key)
        self.kept_away = None
        self.host_name = ""          # the host's name as its link's hello gave it (a dealer-only host has no seat)
        self.players = 0
        self.election = None          # after a host election: the `_election.Follower` until confirmed
        self.bot_pace = 0.0           # a bot sends each answer this long after the message that owed it
        self.carry = None             # the confirmed election's `_election.Carry` (the old match's record)
        self.replaying = 0            # back in our seat (`rejoin`): messages of the host's replay still to come
        #: our `seat` said a match is under way: the roster comes before the rejoin and its
        #: replay, and the lobby it shows is no lobby waiting for a start (`SeatAssignment.rejoin`)
        self.back_in_match = False
        #: every match message the hosts sent us (fair, round_end, election confirmations), across
        #: elections: an elected host replays it to a player that rejoins it (spec §7 rejoin)
        self.history = MessageSpool()
        self._replay_replies: list = []  # what the replay's last round end asked of us (a Ready)
        self.news_from = None            # the roster of the host we had before (an election)
        #: the host this process played under before this link (`like`): a rejoin says "the
        #: host changed while you were away" only if it did (None: a fresh process, which cannot tell)
        self.host_seen: bytes | None = None
        self.bot_ids: set[bytes] = set()  # keys a bot played under in any roster of this table
        #: players an elected host's first roster shows not connected that were at the old host:
        #: following the election (their coming and going is no news; a stand-in's would be)
        self.following: set[bytes] = set()
        self.matches_played = 0          # matches this seat saw to their end at this table
        self.last_over: dict | None = None  # the last one's match-over line
        #: times the driver stamps (its clock): ``rx_at`` the start of the burst the message being
        #: read came in, ``rx_now`` when it is read; ``clocked``: watch the host's timing
        #: (a remote host: `_host_watch.py`); ``rejoin_at``: when the host's rejoin came
        self.clocked = False
        self.rx_at: float | None = None
        self.rx_now: float | None = None
        #: ``(message, its msgpack bytes)`` as the link read it: the history keeps those bytes
        #: instead of encoding the message again (a driver that has none leaves it None)
        self.rx_bytes: tuple | None = None
        self.rejoin_at: float | None = None
        #: the `rejoin`'s `turn_left` (ms): what the host left of our turn under way (None: no
        #: turn of ours, or an older host, which gave a whole clock)
        self.rejoin_turn_left: int | None = None
        #: the `rejoin`'s `word_left` (ms): what the host left of the word clock of the word we
        #: owe (a seed message, a challenge's); None: none owed, or an older host (a whole clock)
        self.rejoin_word_left: int | None = None
        #: the roster's time left of another seat's turn under way when we came back (seat, ms,
        #: the burst it came in): our screen counts that turn down from it (display only)
        self.others_turn_left: tuple[int, int, float | None] | None = None
        #: the acts the host refused this seat on an earlier link of this process (`like`), which
        #: its next game remembers (`TableSeat.remember`); None: a fresh process
        self.refused: set[str] | None = None

    # -- a new link: the host we rejoin, or an elected one ----------------------------
    role: str | None = None   # the hello's role (None: a player; an observer's side says so)

    def like(self, link, identity, game_factory) -> "SeatSide":
        """A fresh side for ``link`` that plays the way this one did: a bot or a person, its
        pace, a screen or JSON lines (one election loop carries every kind of side)."""
        new = SeatSide(name=self.name, identity=identity, host_public=link.peer_fair_identity,
                       game_factory=game_factory, bot=self.bot)
        new.trusted = getattr(link, "trusted", False)
        new.host_name = getattr(link, "peer_name", "")
        # the acts the host refused us: a replay on the new link that relays one is the host's cheat
        new.refused = self.game.seat.refused if self.game is not None and hasattr(self.game, "seat") else \
            self.refused
        # (the matches it saw count at the elected table too: `--matches N` is for the evening)
        for attr in ("table_name", "players", "bot_pace", "screen", "manual_ready", "join_code",
                     "matches_played", "last_over"):
            setattr(new, attr, getattr(self, attr))
        new.news_from = self.roster  # the new host's first roster is news against the old one's
        new.host_seen = self.roster.host if self.roster is not None else self.host_seen
        new.bot_ids = set(self.bot_ids)  # (an old host's bots sit "away" at the new one)
        if self.join_code:  # the client shows the code of the table's host: now this one's
            new.join_code = join_code(link.peer_static)
        return new

    def handover(self) -> list[Message]:
        """What this side sends an elected host after its `election` report: nothing for a
        seat (an observer hands its ledger over)."""
        return []

    # -- host -> seat ---------------------------------------------------------------
    def _keep(self, msg: Message, raw: bytes | None = None) -> None:
        """Keep a match message for an elected host (our `history`; ``raw``: its bytes as
        received, if we have them).  A side whose link is trusted is a seat in the host's own
        process: it dies with its host and never follows an election, so it keeps none (a
        spool write per message saved)."""
        if not self.trusted:
            self.history.append(msg, raw)

    def receive(self, msg: Message) -> list[Message]:
        """One message from the host; the replies this seat owes (in order).  Raises
        SeatProblem when the host fails a check or breaks the session."""
        if isinstance(msg, (Heartbeat, Turn)):
            if isinstance(msg, Heartbeat) and msg.took is not None and self.game is not None \
                    and hasattr(self.game, "host_took") and self.rx_now is not None:
                # the acts of ours it has (`HostWatch`), timed when read: an event in the same
                # backlog, timed from the backlog's start, never counts as late after it
                self.game.host_took(msg.took, self.rx_now)
            return []  # (a `turn` is advice another host may send: our engine copy knows whose move it is)
        if self.replaying:
            return self._replayed(msg)
        if isinstance(msg, Fair):  # most of a match: first
            if self.election is not None and self.carry is None:
                raise SeatProblem("the new host deals before confirming the election (term, head, rounds)",
                                  cheat=True)
            if self.seat is None:
                raise SeatProblem("the host sent a round before giving us a seat", code="unexpected")
            if msg.ev == "match-start" and restarts_match(self.game, msg):
                self.game, self.history = None, MessageSpool()
            if self.game is None:
                if self.game_factory is None:
                    raise SeatProblem("this client cannot play rounds", code="unexpected")
                self.game = self.game_factory(self)
            if not self.trusted:  # (`_keep`)
                kept = self.rx_bytes
                self.history.append(msg, kept[1] if kept is not None and kept[0] is msg else None)
            return self.game.receive(msg)
        if isinstance(msg, Rejoin):
            return self._rejoin(msg)
        if isinstance(msg, SeatAssignment):
            if self.seat is not None and msg.seat != self.seat and self.game is not None:
                raise SeatProblem(f"the host moved us from seat {self.seat} to seat {msg.seat} "
                                  "in the middle of a match", code="unexpected")
            self.seat, self.peer_id, self.team = msg.seat, msg.id, msg.team
            self.back_in_match = msg.rejoin  # (until the replay that follows is read)
            return []
        if isinstance(msg, Roster):
            return self._roster(msg)
        if isinstance(msg, Election):
            if self.election is None or self.carry is not None:
                raise SeatProblem("the host sent an election, but none is under way", code="unexpected")
            self.carry = self.election.confirm(msg)
            if self.election.redealt is not None:
                self.feed.append(F.Notice(
                    f"the new host deals round {self.election.redealt} again, which every seat had co-signed: "
                    "another seat reported it otherwise to the new host, and who told it wrong cannot be "
                    "shown (the lost host, or that seat)", None, "redealt"))
            self._keep(msg)
            return []
        if isinstance(msg, RoundEnd):
            if self.game is None:
                return []
            self._keep(msg)
            replies = self.game.round_end(msg)
            round_over(msg)  # the round's garbage goes now (unonet/heap.py)
            return replies
        if isinstance(msg, MatchOver):
            if self.game is None:
                raise SeatProblem("the host declared the match over before any round", code="unexpected")
            self.over = self.last_over = self.game.match_over(msg)
            self.game = None
            self.carry = self.election = None  # a next match at this table is a new match
            self.history = MessageSpool()
            return []
        if isinstance(msg, Leave):
            self.closed = True
            return []
        if isinstance(msg, ErrorReport):  # non-fatal: a refusal of our last request
            if self.game is not None:
                self.game.refused(msg)
            return []
        raise SeatProblem(f"the host sent {msg.TYPE}, which {'an observer' if self.observer else 'a seat'} "
                          "does not expect", code="unexpected")

    def decided(self) -> dict | None:
        """The match-over line when this side's own record shows the match won (its last round
        verified and in its ledger, a score at the target by its own engine), else None: the
        match is over whatever becomes of the host (spec §5 step 8).  Won by the engine but that
        round not in the ledger (the host left before we verified its end): nothing confirms
        it and nothing can continue it - JoinFailed."""
        game = self.game
        led = getattr(game, "ledger", None)
        ref = getattr(getattr(game, "seat", None), "referee", None)
        if led is None or ref is None or not ref.match.over:
            return None
        if list(led.scores) != list(ref.match.scores):
            raise JoinFailed(f"the host left right after the last round was won (scores {list(ref.match.scores)}), "
                             "before it signed that round: the match is over but its last round is unconfirmed",
                             code="closed")
        return led.match_over(ref.match.winner)

    def end_on_record(self, line: dict) -> None:
        """The host was lost after the match's last round and before its `match_over`: the match
        ends on our own record (``line``, `decided`), as if `match_over` had said it."""
        self.over = self.last_over = line

    def _roster(self, msg: Roster) -> list[Message]:
        """The table's roster: the client's lobby again, and what changed in words."""
        if self.roster is not None and msg.epoch < self.roster.epoch:
            raise SeatProblem(f"the host sent roster epoch {msg.epoch} after epoch "
                              f"{self.roster.epoch} (epochs only increase)", code="unexpected")
        elected = self.roster is None and self.news_from is not None
        old, self.roster = self.roster or self.news_from, msg
        self.news_from = None
        self.others_turn_left = next(((p.seat, p.turn_left, self.rx_at) for p in msg.players
                                      if p.turn_left is not None and p.seat != self.seat), None)
        if old is not None:
            self.bot_ids.update(p.id for p in old.players if p.bot)
        self.bot_ids.update(p.id for p in msg.players if p.bot)
        self.feed.append(self.lobby())
        if old is None and self.screen and self.seat is not None:
            mine = next((p for p in msg.players if p.seat == self.seat), None)
            if mine is not None and mine.name != self.name and self.name:
                # the host seated us under another name (ours was taken): the lobby's "Pat-2
                # you" alone left a new player wondering who Pat-2 was
                self.feed.append(F.Notice(f"the name {self.name} is taken at this table: you play as {mine.name}",
                                          self.seat, "renamed"))
        if elected:
            self.following = following_election(old, msg)
        if old is not None and old.table == msg.table:
            news = roster_news(old, msg, self.seat, self.bot_ids, self.following)
            self.feed += news
            if self.game is not None:
                self.game.roster_said(news)
        self.following -= {p.id for p in msg.players if p.connected}  # (followed: back, silently)
        return []

    # -- back in our seat after a crash (spec §7 `rejoin`) ---------------------------------
    def _rejoin(self, msg: Rejoin) -> list[Message]:
        """The host gives our seat back mid-match: the replay of the match so far follows;
        our new `TableSeat` rebuilds itself from it (its hand from the replayed sealed deals)
        and owes nothing until the replay's end."""
        if (self.seat is None and not self.observer) or msg.seat != self.seat or self.game is not None or \
                (self.roster is not None and msg.table != self.roster.table):
            ours = "we watch, holding no seat" if self.seat is None else f"we hold seat {self.seat}"
            theirs = "an observer" if msg.seat is None else f"seat {msg.seat}"
            raise SeatProblem(f"the host sent a rejoin for {theirs} ({ours}"
                              f"{', and are already playing' if self.game is not None else ''})", code="unexpected")
        if self.election is not None and self.carry is None:
            # we followed the election too late: the elected table plays on and gives our seat
            # back as a rejoin; its replay holds the confirmation every seat received, checked
            # against the old match as the replay rebuilds it
            self.election, self.history = None, MessageSpool()
        self.replaying, self._rejoin_msg = msg.at, msg
        self.rejoin_at = self.rx_at
        self.rejoin_turn_left = msg.turn_left if msg.seat is not None else None
        self.rejoin_word_left = msg.word_left if msg.seat is not None else None
        return self._replay_done() if msg.at == 0 else []

    def _replayed(self, msg: Message) -> list[Message]:
        if not isinstance(msg, (Fair, RoundEnd, Election)):
            raise SeatProblem(f"the host's replay of the match holds a {msg.TYPE}", code="unexpected")
        self.history.append(msg)
        if isinstance(msg, Election):
            # the match went on under a host elected after its host died: our record of the
            # old transcript, read so far, is what the confirmation must continue (as it was
            # for every seat that followed the election)
            if self.game is None:
                raise SeatProblem("the host's replay confirms an election before any match", code="unexpected")
            said = len(self.feed)
            self.game.recovered()  # (nothing is owed to a host that is gone)
            del self.feed[said:]  # (nor is its voided round the screen's: the replay's end builds it)
            self.election = Follower(self.game, msg.term, msg.host)
            self.carry = self.election.confirm(msg)
            self.game = None
            self.replaying -= 1
            return self._replay_done() if not self.replaying else []
        if isinstance(msg, Fair) and self.game is None:
            if self.game_factory is None:
                raise SeatProblem("this client cannot play rounds", code="unexpected")
            self.game = self.game_factory(self)
            # the replay may open with the transcript of a host that is gone (an election
            # followed): its key is the one its match-start names, bound to us by our own
            # signed match-join in it; a replay with no election must be this host's own
            self.game.recover(any_host=self.carry is None)
        if self.game is None:
            raise SeatProblem("the host's replay ends a round before any was dealt", code="unexpected")
        said = len(self.feed)
        replies = self.game.receive(msg) if isinstance(msg, Fair) else self.game.round_end(msg)
        del self.feed[said:]  # (the client saw these the first time: the replay is not news)
        # nothing is sent while the replay runs (we said it all before the crash), except
        # the Ready the last round end asks for when the replay stops between rounds
        self._replay_replies = [r for r in replies if isinstance(r, Ready)] if isinstance(msg, RoundEnd) else []
        self.replaying -= 1
        return self._replay_done() if not self.replaying else []

    def _replay_done(self) -> list[Message]:
        out, self._replay_replies = self._replay_replies, []
        self.back_in_match = False  # (the table is in play again at this seat: its lobby is the next match's)
        if self.game is not None:
            start = self.game.seat.match.start
            if start is not None and self.host_public is not None and start.host != self.host_public:
                raise SeatProblem("the host's replay is of a match another host started, and no election hands "
                                  "it to this host", cheat=True)
            self.game.seat.host = self.game.seat.verifier.expected_host = self.host_public
            out = self.game.recovered() + out
        msg = self._rejoin_msg
        rnd = self.game.seat.round if self.game is not None else None
        between = rnd is not None and rnd.outcome is not None  # (the replay stopped between rounds)
        # a hand is the cards in play: between rounds the finished round's leftovers are none
        hand = sorted(str(c) for c in self.game.seat.hand.values()) if self.game is not None and \
            not self.observer and not between else []
        hosts = 1 + self.history.types.get(Election.TYPE, 0)  # transcripts read: one per host
        # our turn under way: the seconds the host left of it (not a whole clock: spec §7 rejoin)
        left = turn_seconds(self.rejoin_turn_left) if self.game is not None and not self.observer else None
        line = {"t": "rejoined", "seat": msg.seat, "rounds": msg.round, "replay": msg.at, "hand": hand, "hosts": hosts}
        if left is not None:
            line["turn_left"] = left
        self.feed.append(line)
        if self.screen:
            # mid-round 1, "before the first round ended" read oddly to a player: where they are
            where = after_rounds(msg.round) if msg.round > 0 else "in round 1"
            if between:
                # the replay stopped between rounds: no hand is dealt (words15: "your hand is back"
                # stood above "Your hand (0 cards)" on the last round's result)
                text = f"reconnected: back in seat {msg.seat} {where}; the next round is dealt once every " \
                       "player is ready"
            else:
                text = f"reconnected: back in seat {msg.seat} {where}; your hand is back"
            r = self.roster
            # the match changed hands while we were gone: say to whom (not when it changed hands
            # before our link dropped: eve12, Kim's link was down 20 s at Pat's table, which Pat
            # had taken over a round before, and Kim read "The host changed while you were away")
            if hosts > 1 and not (self.host_seen is not None and r is not None and r.host == self.host_seen):
                host = next((p.name for p in r.players if p.id == r.host), None) if r is not None else None
                # a fresh process cannot tell whether it saw the election before it died (play16:
                # Ben, killed after Ana had taken over before his eyes, read "while you were away")
                when = "while you were away" if self.host_seen is not None else "during this match"
                text += f". The host changed {when}: {host or 'another player'} hosts the table now"
            clock_of = None
            if left is not None:
                text += f"; your turn: {say_seconds(left)} left"
            elif self.others_turn_left is not None and not between:
                # back on another's turn: the return's roster said what is left of it (evening19:
                # no clock showed until the next turn), less the time our replay took
                clock_of, ms, at = self.others_turn_left
                took = self.rx_now - at if at is not None and self.rx_now is not None else 0.0
                left = max(0.0, turn_seconds(ms) - max(0.0, took))
            self.feed.append(F.Notice(text, msg.seat, "reconnected", left=left, clock_of=clock_of))
        return out

    # -- seat -> host -----------------------------------------------------------------
    def submit(self, value) -> list[Message]:
        """A value from the client (an engine action, feed.Ready, ...): what to send."""
        if self.game is None:

            if isinstance(value, F.Ready):
                return []
            # (play13: typed as the host died, a move read "not taken: no round is being played"
            # under "lost the link to the host"; the round was void, one is dealt again)
            raise ValueError("no round is in play right now: wait for the deal")
        return self.game.submit(value)

    # -- the driver's clock (a remote host's timing, _host_watch.py) ----------------------
    def act_sent(self, at: float, position: int | None = None) -> None:
        if self.game is not None and hasattr(self.game, "act_sent"):
            self.game.act_sent(at, position)

    def word_sent(self, at: float, position: int | None = None) -> None:
        if self.game is not None and hasattr(self.game, "word_sent"):
            self.game.word_sent(at, position)

    def held_up(self, at: float) -> None:
        if self.game is not None and hasattr(self.game, "held_up"):
            self.game.held_up(at)

    def overdue(self, now: float) -> bool:
        """Our act went unanswered too long: the game says so (True: feed news)."""
        return self.game is not None and hasattr(self.game, "overdue") and self.game.overdue(now)

    def take_feed(self) -> list:
        out, self.feed = self.feed, []
        return out

    def lobby(self):
        """The roster as the client's `feed.Lobby`.  A key seen as a bot at this table is a
        bot's seat (`bot_ids`): an elected host seats the lost host's bots away, their keys
        kept, played by its stand-ins - no player is away there."""
        r = self.roster
        assert r is not None
        seats = tuple(F.LobbySeat(seat=p.seat, name=p.name, fingerprint="" if bot else fingerprint_code(p.id, SHORT_FP_CHARS),
                                  bot=bot, connected=p.connected or bot,
                                  # partners by seat parity (spec §5 step 3), the teams the match
                                  # scores; never the entry's `team`, the host's unsigned word
                                  # (a host could show a player the wrong partner, trust18)
                                  team=p.seat % 2 if r.teams else None,
                                  left=p.left and not (p.connected or bot))
                      for p in r.players for bot in (p.bot or p.id in self.bot_ids,))
        rules = r.rules + (f" + {', '.join(r.house)}" if r.house else "") + (" (teams)" if r.teams else "") \
            + f", to {r.target}"
        # the table's name as the host says it (its roster), else as its beacon did
        return F.Lobby(table=r.name or self.table_name, code=self.join_code, seats=seats, me=self.seat, host=self.operator,
                       can_start=self.operator and self.can_start, players=self.players or r.seats, rules=rules,
                       address=self.address, clock=r.clock / 1000,
                       kept=tuple(sorted(self.kept_away().items())) if self.kept_away is not None else (),
                       back=self.back_in_match,
                       # a dealer-only host holds no seat: its hello's name (play10: a player's lobby at
                       # Max's table named no host, the scorekeeper's said "hosted by Max")
                       hosted_by=next((p.name for p in r.players if p.id == r.host), "") or self.host_name)

    def ready(self, round_no: int) -> Ready:
        return Ready(round=round_no)


def following_election(old: Roster, new: Roster) -> set[bytes]:
    """The players an elected host's first roster shows not connected that were connected at
    the lost host (never the lost host itself): they are following the election, not away."""
    was = {p.id for p in old.players if p.connected and not p.bot and p.id != old.host}
    return {p.id for p in new.players if not p.connected and p.id in was}


def turn_seconds(ms: int | None) -> float | None:
    """A `turn_left` (ms, spec §7 rejoin) in seconds, to a tenth (None stays None)."""
    return None if ms is None else round(ms / 1000, 1)


def say_seconds(seconds: float) -> str:
    """``12 s``; ``1:05`` from a minute on (as the screens' clock reads)."""
    whole = math.ceil(seconds)  # (as the screens' clock counts: 0.2 s left reads 1 s, not 0 s)
    return f"{whole} s" if whole < 60 else f"{whole // 60}:{whole % 60:02d}"


def roster_news(old: Roster, new: Roster, me: int | None, bots: Collection[bytes] = (),
                following: Collection[bytes] = ()) -> list:
    """What changed between two rosters of one table, in plain words for every screen
    (`feed.Notice`): a player who dropped, came back or left.  Our own seat is not news, nor
    a bot's (``bots``: the keys this seat saw a bot play under, at any host of the table),
    nor the link of a player following an election (``following``: `following_election`)."""
    before = {p.seat: p for p in old.players}
    now = {p.seat: p for p in new.players}
    out = []
    for seat, p in sorted(now.items()):
        b = before.get(seat)
        if seat == me or b is None:
            continue
        if b.bot or b.id in bots or (p.bot and p.name == b.name):
            # a bot's seat is nobody's news: after an election the lost host's bots are "away"
            # (dealt absent, played by the new host's stand-ins) - not a player who left; and a
            # bot under the seat's own name is the same bot's seat again ("Ana (bot)")
            continue
        if p.bot and p.name == stand_in_name(b.name):
            away = "" if b.connected else " while they are away"
            out.append(F.Notice(f"a bot plays {b.name}'s seat{away}", seat, "stand-in"))
            continue
        if p.bot or b.id != p.id or p.id in following:
            continue
        if b.connected and not p.connected and p.left:
            # the seat's own link said goodbye (`leave`): a bot plays it at once, said once
            out.append(F.Notice(f"{p.name} left: a bot plays their seat; `unonet join` takes it back",
                                seat, "stand-in"))
        elif b.connected and not p.connected:
            out.append(F.Notice(f"{p.name} is away (left or lost the link): their seat is kept for them", seat, "dropped"))
        elif p.connected and not b.connected:
            # back on their own turn: what the host left of it (`turn_left`), which every screen
            # counts down from here (not a whole clock: spec §7 rejoin)
            left = turn_seconds(p.turn_left)
            more = f" ({say_seconds(left)} left of their turn)" if left is not None else ""
            out.append(F.Notice(f"{p.name} is back at the table{more}", seat, "back", left=left))
    for seat, b in sorted(before.items()):
        p = now.get(seat)
        if seat != me and not b.bot and b.id not in bots and (p is None or p.name not in (b.name, stand_in_name(b.name))):
            if p is None and not b.connected and not b.left:
                # no goodbye: the link was lost and is not back (its hold ran out, or the match
                # ended without it). The seat is free for a newcomer, else the next match keeps it
                # for that key: "left the table" read as if they had gone for good
                out.append(F.Notice(f"{b.name} is still away: their seat is open to a newcomer", seat, "left"))
            else:
                out.append(F.Notice(f"{b.name} left the table", seat, "left"))
    return out


def host_news(event):
    """What the table this client hosts (elected, spec §7) tells its player's screen: a
    refused joiner (a full table, a match under way) is ordinary news (`feed.Notice`,
    ``refused``); a problem is an alarm (`feed.TableProblem`, not fatal); None for the rest
    (stand-ins and the table's default moves reach the screen from our own seat's feed)."""
    if event.data.get("stand_in") or event.data.get("stall"):
        return None
    if event.kind == "refused" and event.data.get("code") == "truncated" and event.data.get("address"):
        # the other end hung up in the handshake (a joiner whose --code names another key does):
        # nobody was turned away, and "closed the link in the middle of a frame" is not news
        return F.Notice(f"{event.data['address']} hung up during the handshake: nobody joined "
                        "(a joiner whose --code does not match this table stops there)", None, "refused")
    if event.kind == "refused":
        return F.Notice(f"turned away {event.text}", None, "refused")
    if event.kind == "problem":
        return F.TableProblem(event.text, fatal=False, cheat=bool(event.data.get("cheat")))
    return None


def challenge_clock_notice(event, me: int | None, name, away: Collection[int] = ()) -> "F.Notice":
    """A challenge decided by the host's clock (spec §6.4: `challenge-timeout`, the challenged
    seat never answered; `verdict-timeout`, the challenger never judged), not by the hand: in
    plain words, or the screen's next line ("... wild draw: guilty") reads as a judged hand.
    ``me``: this screen's seat; ``name(seat)``: a seat's name; ``away``: seats a bot of the
    host plays (an absent player's, or a lost host's bot's: it holds no key of the seat to
    answer or judge with - and the seat's own bot is no one who went away)."""
    def who(seat):
        return "you" if seat == me else name(seat)

    if event.EV == "challenge-timeout":
        late = (f"nobody could answer the challenge for {who(event.challenged)} (a bot of the table plays there)"
                if event.challenged in away else f"{who(event.challenged)} did not answer the challenge in time")
        return F.Notice(f"{late}: the wild draw counts as guilty (the hand was not shown)", event.challenged,
                        "challenge-timeout")
    hand = "your" if event.challenged == me else f"{name(event.challenged)}'s"
    if event.challenger in away:
        return F.Notice(f"nobody could judge {hand} hand for {who(event.challenger)} (a bot of the table plays "
                        "there): the challenge is lost", event.challenger, "verdict-timeout")
    return F.Notice(f"{who(event.challenger)} gave no verdict on {hand} hand in time: "
                    f"{'your' if event.challenger == me else 'the'} challenge is lost", event.challenger,
                    "verdict-timeout")


def restarts_match(game, msg: Message) -> bool:
    """A `match-start` while the match in hand has no match id yet (a seat never signed its
    `match-join`, spec §5): the host started the match again without that seat, before
    anything was dealt, so the half-joined one is put aside (a later `match-start` in a
    joined match stays a violation: one match per transcript)."""
    if game is None or not isinstance(msg, Fair) or msg.ev != "match-start":
        return False
    match = game.seat.match
    return match.start is not None and not match.joined


def feed_match_over(side: SeatSide):
    """The client's `feed.MatchOver` from the seat's match-over line (per team with teams)."""
    line = side.over or side.last_over
    teams = bool(line.get("teams"))
    names = tuple(p.name for p in sorted(side.roster.players, key=lambda p: p.seat)) if side.roster else ()
    return F.MatchOver(line["winner"], tuple(line["team_scores"] if teams else line["scores"]), line["rounds"],
                       line["ledger"], teams, names)

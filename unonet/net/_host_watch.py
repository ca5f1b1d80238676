"""What only a seat can see of its host: when its turn began, and whether its own act was
answered (issue 22 class 3). Sans IO: the seat driver passes every time in.

Every verifier checks a `host-act`'s action at its `game` record, but a host's clock is its
own: a host could call a present seat's turn "timed out" at once (a winning turn turned into a
draw), or sit on the seat's signed act (a UNO call) and relay later actions (the catch). Only
the seat knows when its turn reached it and when it sent its act, so the seat itself refuses:

- a `turn timeout` in its name that reaches it less than ``clock_floor(clock)`` after its turn
  began (the receipt of the last `game` record before it; a timeout's own keep continues the
  same turn), where ``clock`` is the table's turn clock the host announced in its roster -
  back from a rejoin on its own turn, from the `rejoin` on, with the clock the host said was
  left of that turn (`rejoin.turn_left`);
- any relayed event that reaches it more than `NET_GRACE` after the host said it had the
  seat's act (its heartbeat's `took`, spec §5 step 5, §6.1 step 3) and the act is neither relayed nor
  refused (an honest host answers a seat's act before it sends anything that came in after
  it, so the answer comes first on the seat's link).  Timed from the host's word, not from the
  act's leaving: a laptop whose own uplink held the act back (a Wi-Fi stall, TCP resending)
  while the host's messages kept coming in used to accuse an honest host that never had it.

Both rules trust the network and the seat's own process to deliver within `NET_GRACE` (and the
clock within `CLOCK_SLACK`): no check is made across a moment the seat's own process was held
up (its heartbeat woke late), nor while it reads a rejoin's replay, and times are taken at the
start of the burst of messages a message came in (a seat that reads a backlog late measures
from when the backlog began), so an honest host is never accused of a delay it did not make
(docs/fair-play.md §11.13, spec §5 step 6).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HostWatch", "HostWatchViolation", "NET_GRACE", "CLOCK_SLACK", "ANSWER_LIMIT", "WORD_CLOCK", "clock_floor"]

#: seconds of delay (network, either side's queues and stalls) no honest host is accused of: more
#: than the 3 s of silence after which a seat holds its host gone (`HOST_SILENT`), so a host that
#: stalled that long has lost its seats to an election before any of them could accuse it
NET_GRACE = 5.0
CLOCK_SLACK = 0.1    # and this share of the clock: a host's timer may fire a little early by the seat's
ANSWER_LIMIT = 10.0  # an act neither relayed nor refused this long is reported (and taken back)
HELD_UP = 1.0        # a held-up process may have read a message this much after it came
#: the least clock an honest host gives a seat's word (a seed message, a challenge answer or
#: verdict: 10 s; a co-sign: 30 s, 10 s at an elected bot's table): a timeout of a word that
#: comes sooner than ``clock_floor(WORD_CLOCK)`` after the event that owed it is no clock's
WORD_CLOCK = 10.0


def clock_floor(clock: float) -> float:
    """The least time a present seat's turn runs before a timeout in its name is accepted
    (``clock`` the table's turn clock, in seconds; 0 or less: no check)."""
    return clock * (1 - CLOCK_SLACK) - NET_GRACE


class HostWatchViolation(Exception):
    """A host cheat only this seat can see (the driver turns it into its fair-play line)."""


@dataclass
class _Sent:
    act: object      # the signed Act
    at: float        # when it left this seat
    position: int | None = None   # its place among the messages of our link, our hello the first
    took_at: float | None = None  # when the host's heartbeat said it had it (`took` >= position)


class HostWatch:
    """One seat's watch on its host's timing, for one match (``clock``: the turn clock the
    host announced, seconds; ``seat``: this seat)."""

    def __init__(self, seat: int, clock: float) -> None:
        self.seat = seat
        self.clock = clock
        self.turn_since: float | None = None  # when this seat's current turn began (a burst's start)
        #: the clock of the turn under way when it is not a whole one: back from a rejoin on our
        #: own turn, the time the host said was left of it (`rejoin.turn_left`); None: ``clock``
        self.turn_clock: float | None = None
        self._closing = False                 # the next `game` record closes a timeout in our name
        self._sent: list[_Sent] = []          # our acts on their way, oldest first
        self.held_up_at = float("-inf")       # when our own process last woke late
        self._told: set[int] = set()          # acts already reported unanswered (by id)
        self.took_most = 0                        # the most of our link's messages the host said it had
        #: our last word other than an act (a seed message, an answer, a verdict, a co-sign):
        #: (when it left, its place among our link's messages or None); None: none reported
        self._word: tuple[float, int | None] | None = None

    # -- what this seat did ----------------------------------------------------------
    def sent(self, act, at: float, position: int | None = None) -> None:
        """Our act left at ``at``, the ``position``-th message of our link (None: not known,
        and then never proven to have reached the host)."""
        self._sent.append(_Sent(act, at, position))

    def word_sent(self, at: float, position: int | None = None) -> None:
        """Our word (a seed message, a challenge answer, key, verdict or dispute, a co-sign)
        left at ``at``, the ``position``-th message of our link (None: not known)."""
        self._word = (at, position)

    def host_took(self, took: int, at: float) -> None:
        """The host's heartbeat, read at ``at``, says it has acted on the first ``took``
        messages of our link: every act of ours up to there reached it (spec §5 step 5)."""
        self.took_most = max(self.took_most, took)
        for s in self._sent:
            if s.took_at is None and s.position is not None and s.position <= took:
                s.took_at = at

    def answered(self, n: int) -> None:
        """Our act ``n`` was relayed (ours, or an earlier word of ours with that number)."""
        self._sent = [s for s in self._sent if s.act.n != n]

    def refused(self, which) -> None:
        """The host refused a message of ours: ``which`` names it (the hash of its `fair`
        body, spec §4.6), or is the act it refused (an older host's unnamed refusal), or None
        (not an act of ours): that act on its way is answered."""
        import hashlib

        def named(act) -> bool:
            if isinstance(which, bytes):
                return hashlib.sha256(act.canonical().encode("ascii")).digest() == which
            return act is which

        self._sent = [s for s in self._sent if not named(s.act)]

    def held_up(self, at: float) -> None:
        self.held_up_at = at

    def word_unproven(self, owed_at: float, at: float, clock: float = WORD_CLOCK) -> bool:
        """May our word still have been on its way when the host's clock for it ran out?  So
        when the host has not said it had it (its heartbeats' `took`, read before the event at
        ``at`` that times it out, stop short of it) and that event came late enough to be the
        host's clock (``owed_at``: when the event that owed the word reached us).  A seat
        contests a timeout of its word only otherwise: its own uplink may hold the word (a
        bloated queue delivers everything late, nothing lost), and a seat that contested
        on "sent" accused an honest host of what its own network did.  ``clock``: the word
        clock the host gave (a whole one; back from a rejoin, `rejoin.word_left`, timed from
        the rejoin)."""
        if self._word is None:
            return False  # (a driver that reports no word: as before, "sent" is the seat's word)
        _, position = self._word
        proven = position is not None and position <= self.took_most
        return not proven and at - owed_at >= clock_floor(clock)

    # -- what the host sent ------------------------------------------------------------
    def check(self, event, at: float, now: float) -> None:
        """Before a relayed fair ``event`` is taken (``at``: the start of the burst it came in;
        ``now``: when it is read). Raises HostWatchViolation naming the host."""
        me = self.seat
        # (only an act the host said it had: one our own uplink still holds is not withheld)
        late = next((s for s in self._sent if s.took_at is not None), None)
        if late is not None and at - late.took_at > NET_GRACE and not self._held_up_since(late.took_at) \
                and not (event.EV == "act" and event.seat == me):
            what = _act_words(late.act)
            had = f"(its heartbeat said it had it {at - late.took_at:.1f} s before)"
            if event.EV == "host-act" and event.seat == me:
                raise HostWatchViolation(
                    f"the host acts for seat {me} ('{event.reason}') {at - late.at:.1f} s after seat {me} sent its "
                    f"act {late.act.n} ({what}), which it neither relayed nor refused {had}: it withheld the "
                    "seat's act")
            raise HostWatchViolation(
                f"the host relays a {event.EV} {at - late.at:.1f} s after seat {me} sent its act {late.act.n} "
                f"({what}), which it neither relayed nor refused {had}: it withheld the seat's act (a host "
                "answers an act before anything that came in after it)")
        if event.EV == "host-act" and event.seat == me and event.reason == "turn timeout":
            since = self.turn_since
            clock = self.turn_clock if self.turn_clock is not None else self.clock
            floor = clock_floor(clock)
            if since is not None and floor > 0 and now - since < floor and not self._held_up_since(since):
                began = "the host gave it back" if self.turn_clock is not None else "it began"
                what = (f"the host said {clock:g} s were left of it" if self.turn_clock is not None else
                        f"the table's turn clock is {clock:g} s")
                raise HostWatchViolation(
                    f"the host times seat {me}'s turn out {now - since:.1f} s after {began}, but {what} (it plays "
                    f"a present player's turn: refused under {floor:.1f} s)")
            self._closing = True
        elif event.EV == "host-act":
            self._closing = False

    def took(self, event, at: float) -> None:
        """After a relayed event was taken: a `game` record restarts this seat's clock (the
        host restarts its own at every batch it sends), unless it closes a timeout in our
        name (its keep may follow at once: the same turn's one default move)."""
        if event.EV == "game":
            if self._closing:
                self._closing = False
                return
            self.turn_since, self.turn_clock = at, None  # (a new turn: a whole clock)
        elif event.EV == "act":
            self._closing = False
        elif event.EV == "round-start":
            self._sent.clear()  # (an act answered by nothing is refused before a round ends)
            self._closing = False

    def replayed(self, at: float, left: float | None = None) -> None:
        """A rejoin's replay was read: the turn under way (if ours) is timed from the replay's
        start (its `rejoin`), when the host gave it back to us: with ``left`` seconds (the
        `rejoin`'s `turn_left`: what was left of the turn's clock, spec §7), else (an older host,
        which restarted its whole clock then) the whole clock."""
        self.turn_since, self.turn_clock = at, left
        self._closing = False
        self._sent.clear()
        self.took_most, self._word = 0, None  # (a new link: its own count)

    # -- our own clock -------------------------------------------------------------------
    def overdue(self, now: float):
        """The act on its way longer than `ANSWER_LIMIT` and not yet reported (or None)."""
        for s in self._sent:
            if now - s.at >= ANSWER_LIMIT and id(s.act) not in self._told:
                self._told.add(id(s.act))
                return s.act
        return None

    def had(self, act) -> bool:
        """The host said it had ``act`` (an act of ours on its way)."""
        return any(s.act is act and s.took_at is not None for s in self._sent)

    def next_due(self) -> float:
        """When `overdue` may next have something to say (inf: nothing on its way)."""
        due = [s.at + ANSWER_LIMIT for s in self._sent if id(s.act) not in self._told]
        return min(due, default=float("inf"))

    def _held_up_since(self, since: float) -> bool:
        return self.held_up_at >= since - HELD_UP


def _act_words(act) -> str:
    a = getattr(act, "action", {}) or {}
    kind = a.get("t", "?")
    return {"calluno": "its UNO call", "catch": "a catch", "play": "a play", "draw": "a draw",
            "pass": "a keep", "challenge": "a challenge", "respond": "a response"}.get(kind, kind)

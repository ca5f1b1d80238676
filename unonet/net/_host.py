"""The host's session (spec §5): one nursery per table, a task per link, one table task.

Every link task only moves messages: what it reads goes into the table task's inbox
(a bounded memory channel, so a flood slows its own reader, not the table).  What the
table sends is encrypted for each link at once and written, every link's frames of one
table step in one system call (of the steps it takes back to back while its inbox holds
more, ``FLUSH_HOLD`` at most), from the table task (``Peer.put``, ``HostTable.flush``),
never waiting: a socket that does not take it all leaves the rest to the link's writer
task, and while that writer holds anything, later messages queue in the link's own
outbox behind it.  So a peer that does not read never stalls anyone else (an outbox that
overflows drops that peer).  The table task alone changes the table: seats, roster, rounds.  The host's own
seat and its bots are local peers whose outbox feeds a `SeatSide` in this process:
they take exactly the path a remote seat takes, minus the encryption.

The match itself (rounds as `fair` messages) is driven by a `HostGame` (``_game.py``);
this module is the lobby and the plumbing around it.
"""

from __future__ import annotations

import dataclasses
import os
from functools import partial as functools_partial
from typing import Any, Callable, NamedTuple

import trio

from unonet.protocol import (
    OBSERVER, Beacon, Election, ErrorReport, Fair, Heartbeat, Identity, KnownPeers, Leave, Ledger,
    LocalProtocolError, Message, Ready, RoundEnd, encode_plaintext, pad_length, short_fingerprint,
    MIN_PROTOCOL_VERSION, PROTOCOL_VERSION, SeatAssignment, fingerprint, AWAY_START, TURN_LEFT, WORD_LEFT,
)

from unonet.fair import weak_sign_key
from unonet.heap import round_over
from unonet.host_defaults import HOLD_SEATS, OBSERVERS
from unonet.ledger import plural, team_letter
from unonet.names import BOT_NAMES, BOT_SUFFIX, reads_as, stand_in_name, successor_bot_name

from ._budget import LineBudget
from ._discovery import DISCOVERY_PORT, announce
from ._errors import LinkError
from ._link import Link, Timeouts
from ._seats import BOT_KIND, HOST_KIND, REMOTE_KIND, SeatBook, Sitter, TableFull
from ._serve import listener_port, open_listeners, serve

__all__ = ["TableConfig", "HostTable", "HostEvent", "Drop"]

OUTBOX = 1 << 15       # messages queued for one peer before it counts as not reading (a rejoin's replay fits)
INBOX = 256            # messages from all links queued for the table task
HEARTBEAT = 1.0        # spec §5: every second
FLUSH_HOLD = 0.002     # the longest the table holds a step's frames while it takes queued messages
PEER_SILENT = 10.0     # spec §5: a player silent this long is gone (the link's idle limit)
CLOSE_GRACE = 5.0      # at the table's close: how long a peer may take nothing of our last words
CLOSE_LIMIT = 60.0     # ... and the longest a slow but reading peer is waited for
# what a peer with no seat in play may make the host read: an observer sends a heartbeat a
# second (and, after an election, a report and a few `ledger` messages); a joiner in the lobby
# only heartbeats.  A stranger flooding heartbeats from the observer places cost the host
# two thirds of a core (lan7); past this pace its link is simply not read (TCP holds it back)
QUIET_RATE, QUIET_BURST = 20.0, 64
MAX_STALLS = 2         # seed exchanges a connected seat may let time out before it loses the seat for the match
PLAYER_PIN = "player:"  # players' keys are pinned under "player:<name>" (host pins are "host@<address>:<port>")
BOT_KEY_LABEL = b"unonet bot\x00"  # + the bot's name: what a host's bot keys are derived under


@dataclasses.dataclass(frozen=True)
class TableConfig:
    """What `unonet host` was asked for (CLI flags, already checked)."""

    rules: Any                      # engine RuleSet
    name: str = "unonet"
    host_name: str = "host"
    players: int = 4
    teams: bool = False
    preset: str = "official"        # the preset's own name (rules.preset), never an alias: the roster's
    #                                 `rules`, which every party hashes into the ledger header (spec §7)
    house: tuple[str, ...] = ()
    target: int = 500
    scoring: str = "standard"
    bots: int = 0
    port: int = 0
    bind: str | None = None
    dealer_only: bool = False
    turn_timeout: float | None = None
    bot_pace: float = 0.0            # a bot's answer is sent this long after the record that owed it
    discovery_port: int = DISCOVERY_PORT
    announce: bool = True
    autostart: bool = False          # --no-ui: start once every seat is filled (the host's seat a bot)
    start_next: bool = False         # the next match starts once every seat is back, though a person
                                     # plays the host's seat with no key to start it (an elected stdin join)
    matches: int | None = 1          # matches to play before closing (None: offer more)
    ready_timeout: float = 30.0      # between rounds: a seat not ready by then is waited for no longer
    hold_seats: float = HOLD_SEATS   # a dropped player's seat waits this long for it; then a bot stands in
    observers: int = OBSERVERS       # --observers: watchers (scorekeepers) admitted at once; the rest are refused
    pin_players: bool = False        # pin each player's keys under its name in our key store (`unonet host`)
    bot_kind: str = "heuristic"
    seed: int | None = None


@dataclasses.dataclass(frozen=True)
class HostEvent:
    """What the table tells the host's operator (lobby screen, --json lines, logs)."""

    kind: str                       # joined, left, refused, roster, started, problem, closed
    text: str
    data: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Drop:
    """Put in a peer's outbox: send this fatal `error`, then close the link."""

    code: str
    message: str
    field: str | None = None


class Encoded(NamedTuple):
    """Put in a remote peer's outbox: a message with its padded plaintext, encoded once
    for every link a broadcast goes to (each link still checks and encrypts it)."""

    msg: Message
    plaintext: bytes


class Replay(NamedTuple):
    """Put in a remote peer's outbox: messages ``start``..``stop`` of a match's history (a
    rejoin's or a scorekeeper's replay), read, encrypted and written by the link's own writer
    a chunk at a time.  Never by the table task: a stranger may attach as a scorekeeper again
    and again in the middle of a long match, and each replay made in a table step stalled
    every seat's turn for as long as it took to encode the whole match (lan7)."""

    spool: Any
    start: int
    stop: int


REPLAY_CHUNK = 32   # history messages a writer encrypts between two passes through the scheduler


class _Flush:
    """Put in a remote peer's outbox when its socket did not take all of a step's frames:
    the writer writes the rest, waiting (later messages queue behind it)."""


FLUSH = _Flush()


class Peer:
    """One seat's (or observer's) connection as the table task sees it."""

    def __init__(self, *, name: str, peer_id: bytes, identity, key: bytes, role: str,
                 address: str, link: Link | None = None) -> None:
        self.name, self.peer_id, self.identity, self.key = name, peer_id, identity, key
        self.role, self.address, self.link = role, address, link
        self.outbox: trio.MemorySendChannel | None = None
        self.cancel: trio.CancelScope | None = None
        self.sitter: Sitter | None = None
        self.gone = False
        self.said_goodbye = False   # it sent `leave` (a player who quit): its seat is not held for it
        self.local = link is None
        self.done = trio.Event()    # the task reading its outbox has ended (see HostTable.run)
        self.queued = 0             # items in the outbox its writer has not finished writing
        #: the messages of its link the table has acted on, its hello the first: what our
        #: heartbeats tell it (`took`, spec §5 step 5), so a seat accuses us of holding back
        #: only an act we said we had
        self.took = 1
        self.unflushed: dict | None = None  # the table's links with frames made this step (HostTable.flush)
        #: an observer at an elected table, owed the match so far: its first message says whether
        #: it follows the election (an `election` report: confirmed with the continued match) or
        #: attaches afresh (anything else: the whole replay)
        self.replay_owed = False
        #: such an observer that attached afresh while the election was under way: replayed the
        #: match as play resumes (its next message may come after the match is over)
        self.replay_at_resume = False

    @property
    def seat(self) -> int | None:
        return self.sitter.seat if self.sitter is not None else None

    def knows(self, feature: str) -> bool:
        """Its hello announced ``feature`` (spec §4.4: an extension is sent only to a peer that
        did); our own seat and bots run this code."""
        hello = self.link.peer_hello if self.link is not None else None
        return self.local or (hello is not None and feature in hello.features)

    def put(self, item) -> bool:
        """Send a message (or queue a Drop); False if the peer is gone or not reading.

        A link's message is encrypted at once when its writer holds nothing (the frame is
        written at the table step's end, `HostTable.flush`); else it queues behind what the
        writer holds, in order.  A local seat's outbox is read by its seat task."""
        if self.gone or self.outbox is None:
            return False
        if not isinstance(item, (Drop, Replay)) and \
                (self.send_now(*item) if isinstance(item, Encoded) else self.send_now(item)):
            return True
        return self._queue(item)

    def send_now(self, msg, plaintext: bytes | None = None) -> bool:
        """The common case at once: a link whose writer holds nothing encrypts the frame now
        (written at the step's end, `HostTable.flush`).  False when it cannot (a local seat,
        a writer holding something, a gone peer): the caller goes the general way, `put`."""
        link = self.link
        if link is None or self.queued or self.gone or self.unflushed is None:
            return False
        try:
            sent = link.send_now(msg, plaintext)
        except LocalProtocolError:
            return False  # (its writer says so and closes the link, as for any send)
        if sent:
            self.unflushed[self] = None
        return sent

    def _queue(self, item) -> bool:
        try:
            self.outbox.send_nowait(item)
        except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            return False
        self.queued += 1
        return True

    def flush(self) -> bool:
        """Write this step's frames as far as the socket takes them; the writer writes the
        rest.  False if the peer is not reading (its outbox is full)."""
        if self.link.flush_now():
            return True
        return self._queue(FLUSH)

    def __repr__(self) -> str:
        return f"<Peer {self.name!r} seat={self.seat}>"


class _ReadPace:
    """A token bucket on what one link may make the host read: ``burst`` messages at once,
    then ``rate`` a second.  ``take`` waits (bounded: one token's time) when it is spent."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.at = float(burst), trio.current_time()

    async def take(self) -> None:
        now = trio.current_time()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1.0:
            await trio.sleep((1.0 - self.tokens) / self.rate)
            self.tokens, self.at = 1.0, trio.current_time()
        self.tokens -= 1.0


async def _write_replay(link: Link, item: Replay) -> None:
    """A replay (`Replay`) written by a link's writer: ``REPLAY_CHUNK`` messages read back
    from the history, encrypted and written in one go, then a pass through the scheduler, so
    the table task (and every other link) runs between two chunks however long the match."""
    for start in range(item.start, item.stop, REPLAY_CHUNK):
        for m in item.spool[start:min(start + REPLAY_CHUNK, item.stop)]:
            if not link.send_now(m):
                await link.send(m)
        await link.flush()
        await trio.lowlevel.checkpoint()


async def _read_to_the_end(peer: Peer) -> None:
    """Wait (at the table's close) until ``peer`` has read what we still owe it and gone, as long
    as it keeps reading: one that takes nothing for `CLOSE_GRACE` is left to the close.  A busy
    scorekeeper catching up on a long match must not lose its end (it did, with a flat grace)."""
    start = trio.current_time()
    while not peer.done.is_set():
        since = peer.link.wrote_at if peer.link is not None else start
        with trio.move_on_at(max(since, start) + CLOSE_GRACE):
            await peer.done.wait()
        if peer.link is None or peer.link.wrote_at == since:
            return


class HostTable:
    """One table: listener, beacons, links, the lobby and its matches.

    ``await nursery.start(table.run)`` returns the bound TCP port once the table
    accepts links and beacons (when ``config.announce``).  ``events`` (a callback)
    hears what the operator should see.  ``game_factory(table) -> HostGame`` makes
    each match's driver (``_game.py``)."""

    def __init__(self, config: TableConfig, identity: Identity, *,
                 game_factory: Callable[["HostTable"], Any] | None = None,
                 on_event: Callable[[HostEvent], None] | None = None,
                 local_seat: Callable[..., Any] | None = None,
                 timeouts: Timeouts | None = None) -> None:
        self.config = config
        self.identity = identity
        self.table_id = os.urandom(16)
        self.peer_id = fingerprint(identity.static_public)
        self.book = SeatBook(config.players, teams=config.teams, reserved=config.bots)
        self.peers: list[Peer] = []
        self.observers: list[Peer] = []
        self.state = "lobby"
        self.port: int | None = None
        # where the players reached this table, when that is known better than this machine's
        # guess (`lan_address`): an elected host's roster address, the one its followers came to
        self.reached_at = ""
        self.game_factory = game_factory
        self.game = None
        self.on_event = on_event or (lambda e: None)
        self.local_seat = local_seat
        self.timeouts = timeouts or Timeouts(idle=PEER_SILENT)
        self._inbox_send, self._inbox = trio.open_memory_channel(INBOX)
        self._hb_seq = 0
        self._lines = LineBudget()
        self._visits = LineBudget()  # lobby visits that ended, per address (`_visit_line`)
        self.known = KnownPeers() if config.pin_players else None
        self._nursery: trio.Nursery | None = None
        self._start_now = False
        self._start_waits = False  # a start pressed while a seat is held (said once)
        #: seat -> the sitter of a player whose link went silent between matches and whose hold
        #: ran out (no goodbye): the seat is free for a newcomer in the lobby, else the next match
        #: keeps it under that player's key, away (`_seat_the_away`, spec §7 "away seats")
        self._away_keys: dict[int, Sitter] = {}
        self._closing = False
        self._links: set[Peer] = set()    # remote peers whose link task is running
        self._unflushed: dict[Peer, None] = {}  # links with frames made this step, in order (flush)
        self.matches_played = 0
        self.result: dict | None = None
        self.listeners = None  # pre-opened (an elected host listens where its roster said)
        self.election = None   # an elected host's `SuccessorTable` (_election.py) until play resumes
        self.elected = None    # the same, kept after play resumed (scorekeepers report late, hand ledgers over)

    # -- what others see ---------------------------------------------------------
    def beacon(self) -> Beacon:
        c = self.config
        # an elected host waiting for its seats ("electing") holds a match: the wire says playing
        state = "playing" if self.state == "electing" else self.state
        return Beacon(v=PROTOCOL_VERSION, vmin=MIN_PROTOCOL_VERSION, table=self.table_id,
                      name=c.name[:32], host=c.host_name[:32], port=self.port or 1,
                      seats=c.players, taken=self.book.taken, rules=c.preset,
                      house=tuple(c.house)[:16], teams=c.teams, target=c.target, state=state,
                      fp=self.peer_id)

    def roster(self):
        c = self.config
        return self.book.roster(table=self.table_id, host=self.peer_id, rules=c.preset,
                                house=c.house, target=c.target, scoring=c.scoring, name=c.name,
                                clock=c.turn_timeout)

    @property
    def join_code(self) -> str:
        return self.identity.join_code

    def _emit(self, kind: str, text: str, **data) -> None:
        if kind == "refusal" and "seat" in data:  # a seat's refused requests: news, not a flood
            self._emit_about(("seat", data["seat"]), kind, text, **data)
            return
        self.on_event(HostEvent(kind, text, data))

    def _emit_about(self, about: object, kind: str, text: str, **data) -> None:
        """A line caused by one peer: at most a few every few seconds (`LineBudget`), so a peer
        that floods errors or refused requests cannot flood the operator's screen."""
        if not self._lines.allow(about):
            return
        quiet = self._lines.held_back(about)
        if quiet:
            text += f" ({quiet} more like it not shown)"
        self.on_event(HostEvent(kind, text, data))

    def _visit_line(self, peer: Peer, kind: str, text: str, *, leaving: bool, **data) -> None:
        """A lobby visit's line (a seat taken or left in the lobby, an observer come): always
        shown, unless its address keeps coming and going -- a stranger taking a free seat and
        leaving again, hundreds of times a second, put two lines each on the operator's screen
        (300 visits in 10 s: 600 lines).  Past a few visits that ended (`LineBudget`: 5 every
        10 s) the address's comings and goings are counted, not shown, until the window turns;
        the next line shown tells how many.  Players that arrive and stay are shown however
        many share an address."""
        addr = peer.address.rsplit(":", 1)[0]
        if leaving:
            if not self._visits.allow(addr):
                return
        elif self._visits.spent(addr):
            self._visits.hold(addr)
            return
        if text:
            quiet = self._visits.held_back(addr)
            if quiet:
                text += f" ({quiet} more comings and goings from {addr} not shown)"
            self.on_event(HostEvent(kind, text, data))

    def refused_line(self, peer: Peer, why: str, **data) -> None:
        """A newcomer refused: one line naming it as it came -- the name it gave, its address
        and its key, since a stranger may give a seated player's name and the key is what tells
        them apart -- and at most a few such lines per address every few seconds (`LineBudget`:
        a stranger coming back again and again is news once, not a flood)."""
        self._emit_about(("refused", peer.address.rsplit(":", 1)[0]), "refused",
                         f"{peer.name} ({peer.address}, key {short_fingerprint(peer.key)}): {why}", **data)

    # -- the nursery ---------------------------------------------------------------
    async def run(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        c = self.config
        listeners = self.listeners or await open_listeners(c.port, c.bind)
        try:
            await self._run_on(listeners, task_status)
        finally:
            if listeners is not self.listeners:  # ours (an elected table's are its joiner's): closed with the table
                for listener in listeners:
                    await trio.aclose_forcefully(listener)

    async def _run_on(self, listeners, task_status) -> None:
        c = self.config
        self.port = listener_port(listeners)
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            await nursery.start(functools_partial(
                serve, self._on_link, listeners, self.identity, name=c.host_name[:32],
                hello_fields={"table": self.table_id}, timeouts=self.timeouts,
                on_refused=self._refused))
            if c.announce:
                try:
                    await nursery.start(functools_partial(
                        announce, self.beacon, port=c.discovery_port, bind=c.bind))
                except OSError as exc:
                    if self.election is None:
                        raise
                    # an elected table plays on without beacons (its seats know where it is)
                    self._emit("problem", f"the elected table cannot announce itself ({exc}): a player who "
                                          "lost it joins it by address")
            self._emit("open", f"table {c.name!r} open on {c.bind or '0.0.0.0'}:{self.port}; join code "
                       f"{self.join_code}; {c.players} seats", port=self.port)
            if self.election is not None:
                self.election.seat_table(self)
            else:
                self._seat_own()
            self.broadcast(self.roster())  # the host's own seat sees the lobby at once
            self.flush()
            task_status.started(self.port)
            try:
                await self._table_task()
            finally:
                self._closing = True
                for p in list(self.peers) + list(self.observers):
                    p.put(Leave(reason="the table is closing"))
                self.flush()
                # every link writes what it still holds (the match_over above all), half-closes,
                # and ends when its peer has read it and closed: never a reset racing the last words
                # (local seats likewise read their outbox to the end: the operator's screen
                # shows the final standings)
                flushing = set(self.peers) | set(self.observers) | self._links
                with trio.move_on_after(CLOSE_LIMIT):  # (a host cancelled from outside skips it)
                    for p in flushing:
                        if p.outbox is not None:
                            await p.outbox.aclose()
                    for p in flushing:
                        await _read_to_the_end(p)
                nursery.cancel_scope.cancel()

    def start(self) -> None:
        """The operator's start key: fill the empty seats with bots and deal."""
        self._start_now = True
        self._inbox_send.send_nowait(("start", None, None))

    def close(self) -> None:
        self._inbox_send.send_nowait(("close", None, None))

    finished = None  # the last match this table finished (its `HostGame`), kept for a scorekeeper

    def _refused(self, address: str, exc: LinkError) -> None:
        self._emit("refused", f"{address}: {exc}", address=address, code=exc.code)

    # -- links -----------------------------------------------------------------------
    async def _on_link(self, link: Link) -> None:
        peer = Peer(name=link.peer_name, peer_id=link.peer_id, identity=link.peer_fair_identity,
                    key=link.peer_static, role=link.peer_role, address=link.address, link=link)
        send, recv = trio.open_memory_channel(OUTBOX)
        peer.outbox = send
        peer.unflushed = self._unflushed
        reason = f"{peer.name} left"
        pace = _ReadPace(QUIET_RATE, QUIET_BURST)
        self._links.add(peer)
        try:
            async with trio.open_nursery() as nursery:
                peer.cancel = nursery.cancel_scope
                nursery.start_soon(self._writer, peer, recv, nursery.cancel_scope)
                await self._inbox_send.send(("join", peer, None))
                try:
                    while True:
                        msg = await link.receive()
                        if not self._closing:
                            try:  # no scheduler pass of its own: the next read waits (or a full inbox)
                                self._inbox_send.send_nowait(("msg", peer, msg))
                            except trio.WouldBlock:
                                await self._inbox_send.send(("msg", peer, msg))
                        if peer.sitter is None or self.state != "playing":
                            await pace.take()  # (a seat in a match is read as fast as it plays)
                except LinkError as exc:
                    reason = str(exc)
                except Exception as exc:  # noqa: BLE001 - a fault on one link ends that link, never the table
                    reason = f"its link failed ({type(exc).__name__}: {exc})"
                    self._emit("problem", f"{peer.name} ({peer.address}): {reason}")
                finally:
                    if not self._closing:
                        with trio.CancelScope(shield=True), trio.move_on_after(2.0):
                            await self._inbox_send.send(("gone", peer, reason))
                    nursery.cancel_scope.cancel()
        finally:
            self._links.discard(peer)
            peer.done.set()
            await link.aclose()

    async def _writer(self, peer: Peer, recv: trio.MemoryReceiveChannel,
                      scope: trio.CancelScope) -> None:
        link = peer.link
        assert link is not None
        try:
            async for item in recv:
                if isinstance(item, Drop):
                    await link.drop(item.code, item.message, field=item.field)
                    scope.cancel()
                    return
                if item is FLUSH:
                    await link.flush()
                elif isinstance(item, Replay):
                    await _write_replay(link, item)
                elif isinstance(item, Encoded):
                    await link.send(item.msg, item.plaintext)
                else:
                    await link.send(item)
                peer.queued -= 1  # (at 0 the table task writes to the link itself again)
        except LinkError:
            return  # the reader meets the same end (and may still owe the peer its `error`)
        except LocalProtocolError as exc:  # a message of ours this link cannot carry: that link ends
            self._emit("problem", f"{peer.name} ({peer.address}): cannot send it {exc}; its link is closed")
            scope.cancel()
            return
        # the outbox was closed (the table is closing): everything is written; half-close and
        # let the reader run until the peer, having read it all, closes its end (bounded)
        await link.finish_sending()
        scope.deadline = min(scope.deadline, trio.current_time() + CLOSE_GRACE)

    def send(self, peer: Peer, msg: Message) -> None:
        if not peer.put(msg) and not peer.gone and not peer.local:
            self.drop(peer, "timeout", "you are not reading what the table sends")

    def replay(self, peer: Peer, spool, start: int = 0) -> None:
        """Send ``peer`` the history ``spool`` from ``start`` on (as it is now: what is
        appended later reaches the peer live, after it).  A link's writer reads and writes it
        (`Replay`); the table task only queues it."""
        stop = len(spool)
        if start >= stop:
            return
        if peer.local:
            for m in spool[start:stop]:
                self.send(peer, m)
            return
        self.send(peer, Replay(spool, start, stop))

    def flush(self) -> None:
        """The end of a table step: every link's frames of the step in one write each, in
        the order the links were first sent to (a full socket leaves the rest to its writer)."""
        while self._unflushed:
            peers = list(self._unflushed)
            self._unflushed.clear()
            for p in peers:
                if not p.flush() and not p.gone:
                    self.drop(p, "timeout", "you are not reading what the table sends")

    def drop(self, peer: Peer, code: str, message: str, field: str | None = None) -> None:
        """Tell the peer (fatal `error`) and close its link; the table goes on."""
        if peer.gone:
            return
        if not peer.put(Drop(code, message, field)) and peer.cancel is not None:
            peer.cancel.cancel()
        self._gone(peer, f"dropped ({code}): {message}")

    def broadcast(self, msg: Message, data: bytes | None = None) -> None:
        """To every seat and observer, in one order (the table task is the only sender).
        Local seats get the message itself; links its bytes, encoded once (``data``: its
        `encode_message` bytes, when the caller has them)."""
        encoded = plaintext = None
        owed = isinstance(msg, (Fair, RoundEnd))  # (what a replay carries)
        for p in self.peers + self.observers:  # (a copy: a send that drops a peer changes them)
            if owed and (p.replay_owed or p.replay_at_resume):
                # an observer at an elected table whose first message has not told yet whether it
                # follows the election: it is owed the match so far as one replay, after the
                # confirmation (or the `rejoin`), and a live copy now would come before that
                # confirmation (spec §7 step 6: a violation) and then again in the replay
                continue
            if p.local:
                self.send(p, msg)
                continue
            if encoded is None:
                try:
                    plaintext = encode_plaintext(msg) if data is None else \
                        data + bytes(pad_length(len(data)) - len(data))
                    encoded = Encoded(msg, plaintext)
                except LocalProtocolError:  # no link can carry it: each writer says so, as before
                    encoded = msg
            # the common case first (`Peer.send_now`): the frame made at once; else the general way
            if plaintext is None or not p.send_now(msg, plaintext):
                self.send(p, encoded)
        if isinstance(msg, RoundEnd):
            round_over(msg)  # the round's garbage goes now (unonet/heap.py)

    # -- seats -------------------------------------------------------------------------
    def _seat_own(self) -> None:
        """The host's own seat (seat 0, unless --dealer-only) and the --bots seats."""
        c = self.config
        if not c.dealer_only:
            self._add_local(HOST_KIND, c.host_name[:32], self.identity)
        for seat in range(c.players - c.bots, c.players):
            self._add_local(BOT_KIND, None, None, seat=seat)

    def _add_local(self, kind: str, name: str | None, identity: Identity | None, *,
                   seat: int | None = None) -> Peer:
        if name is None:
            # (at an elected table, not a name another key's bot had here: eve12's scorekeeper
            # listed "Ana (bot)" under two keys, the lost host's bot and the stand-in for Kim)
            old = getattr(self, "news_from", None)
            name = _bot_name(self.book, seat, [p.name for p in old.players] if old is not None else ())
        elif kind == BOT_KIND:
            name = stand_in_name(name)  # a bot in a person's seat says it is one (spec §7)
        identity = identity or self._bot_identity(name)
        pid = fingerprint(identity.static_public)
        peer = Peer(name=name, peer_id=pid, identity=identity.fair_identity().public,
                    key=identity.static_public, role="player", address="")
        sitter = self.book.sit(lambda s: Sitter(s, name, kind, pid, peer.identity, identity.static_public),
                               seat=seat)
        peer.sitter = sitter
        self.peers.append(peer)
        if self.local_seat is not None and self._nursery is not None:
            # the hook's task reads the peer's outbox and sets ``peer.done`` when it ends
            self.local_seat(self, peer, identity, bot=(kind == BOT_KIND or self.config.autostart))
        else:
            peer.done.set()
        return peer

    def _bot_identity(self, name: str) -> Identity:
        """A bot's keys, derived from this host's and the bot's name: the same host's
        "Ana (bot)" is one player to every scorekeeper, match after match.  (A fresh key if
        that one is already at the table, which two seats of one name would make.)"""
        identity = Identity.derived(self.identity, BOT_KEY_LABEL + name.encode())
        pid = fingerprint(identity.static_public)
        if self.book.of_peer(pid) is not None or any(p.peer_id == pid and not p.gone for p in self.peers):
            return Identity.generate()
        return identity

    def _fill_with_bots(self) -> None:
        for seat in self.book.empty():
            self._add_local(BOT_KIND, None, None, seat=seat)

    def _admit(self, peer: Peer) -> None:
        if self._closing:
            peer.put(Drop("unexpected", "the table is closing"))
            return
        if peer.role != OBSERVER and peer.identity is None:
            # a seat signs its match-join and acts under its certificate's identity (spec §4.3,
            # §6.1): seated without one, the match could start for nobody
            hello = peer.link.peer_hello if peer.link is not None else None
            code, why = ("malformed", "a player's hello must carry its identity certificate (hello.cert)") \
                if hello is None or hello.cert is None else \
                ("auth", "the identity certificate (hello.cert) does not verify against the hello's keys")
            field = "hello.cert"
            if code == "auth":
                weak = weak_sign_key(hello.sign_key)
                if weak is not None:  # (its certificate "verifies": a key that binds nothing)
                    why, field = f"the hello's Ed25519 key (hello.sign_key) {weak}", "hello.sign_key"
            peer.put(Drop(code, why, field=field))
            self.refused_line(peer, why, code=code)
            return
        if self.election is not None and peer.role != OBSERVER and not self.election.admits(self, peer):
            return
        if peer.role == OBSERVER:
            if len(self.observers) >= self.config.observers:
                why = f"the table admits {self.config.observers} observers and has them all"
                peer.put(Drop("full", why))
                self._emit_about(("observer", peer.address.rsplit(":", 1)[0]), "refused",
                                 f"observer {peer.name} ({peer.address}): {why}", code="full")
                return
            if self.game is not None and self.game.opens_away and not peer.knows(AWAY_START):
                # the match so far opens with a match-start naming seats away: a peer that did not
                # announce the extension would refuse it as malformed and blame this host
                why = (f"this match started with seats away (hello feature {AWAY_START!r}, which "
                       "this observer does not announce): a newer unonet can watch it")
                peer.put(Drop("version", why))
                self._emit_about(("observer", peer.address.rsplit(":", 1)[0]), "refused",
                                 f"observer {peer.name} ({peer.address}): {why}", code="version")
                return
            self.observers.append(peer)
            self._visit_line(peer, "joined", f"observer {peer.name} ({peer.address}) is watching", leaving=False)
            self.send(peer, self.roster())
            done = self.finished
            if done is not None and done.ledger is not None and self.election is None \
                    and done.ledger.header.match in _resume(peer):
                self._emit("joined", f"observer {peer.name} missed the end of match "
                                     f"{done.ledger.header.match.hex()[:8]}: it is replayed to it")
                done.replay_finished(peer)
            if self.elected is not None and (self.game is not None or self.election is not None):
                # follower or newcomer: its first message tells (`_on_message`); a newcomer that
                # came while the election is under way is replayed the match once it resumes
                peer.replay_owed = True
            elif self.game is not None:
                self.game.observer_joined(peer)  # in the middle of a match: the match so far
            return
        again = self.book.of_peer(peer.peer_id)
        if again is not None and again.connected and again.kind == REMOTE_KIND \
                and (self.state == "playing" or (self.state == "lobby" and self.matches_played)):
            # in a match (or between matches: its seat is held there too), a new link with a
            # seat's key is that player back from a link we have not yet seen die (its network
            # dropped; only the key's holder can open it): it replaces the old link, and the
            # seat is given back as on any rejoin
            old = next((p for p in self.peers if p.sitter is again and not p.gone), None)
            if old is not None:
                self.drop(old, "unexpected", "this seat's key opened a new link: this one is replaced")
        if again is not None and again.connected:
            peer.put(Drop("unexpected", f"this key already holds seat {again.seat} at this table"))
            self.refused_line(peer, f"its key already holds seat {again.seat}")
            return
        if again is not None and not again.connected and again.kind == REMOTE_KIND and again.stalls >= MAX_STALLS \
                and self.state == "playing":
            why = f"seat {again.seat} withheld its seed {again.stalls} times: a bot plays it for the rest of this match"
            peer.put(Drop("forbidden", why))
            self.refused_line(peer, why, code="forbidden")
            return
        why = self._needs_newer(peer, again)
        if why:
            peer.put(Drop("version", why))
            self.refused_line(peer, why, code="version")
            return
        if again is not None and not again.connected and again.kind == REMOTE_KIND:
            sitter = again  # the same key comes back to its seat (a rejoin, an election)
            sitter.connected, sitter.dropped_at, sitter.left = True, None, False
            sitter.identity, sitter.key = peer.identity, peer.key
            sitter.addr = listen_addr(peer) or sitter.addr
            self.book.touch()
        else:
            if self.state != "lobby":
                held = next((s for s in self.book.seats if s is not None and s.kind == REMOTE_KIND
                             and not s.connected and s.name == peer.name), None)
                if held is not None:  # a stranger's key cannot take a seat, whatever name it gives
                    why = (f"seat {held.seat} ({held.name}) is held for its own key {held.peer_id.hex()[:16]}; "
                           f"this key {peer.peer_id.hex()[:16]} is not it")
                    peer.put(Drop("forbidden", why))
                    self.refused_line(peer, why, code="forbidden")
                    return
                peer.put(Drop("full", "the match has started: no seat is free"))
                self.refused_line(peer, "the match has started")
                return
            if not self.book.free_for_people():
                self._make_way(peer)
            # (names that read alike are one name: a newcomer as "ana" or "Ａna" beside Ana is numbered)
            taken = {reads_as(p.name) for p in self.peers} | {reads_as(self.config.host_name)}
            if self.known is not None:
                peer.name = self._pinned_name(peer, taken)
            elif reads_as(peer.name) in taken:
                peer.name = _unique_name(peer.name, taken)
            try:
                sitter = self.book.sit(lambda s: Sitter(s, peer.name, REMOTE_KIND, peer.peer_id,
                                                        peer.identity, peer.key, addr=listen_addr(peer)))
            except TableFull as exc:
                peer.put(Drop("full", str(exc)))
                self.refused_line(peer, "table full")
                return
        peer.sitter = sitter
        sitter.away_ok = peer.knows(AWAY_START)  # (its client reads a match-start naming it away)
        self.peers = [p for p in self.peers if p.sitter is None or p.seat != sitter.seat] + [peer]
        self.peers.sort(key=lambda p: p.seat)
        # (a player back mid-match: its client says so at once, not "waiting for the start" - the
        # roster, said first, comes before the rejoin's replay)
        back = self.game is not None and getattr(self.game, "in_match", lambda: False)()
        self.send(peer, SeatAssignment(seat=sitter.seat, id=peer.peer_id, team=self.book.team(sitter.seat),
                                       rejoin=back))
        if self.state == "lobby":
            self._visit_line(peer, "joined", f"{peer.name} took seat {sitter.seat} ({peer.address})",
                             leaving=False, seat=sitter.seat, name=peer.name)
        else:
            self._emit("joined", f"{peer.name} took seat {sitter.seat} ({peer.address})",
                       seat=sitter.seat, name=peer.name)
        if self.state == "lobby":
            self._rename_namesake_bot(peer.name)
        # a seat back on its own turn has what is left of that turn's clock (`HostGame.back`):
        # planned now, so that this roster tells every screen the time the host will give it
        planned = back and hasattr(self.game, "back")
        left = self.game.back(sitter.seat) if planned else None
        # and of the word it owes on the word clock (a seed message, a challenge's), said in its rejoin
        word = self.game.word_left(sitter.seat) if planned and hasattr(self.game, "word_left") else None
        roster = self.roster()
        # and a seat back on another's turn counts that turn down from what is left of it: the
        # entry of the seat whose act is owed carries it too (evening19: the returning screen
        # showed no clock until the next turn).  This roster only, as above; a peer that does not
        # read it ignores it (it is no return of that seat), and no check goes by it
        lefts = {sitter.seat: left} if left is not None else {}
        if planned and left is None:
            for p in roster.players:
                other = self.game.turn_left(p.seat) if p.seat != sitter.seat else None
                if other is not None:
                    lefts[p.seat] = min(int(other * 1000), 3_600_000)
        if lefts:
            roster = dataclasses.replace(roster, players=tuple(
                dataclasses.replace(p, turn_left=lefts[p.seat]) if p.seat in lefts else p for p in roster.players))
        self.broadcast(roster)
        if self.game is not None:
            self.game.rejoined(peer, turn_left=left, planned=planned, word_left=word)

    def _needs_newer(self, peer: Peer, again) -> str | None:
        """Why a seat's key coming back (``again``, its sitter) with this client may not come
        back now, for lack of an extension it does not announce (None: it may).  Let back, such a
        client would blame this honest host for what it cannot read."""
        if again is None or again.connected or again.kind != REMOTE_KIND or self.game is None:
            return None
        if getattr(self.game, "opens_away", False) and not peer.knows(AWAY_START):
            # the replay opens with a match-start naming seats away, which it would refuse (redteam15)
            return (f"this match started with seats away (hello feature {AWAY_START!r}, which this client "
                    f"does not announce): seat {again.seat} needs a newer unonet to come back")
        # back a second time in one turn, holding the host to a whole clock from its return: the
        # turn's deadline would reach it sooner (review18)
        too_soon = getattr(self.game, "too_soon_back", None) if not peer.knows(TURN_LEFT) else None
        why = too_soon(again.seat) if too_soon is not None else None
        if why:
            return why
        # the same for a word on the word clock (a seed message, a challenge's): back, it contests
        # an abort naming it once it sent its word, however late (seedleft19)
        too_soon = getattr(self.game, "word_too_soon", None) if not peer.knows(WORD_LEFT) else None
        return too_soon(again.seat) if too_soon is not None else None

    def _rename_namesake_bot(self, name: str) -> None:
        """A person sat down beside a bot named after them ("Ana" beside "Ana (bot)": a
        ``--bots`` bot named before Ana came, or a stand-in for a player now back): in the
        lobby the bot takes another name, so no team reads "Ana & Ana (bot)"."""
        alike = reads_as(stand_in_name(name))  # ("ＡＮＡ" beside "Ana (bot)" too: they read alike)
        sitter = next((s for s in self.book.seats if s is not None and s.bot and reads_as(s.name) == alike), None)
        if sitter is None:
            return
        self._unseat_bot(sitter)
        self._add_local(BOT_KIND, None, None, seat=sitter.seat)

    def _unseat_bot(self, sitter: Sitter) -> None:
        """A bot of this host leaves its seat (its local seat task reads the end of its link)."""
        bot = next((p for p in self.peers if p.sitter is sitter), None)
        if bot is not None:
            bot.gone = True
            self.peers.remove(bot)
            if bot.outbox is not None:
                bot.outbox.close()
        self.book.stand(sitter.seat)

    def _make_way(self, peer: Peer) -> None:
        """A person comes to a lobby whose seats are all taken: a bot sitting where a person
        may sit (one filled in at a start, a stand-in for a player lost in an election; never
        a ``--bots`` seat) leaves, so a friend arriving between matches gets a seat.  The bot
        under the newcomer's own name goes first: the player it stood in for is back.  When
        the host pins its players, a bot under a name it knows with another key keeps that
        player's seat: a stranger giving the name does not take it (it goes last)."""
        name = peer.name
        sitter = self.book.bot_giving_way(name, self._names_of_others(peer))
        if sitter is None:
            return
        self._unseat_bot(sitter)
        self._emit("left", f"{sitter.name} (seat {sitter.seat}): makes way for {name}", name=sitter.name)

    def _names_of_others(self, peer: Peer) -> frozenset[str]:
        """The players whose seats this host's bots keep ("Hal (bot)" keeps Hal's) that it
        knows (pins) with another key than ``peer``'s."""
        if self.known is None:
            return frozenset()
        out = set()
        for s in self.book.seats:
            if s is not None and s.bot:
                person = s.name.removesuffix(BOT_SUFFIX)
                try:
                    pinned = self.known.get(PLAYER_PIN + person)
                except Exception:  # noqa: BLE001 - an unusable key store never stops a join
                    continue
                if pinned is not None and pinned != peer.key:
                    out.add(person)
        return frozenset(out)

    def _pinned_name(self, peer: Peer, taken: set[str]) -> str:
        """The name a new player sits under when the host pins players (spec §4.5, §5): the
        name it gave if that name is free here and not pinned to another key; else the first
        ``name-N`` that is.  A name this host knows with another key, or one that reads like it
        (`reads_as`), is never given to a newcomer: the operator is told loudly, naming both keys.  (Only read here: the names
        are pinned when a match starts, `_pin_players`, so a stranger cycling through names
        in the lobby cannot grow the key store.)"""
        wanted = peer.name
        try:  # the names pinned, as they read: "Јо" (Cyrillic) is Jo's name too
            pinned_as: dict[str, list[str]] = {}
            for pin in self.known.names(PLAYER_PIN):
                pinned_as.setdefault(reads_as(pin[len(PLAYER_PIN):]), []).append(pin[len(PLAYER_PIN):])
        except Exception:  # noqa: BLE001 - an unusable key store never stops a join
            return wanted
        for cand in [wanted] + [f"{wanted[:29]}-{i}" for i in range(2, 100)]:
            if reads_as(cand) in taken:
                continue
            try:
                other = next(((n, k) for n in pinned_as.get(reads_as(cand), ())
                              if (k := self.known.get(PLAYER_PIN + n)) is not None and k != peer.key), None)
            except Exception:  # noqa: BLE001 - an unusable key store never stops a join
                return cand
            if other is None:
                return cand
            if cand == wanted:
                name, pinned = other
                alike = "the name" if name == wanted else f"{name!r}, a name that reads alike,"
                self._emit("problem", f"KEY CHANGED for player {wanted!r}: this host knows {alike} with key "
                           f"{short_fingerprint(pinned)}; {peer.address} brings key {short_fingerprint(peer.key)} "
                           "(another person, or the same one on a new machine): not the same player",
                           code="key-changed", name=wanted)
        # every name-N taken or pinned to others: a name from its own key (never one known with another)
        return f"{wanted[:15]}-{short_fingerprint(peer.key).replace('-', '')[:16]}"

    def _pin_players(self) -> None:
        """A match starts: each remote player's keys are pinned under its name (first use)."""
        if self.known is None:
            return
        for s in self.book.seats:
            if s is not None and s.kind == REMOTE_KIND:
                try:
                    self.known.check(PLAYER_PIN + s.name, s.key, getattr(s.identity, "sign_key", None))
                except Exception:  # noqa: BLE001 - a name pinned meanwhile, an unusable store: no pin
                    pass

    def _gone(self, peer: Peer, reason: str) -> None:
        if peer.gone:
            return
        peer.gone = True
        if self.elected is not None:
            self.elected.forget(peer)  # (a stranger's report must not outlive its link)
        if peer in self.observers:
            self.observers.remove(peer)
            self._visit_line(peer, "left", "", leaving=True)  # (counted, no line: its visit ended)
            return
        if peer not in self.peers:
            return
        s = peer.sitter
        line = f"{peer.name} (seat {s.seat if s else '-'}): {reason}"
        if s is not None and self.state == "lobby" and not peer.local:
            self._visit_line(peer, "left", line, leaving=True, name=peer.name)
        else:
            self._emit("left", line, name=peer.name)
        if s is None:
            self.peers.remove(peer)
            return
        if self.state == "lobby" and self._holds(peer):
            # its link ended between matches without a goodbye: it may be only the player's
            # network (gap12); the seat is kept under its key for --hold-seats (spec §7), and a
            # start waits for it meanwhile (`_held_in_lobby`)
            s.connected, s.dropped_at = False, trio.current_time()
            self.peers.remove(peer)
            self.book.touch()
            self._emit("left", f"{peer.name}'s seat {s.seat} is held for {self.config.hold_seats:g} s: "
                               "the same key takes it back", name=peer.name, seat=s.seat, held=True)
        elif self.state == "lobby":
            self.book.stand(s.seat)
            self.peers.remove(peer)
            if self.matches_played and not peer.local:  # (a lobby before the first match says nothing)
                self._say_waiting([f"seat {s.seat} ({peer.name}) left"])
        else:
            s.connected, s.dropped_at = False, trio.current_time()
            self.book.touch()
            if self.game is not None:
                self.game.seat_lost(peer)
        if not self._closing:
            self.broadcast(self.roster())

    def _holds(self, peer: Peer) -> bool:
        """A person's seat whose link ended in the lobby after a match, with no goodbye: held."""
        s = peer.sitter
        return (s is not None and s.kind == REMOTE_KIND and not peer.local and not peer.said_goodbye
                and self.matches_played > 0 and not self._closing and self.config.hold_seats > 0)

    def _lobby_away(self, held: bool) -> list[Sitter]:
        """The lobby's people away: ``held``, those whose hold still runs (their key may come
        back); else those past it."""
        if self.state != "lobby" or self.game is not None or self.election is not None:
            return []
        now = trio.current_time()
        return [s for s in self.book.seats if s is not None and s.kind == REMOTE_KIND and not s.connected
                and (s.dropped_at is not None and s.dropped_at + self.config.hold_seats > now) == held]

    def _held_in_lobby(self) -> list[Sitter]:
        return self._lobby_away(True)

    def _release_held(self) -> None:
        """A lobby seat whose player did not come back within its hold is free again (for a
        newcomer); if none takes it, the next match keeps it under that player's key, away
        (`_seat_the_away`).  A seat kept away a whole match already (its ``dropped_at`` is
        -inf: it was never back) is not kept again: the next match gives it to a bot."""
        out = self._lobby_away(False)
        # (a table that starts by itself waits for every seat filled: it keeps none away)
        by_itself = self.config.autostart or self.config.start_next
        for s in out:
            self.book.stand(s.seat)
            kept = s.dropped_at != float("-inf") and not s.left and not by_itself
            if kept:
                self._away_keys[s.seat] = s
            self._emit("left", f"{s.name} (seat {s.seat}): did not come back within {self.config.hold_seats:g} s: "
                               "the seat is free" + (f" (a newcomer may take it; else the next match keeps it for "
                                                     f"{s.name}, a bot playing it until they are back)"
                                                     if kept else ""), name=s.name, seat=s.seat)
        if out:
            self.broadcast(self.roster())
            self._say_waiting([f"seat {s.seat} ({s.name}) is not back" for s in out])

    def kept_away(self) -> dict[int, str]:
        """The free lobby seats the next start keeps for an away player's key ({seat: name}):
        the operator's lobby shows them, not "(empty)" under "empty seats get bots" (only where
        the start will keep them: `_away_may_sit`, every peer announcing the extension)."""
        return {seat: o.name for seat, o in sorted(self._away_keys.items())
                if self.book.seats[seat] is None and self.book.of_peer(o.peer_id) is None
                and self._away_may_sit({seat}, o)}

    def _away_may_sit(self, without, sitter: Sitter) -> bool:
        """Seats may start a fresh match away only beside a seat that will join it (a
        match-start with every seat away is refused by every verifier): one not in ``without``
        that is empty (a bot fills it), the host's or a bot's, or a connected person's; and only
        at a table whose every peer, and the away player's last link (``sitter``), announced the
        extension (`AWAY_START`, spec §4.4): an older peer would take the match-start for a
        malformed one and blame this host.  Else the seat goes to a bot, as before."""
        return any(i not in without and (s is None or s.connected or s.kind != REMOTE_KIND)
                   for i, s in enumerate(self.book.seats)) \
            and all(p.gone or p.knows(AWAY_START) for p in self.peers + self.observers) \
            and sitter.away_ok

    def _sit_away(self, seat: int, o: Sitter) -> None:
        """Seat ``seat`` keeps ``o``'s key, its player away: the match-start lists it in `away`,
        the seat is dealt absent and played by a stand-in, and the key's own `match-join` later
        (its player back: `_admit` finds the key, `HostGame.rejoined`) takes it off the list."""
        self.book.sit(lambda s: Sitter(s, o.name, REMOTE_KIND, o.peer_id, o.identity, o.key,
                                       connected=False, dropped_at=float("-inf"),
                                       was_bot=o.was_bot, away_ok=o.away_ok), seat=seat)

    def _seat_the_away(self) -> None:
        """A start pressed with seats whose players went silent between matches (their hold ran
        out, no newcomer took the seat, the key is not back): each keeps its key, away, rather
        than going to a bot, so the player who comes back mid-match sits down at once."""
        keys, self._away_keys = self._away_keys, {}
        for seat, o in sorted(keys.items()):
            if self.book.seats[seat] is not None or self.book.of_peer(o.peer_id) is not None:
                continue  # a newcomer took the seat, or the key is back (in another seat)
            if not self._away_may_sit({seat}, o):
                continue  # (no seat would join, or a peer could not read it: a bot plays it, as before)
            self._sit_away(seat, o)
            self._emit("problem", f"seat {seat} ({o.name}) starts the match away: the seat is kept for "
                                  f"{o.name}'s key, a bot plays it until they are back", seat=seat, code="held")

    # -- the table task ---------------------------------------------------------------
    async def _table_task(self) -> None:
        next_hb = trio.current_time()
        held_since: float | None = None  # since when frames made wait for more steps' (flush)
        while True:
            now = trio.current_time()
            if now >= next_hb:
                self._heartbeat()
                next_hb = now + HEARTBEAT
            if self.election is not None:
                self.election.tick(self)  # (may end the election: self.election is None then)
            if self.state == "lobby" and self.matches_played:
                self._release_held()
            if self.state == "lobby" and self._ready_to_start():
                self._start_match()  # (an election that just ended: before any peer comes in)
            try:
                # what is queued is taken at once: no cancel scope and no task switch per item.
                # The deadline is met as before: once the inbox is empty (a queued item was
                # taken first there too)
                item = self._inbox.receive_nowait()
            except trio.WouldBlock:
                self.flush()  # what the table sent leaves now, before it waits
                held_since = None
                item = None
                deadline = next_hb
                if self.election is not None:
                    deadline = min(deadline, self.election.deadline)
                if self.game is not None:
                    deadline = min(deadline, self.game.deadline())
                for s in self._held_in_lobby():  # (a hold running out frees its seat)
                    deadline = min(deadline, s.dropped_at + self.config.hold_seats)
                with trio.move_on_at(deadline):
                    item = await self._inbox.receive()
            else:
                # more to do at once: the frames made so far go with the next step's, one write
                # per link for both (fewer system calls, and each peer woken once for them),
                # held `FLUSH_HOLD` at most
                if held_since is None:
                    held_since = now
                elif now - held_since >= FLUSH_HOLD:
                    self.flush()
                    held_since = now
            if item is None:
                if self.game is not None and trio.current_time() >= self.game.deadline():
                    try:
                        self.game.on_deadline()
                    except Exception as exc:  # noqa: BLE001 - a fault of ours ends the match in one line
                        self._emit("problem", f"the table failed: {type(exc).__name__}: {exc}")
                        self.game.over, self.game.result = True, None
            else:
                kind, peer, msg = item
                if kind == "close":
                    return
                try:
                    if kind == "call":
                        msg()  # a deferred step of the match (a round restarted after an abort)
                    elif kind == "join":
                        self._admit(peer)
                    elif kind == "gone":
                        self._gone(peer, msg)
                    elif kind == "msg":
                        peer.took += 1
                        self._on_message(peer, msg)
                except Exception as exc:  # noqa: BLE001 - a fault of ours must end the table in one line
                    if self.game is None:
                        raise
                    self._emit("problem", f"the table failed: {type(exc).__name__}: {exc}")
                    self.game.over, self.game.result = True, None
            if self.game is not None and self.game.over:
                self.result = self.game.result
                self.matches_played += 1
                # its record stays until the next match ends: a scorekeeper that missed its end
                # may ask for it (hello `resume`, spec §5 step 3)
                self.finished = self.game if self.result is not None else self.finished
                self.game = None
                # an elected table's continuation was that match's: a next one here is a new match
                if getattr(self, "carry", None) is not None:  # (set only at an elected table)
                    self._bots_for_the_away()
                self.carry = self.prefix = None
                self.state = "ended"
                self._emit("ended", "the match is over" + self._result_words(self.result), **(self.result or {}))
                if self.config.matches is not None and self.matches_played >= self.config.matches:
                    return
                self._reopen()

    def _result_words(self, result: dict | None) -> str:
        """``": Jo wins; Jo 512, Ana (bot) 130, Ben 75 after 9 rounds"``, by the names at the
        table (a partners table's team by its letter and players, as the screens say it): the
        operator's line said only "the match is over"."""
        if not result or result.get("winner") is None:
            return ""
        names = [s.name if s is not None else f"seat {i}" for i, s in enumerate(self.book.seats)]
        w = result["winner"]
        if result.get("teams") and w in (0, 1):
            who = f"team {team_letter(w)} ({' & '.join(names[w::2])})"
            scores = ", ".join(f"team {team_letter(t)} {sc}" for t, sc in enumerate(result.get("team_scores") or ()))
        else:
            who = names[w] if 0 <= w < len(names) else f"seat {w}"
            scores = ", ".join(f"{n} {sc}" for n, sc in zip(names, result.get("scores") or ()))
        return f": {who} wins; {scores} after {plural(result.get('rounds', 0), 'round')}"

    def _bots_for_the_away(self) -> None:
        """A new match at an elected table (the continuation is over, or none was made): a
        seat kept under its old key (its player away, spec §7) goes to a bot of this host under
        the seat's name marked "(bot)" (else the match would wait for a join that cannot come and rename it)."""
        for sitter in [s for s in self.book.seats if s is not None and s.kind == REMOTE_KIND and not s.connected]:
            self.peers = [p for p in self.peers if p.sitter is not sitter]
            self.book.stand(sitter.seat)
            self.bot_for(sitter.seat, sitter.name)

    def bot_for(self, seat: int, name: str) -> Peer:
        """A bot of this host takes a seat held under ``name``: a person's, as "Hal (bot)";
        another host's bot's ("Ana (bot)", a name that is its key's) gets the seat's name
        numbered on ("Ana-2 (bot)"), so a scorekeeper never lists one name under two keys and
        the screens still read the seat they knew (spec §7: a name that seat did not have)."""
        if stand_in_name(name) == name:
            name = successor_bot_name(name, [s.name for s in self.book.seats if s is not None])
        return self._add_local(BOT_KIND, name, None, seat=seat)

    def _heartbeat(self) -> None:
        head = self.game.head if self.game is not None else None
        hb = Heartbeat(seq=self._hb_seq, head=head)
        self._hb_seq = (self._hb_seq + 1) % (1 << 32)
        for p in list(self.peers) + list(self.observers):
            if not p.local:
                # a player's tells it how many of its messages we acted on (`Peer.took`)
                self.send(p, hb if p.role == OBSERVER else Heartbeat(seq=hb.seq, head=head, took=p.took))

    def _ready_to_start(self) -> bool:
        if self._start_now:
            held = self._held_in_lobby()
            if held:
                # the seat is the player's at the next match (spec §7): the start waits for its
                # key to come back, or for its hold to run out (then a bot fills it)
                if not self._start_waits:
                    self._start_waits = True
                    names = ", ".join(f"{s.name} (seat {s.seat})" for s in held)
                    self._emit("problem", f"the match starts when {names} is back, or its seat is held no longer",
                               code="held")
                return False
            self._start_now = self._start_waits = False
            self._seat_the_away()
            self._fill_with_bots()
            return self.book.full
        return (self.config.autostart or self.config.start_next) and self.book.full and all(
            s is not None and s.connected for s in self.book.seats)

    def _start_match(self) -> None:
        if self.game_factory is None:
            return
        self.state = "playing"
        self._pin_players()
        self.game = self.game_factory(self)
        self._emit("started", f"match {self.matches_played + 1} starts",
                   seats=[(s.seat, s.name, s.kind) for s in self.book.seats if s is not None])
        self.broadcast(self.roster())
        try:
            self.game.begin()
        except Exception as exc:  # noqa: BLE001 - e.g. the fair layer refusing the seat list
            self._emit("problem", f"the match cannot start: {type(exc).__name__}: {exc}")
            self.game.over, self.game.result = True, None
            return
        for p in list(self.observers):
            if p.replay_at_resume:  # attached afresh while this host was being elected: the match so far
                p.replay_at_resume = False
                self.game.observer_joined(p)

    def stalled(self, seats: list[int]) -> None:
        """Connected players that let a seed exchange time out (a round aborted naming
        them): each is dropped and its seat dealt absent at once, a bot playing it, as for a
        player who left; it may come back, but a seat that stalls ``MAX_STALLS`` times plays
        the rest of the match without it (its key's rejoin is refused)."""
        for seat in seats:
            sitter = self.book.seats[seat]
            peer = next((p for p in self.peers if p.sitter is sitter and not p.gone), None)
            if sitter is None or peer is None or peer.local:
                continue
            sitter.stalls += 1
            rest = " for the rest of this match" if sitter.stalls >= MAX_STALLS else ""
            self._emit("problem", f"seat {seat} ({sitter.name}) did not send its seed in time: a bot plays the "
                                  f"seat{rest}", seat=seat, code="timeout")
            self.drop(peer, "timeout", f"you did not send your seed in time: a bot plays seat {seat}{rest}")
            sitter.dropped_at = float("-inf")  # not waited for: dealt absent at once

    def restart_without(self, seats: list[int]) -> None:
        """Seats that never signed their `match-join` in time (a squatter keeping its link
        alive, a player whose process died as the match started): nothing is dealt yet, so
        each loses its seat to a bot and the match starts again (a new `match-start`; the
        seats put the half-joined one aside, spec §5).  One silent seat costs its seat,
        never the table."""
        self.game = None  # (the drops below are not the match's seat losses)
        # a match that continues one after an election seats exactly the old match's keys (every
        # seat refuses a hand-over that gives a seat to another key): there a silent seat keeps
        # its key, its player away (dealt absent, a stand-in plays it, the key may come back)
        # In a fresh match a person's seat that went silent (a laptop asleep, a process killed,
        # no goodbye) keeps its key too, away: the player who comes back sits down at once
        # (spec §7 "away seats"); a seat whose player said goodbye, or a bot's, goes to a bot.
        carried = getattr(self, "carry", None)
        keep_keys = carried is not None and carried.continuation is not None
        for seat in seats:
            sitter = self.book.seats[seat]
            if sitter is None:
                continue
            peer = next((p for p in self.peers if p.sitter is sitter), None)
            keep = keep_keys or (sitter.kind == REMOTE_KIND and not sitter.left
                                 and not (peer is not None and (peer.said_goodbye or peer.local))
                                 and self._away_may_sit(set(seats), sitter))
            # (a player whose goodbye came as the match was announced left: it was not late)
            why = (f"seat {seat} ({sitter.name}) "
                   + ("left: " if sitter.left else "did not join the match in time: ")
                   + ("its player is away (a bot plays the seat until its key comes back)" if keep else
                      "a bot takes the seat") + " and the match starts again")
            self._emit("problem", why, seat=seat, code="left" if sitter.left else "timeout")
            if peer is not None:
                if not peer.gone:
                    self.drop(peer, "timeout", "you did not join the match in time: " + (
                        f"seat {seat} is kept for your key, a bot plays it until you are back" if keep else
                        f"seat {seat} goes to a bot"))
                if peer in self.peers:
                    self.peers.remove(peer)
            self.book.stand(seat)
            if keep:
                self._sit_away(seat, sitter)
            else:
                self._add_local(BOT_KIND, None, None, seat=seat)
        self.state = "lobby"
        self._start_match()

    def _reopen(self) -> None:
        """After a match: the people stay seated, the lobby opens for another one.  A seat
        whose player's link dropped in the match without a goodbye and is not back is free
        for a newcomer; if none takes it, the next match keeps it for that key, away
        (`_seat_the_away`), as for a player lost between matches."""
        freed = []
        for p in list(self.peers):
            if p.sitter is not None and not p.sitter.connected:
                gone = "left" if p.said_goodbye or p.sitter.left else "is not back"
                freed.append(f"seat {p.seat} ({p.sitter.name}) {gone}")
                if p.sitter.kind == REMOTE_KIND and not p.local and not p.said_goodbye and not p.sitter.left \
                        and p.sitter.dropped_at != float("-inf"):
                    self._away_keys[p.seat] = p.sitter
                self.book.stand(p.seat)
                self.peers.remove(p)
        for s in self.book.seats:
            if s is not None:
                s.stalls = 0
        self.state = "lobby"
        self.broadcast(self.roster())
        self._say_waiting(freed)

    def _say_waiting(self, freed: list[str]) -> None:
        """A table that starts its next match by itself, now short of players, says what it
        waits for (seen: "the match is over", then nothing, while it waited for a player);
        at most a few such lines every few seconds, however often a seat comes and goes."""
        free = sum(s is None for s in self.book.seats)
        if free and (self.config.autostart or self.config.start_next) and not self._closing:
            who = f"; {', '.join(freed)}" if freed else ""
            self._emit_about(("waiting",), "waiting", f"the next match starts when {plural(free, 'more player')} "
                             f"{'sits' if free == 1 else 'sit'} down{who}", free=free)

    def _on_message(self, peer: Peer, msg: Message) -> None:
        if peer.gone:
            return
        if peer.replay_owed:
            if isinstance(msg, Election):
                peer.replay_owed = False  # a scorekeeper following the election: confirmed as one
            elif self.game is not None:
                peer.replay_owed = False
                self.game.observer_joined(peer)  # a scorekeeper attached afresh, not following
            elif self.election is not None:
                peer.replay_owed, peer.replay_at_resume = False, True  # attached afresh mid-election
        if isinstance(msg, Heartbeat):
            return
        if isinstance(msg, Leave):
            peer.said_goodbye = True
            if peer.sitter is not None and self.state != "lobby":
                peer.sitter.left = True  # the roster `_gone` sends says so (not a lost link)
            self._gone(peer, f"left ({msg.reason or 'no reason given'})")
            if peer.sitter is not None and not peer.sitter.connected:
                # a player who said goodbye is not waited for: a bot stands in at once (the
                # seat stays its key's: the same player may still come back)
                peer.sitter.dropped_at = float("-inf")
                if self.game is not None:
                    self.game.seat_lost(peer)
            if peer.cancel is not None:
                peer.cancel.cancel()
            return
        if isinstance(msg, ErrorReport):
            self._emit_about(peer, "problem", f"{peer.name} reports {msg.code}: {msg.message}")
            return
        if self.election is not None and self.election.on_message(self, peer, msg):
            return
        if peer.sitter is not None and self.elected is not None and isinstance(msg, Election):
            return  # a seat that followed too late: its seat was given back as a rejoin (the replay confirms)
        if peer.sitter is None and self.elected is not None and isinstance(msg, (Election, Ledger)):
            self.elected.on_observer(self, peer, msg)  # a scorekeeper following an election
            return
        if peer.sitter is None:
            self.drop(peer, "forbidden", f"an observer may not send {msg.TYPE}", field="t")
            return
        if self.game is None:
            if isinstance(msg, Ready) or (isinstance(msg, Fair) and self.state == "lobby" and self.matches_played):
                return  # a late ready, or a late co-sign of the last round, after the match: harmless
            self.drop(peer, "unexpected", f"{msg.TYPE} while no match is being played ({self.state})",
                      field="t")
            return
        if isinstance(msg, (Fair, Ready)):
            self.game.on_message(peer, msg)
            return
        self.drop(peer, "unexpected", f"{msg.TYPE} is not a message a seat sends during a match",
                  field="t")


def listen_addr(peer: Peer) -> str:
    """Where a joiner would listen if elected (roster `addr`): the address its link comes
    from, with the port its hello named (spec §7); empty when it named none."""
    link = peer.link
    port = getattr(link.peer_hello, "listen", None) if link is not None else None
    if not port or not peer.address:
        return ""
    return f"{peer.address.rsplit(':', 1)[0]}:{port}"


def _unique_name(name: str, taken: set[str]) -> str:
    """``name-N``, the first that reads unlike every name in ``taken`` (names as `reads_as` gives)."""
    for i in range(2, 100):
        cand = f"{name[:29]}-{i}"
        if reads_as(cand) not in taken:
            return cand
    return name


def _bot_name(book: SeatBook, seat: int | None, had=()) -> str:
    """A free bot name; ``had``: names the table's seats had under other keys (a lost host's)."""
    taken = {reads_as(s.name) for s in book.seats if s is not None} | {reads_as(n) for n in had}
    for n in BOT_NAMES:  # (not a person's name either: "Ana (bot)" beside Ana - or "ＡＮＡ" - is confusing)
        if reads_as(stand_in_name(n)) not in taken and reads_as(n) not in taken:
            return stand_in_name(n)
    return f"bot {seat}"


def _resume(peer) -> tuple:
    """The match ids an observer's hello says it holds open (`resume`, spec §5 step 3)."""
    try:
        return tuple(peer.link.peer_hello.resume)
    except (AttributeError, AssertionError):  # (a local peer has no link, no hello)
        return ()

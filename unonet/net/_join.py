"""The joiner's session over a link, and the `SeatChannel` a client reads.

`connect_table` opens the link (join code checked at `PeerKey`, before our key is
sent; else trust on first use under ``host@<address>:<port>``) and waits for the seat.
`play_seat` then runs three tasks in one nursery until the match is over or the
link ends: the reader (host messages into the `SeatSide`, its replies back, its feed
values to the client), the submitter (the client's values to the host) and the
heartbeat.  The host silent for 10 s is gone (spec §5; §7's 3 s is the election's,
not built here).  A write that fails does not end the seat: the reader reads what the
host sent before it closed (its `match_over`), and only the reader's end counts.
"""

from __future__ import annotations

from typing import Any, Callable

import trio

from unonet import feed as F
from unonet.protocol import Heartbeat, Identity, KnownPeers, Leave, SeatAssignment, TrustError

from ._errors import JoinFailed, LinkClosed, LinkError, LinkTimeout, PeerRefused, PeerViolation, SeatProblem, Untrusted
from ._address import SHOWN, parse_address, pick_table, table_line
from ._discovery import DISCOVERY_PORT, announces_code, discover
from ._link import Link, Timeouts, connect
from ._seat import SeatSide, feed_match_over
from ._trust import accept_any, pin_key, require_beacon_key, require_join_code

__all__ = ["SeatChannel", "JoinFailed", "connect_table", "reach_table", "host_pin", "take_seat", "play_seat", "HOST_SILENT", "LOBBY_SILENT"]

HOST_SILENT = 3.0   # spec §5, §7: a host silent this long is gone (an election follows)
# spec §5: outside a match (the lobby, between matches) there is no election to start quickly,
# and a link whose SYN had to be sent again starts with a 3 s retransmission timeout (RFC 6298
# §5.7): one lost segment on a lossy network would end the lobby under the 3 s rule
LOBBY_SILENT = 10.0
# the first connect of a join: SYNs leave at 0, 1, 3 and 7 s, so one lost SYN or SYN-ACK on a
# lossy network is not the end of the evening (spec §5)
JOIN_CONNECT = 10.0
HEARTBEAT = 1.0
#: a seat's words whose timeout it may contest (the host withheld them): it contests one only
#: once the host's heartbeat said it had it (`HostWatch.word_unproven`)
_WORDS = frozenset({"player-commit", "player-reveal", "challenge-response", "challenge-key",
                    "challenge-verdict", "challenge-dispute", "round-sign"})
LINK_IDLE = 20.0   # the link's own idle limit: a backstop far above HOST_SILENT (it cannot tell our own stalls)
FEED = 4096


class SeatChannel:
    """What `join` (and the host's own seat) hands the client (contract-feed.md §2):
    ``feed`` yields the feed values in order; ``submit(value)`` sends an engine action,
    ``feed.Ready`` or ``feed.Start``; ``leave()`` ends the session politely."""
    def __init__(self, feed: trio.MemoryReceiveChannel, submit: trio.MemorySendChannel,
                 leave: trio.Event) -> None:
        self.feed = feed
        self._submit = submit
        self._leave = leave

    async def submit(self, value) -> None:
        await self._submit.send(value)

    async def leave(self) -> None:
        self._leave.set()


def host_pin(host: str, port: int) -> str:
    """The name a joiner pins a table's host key under (spec §4.5): where the table
    listens, ``host@<address>:<port>``.  Trust on first use then means "the table at that
    address kept its key": a *different* key there is refused loudly, while another host
    that merely shares a table name (every default one is "host's table") is another
    pin, not a refusal."""
    where = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"host@{where.lower()}:{port}"


def trust_gate(code: str | None, pin: str | None, known: KnownPeers | None):
    """``--code`` wins (and, once it matched, re-pins ``pin`` to that key: the way to
    accept a host's new key after checking its code); else TOFU under ``pin``; else any
    key (no key store)."""
    if code:
        check = require_join_code(code)
        if known is None or pin is None:
            return check

        def checked_then_pinned(key) -> None:
            check(key)
            if known.get(pin) != key.remote_static:
                known.forget(pin)
                known.check(pin, key.remote_static)

        return checked_then_pinned
    if known is not None and pin:
        return pin_key(known, pin)
    return accept_any


async def connect_table(host: str, port: int, identity: Identity, *, name: str, code: str | None = None,
                        known: KnownPeers | None = None, timeouts: Timeouts | None = None,
                        role: str | None = None, listen: int | None = None,
                        beacon_fp: bytes | None = None, then=None, resume: tuple = ()) -> Link:
    """The open link to a table (``LinkError`` with a one-line text otherwise).  The
    host's key is checked at ``PeerKey``, before ours is sent: its join code with
    ``code``, else its pin under `host_pin` (``known``).  ``role`` ``observer`` for a
    scorekeeper (default: a player).  ``listen``: the port where this joiner would host
    if elected (its hello's `listen`, spec §7); ``resume``: a scorekeeper's open match ids
    (its hello's `resume`, spec §5 step 3)."""
    # the link's own idle limit is a backstop; the host-silence rule (HOST_SILENT) is play_seat's
    # watchdog, which does not blame the host for time this process itself was starved of the CPU
    timeouts = timeouts or Timeouts(idle=LINK_IDLE, connect=JOIN_CONNECT)
    trust = trust_gate(code, host_pin(host, port), known)
    if beacon_fp is not None:  # found by discovery: the key must be the one its beacon announced
        trust = require_beacon_key(beacon_fp, f"{host}:{port}", trust)
    if then is not None:  # a last word once the key is proved, before ours is sent (`_first_proving`)
        checks = trust

        def trust(key) -> None:
            checks(key)
            then(key)
    return await connect(host, port, identity, name=name, timeouts=timeouts, role=role,
                         trust=trust,
                         hello_fields={**({"listen": listen} if listen else {}),
                                       **({"resume": tuple(resume)} if resume else {})} or None)


LOOKS = 2  # a join that found no table looks once more before it says so


async def look_for_tables(timeout: float, *, port: int = DISCOVERY_PORT, bind: str | None = None,
                          want=None, looks: int = LOOKS) -> list:
    """`discover` for ``timeout`` seconds, and when no compatible table answered, once more:
    a host started a moment before us on a loaded machine may not announce itself yet (a
    join 3 s after the host found nothing in 1 s, and the next try found it).  A table heard
    in the first look ends the looking there; nothing found costs at most ``looks`` x
    ``timeout`` seconds."""
    tables: list = []
    for _ in range(looks):
        tables = await discover(timeout, port=port, bind=bind, want=want)
        if any(t.compatible for t in tables):
            break
    return tables


async def reach_table(address: str | None, identity: Identity, *, name: str, code: str | None = None,
                      bind: str | None = None, discovery_port: int | None = None, timeout: float = 1.0,
                      pick=None, role: str | None = None, known: KnownPeers | None = None, on_found=None,
                      listen: int | None = None, resume: tuple = ()):
    """The join path every client shares: the table at ``address`` (HOST[:PORT]), or the one
    discovery finds (``pick`` chooses among several; without it several are an error listing
    them), reached with `connect_table`.  Returns ``(link, found)``; ``found`` is the
    discovered `FoundTable` (None for an address), also handed to ``on_found`` before connecting."""
    known = known if known is not None else KnownPeers()
    found = None
    if address is None:
        tables = await look_for_tables(timeout, port=discovery_port or DISCOVERY_PORT, bind=bind,
                                       want=announces_code(code) if code else None)
        usable = [t for t in tables if t.compatible]
        if code and not usable:
            await _no_table_with_code(code, timeout, port=discovery_port or DISCOVERY_PORT, bind=bind)
        one = len({(t.beacon.fp, t.beacon.table, t.port) for t in usable}) == 1
        if len(usable) > 1 and (code or one):
            # the code names one key, and only its holder completes a handshake: several
            # listings of it (or of one beacon, without a code) are its own addresses on each
            # of its networks, or copies of its beacon (a stranger's, from other addresses) -
            # tried in turn, the key proved at `PeerKey` before ours is sent
            return await _first_proving(usable, identity, name=name, code=code, known=known, role=role,
                                        listen=listen, on_found=on_found, resume=resume)
        found = await pick(tables) if (pick is not None and len(usable) > 1) else pick_table(tables)
        if found is None:  # a picker that returns None was left: nothing to join
            raise JoinFailed("no table chosen: nothing joined", code="none")
        host, port = found.address, found.port
        if on_found is not None:
            on_found(found)
    else:
        host, port = parse_address(address)
    link = await connect_table(host, port, identity, name=name, code=code, known=known, role=role,
                               listen=listen, beacon_fp=found.beacon.fp if found is not None else None,
                               resume=resume)
    return link, found


HEARD_SHOWN = 3  # tables a join code nobody announces lists instead (one line)


async def _no_table_with_code(code: str, timeout: float, *, port: int, bind: str | None) -> None:
    """No table announces ``code``: if others are heard, say so instead of "no table found"
    (evening17: after Hal's table went on under Ana, elected, Ben ran his `unonet join --code
    <Hal's code>` again to take his seat back and read "no table found on this network (is a
    host running? ...)" with the table announcing itself beside him under Ana's code).
    Nothing is joined: the code is the joiner's own check of the host's key."""
    others = [t for t in await discover(timeout, port=port, bind=bind) if t.compatible]
    if not others:
        return
    heard = "; ".join(f"{t.beacon.name} at {t.address}:{t.port} (host {t.beacon.host}, code {t.join_code})"
                      for t in others[:HEARD_SHOWN])
    more = f"; and {len(others) - HEARD_SHOWN} more (unonet list)" if len(others) > HEARD_SHOWN else ""
    # one line: the full-screen client says a failure to join in its first line only
    raise JoinFailed(f"no table on this network announces join code {code}; heard instead: {heard}{more}. "
                     "After an election a table goes on under its new host's code: check it with the "
                     "players", code="none")


PROVE_GRACE = 0.5  # once one listing proved the code's key: how long the others under way may take to prove it too
STAGGER = 0.25     # a listing that has not proved the key by then: the next is tried beside it


class _AnsweredFirst(TrustError):
    """Another listing of the table proved its key first: this try goes no further."""


async def _first_proving(tables, identity: Identity, *, name: str, code: str | None, known: KnownPeers,
                         role: str | None, listen: int | None, on_found=None, resume: tuple = ()):
    """The link to whichever of ``tables`` (listings of the one key ``code`` names, or of one
    beacon) proves that key.  They are tried in turn, the next one `STAGGER` after the last (at once when
    it failed) while the earlier ones go on: a copy's address that never answers (a
    stranger's tarpit, an address nobody holds) must not make the joiner wait out its
    timeouts copy after copy, and a host heard at two addresses (on wifi and on cable) is
    reached at the first without a second try.  The first try whose host proves the key at
    `PeerKey` claims the join; any other stops there, before our key is sent, so the host
    never sees two hellos under one key racing for one seat.  Listings of the key on another
    port may be a second table of the same host: they are tried up to the key (`PROVE_GRACE`)
    and, if it is proved there too, the joiner is asked to name one, as without a code (the
    claimed try's seat given back).  If none proves the key, the first failure (in the
    listing's order; the claimed try's when it failed after the key)."""
    order = sorted(tables, key=lambda t: (not t.probed, t.address, t.port))
    failures: list = [None] * len(order)
    settled = [trio.Event() for _ in order]  # the try failed, or reached the key check
    proved: list[int] = []   # the listings whose host proved the key, in the order they did
    won: list = []

    def claim(i: int):
        def gate(key) -> None:
            proved.append(i)
            settled[i].set()
            if len(proved) > 1:
                raise _AnsweredFirst(f"{order[proved[0]].address}:{order[proved[0]].port} answered first")
        return gate

    async def attempt(i: int, t, scope: trio.CancelScope) -> None:
        try:
            link = await connect_table(t.address, t.port, identity, name=name, code=code, known=known,
                                       role=role, listen=listen, beacon_fp=t.beacon.fp, then=claim(i),
                                       resume=resume)
        except LinkError as exc:
            failures[i] = exc
            settled[i].set()
            if proved[:1] == [i]:  # the claimed try failed after the key (refused, full, ...): that is the answer
                scope.cancel()
            return
        won.append((link, t))
        scope.deadline = min(scope.deadline, trio.current_time() + PROVE_GRACE)

    tried = set()
    async with trio.open_nursery() as nursery:
        for i, t in enumerate(order):
            if proved:
                break
            tried.add(i)
            nursery.start_soon(attempt, i, t, nursery.cancel_scope)
            with trio.move_on_after(STAGGER):
                await settled[i].wait()
    if not won:
        raise failures[proved[0]] if proved and failures[proved[0]] is not None \
            else next(f for f in failures if f is not None)
    link, t = won[0]
    elsewhere = [i for i in range(len(order)) if i not in tried and order[i].port != t.port]
    if elsewhere:  # another port of the key: a second table?  Tried up to the key only
        with trio.move_on_after(PROVE_GRACE):
            async with trio.open_nursery() as nursery:
                for i in elsewhere:
                    nursery.start_soon(attempt, i, order[i], nursery.cancel_scope)
    ports = {order[i].port: order[i] for i in proved}
    if len(ports) > 1:
        await link.aclose()
        lines = "\n  ".join(table_line(x) for x in list(ports.values())[:SHOWN])
        raise JoinFailed(f"the host with join code {t.join_code} runs {len(ports)} tables; name one as "
                         f"HOST:PORT:\n  {lines}", code="choose")
    if on_found is not None:
        on_found(t)
    return link, t


def first_error(exc: BaseException, kinds: tuple) -> BaseException | None:
    """The most telling exception of ``kinds`` in ``exc`` or its (nested) exception
    groups: the earliest kind listed wins, and what the host told us (a refusal) beats
    our own tasks' noticing that the link closed."""
    found: list[BaseException] = []
    todo = [exc]
    while todo:
        e = todo.pop(0)
        if isinstance(e, KeyboardInterrupt):
            return None  # Ctrl-C wins over whatever it broke on its way (the caller re-raises: exit 130)
        if isinstance(e, kinds):
            found.append(e)
        todo.extend(getattr(e, "exceptions", ()))
    if not found:
        return None

    def rank(e: BaseException) -> tuple[int, int]:
        told = 0 if isinstance(e, (PeerRefused, PeerViolation, Untrusted)) else 1 if isinstance(e, LinkTimeout) else 2
        return (next(i for i, k in enumerate(kinds) if isinstance(e, k)), told)

    return min(found, key=rank)


def describe_end(exc: BaseException) -> JoinFailed:
    """A link failure as the line a player reads (what happened, what to do)."""
    if isinstance(exc, JoinFailed):
        return exc
    if isinstance(exc, SeatProblem):
        return JoinFailed(str(exc), cheat=exc.cheat, code=exc.code)
    if isinstance(exc, PeerRefused):
        if exc.code == "full":
            return JoinFailed(f"{exc} (try another table, or ask the host for a seat)", code="full", refused=True)
        return JoinFailed(str(exc), code=exc.code, refused=True)
    if isinstance(exc, LinkTimeout):
        return JoinFailed(f"the host went silent ({exc}); the table is gone", code="timeout")
    if isinstance(exc, LinkClosed):
        return JoinFailed(f"{exc}: the host has gone (the match did not finish)", code="closed")
    if isinstance(exc, PeerViolation):
        return JoinFailed(str(exc), code=exc.code)
    if isinstance(exc, Untrusted) and exc.code == "key-changed":
        return JoinFailed(f"{exc} If the host really has a new key, ask it for its join code and "
                          "join with --code: that checks the key and pins it anew.", code=exc.code)
    if isinstance(exc, LinkError):
        return JoinFailed(str(exc), code=exc.code)
    return JoinFailed(str(exc))


IDLE_GAP = 0.1          # a reader that waited longer than this for a message was not behind
#: the longest a burst of messages is dated back: a message read without a wait is taken as
#: part of a backlog begun when the burst began, but a trickle (a host sending something every
#: 50 ms) never lets the reader wait `IDLE_GAP`, and a burst begun minutes ago would date the
#: start of a turn back to it (an early turn timeout then looked like a late one). A real
#: backlog older than this is our own reader held up, which `held_up` marks instead.
BURST_SPAN = 1.0
ANSWER_WAIT = 5.0       # a key typed while the seat's last act is unanswered waits this long for the answer


async def answered(side: SeatSide, limit: float = ANSWER_WAIT) -> None:
    """Wait (at most ``limit`` s) until the table has answered this seat's last act: keys
    typed quickly (U, then Enter) go one after the other instead of the second being
    refused as "not answered yet"."""
    with trio.move_on_after(limit):
        while side.game is not None and side.game.awaiting_answer:
            await trio.sleep(0.005)


async def take_seat(link: Link, side: SeatSide, limit: float = 30.0) -> None:
    """Wait for the host's `seat` (a full table raises PeerRefused ``full``)."""
    try:
        with trio.fail_after(limit):
            first = await link.receive()
    except trio.TooSlowError:
        raise JoinFailed("the host never gave us a seat (is it a unonet table?)", code="timeout") from None
    if not isinstance(first, SeatAssignment):
        raise SeatProblem(f"the host sent {first.TYPE} before our seat", code="unexpected")
    side.receive(first)


def decided_on_leave(side: SeatSide) -> dict | None:
    """The match-over line when the host's `leave` came after the match's last round (our own
    record shows it won: `SeatSide.decided`); None otherwise.  A scorekeeper whose record lacks
    that round is no worse off than before (None: it records the match as abandoned); a seat
    is told the last round is unconfirmed (JoinFailed)."""
    try:
        return side.decided()
    except JoinFailed:
        if side.observer:
            return None
        raise


def dealt(side: SeatSide) -> bool:
    """The match in hand has begun at this seat: a round of it was dealt (its ledger opens at
    the first deal; a match continued after an election carries its ledger).  A match only
    announced (its `match-start`, no deal) has not: a table that closes then closes between
    matches (seen: "the host closed the table: the match did not finish" of a match never dealt).
    A scorekeeper's match counts from its announcement, as before."""
    return side.game is not None and (side.observer or getattr(side.game, "ledger", None) is not None)


def closed_mid_match(side: SeatSide) -> str:
    """What a seat reads when its host said goodbye in the middle of a match (its q, a
    Ctrl-C): the match did not finish, and the rounds played stand in the record every party
    keeps alike (the ledger's head; a scorekeeper's file holds them, the match abandoned).
    evening19: the plain "the host closed the table: the match did not finish" read as a
    table problem to players whose host had simply gone home."""
    ledger = getattr(side.game, "ledger", None)
    rounds = ledger.rounds if ledger is not None else 0
    text = "the host closed the table: the match did not finish"
    if not rounds:
        return text + " (no round of it was finished)"
    played = "the round played is" if rounds == 1 else f"the {rounds} rounds played are"
    return f"{text}; {played} recorded (ledger {ledger.head.hex()[:16]})"


def between_matches_end(err) -> str:
    """What the screen says when the link to the host ends between matches.  A host that
    closed is gone; one that went silent may be only our link (eve12: Kim's link was down
    20 s after a match and Kim read "the host is gone (the host went silent ...; the table is
    gone): there is no next match" while Pat's table dealt the next match without Kim)."""
    if getattr(err, "code", None) == "timeout":
        return ("the link to the host was lost between matches (no word from it): no next match here; "
                "if the table goes on, `unonet join` again takes a seat at it")
    return f"the host is gone ({err}): there is no next match"


async def play_seat(link: Link, side: SeatSide, *, feed: trio.MemorySendChannel | None = None,
                    submit: trio.MemoryReceiveChannel | None = None, leave: trio.Event | None = None,
                    on_feed: Callable[[Any], None] | None = None, bot_step=None,
                    seat_timeout: float = 30.0, seated: bool = False, keep_feed: bool = False,
                    matches: int | None = 1) -> dict | None:
    """Run the seat until the match is over (returns the match-over line), the host
    closes (None after a `leave` outside a match; in the middle of one, JoinFailed), or
    something fails (raises JoinFailed).

    Feed values go to ``feed`` (a channel the client reads) and/or ``on_feed``.
    ``bot_step(side) -> value | None`` plays for the seat (``--bot``).  The first
    message must be `seat` within ``seat_timeout`` s (or a `full` refusal).  ``keep_feed``:
    the caller ends ``feed`` (its match-over or problem value, then closing it): the feed
    outlives this link (a host election follows a lost host, `play_with_elections`).
    ``matches``: how many matches the seat stays for (None: as long as the table goes on);
    each match's end but the last is told at once (``match-over`` on ``on_feed``, a
    `feed.MatchOver` on ``feed``), and the seat waits in the table's lobby for the next."""
    if leave is None:  # (a trio Event refuses bool(): no `leave or ...`)
        leave = trio.Event()
    side.host_name = side.host_name or getattr(link, "peer_name", "")  # (the host's own seat: a LocalLink)
    result: dict | None = None
    failure: JoinFailed | None = None
    ended: str | None = None  # the table went away between matches (the screen offers no next one)
    last_rx = [trio.current_time()]  # when the host last said anything
    # a remote host's timing is watched (its turn clock, its answers to our acts: _host_watch.py);
    # the host's own seats run in its process
    side.clocked = not getattr(link, "local", False)
    burst = [None]  # when the burst of messages being read began (a backlog is timed from its start)
    paced = [0.0]   # the bot's chosen wait since the last message was read (not a hold-up)

    clock = trio.lowlevel.current_clock()  # (its `current_time`, without trio's two calls around it)
    # a socket link takes frames without a wait (`Link.send_now`), all of a batch written at once
    send_now = getattr(link, "send_now", None)

    async def deliver() -> None:
        """The seat's new feed values to ``on_feed`` and the client's channel: put in the
        channel without a pass through the scheduler each (the client wakes once for all of
        them); only a full channel waits."""
        for v in side.take_feed():
            if on_feed is not None:
                on_feed(v)
            if feed is not None:
                try:
                    feed.send_nowait(v)
                except trio.WouldBlock:
                    await feed.send(v)

    async def send_all(msgs) -> bool:
        """Send our replies (False: the host had closed the link, nothing went).  A link the
        host has closed (a write fails) does not end the seat: what the host sent before
        closing -- its `match_over` above all -- is still to be read, and the reader alone
        decides how the session ended.  On a socket link
        the batch is encrypted message by message and written in one system call, with no
        wait unless the socket is full (then `flush` waits, under the link's send limit)."""
        acts = False
        position = None  # our act's place among our link's messages (the host's heartbeat counts them)
        word = None      # our last other word's (a seed message, an answer, a co-sign): contests wait for it
        try:
            for m in msgs:
                if send_now is None or not send_now(m):
                    await link.send(m)
                ev = getattr(m, "ev", None)
                if ev == "act":
                    acts, position = True, getattr(link, "messages_sent", None)
                elif ev in _WORDS:
                    word = getattr(link, "messages_sent", None)
            if send_now is not None and not link.flush_now():
                await link.flush()
        except LinkClosed:
            if link.closed:
                raise
            return False
        if acts:
            side.act_sent(clock.current_time(), position)  # (it has left: the host answers it at once)
        if word is not None or any(getattr(m, "ev", None) in _WORDS for m in msgs):
            side.word_sent(clock.current_time(), word)
        return True

    async def act_as_bot(value) -> None:
        """Play ``value`` (the bot's move, `bot_step`'s answer now), then any the seat owes next."""
        for _ in range(64):  # bounded: a bot makes a few moves per batch at most
            # one pace whatever the choice (fair-play §11.9: timing): sent bot_pace after the
            # host's message that owed it, an unplayable draw's keep as late as a real choice
            due = last_rx[0] + side.bot_pace
            if due > clock.current_time():
                before = clock.current_time()
                await trio.sleep_until(due)
                paced[0] += clock.current_time() - before  # (chosen, not a hold-up of the reader)
            try:
                await send_all(side.submit(value))
            except ValueError as exc:  # the seat itself refuses it: nothing was sent

                side.feed.append(F.Refused(str(exc), value))
                return
            finally:
                await deliver()
            value = bot_step(side)
            if value is None:
                return

    async def reader(cancel: trio.CancelScope) -> None:
        nonlocal result, ended
        if not seated and side.seat is None:  # (a side back in its seat after a rejoin has it already)
            await take_seat(link, side, seat_timeout)
        back = None  # when the last message was read: the reader is away until the next receive
        while True:
            waited = clock.current_time()
            if back is not None and waited - back - paced[0] > BURST_SPAN:
                # our reader was away (a full feed channel, a slow send, a long check) while the
                # host's messages came in: what is read now is late by our doing, so no timing
                # check of the host spans this moment (HostWatch.held_up)
                side.held_up(waited)
            paced[0] = 0.0
            msg = await link.receive()  # (one read's messages come back without a wait)
            last_rx[0] = now = back = clock.current_time()
            if burst[0] is None or now - waited > IDLE_GAP:
                burst[0] = now  # we were waiting: it came about now
            elif now - burst[0] > BURST_SPAN:
                burst[0] = now - BURST_SPAN  # (a trickle is no backlog: see BURST_SPAN)
            side.rx_at, side.rx_now = burst[0], now
            side.rx_bytes = (msg, getattr(link, "last_bytes", None))  # (kept on disk as they came)
            replies = side.receive(msg)
            if replies:
                await send_all(replies)
            if side.feed:
                await deliver()
            if side.over is not None:
                result = side.over
                side.matches_played += 1
                if matches is not None and side.matches_played >= matches:
                    if not side.observer:
                        # our goodbye: the seat is not held for us (a host holds the seat of a
                        # link that ends between matches without one, spec §7)
                        with trio.move_on_after(1.0):
                            try:
                                await send_all([Leave(reason="its matches are played")])
                            except LinkError:
                                pass
                    cancel.cancel()
                    return
                await match_between(result)
                continue
            if side.closed:
                over = decided_on_leave(side) if side.game is not None and not leave.is_set() else None
                if over is not None:
                    # the host said goodbye after the match's last round, before its match_over:
                    # the match is over on our own record (spec §5 step 8), not unfinished
                    side.feed.append(F.Notice("the host closed the table right after the match was won: "
                                              "the result stands on this seat's own record", None, "left"))
                    side.end_on_record(over)
                    await deliver()
                    result = over
                    side.matches_played += not side.observer
                    cancel.cancel()
                    return
                if dealt(side) and not leave.is_set() and not side.observer:
                    # the host quit (q, y) in the middle of a match: its table is closed, no
                    # election follows a goodbye - the player must be told, not left at a live screen
                    raise JoinFailed(closed_mid_match(side), code="closed", goodbye=True)
                if side.over is None and side.matches_played:
                    result = side.last_over  # the table closed between matches: the last one's end
                    if not side.operator:  # (the host's own seat: its own q closed it - play15: the
                        # host leaving its next match's lobby read "TABLE PROBLEM: the host closed
                        # the table: there is no next match" and exit 1)
                        ended = ("the host closed the table: there is no next match"
                                 if side.game is None else
                                 "the host closed the table after the match, before the next match was dealt")
                cancel.cancel()
                return
            if bot_step is not None:  # (asked after every message: most owe nothing, and no task switch)
                value = bot_step(side)
                if value is not None:
                    await act_as_bot(value)

    async def match_between(line: dict) -> None:
        """A match ended and the seat stays for the next: say it now, wait in the lobby."""

        if on_feed is not None:
            on_feed({"t": "match-over", **line})
        if feed is not None:
            await feed.send(feed_match_over(side))
        side.over = None

    async def submitter() -> None:
        if submit is None:
            await trio.sleep_forever()
        async for value in submit:
            await answered(side)  # (U then Enter typed quickly: the play follows the call's answer)
            try:
                await send_all(side.submit(value))
            except ValueError as exc:

                side.feed.append(F.Refused(str(exc), value))
            await deliver()

    async def heartbeat() -> None:
        """Our heartbeat every second, and the watchdog: the host silent for HOST_SILENT s
        is gone.  Time this task itself woke late (the process starved of the CPU, e.g. a
        long check of a round's end) is not counted as the host's silence."""
        if getattr(link, "local", False):
            await trio.sleep_forever()  # the host's own seats: in its process, nothing to watch
        seq = 0
        woke = trio.current_time()
        while True:
            await send_all([Heartbeat(seq=seq)])
            seq = (seq + 1) % (1 << 32)
            await trio.sleep(HEARTBEAT)
            now = trio.current_time()
            late = now - woke - HEARTBEAT
            woke = now
            if late > HEARTBEAT / 2:
                last_rx[0] += late
                side.held_up(now)  # (no timing check of the host spans a moment we were held up)
            if side.overdue(now):  # our act unanswered too long: said loudly, taken back
                await deliver()
            limit = HOST_SILENT if side.game is not None else LOBBY_SILENT
            if now - last_rx[0] > limit:
                raise JoinFailed(f"the host went silent (no message for {limit:g} s); the table is gone",
                                 code="timeout")

    async def leaver(cancel: trio.CancelScope) -> None:
        await leave.wait()
        with trio.move_on_after(1.0):
            # (the caller's last line says whether the host was told: not when its link was closed)
            side.said_goodbye = await send_all([Leave(reason="the player left")])
        cancel.cancel()

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(reader, nursery.cancel_scope)
            nursery.start_soon(submitter)
            nursery.start_soon(heartbeat)
            nursery.start_soon(leaver, nursery.cancel_scope)
    except BaseException as exc:  # noqa: BLE001 - sorted below; anything else is re-raised
        err = first_error(exc, (JoinFailed, trio.TooSlowError, LinkError, SeatProblem))
        if err is None:
            raise
        if isinstance(err, trio.TooSlowError):
            failure = JoinFailed("the host never gave us a seat (is it a unonet table?)", code="timeout")
        elif (side.matches_played or side.last_over is not None) and not dealt(side) \
                and not getattr(err, "cheat", False) and getattr(err, "code", None) in ("timeout", "closed"):
            # the table went away between matches: the last one stands (a scorekeeper's too:
            # it read "the host has gone (the match did not finish)" under a finished match)
            if side.rejoin_between and not leave.is_set() and not side.observer and (feed is None or keep_feed):
                # it may be only our link (gap12: a link down 15 s after a match cost the whole
                # next match): the election loop goes back to the host, which holds our seat
                failure = JoinFailed(str(err), code=getattr(err, "code", "closed"), between=True)
            else:
                result = side.last_over
                ended = between_matches_end(err)
        elif leave.is_set() and not getattr(err, "cheat", False) and getattr(err, "code", None) in ("timeout", "closed"):
            pass  # we said goodbye: the host closing our link is the answer, not a lost host (no rejoin)
        else:
            failure = describe_end(err)
    finally:
        if failure is not None and failure.cheat:
            with trio.move_on_after(1.0):
                try:
                    await link.drop("fair-play", str(failure))
                except LinkError:
                    pass
        await link.aclose()
        if feed is not None and ended is not None and side.screen:
            with trio.move_on_after(1.0):
                await feed.send(F.Notice(ended, None, "closed"))  # (news: also where the caller ends the feed)
        if feed is not None and not keep_feed:

            with trio.move_on_after(1.0):
                if failure is not None:
                    await feed.send(F.TableProblem(str(failure), fatal=True, cheat=failure.cheat,
                                                   goodbye=getattr(failure, "goodbye", False)))
                elif result is not None:
                    await feed.send(feed_match_over(side))
            await feed.aclose()
    if failure is not None:
        raise failure
    return result

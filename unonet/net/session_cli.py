"""`unonet host` and `unonet join` without a screen (``--no-ui``), and their plumbing.

Scripting mode (``--json``): one JSON object per line on stdout — what this process
may see, in order — and, at the end, the shared match-over line
(`unonet.ledger.MatchLedger.match_over`, docs/scorekeeper.md) with ``"t":
"match-over"``.  Problems go to stderr as one line; the exit status says how it ended:
0 the match was played out, 1 the table failed (host gone, refused, a cheat caught),
2 bad input.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from typing import Any, Callable, TextIO

import trio

from unonet.heap import settle
from unonet.fingerprint import join_code
from unonet.protocol import Identity, KnownPeers, TrustError, load_or_create_identity

from ._discovery import DISCOVERY_PORT
from ._errors import LinkError
from ._host import HostEvent, HostTable, TableConfig
from ._election import play_with_elections
from ._join import JoinFailed, describe_end, first_error, play_seat, reach_table
from ._serve import listener_port, open_listeners
from ._seat import SeatProblem, SeatSide
from ._address import DEFAULT_PORT, parse_address, pick_table  # noqa: F401 - the CLI re-exports
from ._text_feed import bot_text_feed, text_feed
from ._game import HostGame, Operator, SeatGame, bot_step, parse_seat_action, run_local_seat, scripted_feed

__all__ = ["run_host", "run_join", "JsonOut", "parse_address", "pick_table"]

class JsonOut:
    """One JSON object per line, flushed at once (a script reads them as they come)."""
    def __init__(self, out: TextIO = sys.stdout, enabled: bool = True) -> None:
        self.out, self.enabled = out, enabled

    def __call__(self, obj: dict) -> None:
        if self.enabled:
            self.out.write(_LINE.encode(obj) + "\n")
            self.out.flush()


def _jsonable(v: Any):
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, (set, frozenset, tuple)):
        return list(v)
    if hasattr(v, "code"):
        return v.code
    return str(v)


# one encoder for every line (`json.dumps` with options builds a new one per call; a seat's
# `--json` feed writes a line for most messages it receives)
_LINE = json.JSONEncoder(sort_keys=True, default=_jsonable)


# -- host ----------------------------------------------------------------------------

def run_host(config: TableConfig, *, as_json: bool, identity: Identity | None = None,
             out: TextIO = sys.stdout, err: TextIO = sys.stderr,
             game_factory=None, local_seat=None) -> int:
    """Headless host: open the table, print what happens, play the match(es), exit."""
    emit = JsonOut(out, as_json)
    identity = identity or load_or_create_identity()
    game_factory = game_factory or HostGame
    local_seat = local_seat or run_local_seat(emit if config.dealer_only is False else None)

    def on_event(e: HostEvent) -> None:
        if e.kind == "open" and as_json:
            emit({"t": "table", "name": config.name, "port": e.data["port"], "bind": config.bind,
                  "join_code": table.join_code, "fingerprint": identity.short_fingerprint,
                  "players": config.players, "rules": config.preset, "house": list(config.house),
                  "teams": config.teams, "target": config.target})
        elif as_json:
            emit({"t": e.kind, "text": e.text, **{k: v for k, v in e.data.items()}})
        elif said_to_operator(e):
            print(f"unonet host: {e.text}", file=err if e.kind in ("refused", "problem") else out, flush=True)

    table = HostTable(config, identity, game_factory=game_factory, on_event=on_event, local_seat=local_seat)

    interrupted = False
    stopped = False  # a second ^C: the close was cut short

    watch = trio.CancelScope()

    async def on_ctrl_c(everything: trio.CancelScope) -> None:
        """A ^C closes the table as the operator's close does: every link is told goodbye
        (a scorekeeper reads "the table closed", not a lost host) before the process ends.
        Trio's own ^C cancels the table mid-write, and the goodbye was left to luck.  A
        second ^C stops at once (the close cut short, said so: it ended in the generic
        "unonet: interrupted", a KeyboardInterrupt raised in a nursery, in a group)."""
        nonlocal interrupted, stopped
        with watch, trio.open_signal_receiver(signal.SIGINT) as signals:
            async for _ in signals:
                if interrupted:
                    stopped = True
                    everything.cancel()
                    return
                interrupted = True
                table.close()

    async def run_table(task_status=trio.TASK_STATUS_IGNORED) -> None:
        try:
            await table.run(task_status=task_status)
        finally:
            watch.cancel()

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            await nursery.start(run_table)
            if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # (a ^C meant for us at all)
                nursery.start_soon(on_ctrl_c, nursery.cancel_scope)

    settle()  # (start-up's objects out of the cycle collector's way: unonet/heap.py)
    try:
        trio.run(main)
        if stopped:
            print("unonet host: interrupted again: stopped at once, before the table had closed: "
                  "a player may not have been told it closed", file=err)
            return 130
        if interrupted:
            raise KeyboardInterrupt
    except OSError as exc:
        print(f"unonet host: cannot open the table on {config.bind or 'all interfaces'} port "
              f"{config.port}: {exc.strerror or exc}", file=err)
        return 2
    except KeyboardInterrupt:
        print("unonet host: interrupted; the table is closed", file=err)
        return 130
    if table.result is None:
        return 1
    if as_json:
        emit({"t": "match-over", **table.result})
    # (in words the match's end was said once already, by name: "the match is over: Jo wins; …";
    # an older "unonet host: match over: seat 1 wins; scores [91, 117]" repeated it)
    return 0 if not table.result.get("problem") else 1


# -- join ----------------------------------------------------------------------------

def run_join(*, address: str | None, name: str, code: str | None, bot: bool, as_json: bool,
             bind: str | None = None, discovery_port: int = DISCOVERY_PORT, timeout: float = 1.0,
             identity: Identity | None = None, stdin: TextIO = sys.stdin, out: TextIO = sys.stdout,
             err: TextIO = sys.stderr, bot_pace: float = 0.0, matches: int = 1) -> int:
    """Headless join: find or reach the table, take a seat, play (``--bot``) or read this
    seat's actions from stdin, print what this seat sees, exit 0 after the match."""
    emit = JsonOut(out, as_json)
    if not as_json:  # a person at a plain terminal: the seat's feed in words (a bot's: a few of them)
        emit = (bot_text_feed if bot else text_feed)(lambda line: print(line, file=out, flush=True))
    try:
        identity = identity or load_or_create_identity()
        known = KnownPeers()
    except TrustError as exc:
        print(f"unonet join: {exc}", file=err)
        return 2

    leave = trio.Event()  # set by a ^C: the seat says goodbye (`play_seat`'s leaver), as the screen's quit does
    presses = [0]         # the ^Cs seen (a second one stops at once)
    # the seat side playing now (an election or a rejoin makes a new one), and our `Operator`
    # (elected, a ^C closes the table we host)
    now: dict[str, Any] = {}

    async def on_ctrl_c(scope: trio.CancelScope) -> None:
        """A ^C means the person leaves: the seat says goodbye, so the host stands a bot in
        at once instead of holding the seat for --hold-seats (trio's own ^C ended the
        process with no word to the host).  A seat between links (an election, a rejoin)
        has nobody to tell: it stops after `LEAVE_GRACE`.  A second ^C stops at once."""
        with trio.open_signal_receiver(signal.SIGINT) as signals:
            async for _ in signals:
                presses[0] += 1
                if presses[0] > 1:
                    scope.cancel()
                    return
                leave.set()
                scope.deadline = min(scope.deadline, trio.current_time() + LEAVE_GRACE)

    async def main() -> dict | None:
        ended: dict[str, Any] = {}

        async def run_session() -> None:
            try:
                ended["result"] = await session()
            except Exception as exc:  # noqa: BLE001 - raised below as itself, not in a nursery's group
                ended["error"] = exc
            nursery.cancel_scope.cancel()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(run_session)
            if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # (a ^C meant for us at all)
                nursery.start_soon(on_ctrl_c, nursery.cancel_scope)
        if "error" in ended:
            raise ended["error"]
        return ended.get("result")

    async def session() -> dict | None:
        def found(t) -> None:
            emit({"t": "found", "name": t.beacon.name, "address": t.address, "port": t.port,
                  "join_code": t.join_code})

        # a joiner listens from the start where it would host if elected (spec §7)
        listeners = await open_listeners(0, bind)
        link, t = await reach_table(address, identity, name=name, code=code, bind=bind, known=known,
                                    discovery_port=discovery_port, timeout=timeout, on_found=found,
                                    listen=listener_port(listeners))
        table_name = t.beacon.name if t is not None else None
        side = SeatSide(name=name, identity=identity, host_public=link.peer_fair_identity,
                        game_factory=SeatGame, bot=bot)
        side.bot_pace = bot_pace
        now["side"] = side
        side.table_name = table_name or ""  # the roster's name, when it comes, is the host's word
        # the join code is the host's key's (the handshake proved it), however it was joined: the
        # `lobby` line shows it as the host's `table` line does
        side.join_code = join_code(link.peer_static)
        emit({"t": "joined", "host": link.peer_name, "address": link.address,
              "fingerprint": link.peer_id.hex()})
        if not bot or not as_json:
            # a person or a script plays from stdin: it is shown its hand (`state` lines); a
            # bot's words (`bot_text_feed`) come from the same table screen
            side.screen = True
        scripted = scripted_feed(emit, None if bot else (lambda: side.seat))

        def on_feed(value) -> None:
            scripted(value)
            if not as_json and type(value).__name__ == "TableProblem":  # a non-fatal problem: say it
                print(f"unonet join: {value.message}", file=err, flush=True)

        def on_event(e) -> None:  # as the elected host
            if e.kind in ("elected", "problem", "refused", "observer"):
                emit({"t": e.kind, "text": e.text, **e.data})
                if not as_json:
                    print(f"unonet join: {e.text}", file=err, flush=True)

        def elections(play, operator):
            return play_with_elections(link, side, identity=identity, listeners=listeners, play=play,
                                       game_factory=SeatGame, emit=emit, on_event=on_event, operator=operator,
                                       matches=matches,
                                       # found by its beacons: elected, it announces the table
                                       # the same way (a table joined by address does not)
                                       discovery_port=discovery_port if address is None else None)

        if bot:
            async def play(lk, sd):
                now["side"] = sd
                return await play_seat(lk, sd, on_feed=on_feed, bot_step=bot_step, leave=leave, matches=matches)

            # (elected, a ^C closes the table we host, as the screen's quit does; the bot plays on till then)
            now["operator"] = Operator(None, None, bot=True, leave=leave)
            return await elections(play, now["operator"])
        return await _play_from_stdin(side, on_feed, stdin, elections, matches, leave, now)

    settle()
    try:
        result = trio.run(main)
        if presses[0]:
            print(_left_line(presses[0], now), file=err)
            return 130
    except ValueError as exc:
        print(f"unonet join: {exc}", file=err)
        return 2
    except KeyboardInterrupt:
        print("unonet join: interrupted", file=err)
        return 130
    except BaseException as exc:  # noqa: BLE001 - one line for every way the session ends
        e = first_error(exc, (JoinFailed, LinkError, SeatProblem, TrustError))
        if e is None:
            raise
        if isinstance(e, TrustError):
            e = JoinFailed(str(e), code="untrusted")
        failed = describe_end(e)
        loud = "FAIR-PLAY VIOLATION: " if failed.cheat else ""
        print(f"unonet join: {loud}{failed}", file=err)
        if as_json:
            emit({"t": "problem", "message": str(failed), "cheat": failed.cheat, "code": failed.code})
        return 1
    if result is None:
        print("unonet join: the host closed the table before the match ended", file=err)
        return 1
    if as_json:
        emit({"t": "match-over", **result})
    else:  # in words, once: the last match told by name, as the ones before it were (words15: an
        # older "unonet join: match over: seat 2 wins; scores [...]" followed it)
        emit({"t": "match-over", **result, "last": True})
    return 0


def said_to_operator(e: HostEvent) -> bool:
    """Whether `host --no-ui` (in words) prints the table's line ``e``: not a seat's request
    refused `stale`, a catch or a jump-in that lost its race (play, not news: a bot table's log
    filled with them); ``--json`` keeps every line."""
    return not (e.kind == "refusal" and e.data.get("code") == "stale")


LEAVE_GRACE = 3.0  # after a ^C: how long the seat may take to say goodbye and end


def _left_line(presses: int, now: dict) -> str:
    """The join's last line after a ^C: whether the host was told we left."""
    op = now.get("operator")
    if op is not None and op.side is not None:  # elected: we hosted the table, and closed it
        return ("unonet join: interrupted again: stopped at once, before the table this seat hosted had closed"
                if presses > 1 else "unonet join: interrupted: closed the table this seat hosted (after an election)")
    told = "side" in now and now["side"].said_goodbye
    if presses > 1:
        return ("unonet join: interrupted again: stopped at once; " +
                ("the host had been told we left" if told else "the host was not told we left (it may hold the seat)"))
    if told:
        return "unonet join: interrupted: left the table; the host was told (it does not hold the seat)"
    return ("unonet join: interrupted: left the table without a goodbye (no link to the host then): "
            "it may hold the seat for a while")


class _ThreadedReader(trio.abc.ReceiveStream):
    """A file descriptor read in a worker thread: Windows has no ``FdStream`` (its
    consoles and pipes cannot be polled).  A read is cancelled only when the match is over:
    it is abandoned (what it reads then is dropped) and its thread ends with the process."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        return await trio.to_thread.run_sync(os.read, self._fd, max_bytes or 4096,
                                             abandon_on_cancel=True)

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()  # the descriptor is stdin's own: left open


def _stdin_stream(stdin: TextIO) -> trio.abc.ReceiveStream:
    """stdin as a trio stream: its descriptor polled, no thread, where trio can (POSIX);
    read in a worker thread where it cannot (Windows)."""
    if hasattr(trio.lowlevel, "FdStream"):
        return trio.lowlevel.FdStream(os.dup(stdin.fileno()))
    return _ThreadedReader(stdin.fileno())


async def _play_from_stdin(side: SeatSide, on_feed: Callable, stdin: TextIO, elections, matches: int = 1,
                           leave: trio.Event | None = None, now: dict | None = None):
    """This seat's actions, one per line in the scenario notation, from stdin, through any
    number of host elections (``elections(play, operator)``, `play_with_elections`): each
    line is parsed against the seat side playing now (a followed host's, or, elected, our
    own seat at our table) and goes to whichever of them is current."""
    send, recv = trio.open_memory_channel(64)
    current = [side]
    operator = Operator(None, recv, leave=leave)  # elected: our own seat, played from these lines
    if now is not None:
        now["operator"] = operator

    def playing() -> SeatSide:
        return operator.side or current[0]

    async def read_lines() -> None:
        stream = _stdin_stream(stdin)
        buf = b""
        async with stream:
            for _ in range(1 << 20):  # bounded: a script sends at most this many lines
                while b"\n" not in buf:
                    chunk = await stream.receive_some(4096)
                    if not chunk:
                        return
                    buf += chunk
                raw, buf = buf.split(b"\n", 1)
                line = raw.decode("utf-8", "replace").strip()
                if not line:
                    continue
                try:
                    value = parse_seat_action(playing(), line)
                except ValueError as exc:
                    on_feed({"t": "refused", "reason": str(exc), "input": line})
                    continue
                await send.send(value)

    async def play(lk, sd):
        current[0] = sd
        if now is not None:
            now["side"] = sd
        return await play_seat(lk, sd, on_feed=on_feed, submit=recv, leave=leave, matches=matches)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(read_lines)
        result = await elections(play, operator)
        nursery.cancel_scope.cancel()
    return result

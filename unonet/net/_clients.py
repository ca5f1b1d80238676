"""Seats for the full-screen client: ``open_seat(task_status)`` factories (docs/client.md,
"Over the LAN").  The client runs trio as a guest of its asyncio loop and calls
``await nursery.start(open_seat)``; the factory hands back a `SeatChannel` once the seat
is really ours (a full table, a wrong code or no table at all fail before that, as one
line), then keeps the session running until the client cancels it.
"""

from __future__ import annotations

import contextlib
from typing import Awaitable, Callable

import trio

from unonet import feed as F
from unonet.protocol import Identity, load_or_create_identity

from ._discovery import DISCOVERY_PORT, FoundTable
from ._game import HostGame, Operator, SeatGame, bot_step, run_local_seat
from ._host import HostTable, TableConfig
from ._errors import LinkError
from ._election import election_news, play_with_elections
from ._join import FEED, JoinFailed, SeatChannel, describe_end, play_seat, reach_table, take_seat
from ._operator import OperatorFeed
from ._seat import SeatSide, feed_match_over, host_news
from ._serve import listener_port, open_listeners

__all__ = ["join_seat", "host_seat"]

Pick = Callable[[list[FoundTable]], Awaitable[FoundTable | None]]


def join_seat(address: str | None, *, name: str, code: str | None = None, bind: str | None = None,
              discovery_port: int = DISCOVERY_PORT, timeout: float = 1.0, identity: Identity | None = None,
              pick: Pick | None = None, bot: bool = False, bot_pace: float = 0.0):
    """``open_seat`` for `unonet join`: discovery (``pick`` chooses among several tables;
    without it, several are an error listing them), connect, wait for the seat.  ``bot``:
    a bot plays the seat while the screen shows it (``join --bot`` with a screen)."""
    async def open_seat(task_status=trio.TASK_STATUS_IGNORED) -> None:
        ident = identity or load_or_create_identity()
        # a joiner listens from the start where it would host if elected (spec §7)
        listeners = await open_listeners(0, bind)
        try:
            link, found = await reach_table(address, ident, name=name, code=code, bind=bind,
                                            discovery_port=discovery_port, timeout=timeout, pick=pick,
                                            listen=listener_port(listeners))
        except LinkError as exc:  # one line saying what to do (a changed key: --code)
            raise describe_end(exc) from None
        table_name = found.beacon.name if found is not None else None
        side = SeatSide(name=name, identity=ident, host_public=link.peer_fair_identity, game_factory=SeatGame)
        side.table_name = table_name or ""  # the beacon's; the roster's name, when it comes, wins
        side.bot_pace = bot_pace
        side.manual_ready = not bot  # the player reads each round's result, then presses Enter
        side.screen = True           # and sees the table built from the seat's own engine copy
        side.join_code = link.peer_id and _code(link)
        await take_seat(link, side)
        feed_send, feed_recv = trio.open_memory_channel(FEED)
        sub_send, sub_recv = trio.open_memory_channel(64)
        leave = trio.Event()
        task_status.started(SeatChannel(feed_recv, sub_send, leave))
        await play_through_elections(link, side, ident, listeners, feed_send, sub_recv, leave,
                                     bot=bot, discovery_port=discovery_port if address is None else None)

    return open_seat


async def play_through_elections(link, side: SeatSide, identity: Identity, listeners, feed: trio.MemorySendChannel,
                                 submit: trio.MemoryReceiveChannel, leave: trio.Event, *, bot: bool,
                                 discovery_port: int | None) -> dict | None:
    """Play the seat on the client's channel through any number of host elections
    (`play_with_elections`): the screen is told (`feed.Election`) and follows the new
    host with the same feed and keys, or, elected, hosts the table with the person at the
    keyboard (or the bot) still playing its own seat.  The feed ends here: `feed.MatchOver`,
    or a fatal `feed.TableProblem` (then the failure is raised, as `play_seat` does)."""

    current = [side]

    def emit(line: dict) -> None:  # play_with_elections' lines, for the screen
        try:
            if line.get("t") == "election":
                feed.send_nowait(election_news(line))
            elif line.get("t") == "reconnected":
                feed.send_nowait(F.Notice("the link to the host dropped for a moment: back in our seat",
                                          kind="link-back"))
            elif line.get("t") == "link-lost":  # (between matches: the host is tried again)
                feed.send_nowait(F.Notice(line["text"], None, "dropped"))
            elif line.get("t") == "host-gone" and line.get("text"):  # (between matches: no next one here)
                feed.send_nowait(F.Notice(line["text"], None, "closed"))
        except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            pass

    on_event = told_to(feed)  # as the elected host: what its operator would be told

    async def play(lk, sd):
        current[0] = sd
        # a person stays at the table for the next match, as long as the host offers one
        result = await play_seat(lk, sd, feed=feed, submit=submit, leave=leave, keep_feed=True,
                                 bot_step=bot_step if bot else None, matches=None)
        return result

    failure: JoinFailed | None = None
    result = None
    try:
        result = await play_with_elections(link, side, identity=identity, listeners=listeners, play=play,
                                           game_factory=SeatGame, emit=emit, on_event=on_event,
                                           operator=Operator(feed, submit, bot=bot, leave=leave),
                                           discovery_port=discovery_port)
    except JoinFailed as exc:
        failure = exc
        raise
    finally:
        with trio.move_on_after(1.0):
            if failure is not None:
                await feed.send(F.TableProblem(str(failure), fatal=True, cheat=failure.cheat,
                                               goodbye=getattr(failure, "goodbye", False)))
            elif result is not None and current[0].over is not None:
                # (a match's end the seat session has not told yet; elected, our own seat's
                # screen said it; between matches, play_seat told each as it came)
                await feed.send(feed_match_over(current[0]))
            elif result is None and current[0].closed and not leave.is_set() and not current[0].matches_played:
                # the host said goodbye in its lobby (its q): the screen must not wait on for a start
                await feed.send(F.TableProblem("the host closed the table before the match started", fatal=True,
                                               goodbye=True))
        await feed.aclose()
    return result


def told_to(feed: trio.MemorySendChannel, also=None):
    """A table's ``on_event`` for the client that hosts it (its own, or elected): what its
    operator's screen is told (`host_news`), never waiting on the screen; ``also`` sees every event."""
    def on_event(e) -> None:
        if also is not None:
            also(e)
        news = host_news(e)
        if news is not None:
            with contextlib.suppress(trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
                feed.send_nowait(news)
    return on_event


def _code(link) -> str:
    from unonet.fingerprint import join_code

    return join_code(link.peer_static)


def host_seat(config: TableConfig, *, identity: Identity | None = None, on_event=None):
    """``open_seat`` for `unonet host` in the client: the table runs in the nursery, the
    operator's own seat (or, with --dealer-only, a watcher's lobby) is the channel."""
    async def open_seat(task_status=trio.TASK_STATUS_IGNORED) -> None:
        ident = identity or load_or_create_identity()
        feed_send, feed_recv = trio.open_memory_channel(FEED)
        sub_send, sub_recv = trio.open_memory_channel(64)
        leave = trio.Event()

        table = HostTable(config, ident, game_factory=_host_game, on_event=told_to(feed_send, on_event),
                          local_seat=run_local_seat(None, Operator(feed_send, sub_recv)))
        if config.dealer_only:
            # no seat, so no seat copy: the watcher's screen from the host's own round (every
            # hand hidden); a seated operator's screen comes from its seat's copy (SeatGame)
            table.on_game = OperatorFeed(-1, feed_send.send_nowait)
        async with trio.open_nursery() as nursery:
            await nursery.start(table.run)
            if config.dealer_only:  # no seat of our own: the operator watches the lobby
                nursery.start_soon(_watch_lobby, table, feed_send, sub_recv)
            task_status.started(SeatChannel(feed_recv, sub_send, leave))
            await leave.wait()
            table.close()  # (its last words reach every peer before the links close)
        await feed_send.aclose()  # the table has closed: the screen's feed ends

    return open_seat


async def _watch_lobby(table: HostTable, feed: trio.MemorySendChannel, submit: trio.MemoryReceiveChannel) -> None:
    """A dealer-only operator's channel: the lobby on every roster change (me=None), and
    Start.  (The match itself is watched from the host's log lines until an observer seat
    exists.)"""
    side = SeatSide(name=table.config.host_name, identity=table.identity)
    side.table_name, side.join_code, side.players = table.config.name, table.join_code, table.config.players
    side.operator = True
    side.kept_away = table.kept_away

    async def starts() -> None:
        async for value in submit:
            if isinstance(value, F.Start):
                table.start()

    async with trio.open_nursery() as n:
        n.start_soon(starts)
        epoch, reopened = -1, 0
        while True:
            roster = table.roster()
            # the table back in its lobby after a match is news too (play14: every seat in place,
            # the roster had not changed, and Max's screen never offered the next match: "Q to quit.")
            back = table.state == "lobby" and table.matches_played != reopened
            if roster.epoch != epoch or back:
                epoch = roster.epoch
                reopened = table.matches_played if table.state == "lobby" else reopened
                side.roster = roster
                side.can_start = table.state == "lobby"
                await feed.send(side.lobby())
            await trio.sleep(0.25)


def _host_game(table):
    return HostGame(table)

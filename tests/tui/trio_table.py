"""A seat channel made of the real engine and bots, driven by trio, with no network.

`TrioSeat` offers what the session's `SeatChannel` offers (``feed`` a trio memory
channel of feed values, ``async submit``, ``async leave``) on top of a `LocalTable`: the
guest-run client is tested against real trio and the real engine before (and beside) the
LAN session.  ``open_seat`` is what `run_remote_async` runs.
"""

from __future__ import annotations

import math

import trio

from unonet import feed
from unonet.engine import Phase


class TrioSeat:
    def __init__(self, table, *, lobby: feed.Lobby | None = None, race_limit: float = 0.3,
                 problem_after: int | None = None, problem: feed.TableProblem | None = None,
                 hold_ready: bool = False) -> None:
        self.table = table
        # a LAN host deals the next round once every player is ready: with ``hold_ready``
        # our Ready waits in ``held`` until `release` (the others being ready)
        self.hold_ready = hold_ready
        self.held: list = []
        self.lobby = lobby
        self.race_limit = race_limit
        self.problem_after = problem_after   # inject ``problem`` after this many feed batches
        self.problem = problem
        self.batches = 0
        self.submitted: list = []
        self.left = False
        self._send = None
        self.feed = None
        self._changed = None
        self._start = None

    # ------------------------------------------------------------------ the channel
    async def submit(self, value) -> None:
        self.submitted.append(value)
        if isinstance(value, feed.Start):
            if self._start.is_set():
                self._push([feed.Refused("the match has started", value)])
            else:
                self._start.set()
            return
        if self.problem is not None and self.batches >= (self.problem_after or 0) and self.problem.fatal:
            self._push([feed.Refused("the table has stopped", value)])
            return
        if self.hold_ready and isinstance(value, feed.Ready):
            self.held.append(value)
            return
        self.table.submit(value)  # a refusal comes back on the feed (feed.Refused)

    def release(self) -> None:
        """The other players are ready too: the held Ready reaches the table (its deal)."""
        held, self.held = self.held, []
        for value in held:
            self.table.submit(value)
        if self._changed is not None:
            self._changed.set()

    async def leave(self) -> None:
        self.left = True
        if self._send is not None:
            self._send.close()

    # ------------------------------------------------------------------ the producer
    def _push(self, messages) -> None:
        if self._send is None or self.left:
            return
        for m in messages:
            try:
                self._send.send_nowait(m)
            except trio.ClosedResourceError:
                return
        self.batches += 1
        if self.problem is not None and self.batches == self.problem_after:
            self._send.send_nowait(self.problem)
        if self._changed is not None:
            self._changed.set()

    async def open_seat(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Hand this channel over, show the lobby until Start, then run the match's bots."""
        self._send, self.feed = trio.open_memory_channel(math.inf)
        self._changed = trio.Event()
        self._start = trio.Event()
        self.table.subscribe(self._push)
        task_status.started(self)
        if self.lobby is not None:
            self._push([self.lobby])
            await self._start.wait()
        else:
            self._start.set()
        t = self.table
        t.start()
        for _ in range(1_000_000):
            if self.left:
                return
            if t.match.over and t.rnd is not None and t.rnd.outcome is not None:
                break
            self._changed = trio.Event()
            due = t.due()
            if due is None:
                await self._changed.wait()
                continue
            if due.kind == "close":
                with trio.move_on_after(self.race_limit):
                    await self._changed.wait()
                    continue
            elif due.kind == "race" and t.rnd.phase is Phase.RACE and t.human_racing():
                await trio.sleep(0.05)
            else:
                await trio.sleep(0)
            t.perform(due)
        rounds = len(t.match.history)
        self._push([feed.match_over(t.match, rounds, t.names, ledger="ab" * 32)])
        self._send.close()
        await trio.sleep_forever()

"""What a scorekeeper's rows say about a table's matches and players: a match row opened when
the match starts (history's time), and a host's bots as the same players match after match
(issue 21 item 10).  A real in-process table on loopback, a real observer link, a real
SQLite file."""

from __future__ import annotations

import trio

import unonet.protocol as P
from unonet.engine import make_rules
from unonet.net._game import HostGame, run_local_seat
from unonet.net._host import HostTable
from unonet.net._join import connect_table, play_seat
from unonet.net._election import play_with_elections
from unonet.net._observe import ObserverSide
from unonet.protocol._schema import OBSERVER
from unonet.store import ScoreStore, history, standings
from unonet.store.attach import Recorder

from ..net.session_helpers import config


async def _run_table(host_id: P.Identity, recorder: Recorder, matches: int, seen: list) -> None:
    """One run of a host (``host_id``'s keys; its own seat and two bots) that plays
    ``matches`` matches to 60 with a scorekeeper attached from the start."""
    cfg = config(3, rules=make_rules("official", [], target=60), bots=2, turn_timeout=0.01, matches=matches)
    table = HostTable(cfg, host_id, local_seat=run_local_seat(None), game_factory=HostGame)
    async with trio.open_nursery() as nursery:
        await nursery.start(table.run)
        link = await connect_table("127.0.0.1", table.port, P.Identity.generate(), name="keeper", role=OBSERVER)
        side = ObserverSide(name="keeper", host_public=link.peer_fair_identity, on_round=recorder.round,
                            on_match_over=recorder.match_over, on_match_begin=recorder.begin)

        async def play(lk, sd):
            return await play_seat(lk, sd, seated=True)

        closed = trio.Event()

        async def observe():
            await play_with_elections(link, side, identity=P.Identity.generate(), listeners=None, play=play,
                                      game_factory=None, emit=lambda x: None)
            closed.set()

        nursery.start_soon(observe)
        with trio.fail_after(120):
            while not table.observers:
                await trio.sleep(0.01)
            for i in range(matches):
                table.start()
                while table.matches_played <= i:
                    await trio.sleep(0.02)
                seen.append([(s.name, s.peer_id) for s in table.book.seats])
            await closed.wait()  # the table closes after its matches; the scorekeeper with it
        nursery.cancel_scope.cancel()


def test_a_hosts_bots_are_the_same_players_and_a_match_row_opens_at_its_start(tmp_path):
    host_id = P.Identity.generate()  # the host's own long-term keys (one user, two runs of `unonet host`)
    seen: list = []
    rows_at_first_round: list = []
    with ScoreStore.open(tmp_path / "s.db") as store:
        recorder = Recorder(store)
        plain_round = recorder.round

        def round_(ledger, entry, names):
            if ledger.rounds == 1:  # the match's first round, as it is signed off
                rows_at_first_round.append(store.conn.execute(
                    "SELECT rounds FROM matches WHERE match_key = ?", (ledger.header.match,)).fetchone())
            plain_round(ledger, entry, names)

        recorder.round = round_
        trio.run(_run_table, host_id, recorder, 2, seen)  # two matches at one table
        trio.run(_run_table, host_id, recorder, 1, seen)  # the same host again, another table
        # the match row is there before its first round is recorded: opened when it began,
        # so history's time is the match's start, not its first round's
        assert rows_at_first_round == [(0,), (0,), (0,)]
        bots = [{(n, k) for n, k in match if n.endswith("(bot)")} for match in seen]
        assert len(bots) == 3 and len(bots[0]) == 2 and bots[0] == bots[1] == bots[2]
        assert len({k for _, k in bots[0]} | {bytes(host_id.fingerprint)}) == 3
        rows = standings(store)
        assert len(rows) == 3 and all(r.matches == 3 for r in rows), [(r.name, r.matches) for r in rows]
        assert sorted(r.name for r in rows if r.name.endswith("(bot)")) == sorted(n for n, _ in bots[0])
        assert len(history(store)) == 3

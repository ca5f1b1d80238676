"""The join picker: tables found by discovery, chosen with the arrow keys and Enter."""

from __future__ import annotations

import asyncio

import pytest

from prompt_toolkit.input import create_pipe_input

from unonet.net import FoundTable, fingerprint_code
from unonet.protocol import Beacon
from unonet.tui.picker import Picker, pick_table_async, table_rows

from .test_app import SizedOutput


def found(name, address="127.0.0.1", port=47801, *, taken=1, seats=4, compatible=True, host="Pat",
          house=()):
    b = Beacon(v=1, vmin=1, table=bytes(16), name=name, host=host, port=port, seats=seats, taken=taken,
               rules="official", house=house, teams=False, target=500, state="lobby", fp=bytes(range(32)))
    return FoundTable(address, b, compatible, 1 if compatible else None, True)


def pick(tables, keys):
    async def main():
        with create_pipe_input() as inp:
            inp.send_text(keys)
            return await asyncio.wait_for(pick_table_async(tables, input=inp, output=SizedOutput()), 10)

    return asyncio.run(main())


def test_arrow_keys_and_enter_pick_a_table():
    tables = [found("Pat's table"), found("Kim's", "127.0.0.2", 47802)]
    assert pick(tables, "\x1b[B\r") is tables[1]       # Down, Enter
    assert pick(tables, "\r") is tables[0]
    assert pick(tables, "\x1b[B\x1b[B\r") is tables[0]  # wraps round


def test_q_cancels():
    assert pick([found("Pat's table")], "q") is None


def test_an_incompatible_table_cannot_be_picked_and_one_whose_beacon_says_full_can():
    """A beacon saying "full" is the host's to decide (its bots make way for a newcomer; a
    stranger's beacon may say it of the real table): tests/net/test_make_way.py."""
    old = found("Old", compatible=False)
    full = found("Full", taken=4, seats=4)
    ok = found("Ok")
    p = Picker([old, full, ok])
    assert p.selected == 0 + 1  # the cursor starts on the first compatible one (Full)
    p.pick()
    assert p.done and p.choice is full
    p = Picker([old, full, ok])
    p.move(-1)
    p.pick()
    assert not p.done and "speaks protocol v1..v1, which this unonet does not" in p.message
    p.move(-1)
    p.pick()
    assert p.done and p.choice is ok
    assert pick([old, ok], "\x1b[A\r\x1b[B\r") is ok  # Up to the old one: refused; Down, Enter


def test_rows_show_what_a_player_needs():
    t = found("Pat's table", host="Pat", house=("stacking",))
    first, second = table_rows(t, 77)
    assert first == "Pat's table          host Pat          1/4 seats  official +stacking, to 500"
    assert second == f"127.0.0.1:47801   code {fingerprint_code(bytes(range(32)))}   protocol v1"
    assert table_rows(found("Old", compatible=False))[1].endswith("INCOMPATIBLE (speaks v1..v1)")
    lines = [text for _s, text in Picker([found("A"), found("B")]).lines()]
    assert lines[2].startswith("> A") and lines[3].startswith("    127.0.0.1:47801")
    assert lines[4].startswith("  B")


def test_the_picker_runs_from_trio_inside_the_client_then_the_table_opens():
    import trio

    from unonet.tui.picker import pick_in_client
    from unonet.tui.remote import ConnectError, run_remote_async

    from .test_remote import LOBBY, two_player_table
    from .trio_table import TrioSeat

    tables = [found("Pat's table"), found("Kim's", "127.0.0.2", 47802)]
    chosen = []
    seat = TrioSeat(two_player_table(), lobby=LOBBY)

    async def open_seat(task_status=trio.TASK_STATUS_IGNORED):
        chosen.append(await pick_in_client(tables))
        await seat.open_seat(task_status=task_status)

    async def main(keys):
        with create_pipe_input() as inp:
            inp.send_text(keys)
            status, ui = await asyncio.wait_for(
                run_remote_async(open_seat, input=inp, output=SizedOutput()), 10)
            return status, ui

    async def pick_then_leave():
        with create_pipe_input() as inp:
            task = asyncio.ensure_future(run_remote_async(open_seat, input=inp, output=SizedOutput()))
            inp.send_text("\x1b[B")
            await asyncio.sleep(0.3)
            inp.send_text("\r")
            for _ in range(500):
                if seat.feed is not None:
                    break
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.3)
            inp.send_text("q")  # the lobby: q leaves at once
            return await asyncio.wait_for(task, 10)

    status, ui = asyncio.run(pick_then_leave())
    assert chosen == [tables[1]] and status == 0 and ui.view.lobby == LOBBY and seat.left

    chosen.clear()
    with pytest.raises(ConnectError, match="^no table chosen: nothing joined$"):
        asyncio.run(main("q"))
    assert chosen == []

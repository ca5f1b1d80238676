"""A stranger on the LAN against the lobby's rule that bots give way to people
(`SeatBook.bot_giving_way`, `HostTable._make_way`, spec §5): joining under a seated
person's name takes no person's seat and evicts nobody; at a host that pins its players'
keys, joining under a known player's name does not take the seat its bot keeps for that
player.  Real sockets on loopback."""

from __future__ import annotations

import unonet.net as N
import unonet.protocol as P
from unonet.net._game import run_local_seat
from unonet.net._seats import BOT_KIND, SeatBook, Sitter

from .net_helpers import run
from .session_helpers import config, join, live_table, receive_until, refused
from .test_session import _until


def test_the_bot_kept_for_a_known_player_is_never_taken_by_its_name_and_goes_last():
    book = SeatBook(4, reserved=1)
    for seat, name in ((0, "ana"), (1, "hal (bot)"), (2, "Ben (bot)"), (3, "Cy (bot)")):
        book.sit(lambda s, name=name: Sitter(s, name, BOT_KIND if seat else "remote", bytes([s]) * 32, None),
                 seat=seat)
    assert book.bot_giving_way("hal").seat == 1  # (no pins: the bot standing in for hal, as before)
    assert book.bot_giving_way("eve").seat == 1  # (else the lowest)
    kept = frozenset({"hal"})
    assert book.bot_giving_way("hal", kept).seat == 2  # a stranger under hal's name: not hal's seat
    assert book.bot_giving_way("eve", kept).seat == 2  # hal's seat goes last
    book.stand(2)
    assert book.bot_giving_way("eve", kept).seat == 1  # (last, not never: seat 3 is the --bots seat)


def _seats(table) -> list[tuple[int, str, str]]:
    return [(s.seat, s.name, s.kind) for s in table.book.seats if s is not None]


def test_a_stranger_under_a_seated_persons_name_takes_a_bots_seat_and_never_the_persons():
    async def main():
        async with live_table(config(4), local_seat=run_local_seat(None)) as table:
            ana_id = P.Identity.generate()
            ana = await N.connect("127.0.0.1", table.port, ana_id, name="ana", timeouts=N.Timeouts(idle=3.0))
            await receive_until(ana, P.Roster)
            table.start()  # the operator's start: the empty seats get bots (no match driver here)
            await _until(lambda: table.book.full)
            fakes, seats = [], []
            for _ in range(2):  # two strangers both calling themselves "ana": each takes a bot's seat
                fake = await join(table, "ana")
                seat, _ = await receive_until(fake, P.SeatAssignment)
                fakes.append(fake)
                seats.append(seat.seat)
            assert seats == [2, 3]
            third = await join(table, "ana")  # no bot left: refused, nobody evicted
            await refused(third, "full", "a third 'ana' was seated at a table of people")
            book = _seats(table)
            assert book[1] == (1, "ana", "remote") and table.book.seats[1].connected, book
            assert [n for _, n, _ in book].count("ana") == 1, book  # the strangers sit renamed
            assert table.book.seats[1].key == ana_id.static_public  # the seat is still ana's key's
            assert any(p.sitter is table.book.seats[1] and not p.gone for p in table.peers)  # on her link
            for lk in [ana, *fakes]:
                await lk.aclose()

    run(main)


def test_a_stranger_under_a_known_players_name_does_not_take_the_seat_kept_for_that_player():
    """A host that pins its players (``unonet host``): "hal" is known with hal's key, and a bot
    of this host sits under that name (what an elected table leaves for a player that did not
    follow it, `_bots_for_the_away`).  A stranger that joins as "hal" sits renamed in another bot's
    seat; hal, back with its own key, gets the seat its bot kept (on main the stranger took it
    and hal got the other)."""
    hal, eve = P.Identity.generate(), P.Identity.generate()
    P.KnownPeers().check("player:hal", hal.static_public, hal.sign_public)  # hal played here before

    async def main():
        async with live_table(config(4, pin_players=True), local_seat=run_local_seat(None)) as table:
            table._add_local(BOT_KIND, None, None, seat=1)
            table._add_local(BOT_KIND, "hal", None, seat=2)
            table._add_local(BOT_KIND, None, None, seat=3)
            await _until(lambda: table.book.full)
            fake = await N.connect("127.0.0.1", table.port, eve, name="hal", timeouts=N.Timeouts(idle=3.0))
            fake_seat, _ = await receive_until(fake, P.SeatAssignment)
            real = await N.connect("127.0.0.1", table.port, hal, name="hal", timeouts=N.Timeouts(idle=3.0))
            real_seat, _ = await receive_until(real, P.SeatAssignment)
            book = _seats(table)
            loud = [e.text for e in table.events if e.data.get("code") == "key-changed"]
            for lk in (fake, real):
                await lk.aclose()
            return fake_seat.seat, real_seat.seat, book, loud

    fake_seat, real_seat, book, loud = run(main)
    assert real_seat == 2 and book[2] == (2, "hal", "remote"), book
    assert fake_seat != 2 and book[fake_seat][1] != "hal" and book[fake_seat][2] == "remote", book
    # (the stranger sits renamed, and the host is told a known name came with another key)
    assert book[fake_seat][1] == "hal-2" and len(loud) == 1 and "KEY CHANGED for player 'hal'" in loud[0], (book, loud)


def test_a_table_whose_beacon_says_full_between_matches_seats_a_friend_and_the_picker_lets_one_pick_it():
    """A table whose empty seats got bots at the start says 4/4 seats in its beacon while in the
    lobby, and yet seats a newcomer (a bot makes way).  The join picker refused such a table
    on its beacon's word ("X is full"), so a friend could not sit down between matches; and a
    stranger's beacon - its copy of the real one, from the real table's address - could say
    the same of any table to hide it.  Now the picker lets the player pick it and the host
    decides."""
    from unonet.net import FoundTable
    from unonet.tui.picker import Picker

    async def main():
        async with live_table(config(4), local_seat=run_local_seat(None)) as table:
            table.start()  # the operator's start: the empty seats get bots (no match driver here)
            await _until(lambda: table.book.full)
            beacon = table.beacon()
            picker = Picker([FoundTable("127.0.0.1", beacon, True, beacon.v, True)])
            picker.pick()
            friend = await join(table, "kim")
            seat, _ = await receive_until(friend, P.SeatAssignment)
            await friend.aclose()
            return beacon, picker, seat

    beacon, picker, seat = run(main)
    assert beacon.state == "lobby" and beacon.taken == beacon.seats == 4
    assert seat.seat in (1, 2, 3)  # the table had a seat for the friend ...
    assert picker.done and picker.choice is not None, picker.message  # ... and the picker lets it be picked

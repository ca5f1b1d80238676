"""A scorekeeper that disputes round 1 after the seats' seed reveals and before the deal's
`start` record (here a host that cuts its deal record short) stores the dealer every verifier
draws from those reveals (protocol version 4, spec §6.1 "Dealer draw") - review19: it stored
the engine Match's placeholder, seat 0, a dealer nobody drew."""

from __future__ import annotations

import trio

from unonet.engine import make_rules
from unonet.net._game import HostGame

from ..net.session_helpers import config, lines
from ..net.test_session_match import _remote_seat
from .test_attach import _db, _keeper_beside, _rounds, _score_cli

DRAWN: list = []


def _cutting(table):
    """A host whose round-1 `start` record leaves out its last event (the scorekeeper refuses
    it and disputes the round); it notes the dealer the reveals drew."""
    game = HostGame(table)

    def tamper(data):
        if data.get("g") == "start" and not DRAWN:
            DRAWN.append(game.host.round.dealer)  # the dealer every verifier draws from the reveals
            data = dict(data, ev=list(data["ev"])[:-1])  # the host's lie: its deal record cut short
        return data

    game.host.tamper_game = tamper
    return game


def _once():
    rules = make_rules("official", [], target=1000)
    cfg = config(2, rules=rules, dealer_only=True, autostart=True, turn_timeout=0.01)
    db = _db()
    seats: dict = {}
    DRAWN.clear()

    async def caught(port, name):
        try:
            await _remote_seat(port, name, seats)
        except Exception as exc:  # noqa: BLE001
            seats[name]["error"] = exc

    async def play(table):
        async with trio.open_nursery() as n:
            for name in ("p0", "p1"):
                n.start_soon(caught, table.port, name)

    code, out, err = _keeper_beside(cfg, db, play, game_factory=_cutting)
    rounds = _rounds(lines(out))
    assert code == 1 and [(r["round"], r["status"]) for r in rounds] == [(1, "disputed")], (code, err, rounds)
    text = _score_cli("match", "1", "--db", db).stdout
    row = next(ln.split() for ln in text.splitlines() if ln.split()[:1] == ["1"])
    # (the seats are taken in the order the two joins arrive: the names by seat, from the record)
    names = [part.split(" (")[0].strip() for part in
             next(ln for ln in text.splitlines() if ln.strip().startswith("seats:")).split(":", 1)[1].split(",")]
    return DRAWN[0], names, row[1], text


def test_a_round_one_disputed_before_its_deal_is_stored_with_the_drawn_dealer():
    """Played until the reveals draw seat 1, which the placeholder (seat 0) is not."""
    for _ in range(12):
        drawn, names, stored, text = _once()
        if drawn == 1:
            break
    assert drawn == 1, "the reveals never drew seat 1 in 12 matches"
    assert stored == names[1] != names[0], text

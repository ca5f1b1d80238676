"""Issue 22 over real loopback links. Class 1: a host that flips one byte of a remote seat's
signed word while relaying it is convicted by every remote seat (the seat named in the
message included) and by `unonet audit` of its own transcript; no seat is ever named.
Classes 2 and 3: a host that swallows a seat's seed reveal and aborts blaming it, or stands in
for a seat that is connected, is refused by that seat, naming the host."""

from __future__ import annotations

import dataclasses

import trio

import unonet.net as N
import unonet.protocol as P
from unonet.engine import make_rules
from unonet.fair._events import Act, PlayerReveal
from unonet.net._game import HostGame, SeatGame, bot_step, run_local_seat
from unonet.net._join import play_seat
from unonet.net._seat import SeatSide
from unonet.table import audit_transcript

from tests.net.net_helpers import run
from tests.net.session_helpers import config, live_table
from tests.adversaries.helpers import assert_unproven


def _relaying_host(kind, change, games: list):
    """A HostGame whose TableHost checks each seat message, then publishes (relays and
    records) it changed: the first `kind` event of seat 1 goes out as `change(event)`."""
    def factory(table):
        game = HostGame(table)
        host = game.host
        real = host._publish
        host.tampered = []

        def publish(events):
            out = []
            for e in events:
                if not host.tampered and isinstance(e, kind) and e.seat == 1:
                    e = change(e)
                    host.tampered.append(e)
                out.append(e)
            return real(out)
        host._publish = publish
        games.append(game)
        return game
    return factory


async def _remote_seat(port: int, name: str, out: dict) -> None:
    ident = P.Identity.generate()
    link = await N.connect("127.0.0.1", port, ident, name=name, timeouts=N.Timeouts(idle=3.0))
    side = SeatSide(name=name, identity=ident, host_public=link.peer_fair_identity, game_factory=SeatGame)
    out[name] = {"side": side}
    try:
        out[name]["result"] = await play_seat(link, side, bot_step=bot_step)
    except Exception as exc:  # noqa: BLE001 - the JoinFailed is what the test looks at
        out[name]["error"] = exc


def _against(factory, *, stop=None, target=60, **cfg) -> dict:
    """Two remote bot seats play against the host `factory` makes (a dealer-only host) until
    both are done, or until `stop(seats)` holds; returns each seat's side and result or error."""
    rules = make_rules("official", [], target=target)
    seats: dict = {}

    async def main():
        async with live_table(config(2, rules=rules, dealer_only=True, autostart=True, **cfg), game_factory=factory,
                              local_seat=run_local_seat(None)) as table:
            with trio.fail_after(60):
                async with trio.open_nursery() as n:
                    for name in ("p0", "p1"):
                        n.start_soon(_remote_seat, table.port, name, seats)
                    while stop is not None and not stop(seats):
                        await trio.sleep(0.02)
                    if stop is not None:
                        n.cancel_scope.cancel()

    run(main)
    return seats


def _mount(kind, change) -> tuple[dict, list]:
    games: list = []
    return _against(_relaying_host(kind, change, games), turn_timeout=0.05), games


def _flip(b: bytes, at: int = 0) -> bytes:
    return b[:at] + bytes([b[at] ^ 1]) + b[at + 1:]


def _assert_host_convicted(seats: dict, games: list, match: str) -> None:
    for name in ("p0", "p1"):
        err = seats[name].get("error")
        assert err is not None, f"{name} played on: {seats[name].get('result')}"
        assert err.cheat, f"{name}: {err}"
        text = str(err)
        assert "the host failed a fair-play check: the host " in text, f"{name}: {text}"
        victim = seats[name]["side"].seat == 1
        assert ("not ours" in text or "never made" in text) if victim else match in text, f"{name}: {text}"
    (game,) = games
    (bad,) = game.host.tampered
    report = audit_transcript(game.transcript())  # the host's record, rebuilt from its wire history
    relayed = [m.event() for m in game.history if isinstance(m, P.Fair)]
    line = next(i for i, e in enumerate(relayed, 1) if e == bad)
    # (its record stops at the lie: no round it signed covers it, so the file alone blames nobody)
    assert_unproven(report, line=line, match=match)


def test_a_host_that_flips_a_byte_of_a_seed_reveal_on_the_wire_is_convicted_not_the_seat():
    seats, games = _mount(PlayerReveal, lambda e: dataclasses.replace(e, secret=_flip(e.secret, 3)))
    _assert_host_convicted(seats, games, "does not match its commitment")


def test_a_host_that_flips_a_byte_of_an_acts_signature_on_the_wire_is_convicted_not_the_seat():
    seats, games = _mount(Act, lambda e: dataclasses.replace(e, sig=_flip(e.sig, 9)))
    _assert_host_convicted(seats, games, "is not signed by seat 1")


# ------------------------------------------------------ classes 2 and 3 over loopback
class _Withholding(HostGame):
    """Takes seat 1's seed reveal off the wire (now it could know the deck) and aborts at once,
    naming seat 1 as the staller."""

    def on_message(self, peer, msg):
        if peer.seat == 1 and getattr(msg, "ev", None) == "player-reveal":
            self._relay(self.host.timeout(1, "reveal-seed"))
            return
        super().on_message(peer, msg)


class _StandingIn(HostGame):
    """Plays seat 1's first turn itself as a 'stand-in', though seat 1 is connected."""

    def _plan_deadline(self, restart=True):
        rnd = self.host.round
        if rnd is not None and not rnd.over and rnd.phase.value == "play" and rnd.turn == 1 \
                and not getattr(self, "stood", False):
            self.stood = True
            self._relay(self.host.stand_in(1, rnd.legal_actions(1)[-1]))
            return
        super()._plan_deadline(restart)


def _mount_game(cls) -> dict:
    """The seat in seat 1 once it stopped, refusing the host `cls`."""
    def victim_erred(seats):
        return any("error" in v and v["side"].seat == 1 for v in seats.values())
    seats = _against(cls, stop=victim_erred, turn_timeout=5.0, hold_seats=0.5)
    return next(v for v in seats.values() if v["side"].seat == 1)


def test_a_host_that_withholds_a_reveal_on_the_wire_and_blames_its_sender_is_refused_by_it():
    victim = _mount_game(_Withholding)
    err = victim["error"]
    assert err.cheat and "the host aborts round 1 (attempt 1) naming seat 1 as stalling, but seat 1 sent its " \
                         "seed reveal: the host withheld it" in str(err), err


def test_a_host_that_stands_in_for_a_connected_seat_on_the_wire_is_refused_by_it():
    victim = _mount_game(_StandingIn)
    err = victim["error"]
    assert err.cheat and "the host stands in for seat 1" in str(err) and "at the table" in str(err), err

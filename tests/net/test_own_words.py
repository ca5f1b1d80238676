"""The host's process verifies the words of remote seats only (docs/fair-play.md §11.15): its
own seat's and its bots' acts and co-signs, and its own commitments and round ends, are found
among the signatures it made; a remote player's are verified, each, and a remote player still
checks everything and agrees with the host's result."""

from __future__ import annotations

import trio

from unonet.engine import make_rules
from unonet.fair import _identity
from unonet.net._game import HostGame, run_local_seat
from unonet.net._seats import REMOTE_KIND

from tests.net.net_helpers import run
from tests.net.session_helpers import config, finish, lines, live_table, reaped, unonet


def test_the_host_verifies_no_word_of_its_own_seats_and_every_remote_one(monkeypatch):
    checked: list[bytes] = []  # the Ed25519 key of every check made in this (the host's) process
    real = _identity._ed25519_ok

    def counted(key, sig, msg):
        checked.append(key)
        return real(key, sig, msg)

    monkeypatch.setattr(_identity, "_ed25519_ok", counted)
    rules = make_rules("official", [], target=40)
    cfg = config(3, rules=rules, bots=1, autostart=True, turn_timeout=2.0)

    async def main():
        async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
            joiner = unonet("join", "--no-ui", "--json", "--bot", "--name", "far", f"127.0.0.1:{table.port}")
            with reaped(joiner):
                with trio.fail_after(120):
                    while table.result is None:
                        await trio.sleep(0.05)
                seats = list(table.book.seats)
                await trio.to_thread.run_sync(finish, joiner, 60)
            return table.result, seats, joiner

    result, seats, joiner = run(main)
    code, out, err = finish(joiner, 1)
    assert code == 0, err
    assert lines(out)[-1]["t"] == "match-over" and result["rounds"] >= 1
    remote = {s.identity.sign_key for s in seats if s.kind == REMOTE_KIND}
    own = {s.identity.sign_key for s in seats if s.kind != REMOTE_KIND}
    assert len(remote) == 1 and len(own) == 2  # the host's own seat (its key) and its bot
    assert checked.count(next(iter(remote))) >= 10  # the far seat's acts, seeds and co-signs, each
    assert not own & set(checked)  # nothing the host's process signed was verified again

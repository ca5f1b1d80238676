"""The LAN rig's tmux evening (words12): small defects of the full-screen screens' words,
each at the view-model level (`SessionView`, `SessionController`, `ScoreView`)."""

from __future__ import annotations

from unonet import feed
from unonet.tui.remote import RemoteTable
from unonet.tui.session import SessionController, SessionView

LOBBY = feed.Lobby(
    table="Pat's table", code="7KQ2-M9XD-4T",
    seats=(feed.LobbySeat(0, "Pat", "3JX8-Q2PA"), feed.LobbySeat(1, "Hal", "HH4K-77ZD"),
           feed.LobbySeat(2, "Kim", "QQ7A-1B2C")),
    me=2, host=False, can_start=False, players=3, rules="official")


def playing(me=2):
    v = SessionView()
    v.apply(LOBBY)
    v.apply(feed.TableInfo(("Pat", "Hal", "Kim"), me, "official rules"))
    v.apply(feed.RoundStarted(1, 0, (0, 0, 0)))
    return v


def test_the_election_is_said_once_in_the_status_area():
    """eve12: Kim's status area read the election sentence on its status line and again on
    the notice line under it while she waited for the new host."""
    v = playing()
    ctl = SessionController(v, RemoteTable())
    v.apply(feed.Election("Pat", "Hal", term=1))
    area = ctl.status() + "\n" + ctl.feedback()
    sentence = v.election.text
    assert area.count(sentence) == 1, area

"""A turn timeout whose default move is a play (draw-and-play: after a playable draw the only
legal move is to play it): the host's `host-act` must open the card it plays, as a stand-in's
does. Found by a soak with --turn-timeout 0.2 and --house draw-and-play: the host failed with
"the engine plays position 46 for seat 2, which no act of it opened" and closed the table."""
from __future__ import annotations

from unonet.engine import make_bot, make_rules
from unonet.table import audit_transcript
from unonet.table._round import default_action

from .helpers import match_table


def test_a_timeout_after_a_playable_draw_plays_it_and_every_seat_agrees():
    t = match_table("timeout-drawn", 3, rules=make_rules("official", ("draw-and-play",)))
    rnd = t.start_round()
    rnd.start()
    bots = [make_bot("heuristic", f"td/{s}") for s in range(3)]
    for _ in range(400):
        assert not rnd.over, "the round ended before a playable draw came"
        seat = rnd.turn
        draw = next((a for a in rnd.legal_actions(seat) if type(a).__name__ == "Draw"), None)
        if rnd.phase.value == "play" and draw is not None:
            t.act(draw)
            if not rnd.over and rnd.turn == seat and type(default_action(rnd, seat)).__name__ == "Play":
                break
            continue
        t.act(bots[seat].act(rnd, seat))
    else:
        raise AssertionError("no playable draw in 400 moves")
    out = t.host.timeout(seat, "act")
    (ha,) = [e for e in out if e.EV == "host-act"]
    assert ha.action["t"] == "play" and ha.opening is not None and ha.opening.position == ha.action["pos"], ha
    t.broadcast(out)
    assert not [(p.seat, p.violation) for p in t.everyone if p.violation is not None]
    for _ in range(400):  # the round plays on to its end; the audit then passes it whole
        if rnd.over:
            break
        t.act(bots[rnd.turn].act(rnd, rnd.turn))
    assert rnd.over and not [(p.seat, p.violation) for p in t.everyone if p.violation is not None]
    report = audit_transcript(t.lines)
    assert report.ok, report.summary

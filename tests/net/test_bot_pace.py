"""A bot's answer leaves at one pace whatever its choices (fair-play §11.9, timing): the
keep after an unplayable draw is sent as late as a real choice, so the clock tells an
observer nothing the record does not."""

from __future__ import annotations

import time

from .session_helpers import finish, first_json, lines, reaped, unonet

PACE = 0.1


def test_every_bot_answer_waits_the_pace_on_the_host_and_on_a_joiner():
    t0 = time.monotonic()
    with reaped(unonet("host", "--no-ui", "--json", "--bind", "127.0.0.1", "--port", "0",
                       "--players", "2", "--target", "20", "--bot-pace", str(PACE))) as (host,):
        port = first_json(host)["port"]
        with reaped(unonet("join", "--no-ui", "--json", "--bot", "--bot-pace", str(PACE),
                           f"127.0.0.1:{port}")) as (joiner,):
            jcode, jout, jerr = finish(joiner, 240)
            hcode, hout, herr = finish(host, 60)
    elapsed = time.monotonic() - t0
    assert (hcode, jcode) == (0, 0), (herr, jerr)
    acts = [x for x in lines(hout) if x.get("t") == "game" and x.get("g") == "act"]
    assert {a["a"]["seat"] for a in acts} == {0, 1}  # the host's own bot and the joiner's bot
    # every act answers the record before it and waits PACE after it: acts follow one another,
    # so the match lasts at least acts x PACE (unpaced, these bots take a few ms an act)
    assert elapsed >= 0.9 * len(acts) * PACE, (elapsed, len(acts))
    assert len(acts) >= 10
    over = [x for x in lines(hout) if x.get("t") == "match-over"]
    assert over and over[0]["ledger"] == [x for x in lines(jout) if x.get("t") == "match-over"][0]["ledger"]


def test_bot_pace_is_checked():
    with reaped(unonet("host", "--no-ui", "--bot-pace", "-1", "--bind", "127.0.0.1")) as (host,):
        code, _, err = finish(host, 30)
    assert code == 2 and err.strip() == "unonet: --bot-pace -1.0: give 0..3 seconds"

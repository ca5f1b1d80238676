"""A script playing its seat from `unonet join --no-ui --json`'s own lines: every `state`
line shows the seat its hand, the card on top and what it may do, so a program that knows
nothing of unonet's internals plays real cards, names colours, calls UNO and challenges --
across two matches and through the host's death, elected and playing its own seat at its
own table.  (Before the `state` line a stdin seat saw only the public record and could
only draw and keep: tests/net/test_election_people.py.)"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import signal
import subprocess
import time


from .session_helpers import finish, first_json, lines, reaped, unonet
from .test_election import LOOP, _free_udp_port



def choose(state: dict) -> dict | None:
    """A plain policy that reads nothing but the `state` line: what a script would do."""
    if state.get("can_catch") is not None:
        return {"catch": state["can_catch"]}
    if not state["you"]:
        return None
    phase, playable = state["phase"], state["playable"]
    if phase == "challenge":
        return {"challenge": True}
    if phase == "color":
        return {"color": state["colors"][0]}
    if phase == "drawn":
        card = state["drawn"]
        return _play(card, state) if card in playable else {"pass": True}
    if phase == "play":  # (a Wild Draw Four last: played with a card of the colour, it loses a challenge)
        playable = sorted(playable, key=lambda c: c == "W+4")
        return _play(playable[0], state) if playable else {"draw": True}
    return None


def _play(card: str, state: dict) -> dict:
    act = {"play": card}
    if card.startswith("W"):
        colours = [c[0] for c in state["hand"] if c[0] in state["colors"]]
        act["color"] = max(state["colors"], key=colours.count)
    if len(state["hand"]) == 2:
        act["uno"] = True
    return act


class Script:
    """Reads the join's output as it grows and answers each `state` line that asks for a
    move (and, once, a `refused` one: the move is made again from the last state)."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc, self.at, self.seen = proc, 0, []
        self.sent: list[tuple[dict, dict]] = []  # (the state answered, the action)
        self.last: dict | None = None
        self.kinds: collections.Counter = collections.Counter()  # lines seen, by type

    def step(self) -> None:
        new = lines(self.proc.out_path.read_text())[self.at:]
        self.at += len(new)
        self.seen += new
        self.kinds.update(x.get("t") for x in new)
        for x in new:
            if x.get("t") == "state":
                self.last = x
                self._answer(x)
        if new and new[-1].get("t") == "refused" and self.last is not None:
            self._answer(self.last, again=True)

    def _answer(self, state: dict, again: bool = False) -> None:
        act = choose(state)
        if act is None or (again and len(self.sent) > 4000):
            return
        self.sent.append((state, act))
        with contextlib.suppress(BrokenPipeError, ValueError, OSError):
            self.proc.stdin.write(json.dumps(act) + "\n")
            self.proc.stdin.flush()

    def run_until(self, done, limit: float = 300.0) -> None:
        """Play until ``done()`` (bounded by ``limit`` s and by the process's life)."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline and self.proc.poll() is None:
            self.step()
            if done():
                return
            time.sleep(0.02)
        self.step()
        assert done(), (self.proc.poll(), self.proc.err_path.read_text()[-2000:],
                        dict(self.kinds), [x.get("t") for x in self.seen][-30:])


def _my_plays(out: list[dict], me: int) -> list[str]:
    return [e[2] for x in out if x.get("t") == "game" and x.get("g") == "act"
            for e in x.get("ev", []) if e[0] == "Played" and e[1] == me]


def test_a_script_plays_its_hand_from_the_state_lines_through_an_election_and_two_matches():
    host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()),
                  "--players", "4", "--bots", "1", "--target", "150", "--turn-timeout", "20")
    with reaped(host):
        port = first_json(host)["port"]
        person = unonet("join", "--no-ui", "--json", "--bind", "127.0.0.1", "--name", "Scripta", "--matches", "2",
                        f"127.0.0.1:{port}", stdin=subprocess.PIPE)
        with reaped(person):
            script = Script(person)
            script.run_until(lambda: script.kinds["lobby"])
            robot = unonet("join", "--no-ui", "--json", "--bot", "--bind", "127.0.0.1", "--name", "robot",
                           "--matches", "2", f"127.0.0.1:{port}")
            with reaped(robot):
                # the host dies in the first round, once the script has made three moves
                script.run_until(lambda: len(script.sent) >= 3)
                os.kill(host.pid, signal.SIGKILL)
                host.wait(timeout=10)
                script.run_until(lambda: script.kinds["elected"])
                script.run_until(lambda: script.kinds["match-over"] >= 2)
                person.stdin.close()
                results = [finish(person, 60), finish(robot, 120)]
    out = script.seen
    me = next(x["me"] for x in out if x.get("t") == "lobby")
    states = [x for x in out if x.get("t") == "state"]
    # the seat is shown its own hand, and it is the hand the table counts for it
    assert states and all(len(s["hand"]) == s["counts"][me] for s in states)
    assert all(set(s["playable"]) <= set(s["hand"]) for s in states)
    # it played the cards it was shown: before the election, as the elected host, and in match 2
    at_election = next(i for i, x in enumerate(out) if x.get("t") == "election")
    first_over = next(i for i, x in enumerate(out) if x.get("t") == "match-over")
    assert at_election < first_over
    assert sum(1 for x in out[:at_election] if x.get("t") == "state" and x["you"]) >= 3
    for part in (out[at_election:first_over], out[first_over:]):
        assert len(_my_plays(part, me)) >= 2, [x for x in part if x.get("t") != "lobby"][-30:]
    shown = {c for s in states for c in s["hand"]}
    assert set(_my_plays(out, me)) <= shown
    # the second match was played out and both players agree on it
    assert results[0][0] == 0 and results[1][0] == 0, (results[0][2][-2000:], results[1][2][-2000:])
    overs = [[x for x in lines(o) if x.get("t") == "match-over"] for _, o, _ in results]
    assert len(overs[0]) == 2 and overs[0] == overs[1]



def test_a_move_the_seat_refuses_is_a_refused_line_naming_it_not_a_dead_process():
    """A script's move the seat's own engine refuses after it was read (the table moved on
    meanwhile: the elected host's own seat under load, test above) is a `refused` line that
    names the move as it reads.  Before, the line was built with `dataclasses.asdict`, which
    deep-copies the engine's card: a compiled card cannot be copied, and the process died
    (a pure one printed a card object that is no JSON)."""
    from unonet import feed as F
    from unonet.engine import Card, Draw, Play
    from unonet.net._game import scripted_feed

    out: list[dict] = []
    said = scripted_feed(out.append)
    said(F.Refused("illegal play 'R5' on 'G7' (colour in force: G)", Play(1, Card("R5", 3)), code=""))
    said(F.Refused("too late: the table moved on", Draw(1), code="stale"))
    said(F.Refused("stale: seat 1's act refused"))
    assert [json.loads(json.dumps(x)) for x in out] == [
        {"t": "refused", "reason": "illegal play 'R5' on 'G7' (colour in force: G)", "code": "", "action": "play 'R5'"},
        {"t": "refused", "reason": "too late: the table moved on", "code": "stale", "action": str(Draw(1))},
        {"t": "refused", "reason": "stale: seat 1's act refused", "code": "", "action": None}]

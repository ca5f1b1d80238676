"""UNO Flip fair-play-on (issue 7): both faces of every card committed, the face the table sees
announced at each deal, a flip opens every held card's newly showing face, and the audit
replays the rules engine over flips, dark-side wild draws, their challenges and reshuffles."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from unonet.engine import Challenge, HeuristicBot, Play, make_rules
from unonet.engine._round import CHALLENGE, PLAY
from unonet.fair import Card, FairDealer, FairPlayViolation
from unonet.table import TABLE_DECKS, audit_transcript

from .helpers import edit, engine_events, fair_round, rechain

FLIP = make_rules(preset="flip")
#: keep-drawing drains the pile: reshuffles on both sides, long rounds with many flips
KEEP = make_rules(preset="flip", house={"keep-drawing"})


class FlipBluffBot(HeuristicBot):
    """Plays a Wild Draw Two / Wild Draw Colour whenever it can (legal or not), challenges every one."""

    def act(self, rnd, seat):
        if rnd.phase is PLAY and not rnd.pending:
            wild_draws = [c for c in rnd.playable(seat) if c.rank in ("W+2", "W+C")]
            if wild_draws:
                return Play(seat, wild_draws[0], rnd.colors[0], len(rnd.hands[seat]) == 2)
        if rnd.phase is CHALLENGE:
            return Challenge(seat)
        return super().act(rnd, seat)


def bluff_round(players, seed, rules=KEEP):
    return fair_round(rules, players, seed=f"flip-{players}-{seed}",
                      bots=[FlipBluffBot(f"b{seed}/{s}") for s in range(players)])


#: (players, seed) under KEEP with bluffing bots: between them, rounds with dozens of flips,
#: guilty and innocent challenges of both wild draws, reshuffles on the light and dark sides.
BLUFF_CASES = [(2, 1), (2, 3), (3, 2), (4, 3), (5, 0), (6, 0), (6, 1), (6, 2)]


@pytest.fixture(scope="module")
def bluff_rounds():
    return [(p, s, bluff_round(p, s)[0]) for p, s in BLUFF_CASES]


def _reshuffle_sides(lines):
    side, out = 0, []
    for ln in lines:
        o = json.loads(ln)
        if o["ev"] == "flip":
            side = o["side"]
        elif o["ev"] == "seed-commit" and o["epoch"] > 0:
            out.append(side)
    return out


def test_flip_deck_commits_both_faces():
    deck = TABLE_DECKS["flip"]
    assert len(deck) == 112 and all(c.two_sided for c in deck)
    assert deck[0] == Card("R1", deck[0].public) and deck[0].public[0] in "PTOU"
    assert sum(c.public.startswith("W") for c in deck) == 8


def test_bluffing_flip_rounds_audit_clean_and_cover_the_rare_paths(bluff_rounds):
    flips, challenges, reshuffles = [], set(), set()
    for players, seed, host in bluff_rounds:
        rep = audit_transcript(host.lines)
        assert rep.ok, (players, seed, rep.summary)
        lg = host.dealer.ledger
        assert rep.games == 1 and rep.flips == len(lg.flips)
        assert engine_events(host.lines).count("Flipped") == len(lg.flips)
        flips.append(len(lg.flips))
        challenges |= {(c.face, c.guilty) for c in lg.challenges}
        reshuffles |= set(_reshuffle_sides(host.lines))
    assert max(flips) >= 20  # a round with many flips (back and forth)
    assert challenges >= {("W+2", True), ("W+2", False), ("W+C", True), ("W+C", False)}
    assert reshuffles == {0, 1}  # the discard pile reshuffled on the light and on the dark side


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_plain_flip_rounds_audit_clean_for_2_to_6_players(players):
    for seed in range(2):
        host, rnd = fair_round(FLIP, players, seed=f"plain-{players}-{seed}")
        rep = audit_transcript(host.lines)
        assert rep.ok, rep.summary
        assert "1 round replayed by the rules engine" in rep.summary


def test_a_whole_flip_match_carries_scores_and_audits_clean():
    from unonet.fairsim import fair_round_factory
    from unonet.sim import simulate

    hosts = []
    simulate(make_rules(preset="flip", target=150), 3, matches=1, seed=8, bots=("heuristic", "random"),
             round_factory=fair_round_factory(on_table=hosts.append, one_file=True))
    assert len(hosts) >= 2
    # one file for the whole match: the rounds share one chain
    lines = hosts[-1].lines
    rep = audit_transcript(lines)
    assert rep.ok and rep.rounds == len(hosts) and rep.games == len(hosts), rep.summary


# ---------------------------------------------------------------------- secrecy
def test_no_secret_face_is_public_before_its_time(bluff_rounds):
    """Walk each transcript: a held card's face toward its holder appears in the public record
    only when the card is played, the table turns over, it proves a guilty verdict, or the
    round has ended (the host opens every hand once the engine says the round is over, before the
    last action's record); each deal announces exactly the face the table sees on the side in play."""
    for _, _, host in bluff_rounds[:5]:
        cards = host.dealer.ledger.cards  # every card, known after the seed reveals
        side, held, ended, opened_at, revealed = 0, {}, False, {}, None
        for n, ln in enumerate(host.lines, 1):
            o = json.loads(ln)
            ev = o["ev"]
            if ev == "game" and o["data"].get("g") == "end":
                ended = True
            if ev in ("act", "host-act", "deal", "flip", "seed-commit"):
                assert revealed is None, f"line {revealed}: a hand opened before the round ended"
            if ev == "deal":
                j = o["position"]
                c = cards[j]
                assert o["public"] == c.shown(side), (n, j, c, side)
                assert o["public"] != c.face(side) or c.face(0) == c.face(1)  # W/W shows W both ways
                held[j] = side
            elif ev == "flip":
                got = [x["pos"] for x in o["openings"]]
                assert set(got) <= set(held)  # nothing from the draw pile
                for j in got:
                    opened_at[j] = n
                side = o["side"]
            elif ev == "play":
                held.pop(o["opening"]["pos"], None)
            elif ev == "reveal":
                revealed = revealed or n  # nothing may happen at the table after it
                for x in o["openings"]:
                    assert x["pos"] not in opened_at  # already public: not opened twice
            elif ev == "challenge-verdict" and o["proof"] is not None:
                opened_at[o["proof"]["pos"]] = n
            elif ev == "game":
                for row in o["data"].get("ev", []):
                    if row[0] in ("Drew", "Dealt", "Evidence"):
                        assert isinstance(row[2], int), row  # hidden cards are counts only
        # every held card not opened by a flip still had its secret face out of the record until the end
        assert ended


def test_the_observer_sees_every_held_card_after_a_flip_and_none_before(bluff_rounds):
    from unonet.fair import Flip
    from unonet.fair._events import Event
    from unonet.table import TableSeat

    host = bluff_rounds[0][2]
    viewer = TableSeat(None, None)  # an observer: match header included
    checked = 0
    for ln in host.lines:
        obj = json.loads(ln)
        obj.pop("prev")
        ev = Event.from_json(obj)
        viewer.receive(ev)
        obs = viewer.verifier
        lg = obs.ledger
        held = [j for j, p in enumerate(lg.positions) if p.holder is not None]
        if isinstance(ev, Flip):
            assert all(obs.card(j) is not None for j in held)
            checked += 1
        elif lg.phase.value == "live" and not lg.flips:
            assert all(obs.card(j) is None for j in held)
    assert checked == len(host.dealer.ledger.flips) > 0


# ---------------------------------------------------------------------- tampering
@pytest.fixture(scope="module")
def flip_lines(bluff_rounds):
    return next(h.lines for p, s, h in bluff_rounds if (p, s) == (4, 3))


def _first(lines, pred):
    return next(i for i, ln in enumerate(lines) if pred(json.loads(ln)))


def test_a_face_announced_at_a_flip_that_differs_from_the_commitment_fails_naming_the_line(flip_lines):
    i = _first(flip_lines, lambda o: o["ev"] == "flip" and o["openings"])

    def change(obj):
        card = obj["openings"][0]["card"]
        card[0 if obj["side"] else 1] = "W+C" if card[1] != "W+C" else "W"

    rep = audit_transcript(edit(flip_lines, i, change))
    assert not rep.ok and rep.line == i + 1
    assert rep.reason.startswith("flip of position ") and "commitment says otherwise" in rep.reason


def test_a_secret_face_leaked_at_a_deal_fails_naming_the_deal(flip_lines):
    i = _first(flip_lines, lambda o: o["ev"] == "deal")
    obj = json.loads(flip_lines[i])
    lines = [json.loads(ln) for ln in flip_lines]
    j = obj["position"]
    # the card, from the later opening of that position
    card = next(x["card"] for o in lines for x in o.get("openings", []) + [o.get("opening") or {}]
                if x.get("pos") == j)
    secret = card[0]  # dealt on the light side: the holder sees the light face
    assert obj["public"] == card[1] and secret != card[1]
    rep = audit_transcript(edit(flip_lines, i, lambda o: o.update(public=secret)))
    assert not rep.ok and rep.line == i + 1, rep.summary
    assert f"position {j}" in rep.reason and "was shown when it was dealt" in rep.reason


def test_a_flip_that_opens_a_card_of_the_draw_pile_fails(bluff_rounds):
    host = next(h for p, s, h in bluff_rounds if (p, s) == (4, 3))
    lines = host.lines
    i = _first(lines, lambda o: o["ev"] == "flip" and o["openings"])
    dealt = {json.loads(ln)["position"] for ln in lines[:i] if json.loads(ln)["ev"] == "deal"}
    turned = {json.loads(ln)["opening"]["pos"] for ln in lines[:i] if json.loads(ln)["ev"] == "turn-up"}
    j = max(set(range(112)) - dealt - turned)  # still in the draw pile

    def leak(obj):
        obj["openings"].append(host.dealer.opening(j).to_json())
        obj["openings"].sort(key=lambda x: x["pos"])

    rep = audit_transcript(edit(lines, i, leak))
    assert not rep.ok and rep.line == i + 1
    assert f"(opens [{j}], which is not a held secret)" in rep.reason


def test_a_flip_that_hides_a_held_card_fails(flip_lines):
    i = _first(flip_lines, lambda o: o["ev"] == "flip" and len(o["openings"]) > 1)
    hidden = json.loads(flip_lines[i])["openings"][1]["pos"]
    rep = audit_transcript(edit(flip_lines, i, lambda o: o["openings"].pop(1)))
    assert not rep.ok and rep.line == i + 1 and f"(hides [{hidden}])" in rep.reason


def test_a_flip_left_out_of_the_record_fails(flip_lines):
    i = _first(flip_lines, lambda o: o["ev"] == "flip")
    rep = audit_transcript(rechain(flip_lines[:i] + flip_lines[i + 1:]))
    assert not rep.ok and rep.line > i


def test_flips_the_rules_never_made_fail_in_the_replay_naming_the_line(bluff_rounds):
    # a flip there and back, valid for the fair layer (it opens the held secrets), but no Flip card was played
    host = next(h for p, s, h in bluff_rounds if (p, s) == (4, 3))
    lines = host.lines
    i = _first(lines, lambda o: o["ev"] == "game" and o["data"].get("g") == "end")
    lg = host.dealer.ledger
    held = sorted(j for j, p in enumerate(lg.positions) if p.holder is not None)
    opened_earlier = {x["pos"] for ln in lines[:i] for x in json.loads(ln).get("openings", [])}
    side = lg.flips[-1].side
    there = {"ev": "flip", "side": 1 - side, "prev": "",
             "openings": [host.dealer.opening(j).to_json() for j in held if j not in opened_earlier]}
    back = {"ev": "flip", "side": side, "openings": [], "prev": ""}
    forged = rechain(lines[:i] + [json.dumps(there), json.dumps(back)] + lines[i:])
    rep = audit_transcript(forged)
    assert not rep.ok and rep.line == i + 1, rep.summary
    assert "the rules engine makes no such flip" in rep.reason


def test_the_holder_catches_a_leaked_face_live():
    class LeakyDealer(FairDealer):
        """Deals seat 1 with the hidden face shown: its record holds what it publishes (so it
        takes seat 1's dispute, which names the round as seat 1 was shown it)."""

        def _emit(self, *events):
            import dataclasses

            from unonet.fair import Deal

            events = tuple(dataclasses.replace(ev, public=self.card(ev.position).face(self.ledger.side))
                           if isinstance(ev, Deal) and ev.seat == 1 else ev for ev in events)
            return super()._emit(*events)

    from unonet.fair.testing import det_randbytes
    from unonet.table import make_table

    host = make_table(FLIP, 3, randbytes=det_randbytes("leaky"), dealer_cls=LeakyDealer)
    with pytest.raises(FairPlayViolation, match="was shown when it was dealt"):
        host.open_round()


# ---------------------------------------------------------------------- the CLI
def test_cli_simulate_flip_with_transcripts_then_audit(tmp_path):
    d = tmp_path / "t"
    r = subprocess.run([sys.executable, "-m", "unonet", "simulate", "--rules", "flip", "--rounds", "3",
                        "--transcript", str(d), "--seed", "2"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    files = sorted(d.iterdir())
    assert [f.name for f in files] == ["match-001.jsonl"]  # one transcript per match
    a = subprocess.run([sys.executable, "-m", "unonet", "audit", str(files[0])], capture_output=True, text=True,
                       timeout=120)
    assert a.returncode == 0, a.stdout + a.stderr
    assert a.stdout.startswith("clean: 3 rounds, ") and "3 rounds replayed by the rules engine" in a.stdout


def test_every_house_rule_that_flip_allows_audits_clean():
    from unonet.engine._rules import DECK_CONFLICTS, HOUSE_RULES

    for h in sorted(set(HOUSE_RULES) - set(DECK_CONFLICTS["flip"])):
        host, _ = fair_round(make_rules(preset="flip", house={h}), 4, seed=f"house-{h}")
        rep = audit_transcript(host.lines)
        assert rep.ok, (h, rep.summary)

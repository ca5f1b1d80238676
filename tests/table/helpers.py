"""Helpers for the fair-table tests: play a round fair-play-on, edit transcripts."""

from __future__ import annotations

import json

from unonet.engine import HeuristicBot, make_bot, make_rules, play_round
from unonet.fair import GENESIS
from unonet.fair._transcript import line_hash
from unonet.fair.testing import det_randbytes
from unonet.table import make_table


def fair_round(rules=None, players=4, *, seed="t", bots=None, **kw):
    """Open, start and play one fair round with bots; returns (host, round)."""
    rules = rules or make_rules()
    host = make_table(rules, players, randbytes=det_randbytes(seed), **kw)
    rnd = host.open_round()
    rnd.start()
    if bots is None:
        bots = [make_bot("random" if s % 2 else "heuristic", f"{seed}/{s}") for s in range(players)]
    if not rnd.over:
        play_round(rnd, bots)
    assert host.finished
    return host, rnd


def play_driven_round(table, seed: str) -> None:
    """One round at a `LocalTable`: opened, started, played out by heuristic bots seeded by
    ``seed``, then the co-signs pumped."""
    rnd = table.start_round()
    rnd.start()
    if not rnd.over:
        play_round(rnd, [make_bot("heuristic", f"{seed}/{s}") for s in range(len(table.seats))])
    table.pump()


def draw_count_lie():
    """A `tamper_game` for a host that signs one lie: its record of the first draw says one
    card more than the rules draw (``.done`` once it has lied)."""
    def tamper(data):
        if data["g"] == "act" and data["a"]["t"] == "draw" and not tamper.done:
            tamper.done = True
            data = dict(data, ev=[[r[0], r[1], r[2] + 1, *r[3:]] if r[0] == "Drew" else r for r in data["ev"]])
        return data

    tamper.done = False
    return tamper


def game_events(lines):
    """(index, data) of every game event."""
    out = []
    for i, ln in enumerate(lines):
        obj = json.loads(ln)
        if obj["ev"] == "game":
            out.append((i, obj["data"]))
    return out


def engine_events(lines):
    """Every engine event name recorded in the game record."""
    return [row[0] for _, d in game_events(lines) for row in d.get("ev", [])]


def rechain(lines):
    """Recompute every `prev` (a tamperer who fixes the hash chain)."""
    out, head = [], GENESIS
    for ln in lines:
        obj = json.loads(ln)
        obj["prev"] = head
        new = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        head = line_hash(new)
        out.append(new)
    return out


def edit(lines, index, fn, *, chain=True):
    lines = list(lines)
    obj = json.loads(lines[index])
    fn(obj)
    lines[index] = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return rechain(lines) if chain else lines


class BluffBot(HeuristicBot):
    """Plays a Wild Draw Four whenever it holds one (legal or not), challenges every one."""

    def act(self, rnd, seat):
        from unonet.engine import Challenge, Play
        from unonet.engine._round import CHALLENGE, PLAY

        if rnd.phase is PLAY and not rnd.pending:
            w4 = [c for c in rnd.playable(seat) if c.rank == "W+4"]
            if w4:
                return Play(seat, w4[0], "R", len(rnd.hands[seat]) == 2 and self.rng.random() >= self.forget)
        if rnd.phase is CHALLENGE and not rnd.playable(seat):
            return Challenge(seat)
        return super().act(rnd, seat)


class HoarderBot(BluffBot):
    """Keeps its Wild Draw Fours until it holds two cards, then plays one without calling UNO."""

    def act(self, rnd, seat):
        from unonet.engine import Draw, Play
        from unonet.engine._round import PLAY

        hand = rnd.hands[seat]
        if rnd.phase is PLAY and not rnd.pending:
            cards = rnd.playable(seat)
            w4 = [c for c in cards if c.rank == "W+4"]
            if w4 and len(hand) == 2:
                return Play(seat, w4[0], "R", False)
            others = [c for c in cards if c.rank != "W+4"]
            if not others:
                return Draw(seat)
            card = others[0]
            return Play(seat, card, "R" if card.wild else None, len(hand) == 2)
        return super().act(rnd, seat)


class LastWildFourBot(BluffBot):
    """Keeps its Wild Draw Fours to go out with one (draws and keeps rather than play one
    earlier), and challenges every one played on it."""

    def act(self, rnd, seat):
        from unonet.engine import Challenge, Draw, Pass, Play
        from unonet.engine._round import CHALLENGE, PLAY

        hand = rnd.hands[seat]
        if rnd.phase is CHALLENGE:
            return Challenge(seat)
        if rnd.phase is PLAY and not rnd.pending:
            cards = rnd.playable(seat)
            if len(hand) == 1 and cards and cards[0].rank == "W+4":
                return Play(seat, cards[0], "R", False)
            others = [c for c in cards if c.rank != "W+4"]
            if others:
                return Play(seat, others[0], "R" if others[0].wild else None, len(hand) == 2)
            return Draw(seat)
        if rnd.phase.value == "drawn":
            return Pass(seat)
        return super().act(rnd, seat)

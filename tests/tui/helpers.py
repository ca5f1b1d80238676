"""Stacked-deck tables for the client tests: exact hands, exact draw pile."""

from __future__ import annotations

from unonet.engine import CardPool, Round, make_rules
from unonet.tui.local import LocalTable, run_bots_sync, seat_names
from unonet.tui.control import Controller
from unonet.tui.view import TableView


def stacked_table(hands, deck, *, rules=None, dealer=None, players=None, seed=1, **kw):
    """A LocalTable whose rounds are dealt from ``hands`` (codes per seat) and ``deck``
    (codes, the first card turned up as the first discard, then the draw pile top first)."""
    rules = rules or make_rules()
    players = players or len(hands)
    dealer = players - 1 if dealer is None else dealer

    def deal(match, number):
        pool = CardPool(rules.deck)
        hs = [[pool.take(c) for c in h] for h in hands]
        pile = [pool.take(c) for c in deck]
        return Round.stacked(rules, players, dealer, hs, pile, seed=seed)

    return LocalTable(rules, seat_names("You", players), seed=seed, deal=deal, **kw)


def attach(table):
    view = TableView(table.me)
    table.subscribe(view.apply_all)
    ctl = Controller(view, table)
    return view, ctl


def started(table):
    view, ctl = attach(table)
    table.start()
    run_bots_sync(table)
    return view, ctl


def codes(view):
    return [c.code for c in view.sorted_hand()]

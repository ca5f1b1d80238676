"""Stacked-deck helpers: every rule test is a scenario in the card notation."""

from unonet.engine import run_scenario


def scenario(hands, pile, actions=(), *, dealer=0, house=(), seed=1, scores=None, **rules):
    data = {
        "players": len(hands),
        "dealer": dealer,
        "seed": seed,
        "hands": hands,
        "deck": pile,
        "actions": list(actions),
        "rules": {"house": list(house), **rules},
    }
    if scores is not None:
        data["scores"] = scores
    return run_scenario(data)


def ok(*args, **kw):
    code, out = scenario(*args, **kw)
    assert code == 0, out
    return out


def refused(*args, **kw):
    code, out = scenario(*args, **kw)
    assert code == 3, out
    return out


def P(player, card, color=None, uno=False):
    a = {"player": player, "play": card}
    if color:
        a["color"] = color
    if uno:
        a["uno"] = True
    return a


def D(player):
    return {"player": player, "draw": True}


def K(player):
    return {"player": player, "pass": True}


def CH(player):
    return {"player": player, "challenge": True}


def UNO(player):
    return {"player": player, "uno": True}


def CATCH(player, target):
    return {"player": player, "catch": target}


def COL(player, color):
    return {"player": player, "color": color}


def SWAP(player, target):
    return {"player": player, "swap": target}


def sorted_hand(h):
    return sorted(h)

"""The screen's text: functions that read the view model (and the controller's UI state)
and return lines of styled fragments ``(style, text)``, without the screen library.  No game
logic here; nothing writes to the view.  `layout` puts them on the screen with prompt_toolkit;
`table_screen` lays out the whole table screen as text, which both the running application
and the first frame (`first_frame`, drawn before prompt_toolkit is loaded) show.

    header ................................................ round, rules, keys
    seats (turn, cards, UNO, team) | log of what happened
    top card, colour, direction, piles, evidence
    your hand: [R7] playable, >selected
    status: what to do now / what you typed or why the last key did nothing

The round result and the help replace the middle part while they are shown.
"""

from __future__ import annotations

from contextlib import contextmanager

from ..names import cut, fit, pad, width as cells
from .view import TableView, card_sort_key, color_name, team_name

CARD_COLOURS = {"red": "#ff5555", "yellow": "#ffd75f", "green": "#5fd75f", "blue": "#5f87ff",
                "wild": "#d787ff", "pink": "#ff87d7", "teal": "#00d7af", "orange": "#ff8700",
                "purple": "#af5fff"}


def dimmed(rgb: str) -> str:
    """The same hue at two thirds of the brightness: a card you cannot play now keeps its
    colour (you name a wild's colour from your whole hand) but steps back."""
    return "#" + "".join(f"{int(rgb[i:i + 2], 16) * 2 // 3:02x}" for i in (1, 3, 5))


STYLE_RULES = [
    ("header", "reverse"),
    ("title", "bold"),
    ("dim", "#888888"),
    *[(f"card.{name}", f"{rgb} bold") for name, rgb in CARD_COLOURS.items()],
    *[(f"card.{name}.dim", f"{dimmed(rgb)} nobold") for name, rgb in CARD_COLOURS.items()],
    ("race", "reverse bold #ff5555"),
    ("out", "#888888 italic"),
    ("card.selected", "reverse"),
    ("seat.turn", "bold"),
    ("seat.me", "underline"),
    ("uno", "bold #ff5555"),
    ("status", "bold"),
    ("notice", "#ffaf00"),
    ("line", "#666666"),
]


_drawn_at: tuple[int, int] | None = None  # (columns, rows) while the first frame is drawn


@contextmanager
def drawing_at(columns: int, rows: int):
    """Lay the screen out for a terminal of this size (the first frame, drawn before the
    screen library is loaded; otherwise the running application's output says)."""
    global _drawn_at
    before, _drawn_at = _drawn_at, (columns, rows)
    try:
        yield
    finally:
        _drawn_at = before


def _size() -> tuple[int, int]:
    if _drawn_at is not None:
        return _drawn_at
    from prompt_toolkit.application.current import get_app  # (loaded by then: a dict look-up)

    try:
        size = get_app().output.get_size()
        return size.columns, size.rows
    except Exception:  # pragma: no cover - no app (plain calls in tests)
        return 80, 24


def _width() -> int:
    return _size()[0]


def card_text(card, playable: bool) -> str:
    return f"[{card.code}]" if playable else f" {card.code} "


CLASS = {"R": "red", "Y": "yellow", "G": "green", "B": "blue", None: "wild",
         "P": "pink", "T": "teal", "O": "orange", "U": "purple"}
LEFT_WIDTH = 40   # the seats-and-table panel at 64 to 99 columns
NARROW = 64       # below this the log goes under the table (beside it, it would be a sliver)
WIDE = 100        # from here the panel grows with the terminal, up to MAX_LEFT
MAX_LEFT = 64


def narrow(columns: int | None = None) -> bool:
    return (_width() if columns is None else columns) < NARROW


def left_width(columns: int | None = None) -> int:
    """Columns of the seats-and-table panel: the whole screen when narrow (the log goes
    under it), 40 beside the log, two fifths of a wide terminal (at most MAX_LEFT)."""
    columns = _width() if columns is None else columns
    if columns < NARROW:
        return columns
    return max(LEFT_WIDTH, min(MAX_LEFT, columns * 2 // 5))


def name_width(left: int) -> int:
    """Cells a seat's name may take in a panel ``left`` columns wide (13 in 40, 24 at most)."""
    return max(9, min(24, left - 27))


def color_class(color) -> str:
    return "class:card." + CLASS.get(color, "wild")


def card_style(card, playable: bool = True) -> str:
    """A card's colour: bright and bold when you can play it, the same hue dimmed when not."""
    s = color_class(card.color)
    return s if playable else s + ".dim"


# ---------------------------------------------------------------------- fragments
def header_text(view: TableView):
    if not view.names:
        return [("class:header", " unonet ")]
    others = [s for s in range(view.players) if s != view.me]
    bots = sum(1 for s in others if s < len(view.bots) and view.bots[s]) if view.bots else len(others)
    people = len(others) - bots
    rules = view.preset + "".join(f" +{h}" for h in view.extra_house())
    head, target = f" unonet  round {view.round_no}  ", f", target {view.target}"
    right = "?: help  q: quit "
    room = _width() - len(right) - 1
    if view.me < 0:
        tail = "  watching"  # a dealer-only host holds no seat
    elif view.teams:
        # who plays with you: "team A: you & Ben" (the rules are cut first if need be)
        mine = view.me % 2
        partners = [fit(view.names[s], 13) for s in range(view.players) if s % 2 == mine and s != view.me]
        names = ["you"] + partners
        tail = f"  team {team_name(mine)}: " + (", ".join(names[:-1]) + " & " + names[-1])
    else:
        with_ = [f"{k} {what}{'s' if k != 1 else ''}" for k, what in ((people, "player"), (bots, "bot")) if k]
        tail = "  you + " + " + ".join(with_) if with_ else "  you"
    # too long: the house rules are cut first, so the target shows (at 80 columns); narrower,
    # the rules and the target are cut together, the seats' line kept
    left = head + rules + target
    over = len(left) + cells(tail) - room
    keep = len(rules) - over - 3
    if over > 0 and keep < len(view.preset):
        # no house rules to cut: the target in the lobby's words ("to 80"), not cut (eve12: Pat's
        # header read "official, targ...  team B: you & Ana-2 (bot)" at 80 columns)
        short = f", to {view.target}"
        if len(head + rules + short) + cells(tail) <= room:
            left, over = head + rules + short, 0
    if over > 0 and keep >= len(view.preset):
        left = head + rules[:keep].rstrip() + "..." + target
    elif over > 0 and cells(tail) < room - 20:
        cut_at = max(0, room - cells(tail) - 3)
        # a stub of the rules says nothing: the round alone then (eve12, 60 columns: "round 2  of...")
        left = left[:cut_at] + "..." if cut_at >= len(head) + len(view.preset) else head.rstrip()
    left += tail
    if cells(left) > room:
        left = cut(left, max(0, room - 3))[0] + "..."
    gap = max(1, _width() - cells(left) - len(right))
    return [("class:header", left + " " * gap + right)]


def backs_on_own_line(view: TableView) -> bool:
    """Flip: each opponent's visible backs get a line of their own (up to 5 players)."""
    return view.flip and view.players <= 5


def seats_height(view: TableView) -> int:
    rows = view.players + 1
    if backs_on_own_line(view):
        rows += view.players - 1
    return max(2, rows)


def more(n: int) -> str:
    """What stands for cards cut off a line: "(3 more)", never "+3" (a Draw Two's look)."""
    return f"({n} more)"


def fit_cards(cards, room: int) -> tuple[list, int]:
    """``cards`` sorted like the live hand, as many as fit in ``room`` columns as
    " R5 B7 ..." with room left for `more` of the rest; returns (shown, how many cut)."""
    cards = sorted(cards, key=card_sort_key)
    if sum(len(c.code) + 1 for c in cards) <= room:
        return cards, 0  # all of them (room kept for "(N more)" cut "Y+2 G4 G6" to "(3 more)")
    used = 0
    for i, card in enumerate(cards):
        rest = len(cards) - i - 1
        tail = 0 if rest == 0 else len(more(rest)) + 1
        if used + len(card.code) + 1 + tail > room:
            return cards[:i], len(cards) - i
        used += len(card.code) + 1
    return cards, 0


def backs_fragments(view: TableView, seat: int, room: int) -> list:
    """The faces of ``seat``'s cards that the table sees (UNO Flip), coloured, cut to ``room``."""
    backs = view.backs[seat] if seat < len(view.backs) else ()
    shown, cut_off = fit_cards(backs, room)
    out = [(card_style(card), " " + card.code) for card in shown]
    if cut_off:
        out.append(("class:dim", " " + more(cut_off)))
    return out


def seats_text(view: TableView):
    out = []
    arrow = "v play goes down" if view.direction == 1 else "^ play goes up"
    teams = ", teams A/B" if view.teams else ""
    out.append(("class:title", f" Seats ({arrow}{teams})\n"))
    # names up to 13 cells in a 40-column panel (more when it is wider), longer ones cut
    # with an ellipsis ("Maximilian G…"); a wide panel also shows each seat's match points
    panel = left_width()
    name_w = max(9, min(name_width(panel), max((cells(n) for n in view.names), default=9)))
    points = panel >= 50 and len(view.scores) == view.players
    for s in range(view.players):
        count = view.counts[s] if s < len(view.counts) else 0
        turn = s == view.turn
        mark = ">" if turn else " "
        line = f"{mark}{s} {pad(view.names[s], name_w)}{count:>3} card{'s' if count != 1 else ' '}"
        if points:
            line += f"{view.scores[s]:>6} pts"
        style = "class:seat.turn" if turn else ""
        if s == view.me:
            style += " class:seat.me"
        out.append((style, line))
        flags = []
        if view.teams:
            flags.append(("class:dim", f" {team_name(s % 2)}"))
        if view.dealer == s:
            flags.append(("class:dim", " dealer"))
        if s in view.standin or s in view.away:
            flags.append(("class:dim", " bot plays" if s in view.standin else " away"))
        if s not in view.active:
            flags.append(("class:out", " OUT" if s in view.knocked_out else " out"))
        elif count == 1:
            if s in view.uno:
                flags.append(("class:uno", " UNO!"))
            elif view.catchable == s:
                flags.append(("class:uno", " no UNO!"))
        if s in view.race:
            flags.append(("class:race", " slap?"))
        if view.dealer == s and cells(line) + sum(len(t) for _s, t in flags) > panel:
            flags.remove(("class:dim", " dealer"))  # (the log names the dealer: UNO, away, slap matter more)
        out += flags
        used = cells(line) + sum(len(t) for _s, t in flags)
        if view.flip and s != view.me and s in view.active and count:
            if backs_on_own_line(view):
                out.append(("", "\n"))
                out.append(("class:dim", "   sees:"))
                out += backs_fragments(view, s, panel - 9)
            else:
                out += backs_fragments(view, s, panel - used - 1)
        out.append(("", "\n"))
    return out


def table_text(view: TableView):
    out = []
    if view.top is None:
        return [("", " Waiting for the deal...")]
    out.append(("", " Top "))
    out.append((card_style(view.top), f"[{view.top.code}]"))
    c = view.color
    out.append(("", "  colour in force: "))
    out.append((color_class(c), color_name(c).upper()))
    out.append(("", "\n"))
    if view.flip:
        out.append(("", " Side "))
        out.append(("class:title", view.side_name().upper()))
        out.append(("", f" up: colours {' '.join(view.colors)}\n"))
    if view.race:
        card = view.race_card.code if view.race_card is not None else "the card"
        if view.racing:
            out.append(("class:race", f" RACE on {card}! SPACE (or !) to slap it "))
        else:
            out.append(("class:race", f" RACE on {card}: {len(view.race)} still to slap "))
        out.append(("", "\n"))
    way = "clockwise (v)" if view.direction == 1 else "counter-clockwise (^)"
    out.append(("", f" Draw pile {view.draw_pile}   discard {view.discard}\n"))
    out.append(("", f" Direction {way}\n"))
    if view.pending:
        out.append(("class:uno", f" {view.pending} cards pending\n"))
    elif view.phase == "challenge" and view.top.draw < 0:
        out.append(("class:uno", f" pending: draw until {color_name(view.color)}\n"))
    if not match_shown_elsewhere(view):
        out.append(("class:dim", match_line(view) + "\n"))
    if view.knocked_out:
        out.append(("class:out", " Out (deadly): " + ", ".join(view.name(s) for s in view.knocked_out) + "\n"))
    if view.evidence is not None:
        who, cards = view.evidence
        out.append(("class:notice", f" {view.names[who]}'s hand, seen by you alone:\n "))
        for card in cards:
            out.append((card_style(card), card.code + " "))
        out.append(("", "\n"))
    return out


TALL = 36  # from here the seats panel also shows the match standings and the rules


def match_shown_elsewhere(view: TableView) -> bool:
    """The match score is on screen without the table's one line: no score yet to show,
    the seats' points column (a panel of 50 columns; not the teams' totals), or the
    standings under the table (a tall terminal, the log beside it)."""
    if not view.names or len(view.scores) != view.players or not any(view.scores):
        return True
    if left_width() >= 50 and not view.teams:
        return True
    return not narrow() and _rows() >= TALL


def match_line(view: TableView) -> str:
    """The match in one line under the table (seen: a host at 100x34 saw no score all the
    match long but between rounds): "Match to 60: A 24, B 0" with teams, else each seat's
    points by name, best first ("Tex 52, the rest 0" when every name does not fit), else by
    seat number as the seats panel lists them ("0:24 1:0 2:7")."""
    if view.teams:
        return f" Match to {view.target}: " + ", ".join(
            f"{team_name(t)}{' (you)' if view.me >= 0 and view.me % 2 == t else ''} {total}"
            for t, total in enumerate(view.team_scores()))
    head = f" Match to {view.target}: "
    best = sorted(range(view.players), key=lambda s: (-view.scores[s], s))
    named = head + ", ".join(f"{view.names[s]} {view.scores[s]}" for s in best)
    if cells(named) < left_width():
        return named
    scored = [s for s in best if view.scores[s]]  # (seen at 80x24: "0:0 1:0 2:52 3:0")
    named = head + ", ".join(f"{view.names[s]} {view.scores[s]}" for s in scored) + ", the rest 0"
    if cells(named) < left_width():
        return named
    return f" Match to {view.target}: " + " ".join(f"{s}:{p}" for s, p in enumerate(view.scores))


def match_text(view: TableView):
    """The match so far, under the table on a tall terminal: seats best first with their
    points and what each still needs, the team totals, and the rules in force."""
    if not view.names or len(view.scores) != view.players:
        return [("", "")]
    width = left_width() - 1
    out = [("class:title", f" Match: first to {view.target}\n")]
    order = sorted(range(view.players), key=lambda s: (-view.scores[s], s))
    name_w = max(9, min(name_width(width + 1), max(cells(n) for n in view.names)))
    for s in order:
        place = ordinal(1 + sum(1 for t in range(view.players) if view.scores[t] > view.scores[s]))
        togo = f"{view.target - view.scores[s]:>6} to go" if view.scores[s] < view.target else ""
        out.append(("class:seat.me" if s == view.me else "",
                    f" {place:<5}{pad(view.names[s], name_w)}{view.scores[s]:>6} pts{togo}\n"))
    if view.teams:
        for t, total in enumerate(view.team_scores()):
            togo = f", {view.target - total} to go" if total < view.target else ""
            out.append(("", f" team {team_name(t)}: {total} pts{togo}\n"))
    out.append(("", "\n"))
    out.append(("class:title", " Rules\n"))
    texts = [view.rules_text.split("; house:")[0]] + view.house_in_words()
    for text in texts:
        out += [("class:dim", line + "\n") for line in wrap(text, width, " ", "   ")]
    return out


def log_width() -> int:
    if narrow():
        return _width()
    return max(10, _width() - left_width() - 1)


def log_lines(view: TableView, width: int) -> list[str]:
    """The newest log entries, wrapped on words, each continuation indented."""
    out: list[str] = []
    shown = view.log[:len(view.log) - view.log_back] if view.log_back else view.log
    if view.log_back:  # (the panel shows its last lines: the mark goes last)
        shown = shown[-59:] + [f"-- {view.log_back} newer lines below: PgDn --"]
    for line in shown[-60:]:
        out += wrap(line, width, " ", "   ")
    return out


def newest_log_line(view: TableView, width: int) -> str:
    """The newest entry the log panel shows (or its "newer lines below" mark), on one line
    of ``width`` cells, cut with an ellipsis."""
    shown = view.log[:len(view.log) - view.log_back] if view.log_back else view.log
    if view.log_back:
        return fit(f" -- {view.log_back} newer lines below: PgDn --", width)
    return fit(" " + shown[-1], width) if shown else ""


def log_text(view: TableView):
    return [("class:title", " What happened\n")] + [("", line + "\n") for line in log_lines(view, log_width())]


def hand_lines(view: TableView, selected: int, width: int) -> list[list]:
    """Your hand wrapped into lines of fragments (tokens never broken)."""
    hand = view.sorted_hand()
    lines: list[list] = []
    line: list = []
    used = 0
    for i, card in enumerate(hand):
        playable = view.is_playable(card)
        token = card_text(card, playable)
        mark = ">" if i == selected else " "
        if used + len(token) + 1 > width and line:
            lines.append(line)
            line, used = [], 0
        line.append(("class:status" if i == selected else "", mark))
        style = card_style(card, playable)
        if i == selected:
            style += " class:card.selected"
        line.append((style, token))
        used += len(token) + 1
    if line:
        lines.append(line)
    return lines


def hand_text(view: TableView, ctl):
    ctl.sync()
    if view.me < 0:
        return [("class:title", " You hold no seat: watching the match\n")]
    n = len(view.hand)
    playable = sum(1 for c in view.hand if view.is_playable(c))
    label = f" Your hand ({n} card{'s' if n != 1 else ''}"
    label += f", {playable} playable in [ ]" if playable else ""
    label += ")"
    if n == 1 and view.me in view.uno:
        label += "  UNO!"
    out = [("class:title", label + "\n")]
    for line in hand_lines(view, ctl.selected, _width() - 1):
        out += line
        out.append(("", "\n"))
    return out


NARROW_STATUS = 64  # below this many columns a status or feedback text may take three lines


def hand_rows(view: TableView, ctl) -> int:
    """Rows of the hand: its label and its cards; an empty hand (you went out, you watch)
    is its label alone ("Your hand (0 cards)" took a blank row under it on the result)."""
    if view.me < 0 or not view.hand:
        return 1
    return len(hand_lines(view, ctl.selected, _width() - 1)) + 1


def line_texts(text: str, most: int | None = None) -> list[str]:
    """A status or feedback text wrapped on words to the screen (at most ``most`` lines:
    2, or 3 on a screen narrower than 64 columns, where the keys at a long line's end were
    cut off; the continuation indented)."""
    if not text:
        return [""]
    if most is None:
        most = 2 if _width() >= NARROW_STATUS else 3
    lines = wrap(text, max(20, _width() - 1), " ", "   ")
    if len(lines) > most:
        lines = lines[:most]
        lines[-1] = cut(lines[-1], max(0, _width() - 5))[0].rstrip() + " ..."
    return lines


def text_rows(text: str) -> int:
    return len(line_texts(text))


def status_text(ctl):
    if ctl.mode == "help":
        current_help(ctl.view, ctl)  # the page count the status line names
    style = "class:race" if ctl.view.racing and ctl.mode is None else "class:status"
    return [(style, "\n".join(line_texts(ctl.status())))]


def feedback_text(ctl):
    text = ctl.feedback()
    return [("class:notice", "\n".join(line_texts(text)))] if text else [("", "")]


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def cards_text(cards, room: int) -> str:
    """Cards sorted like the live hand, cut to ``room`` columns with "(N more)" for the rest."""
    shown, cut_off = fit_cards(cards, room + 1)  # fit_cards counts a space before each
    if cut_off and not shown:  # not even one card fits: "(3 more)" beside nothing read as wrong
        return f"{cut_off} card{'s' if cut_off != 1 else ''}"
    text = " ".join(c.code for c in shown)
    return f"{text} {more(cut_off)}".strip() if cut_off else text


def result_rows(view: TableView, ctl=None) -> int:
    """Lines the result screen may use (all but header, hand, status and feedback)."""
    rows = _rows() - 2  # header and the rule over the hand
    if ctl is not None:
        rows -= hand_rows(view, ctl) + text_rows(ctl.status()) + text_rows(ctl.feedback())
    else:
        rows -= 4
    return rows


def standings_columns(width: int, teams: bool) -> dict:
    """The standings' columns that fit ``width``: the full table when they do; on a narrow
    screen the seat number goes first, then the place/team column narrows, then names are
    cut shorter, and last the cards left in hand (the points and the totals always stay).
    With teams the "to go" column is the team's (on the team lines), never a player's."""
    cols = {"place": 6, "seat": 5, "name": 13, "own": 8 if teams else 7, "togo": 0 if teams else 7}
    least = 10  # cells the cards column needs to say anything ("R5 (3 more)")

    def start() -> int:  # where the cards column begins
        return 2 + cols["place"] + cols["seat"] + cols["name"] + 1 + 5 + cols["own"] + cols["togo"] + 2

    for step in ({"seat": 0}, {"place": 4}, {"name": 9}):
        if width - 1 - start() >= least:
            break
        cols.update(step)
    cols["cards"] = width - 1 - start() if width - 1 - start() >= least else 0
    if width >= 80:
        cols["cards"] = max(8, cols["cards"])  # (the full table, as it always was)
    return cols


def result_lines(view: TableView, rows: int = 18, width: int = 80) -> list[tuple[str, str]]:
    """The round result, one seat a line (best first; by seat with teams), as screen lines.
    When ``rows`` is short, the least needed lines go first: blank lines, how the round
    ended, the team totals' heading, the headline's continuation, the column titles; the
    team totals and what to press next always stay."""
    r = view.result
    if r is None:
        return []
    if r.winner is None:
        head = f" Round {r.number} over: blocked, nobody scores."
    else:
        who = "You go" if r.winner == view.me else f"{view.names[r.winner]} goes"
        if r.hands and r.winner < len(r.hands) and r.hands[r.winner]:
            # deadly: the last one left in wins without emptying the hand
            who = "You are" if r.winner == view.me else f"{view.names[r.winner]} is"
            who += " the last one in; "
            who += "you" if r.winner == view.me else view.names[r.winner]
            who += " win" if r.winner == view.me else " wins"
        gain = f"team {team_name(r.winner % 2)}" if view.teams else ("you" if r.winner == view.me else view.names[r.winner])
        went = "" if "last one in" in who else " out"
        if r.stand_in and went:
            # a bot played the seat while its player was away: they did not go out themselves
            who = "Your seat goes" if r.winner == view.me else f"{view.names[r.winner]}'s seat goes"
            went = " out (a bot played it)"
        elif r.by_clock and went:
            # the table's default move played the last card: the seat's turn clock ran out
            mine = r.winner == view.me
            whose = "your" if mine else f"{view.names[r.winner]}'s"
            who = "Your seat goes" if mine else f"{view.names[r.winner]}'s seat goes"
            went = f" out (the table played it: {whose} time ran out)"
        head = f" Round {r.number} over: {who}{went}; {gain} score{'s' if gain not in ('you',) else ''} {r.points} points."
    # (style, text, rank): lines of a lower rank are dropped first when rows are short; 0 stays
    BLANK, ENDING, TEAM_TITLE, HEAD_MORE, TITLES, SEAT = 1, 2, 3, 4, 5, 6
    out: list[tuple[str, str, int]] = []
    for i, line in enumerate(wrap(head.strip(), width - 1, " ", "   ")):
        out.append(("class:title", line, HEAD_MORE if i else 0))
    if view.ending:
        # the move that ended the round (and what it did), from the log
        out += [("", line, ENDING) for line in wrap("How it ended: " + "; ".join(view.ending) + ".",
                                                    width - 1, " ", "   ")]
    out.append(("", "", BLANK))
    players = range(view.players)
    cols = standings_columns(width, view.teams)
    if view.teams:
        # each player's own points, beside the team totals that count for the match
        order = list(players)
        first, own, togo_title = "team", "own pts", ""
    else:
        out.append(("class:title", f" Standings (first to {view.target}):", TITLES))
        order = sorted(players, key=lambda s: (-r.scores[s], s))
        first, own, togo_title = "place", "total", "to go"
    seat_w, name_w, place_w, own_w, togo_w = cols["seat"], cols["name"], cols["place"], cols["own"], cols["togo"]
    if len(first) >= place_w:
        first = "#" if first == "place" else first[:place_w - 1]
    titles = (f"  {first:<{place_w}}{'seat' if seat_w else '':<{seat_w}}{'player':<{name_w + 1}}{'left':>5}"
              f"{own:>{own_w}}{togo_title:>{togo_w}}")
    if cols["cards"]:
        titles += "  cards left in hand" if cols["cards"] >= 18 else "  cards"
    out.append(("class:dim", cut(titles, width - 1)[0].rstrip(), TITLES))
    for s in order:
        pts = r.hand_points[s] if s < len(r.hand_points) else 0
        cards = ""
        if cols["cards"] and s < len(r.hands):
            cards = cards_text(r.hands[s], cols["cards"] - (6 if s in view.knocked_out else 0))
        if s in view.knocked_out:  # (without the cards column too: it is why the seat has no go)
            cards = "(out) " + cards
        name = pad(view.names[s], name_w)
        mark = "*" if s == r.winner else " "
        if view.teams:
            col, togo = team_name(s % 2), ""
        else:
            col = ordinal(1 + sum(1 for t in players if r.scores[t] > r.scores[s]))
            togo = str(view.target - r.scores[s]) if r.scores[s] < view.target else ""
        seat = f"{s:<{seat_w}}" if seat_w else ""
        out.append(("class:seat.turn" if s == r.winner else "",
                    f" {mark}{col:<{place_w}}{seat}{name} {pts:>5}{r.scores[s]:>{own_w}}{togo:>{togo_w}}"
                    f"  {cards}".rstrip(), SEAT))
    if view.teams and r.team_scores is not None:
        out.append(("", "", BLANK))
        out.append(("class:title", f" The teams' totals (first to {view.target}):", TEAM_TITLE))
        out += [("", line, 0) for line in team_lines(view, r.team_scores, width - 1)]
    out.append(("", "", BLANK))
    if r.match_over:
        # wrapped on words (at 50 columns a long winner was cut at the edge); the next match
        # offered is said as the status line says it (it read "Q to quit." above "Enter: the next match.")
        again = "Enter: the next match.  Q to quit." if getattr(view, "next_lobby", None) is not None else "Q to quit."
        head = wrap(f"*** Match over: {view.winner_text()}! ***", width - 1, " ", "   ")
        if cells(head[-1] + "   " + again) <= width - 1:  # (the keys stay one phrase, never split)
            head[-1] += "   " + again
        else:
            head.append(" " + again)
        out += [("class:uno", line, 0) for line in head]
    elif view.me < 0:  # (a dealer-only host watching read "Enter: deal the next round." it cannot)
        out.append(("class:status", " Waiting for the players to deal the next round.   Q: quit.", 0))
    elif view.is_ready:
        out.append(("class:status", " Ready: waiting for the others.   Q: quit.", 0))
    else:
        out.append(("class:status", " Enter: deal the next round.   Q: quit.", 0))
    for rank in (BLANK, ENDING, TEAM_TITLE, HEAD_MORE, TITLES, SEAT):
        while len(out) > rows and any(k == rank for _s, _t, k in out):
            # (seat rows go from the last up: the winner's and the first places stay longest)
            i = max(i for i, (_s, _t, k) in enumerate(out) if k == rank)
            if rank == HEAD_MORE:  # the headline stays one line, cut where it was wrapped
                out[i - 1] = (out[i - 1][0], cut(out[i - 1][1], width - 5)[0].rstrip() + " ...", 0)
                while i < len(out) and out[i][2] == HEAD_MORE:
                    del out[i]
                continue
            if rank == ENDING:  # (a sentence goes whole, never its first half)
                out = [line for line in out if line[2] != ENDING]
                continue
            del out[i]
    return [(style, text) for style, text, _k in out]


def team_lines(view: TableView, totals, width: int = 1000) -> list[str]:
    """The two teams' totals, their columns lined up in terminal cells:
    " Team A (yours): You & Ben      77 points, 23 to go"; on a narrow screen without the
    members (the standings above name each player's team)."""
    labels = [f" Team {team_name(t)}{' (yours)' if view.me >= 0 and view.me % 2 == t else ''}:" for t in (0, 1)]
    members = [" & ".join(fit(n, 13) for n in view.team_members(t)) for t in (0, 1)]
    lw, mw = max(map(cells, labels)), max(map(cells, members))
    lines = []
    for t in (0, 1):
        total = totals[t]
        if view.result is not None and view.result.match_winner == t:
            where = "wins the match"
        elif total >= view.target:
            where = f"reached {view.target}"
        else:
            where = f"{view.target - total} to go"
        unit = "point, " if total == 1 else "points,"
        lines.append((pad(labels[t], lw), pad(members[t], mw), f"{total:>5} {unit} {where}"))
    if max(cells(f"{a} {b} {c}") for a, b, c in lines) > width:
        return [f"{a} {c}" for a, _b, c in lines]
    return [f"{a} {b} {c}" for a, b, c in lines]


def result_text(view: TableView, ctl=None):
    return [(style, text + "\n") for style, text in result_lines(view, result_rows(view, ctl), _width())]


KEYS_HELP = [
    ("<- -> Tab", "choose a card (Tab: next playable); Enter plays it"),
    ("r7 gs b+2 yr", "type a card: colour R Y G B + 0-9, S, R or +2; then Enter"),
    ("w g, w+4 r", "a wild with its colour (or Enter, then pick R Y G B)"),
    ("r7!  or  U", "call UNO with your next-to-last card"),
    ("D  K", "draw (or take a pending penalty); keep the card just drawn"),
    ("C  X", "challenge a Wild Draw Four on you; catch a missed UNO"),
    ("J", "jump in out of turn with an exact copy of the top card"),
    ("0-9", "after your 7: the seat to swap hands with"),
    ("SPACE  !", "slap the card in a race (6-smackdown, chili WK); last draws 2"),
    ("Esc Backspace", "clear or edit what you typed; cancel the colour picker"),
    ("Enter", "after a round: deal the next one"),
    ("PgUp PgDn", "scroll what happened back (and forth again)"),
    ("?  q", "this help; quit (asks first)"),
]
# UNO Flip's light side has no 0, +2 or W+4: its own lines replace those
FLIP_KEYS = {
    "r7 gs b+2 yr": ("r7 gs b+1 yf", "type a card: colour R Y G B + 1-9, S, R, +1 or F (flip); then Enter"),
    "w g, w+4 r": ("w g, w+2 r", "a wild with its colour (or Enter, then pick R Y G B)"),
    "C  X": ("C  X", "challenge a Wild Draw Two or Colour on you; catch a missed UNO"),
}
KEY_COLUMN = 18  # "  " + key (15) + " "


def wrap(text: str, width: int, first: str = " ", rest: str | None = None) -> list[str]:
    """``text`` broken on word boundaries into lines of at most ``width`` columns, the
    first starting with ``first``, the others with ``rest`` (default: as deep as ``first``)."""
    rest = " " * len(first) if rest is None else rest
    width = max(len(rest) + 8, width)
    lines: list[str] = []
    line, empty = first, True
    for word in text.split():
        while word:
            room = width - cells(line) - (0 if empty else 1)
            if cells(word) <= room:
                line, empty, word = line + ("" if empty else " ") + word, False, ""
            elif not empty:
                lines.append(line)
                line, empty = rest, True
            else:  # a word longer than a line is broken (by cells: a wide character stays whole)
                head, word = cut(word, room)
                if not head:
                    head, word = word[0], word[1:]
                lines.append(line + head)
                line, empty = rest, True
    if not empty:
        lines.append(line)
    return lines or [first.rstrip()]


def variant_keys(view: TableView) -> list[tuple[str, str]]:
    """Keys that only these rules use."""
    out = []
    if view.flip:
        out.append(("p5 tse o+5 uf", "dark side: P pink, T teal, O orange, U purple; SE, +5, F"))
        out.append(("w o, w+c o", "dark side wilds: W+C makes the next player draw to the colour; ! is UNO"))
    if view.has("deadly"):
        out.append(("D (deadly)", "only when nothing fits: you go OUT of the round (asks first)"))
    if view.has("seven-o-optional"):
        out.append(("K (after a 7)", "keep your own hand instead of swapping"))
    if view.has("draw-and-play"):
        out.append(("Enter (drawn)", "a drawn card that fits must be played (no K)"))
    if view.has("no-challenges"):
        out.append(("(no C)", "no challenges: a Wild Draw Four just lands"))
    return out


def rule_keys(view: TableView) -> list[tuple[str, str]]:
    """The keys these rules use, and only those: no J without jump-in, no 0-9 without
    seven-o, no race key without a race card, Flip's cards on a Flip table."""
    keys = [FLIP_KEYS.get(k, (k, what)) if view.flip else (k, what) for k, what in KEYS_HELP]
    drop = set()
    if "jump-in" not in view.house:
        drop.add("J")
    if "seven-o" not in view.house:
        drop.add("0-9")
    if not (view.has("six-smackdown") or view.deck == "office"):
        drop.add("SPACE  !")
    if view.has("no-challenges") or view.has("wd4-strict"):
        keys = [("X", "catch a player who missed UNO") if k == "C  X" else (k, w) for k, w in keys]
    return [k for k in keys if k[0] not in drop] + variant_keys(view)


def help_sections(view: TableView, width: int) -> list[list[tuple[str, str]]]:
    """The help as sections of screen lines (style, text), each line at most ``width - 1``."""
    width = width - 1
    keys_part = [("class:title", " Keys")]
    keys = rule_keys(view)
    for k, what in keys:
        for line in wrap(what, width, f"  {k:<15} ", " " * KEY_COLUMN):
            keys_part.append(("", line))
    rules = [("class:title", " Rules in force")]
    texts = [view.rules_text.split("; house:")[0]]  # the house rules follow, one a line
    texts += view.house_in_words()
    if view.teams:
        texts.append("Partners sit opposite (even seats team A, odd team B); "
                     "a team scores its opponents' cards.")
    wild = "A wild draw (W+2, W+C)" if view.flip else "A W+4"
    if view.has("no-challenges"):
        texts.append(f"{wild} may be played any time and cannot be challenged.")
    elif view.has("wd4-strict"):
        texts.append(f"{wild} is refused while you hold the colour in force or the top card's "
                     "number, so it is never challenged.")
    else:
        texts.append(f"{wild} is legal only when you hold no card of the colour in force; "
                     "the next player may challenge it as a bluff.")
    for text in texts:
        for line in wrap(text, width, "  ", "    "):
            rules.append(("", line))
    return [keys_part, rules]


def help_pages(view: TableView, width: int, rows: int) -> list[list[tuple[str, str]]]:
    """The help cut into pages of ``rows`` lines: whole sections where they fit, a blank
    line between sections on one page."""
    rows = max(3, rows)
    pages: list[list] = [[]]
    for section in help_sections(view, width):
        page = pages[-1]
        gap = 1 if page else 0
        if page and len(page) + gap + len(section) > rows:
            pages.append([])
            page, gap = pages[-1], 0
        if gap:
            page.append(("", ""))
        for line in section:
            if len(page) >= rows:
                pages.append([])
                page = pages[-1]
            page.append(line)
    return pages


def _rows() -> int:
    return _size()[1]


def current_help(view: TableView, ctl) -> list[tuple[str, str]]:
    pages = help_pages(view, _width(), _rows() - 2)
    ctl.help_pages = len(pages)
    ctl.help_page = min(ctl.help_page, len(pages) - 1)
    return pages[ctl.help_page]


def help_text(view: TableView, ctl):
    out = []
    for style, line in current_help(view, ctl):
        out.append((style, line + "\n"))
    return out


# ---------------------------------------------------------------------- the table screen
def split_lines(fragments) -> list[list[tuple[str, str]]]:
    """Fragments cut into lines at their newlines (a text ending in one has an empty last line)."""
    lines: list[list[tuple[str, str]]] = [[]]
    for style, text, *_ in fragments:
        for i, part in enumerate(text.split("\n")):
            if i:
                lines.append([])
            if part:
                lines[-1].append((style, part))
    return lines


def fit_line(line, width: int) -> list[tuple[str, str]]:
    """One line cut to ``width`` cells and padded with spaces to exactly that."""
    out, used = [], 0
    for style, text in line:
        if used >= width:
            break
        w = cells(text)
        if used + w > width:
            text = cut(text, width - used)[0]
            w = cells(text)
        out.append((style, text))
        used += w
    if used < width:
        out.append(("", " " * (width - used)))
    return out


def wrap_line(line, width: int) -> list[list[tuple[str, str]]]:
    """One line broken into pieces of at most ``width`` cells (anywhere: a window's line wrap)."""
    pieces: list[list[tuple[str, str]]] = [[]]
    used = 0
    for style, text in line:
        while text:
            head, text = cut(text, width - used)
            if not head and used == 0:  # a character wider than the window: alone on its line
                head, text = text[0], text[1:]
            if head:
                pieces[-1].append((style, head))
                used += cells(head)
            if text:
                pieces.append([])
                used = 0
    return pieces


def window(fragments, width: int, height: int, *, wrap_lines: bool = False,
           last: bool = False) -> list[list[tuple[str, str]]]:
    """A window of the screen: ``height`` rows of ``width`` cells showing the text's lines
    (wrapped, or cut at the edge), its last lines when it has more than fit (``last``)."""
    lines = split_lines(fragments)
    if wrap_lines:
        lines = [piece for line in lines for piece in wrap_line(line, width)]
    if last and len(lines) > height:
        if not lines[-1]:
            lines.pop()  # (the newline that ends the last line)
        lines = lines[-height:]
    lines = lines[:height] + [[] for _ in range(height - len(lines))]
    return [fit_line(line, width) for line in lines]


def rule(width: int, char: str = "-") -> list[tuple[str, str]]:
    return [("class:line", char * width)]


def table_rows(view: TableView, room: int) -> int:
    """Rows of the table's window: the lines it needs (2 to 10) or, beside the log on a
    short terminal, all ``room``."""
    need = max(1, sum(text.count("\n") for _style, text in table_text(view)))
    return max(2, min(need, 10, room))


def left_panel(view: TableView, width: int, height: int, *, fit: bool):
    """The seats and the table (and on a tall terminal beside the log, the match and the
    rules below them), ``height`` rows; with ``fit``, only as many rows as they need (the
    log goes under them).  None: every seat does not fit (a table with a player missing
    would mislead)."""
    tall = not fit and _rows() >= TALL
    fixed = seats_height(view) + 1 + (1 if tall else 0)
    if height < fixed + 2:
        return None
    table = table_rows(view, height - fixed) if fit or tall else height - fixed
    out = window(seats_text(view), width, seats_height(view))
    out.append(rule(width))
    out += window(table_text(view), width, table, wrap_lines=True)
    if tall:
        out.append(rule(width))
        out += window(match_text(view), width, height - fixed - table)
    return out


def table_screen(view: TableView, ctl, columns: int, rows: int) -> list[list[tuple[str, str]]] | None:
    """The table screen: ``rows`` lines of styled fragments, ``columns`` cells each; None when
    the terminal is too small for it.  The running application shows these lines as they are
    (`layout`), and so does the first frame (`first_frame`): one layout, two painters.

    Beside the log from NARROW columns on; under that the log goes under the table, as wide
    as the screen (beside it, it would be a few letters wide)."""
    with drawing_at(columns, rows):
        lines = _table_screen(view, ctl, columns, rows, text_rows(ctl.feedback()))
        if lines is None and columns < NARROW:
            # short of a row or two (play10: at 50x16 a hand of ten cards wrapped onto a
            # second line on our turn, and "Window too small..." kept us from playing until
            # the turn clock ran out): the feedback gets one row, none while it is empty;
            # last, none at all (a stopped table's banner over a 50x16 screen left only
            # "Window too small..." under it: the table and "Q quits" went)
            for feedback in (1 if ctl.feedback() else 0, 0):
                lines = lines or _table_screen(view, ctl, columns, rows, feedback)
        return lines


def _table_screen(view: TableView, ctl, columns: int, rows: int, feedback: int):
    """`table_screen` with ``feedback`` rows for the feedback line."""
    bottom = [rule(columns)]
    bottom += window(hand_text(view, ctl), columns, hand_rows(view, ctl))
    bottom += window(status_text(ctl), columns, text_rows(ctl.status()))
    bottom += window(feedback_text(ctl), columns, feedback) if feedback else []
    height = rows - 1 - len(bottom)
    if columns < NARROW:
        left = left_panel(view, columns, height - 1, fit=True)
        if left is None:
            return None
        rest = height - len(left) - 1
        if rest >= 2:
            body = left + [rule(columns)] + window(log_text(view), columns, rest, last=True)
        else:
            # no room for the panel's title: its newest line alone (never a panel of
            # nothing between two rules), in place of the rule when even that is short
            newest = window([("", newest_log_line(view, columns - 1))], columns, 1)
            body = left + ([rule(columns)] if rest == 1 else []) + newest
    else:
        panel = left_width(columns)
        left = left_panel(view, panel, height, fit=False)
        if left is None:
            return None
        log = window(log_text(view), columns - panel - 1, height, last=True)
        body = [a + rule(1, "|") + b for a, b in zip(left, log)]
    return window(header_text(view), columns, 1) + body + bottom

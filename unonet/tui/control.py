"""The client's input logic: what each key means now, apart from prompt_toolkit.

`Controller` holds the user-interface state (the selected card, the text being typed,
the colour picker, help and quit prompts) and turns keys into actions submitted to the
table.  `keys.py` only maps prompt_toolkit keys to these methods, so everything here is
tested with plain calls.
"""

from __future__ import annotations

from ..engine import (CallUno, Catch, Challenge, ChooseColor, Draw, InvalidCardError, Pass, Play,
                      Respond, Swap, deck_cards, parse_card, parse_color)
from .. import feed
from .view import TableView, color_name, colors_text

CARD_START = set("rygbw")
DARK_START = set("ptou")  # UNO Flip's dark side: pink, teal, orange, pUrple
TYPING_CHARS = set("rygbwcsu0123456789+ !RYGBWCSU")
# every face of the Flip deck (both sides): "P5", "T+5", "OSE", "W+C", "R+1", "GF", "W+2"...
FLIP_CODES = frozenset(f.code for c in deck_cards("flip") for f in (c, c.other))


def parse_face(text: str) -> str | None:
    """The face code typed (``r7`` -> ``R7``, ``ose`` -> ``OSE``, ``w+c`` -> ``W+C``), or None."""
    try:
        return parse_card(text).code
    except InvalidCardError:
        code = text.strip().upper()
        return code if code in FLIP_CODES else None


def color_names(colors) -> str:
    """``R red, Y yellow, G green, B blue`` for the colours in play."""
    return ", ".join(f"{c} {color_name(c)}" for c in colors)


class Controller:
    def __init__(self, view: TableView, table) -> None:
        self.view = view
        self.table = table
        self.selected = 0
        self.typed = ""
        self.mode: str | None = None      # None, "color", "help", "quit"
        self.wild: tuple | None = None    # (card, uno) waiting for a colour
        self.message: str | None = None   # the client's own feedback line
        self.quit = False                 # the app exits when this turns True
        self._seen_changes = -1
        self._hand_ids: tuple = ()
        self._was_my_turn = False
        self._message_at = 0              # view.changes when the message was given
        self.help_page = 0                # the help's page shown (the layout sets help_pages)
        self.help_pages = 1
        # the layout sets this: True while "Window too small" covers the table (no moves then)
        self.blind = lambda: False

    # ------------------------------------------------------------------ helpers
    @property
    def me(self) -> int:
        return self.view.me

    def hand(self) -> list:
        return self.view.sorted_hand()

    def sync(self) -> None:
        """Keep the selection sensible after the table changed (called before drawing)."""
        v = self.view
        if v.changes == self._seen_changes:
            return
        self._seen_changes = v.changes
        # feedback is about the moment it was given: the table's next event ends it
        if self.message is not None and v.changes > self._message_at:
            self.message = None
        if v.notice is not None and v.changes > v.notice_at:
            v.notice = None
        hand = self.hand()
        ids = tuple(c.id for c in hand)
        if ids != self._hand_ids:
            old = self._hand_ids[self.selected] if self.selected < len(self._hand_ids) else None
            self._hand_ids = ids
            target = None
            if v.drawn is not None:
                target = v.drawn.id
            elif v.new_ids and v.my_turn:
                target = next(iter(v.new_ids))
            elif old in ids:
                target = old
            if target in ids:
                self.selected = ids.index(target)
        if v.phase == "drawn" and v.drawn is not None and v.drawn.id in ids:
            self.selected = ids.index(v.drawn.id)
        if v.my_turn and v.playable and hand and hand[min(self.selected, len(hand) - 1)].id not in v.playable:
            # on your turn the cursor starts on a card you can play
            self.selected = next(i for i, c in enumerate(hand) if c.id in v.playable)
        self.selected = max(0, min(self.selected, len(hand) - 1))
        if self.mode == "out" and not (v.my_turn and v.phase == "play" and not v.playable and not v.pending):
            self.mode = None
        if self.mode == "color" and (not v.my_turn or self.wild is None or
                                     all(c.id != self.wild[0].id for c in v.hand)):
            self.mode, self.wild = None, None

    def selected_card(self):
        hand = self.hand()
        if not hand:
            return None
        return hand[max(0, min(self.selected, len(hand) - 1))]

    TOO_SMALL = "The window is too small to show the table: enlarge it to play (q quits)."

    def refuse_blind(self) -> bool:
        """No move while the table cannot be seen: True (and say why) if the screen is too small."""
        if self.blind() and self.mode != "quit":
            self.typed = ""
            self.flash(self.TOO_SMALL)
            return True
        return False

    def lay_out_table(self, draw):
        """``draw()`` (the table screen's lines, None: it does not fit) without the too-small
        notice in the way: once the table fits again the notice is stale (gone), and while it
        does not, "Window too small" says it - its lines must never keep the table out."""
        if self.message != self.TOO_SMALL:
            return draw()
        self.message = None
        lines = draw()
        if lines is None:
            self.message = self.TOO_SMALL  # (the result and help screens still show it)
        return lines

    def flash(self, text: str | None) -> None:
        self.message = text
        self._message_at = self.view.changes

    def submit(self, action) -> bool:
        self.view.notice = None
        reason = self.table.submit(action)
        if reason is not None:
            self.view.notice = reason
            return False
        return True

    def status(self) -> str:
        """The status line: what to do now, or the mode's question."""
        self.sync()
        if self.mode == "quit":
            return "Quit the match? Y: quit, any other key: keep playing."
        if self.mode == "color":
            return f"{self.wild[0].code}: which colour? {color_names(self.view.colors)} (Esc: cancel)"
        if self.mode == "out":
            return "Nothing fits: D again (or Y) takes you OUT of this round (deadly); Esc: not yet."
        if self.mode == "help":
            if self.help_pages > 1 and self.help_page + 1 < self.help_pages:
                return (f"Help page {self.help_page + 1}/{self.help_pages}: SPACE or Enter: next page; "
                        "any other key: back to the table.")
            if self.help_pages > 1:
                return f"Help page {self.help_pages}/{self.help_pages}: any key to go back to the table."
            return "Help: any key to go back to the table."
        return self.view.prompt()

    def feedback(self) -> str:
        """The second status line: what you are typing, or why the last key did nothing."""
        self.sync()
        if self.typed:
            return f"> {self.typed}_   " + (self.message or "(Enter: play, Esc: clear)")
        return self.view.notice or self.message or self.bluff_hint() or ""

    def bluff_hint(self) -> str | None:
        """The card under the cursor is a Wild Draw Four the rules forbid now (a card of the
        colour in force is in hand): the table lets it go down, but it is a bluff."""
        v = self.view
        card = self.selected_card() if v.my_turn and v.phase == "play" else None
        if card is None or card.rank != "W+4" or card.id not in v.playable or v.color is None:
            return None
        held = [c.code for c in v.hand if c.color == v.color and c.id != card.id]
        if not held:
            return None
        return (f"W+4 now is a bluff: you hold {held[0]} ({color_name(v.color)} is in force); "
                "a challenge would catch it")

    # ------------------------------------------------------------------ keys
    def key(self, ch: str) -> None:
        """A printable key."""
        self.sync()
        self.message = None
        if self.mode == "quit":
            if ch.lower() == "y":
                self.quit = True
            else:
                self.mode = None
                self.flash("Carry on.")
            return
        if ch.lower() == "q" and self.blind():
            self.ask_quit()  # the one key that works blind: leaving
            return
        if self.refuse_blind():
            return
        v = self.view
        if ch in " !" and (v.racing or v.race and not self.typed and self.mode is None):
            self.respond()  # a reaction race: slap the card, whatever else is going on
            return
        if ch == " " and not v.race and v.race_over is not None and not self.typed and self.mode is None:
            # a slap a moment too late is no Enter: it would play the chosen card (play16: a late
            # SPACE after the table's clock closed the race on WK read "Wait: it's Ana's turn.")
            self.flash(f"Too late: the race on {v.race_over.code} is over.")
            return
        if self.mode == "help":
            self.help_key(ch == " ")
            return
        if self.mode == "out":
            self.mode = None
            if ch.lower() in ("d", "y"):
                self.submit(Draw(self.me))
            else:
                self.flash("You stay in: play on when you can (Esc, any key but D).")
            return
        if self.mode == "color":
            color = self._color(ch)
            if color is None:
                self.flash(f"Pick a colour: {colors_text(v.colors)} (Esc to cancel).")
                return
            self._play_wild(color)
            return
        if self.typed:
            if ch == "q":
                self.ask_quit()
            elif ch == "?":
                self.show_help()
            elif ch in TYPING_CHARS or ch.isalpha():
                self.typed += ch
            else:
                self.flash(f"'{ch}' is not part of a card: type e.g. {self.examples()}")
            return
        low = ch.lower()
        if ch == "?":
            self.show_help()
        elif low == "q":
            self.ask_quit()
        elif v.my_turn and v.phase == "color" and low.upper() in v.colors:
            self.submit(ChooseColor(self.me, low.upper()))
        elif low in CARD_START or v.side and low in DARK_START:
            self.typed = low
        elif ch == "!":
            if v.race:
                self.flash("You have slapped this card already; the others are still racing."
                           if v.race_by != self.me else "You started this race: the others must slap.")
            else:
                self.uno()
        elif ch.isdigit():
            self.digit(int(ch))
        elif low == "d":
            self.draw()
        elif low == "k" or low == "p" and v.phase == "drawn" and not v.side:
            self.keep()
        elif low == "u":
            self.uno()
        elif low == "c":
            self.challenge_or_catch()
        elif low == "x":
            self.catch()
        elif low == "j":
            self.jump()
        elif low == "n" or ch == " ":
            if v.round_over:
                self.next_round()
            elif ch == " ":
                self.enter()
        else:
            self.flash(f"'{ch}' does nothing here; ? shows the keys.")

    def show_help(self) -> None:
        self.mode, self.help_page = "help", 0

    def help_key(self, next_page: bool) -> None:
        """In the help: SPACE or Enter turns to the next page; any other key (or either on
        the last page) goes back to the table."""
        if next_page and self.help_page + 1 < self.help_pages:
            self.help_page += 1
        else:
            self.mode, self.help_page = None, 0

    def escape(self) -> None:
        self.message = None
        if self.mode in ("color", "help", "quit", "out"):
            self.mode, self.wild = None, None
        self.typed = ""

    def backspace(self) -> None:
        self.typed = self.typed[:-1]

    def move(self, step: int) -> None:
        self.sync()
        if self.mode is not None or self.refuse_blind():
            return
        n = len(self.hand())
        if n:
            self.selected = (self.selected + step) % n

    def scroll_log(self, pages: int, page: int = 10) -> None:
        """PgUp (+1) / PgDn (-1): the log panel looks further back, or forth again."""
        v = self.view
        v.log_back = max(0, min(v.log_back + pages * page, max(0, len(v.log) - page)))

    def home(self, end: bool = False) -> None:
        self.sync()
        n = len(self.hand())
        self.selected = n - 1 if end and n else 0

    def next_playable(self) -> None:
        self.sync()
        hand = self.hand()
        for k in range(1, len(hand) + 1):
            i = (self.selected + k) % len(hand)
            if self.view.is_playable(hand[i]):
                self.selected = i
                return
        self.flash("No card in your hand can be played now.")

    def interrupt(self) -> None:
        """Ctrl-C: ask first; a second Ctrl-C quits."""
        if self.mode == "quit":
            self.quit = True
        else:
            self.ask_quit()

    def ask_quit(self) -> None:
        """q: ask before leaving a match in play; once the match is over, just quit."""
        if self.view.match_over:
            self.quit = True
        else:
            self.mode = "quit"

    # ------------------------------------------------------------------ commands
    def enter(self) -> None:
        self.sync()
        self.message = None
        v = self.view
        if self.mode == "quit":
            self.mode = None
            return
        if self.refuse_blind():
            return
        if self.mode == "help":
            self.help_key(True)
            return
        if self.mode == "color":
            self.flash(f"Pick a colour: {colors_text(v.colors)} (Esc to cancel).")
            return
        if self.mode == "out":
            self.mode = None
            return
        if self.typed:
            text, self.typed = self.typed, ""
            if text.strip().lower() == "u":  # the dark side's purple starts with U: U Enter is UNO
                self.uno()
            else:
                self.play_text(text)
            return
        if v.racing:
            self.respond()
            return
        if v.round_over:
            self.next_round()
            return
        if v.my_turn and v.phase == "drawn" and v.drawn is not None:
            if v.drawn.id in v.playable:
                self.play_card(v.drawn)
            else:
                self.keep()  # it does not fit: Enter keeps it
            return
        card = self.selected_card()
        if card is None:
            self.flash("You hold no cards.")
            return
        self.play_card(card)

    def examples(self) -> str:
        if self.view.side:
            return "p5, tse (skip everyone), o+5, uf (flip), w o, w+c t"
        if self.view.flip:
            return "r7, gs, b+1, yf (flip), w g, w+2 r"
        return "r7, gs, b+2, w g, w+4 r"

    def _color(self, text: str) -> str | None:
        """A colour of the side in play, from a letter or a name (None: not one)."""
        try:
            color = parse_color(text)
        except InvalidCardError:
            return None
        return color if color in self.view.colors else None

    def play_text(self, text: str) -> None:
        """Play from notation: ``r7``, ``gs``, ``w g``, ``w+4 b``, ``r7!`` or ``r7 u`` (with UNO);
        on Flip's dark side ``p5``, ``t+5``, ``ose``, ``w+c o``."""
        v = self.view
        raw = text.strip()
        uno = False
        if raw.endswith("!"):
            uno, raw = True, raw[:-1].strip()
        words = raw.split()
        first = parse_face(words[0]) if words else None
        purple = len(words) == 2 and words[1].lower() == "u" and "U" in v.colors \
            and first is not None and first.startswith("W")  # "w u" on the dark side: purple
        if len(words) > 1 and words[-1].lower() in ("u", "uno") and not purple:
            uno, words = True, words[:-1]
        if not words:
            self.flash(f"Type a card, e.g. {self.examples()}.")
            return
        code, color = words[0], None
        if len(words) > 2:
            self.flash(f"'{text}': type a card and, for a wild, a colour (w {v.colors[1].lower()}).")
            return
        if len(words) == 2:
            color = words[1]
        elif parse_face(code) is None and code[:1].lower() == "w" and len(code) > 1 \
                and parse_face(code[:-1]) is not None:
            code, color = code[:-1], code[-1:]  # "w+4g", "wg", "w+co": a wild with its colour glued on
        face = parse_face(code)
        if face is None:
            self.flash(f"'{code}' is not a card: try {self.examples()}.")
            return
        if color is not None:
            named = self._color(color)
            if named is None:
                self.flash(f"'{color}' is not a colour {'on this side' if v.flip else ''}: "
                           f"{colors_text(v.colors)}.".replace("  ", " ").replace(" :", ":"))
                return
            color = named
            if not face.startswith("W"):
                self.flash(f"Only a wild takes a colour: type just {face.lower()}.")
                return
        mine = [c for c in v.hand if c.code == face]
        if not mine:
            self.flash(f"You don't hold {face}.")
            return
        card = next((c for c in mine if v.is_playable(c)), mine[0])
        if v.phase == "drawn" and v.my_turn and v.drawn is not None:
            same = [c for c in mine if c.id == v.drawn.id]
            card = same[0] if same else card
        ids = [c.id for c in self.hand()]
        self.selected = ids.index(card.id)
        self.play_card(card, color=color, uno=uno)

    def play_card(self, card, color: str | None = None, uno: bool = False) -> None:
        v = self.view
        why = self.why_not(card)
        if why:
            self.flash(why)
            return
        if uno and len(v.hand) != 2:
            self.flash(f"UNO is called as you play your next-to-last card; you hold {len(v.hand)}.")
            return
        if card.wild and color is None:
            self.mode = "color"
            self.wild = (card, uno)
            return
        self.submit(Play(self.me, card, color if card.wild else None, uno))

    def _play_wild(self, color: str) -> None:
        card, uno = self.wild
        self.mode, self.wild = None, None
        self.submit(Play(self.me, card, color, uno))

    def why_not(self, card) -> str | None:
        """Why ``card`` cannot be played now (None: it can)."""
        v = self.view
        if v.round_over:
            return "The round is over: Enter deals the next one."
        if v.is_playable(card):
            return None
        if v.out:
            return "You are out of this round (deadly): watch until it ends."
        if v.race:
            if v.racing:
                return "A race is on: SPACE (or !) to slap the card first; play goes on after it."
            return "Wait: a race is on; play goes on when everyone has slapped the card."
        if not v.my_turn:
            who = v.names[v.turn] if v.turn is not None else "nobody"
            if "jump-in" in v.house and v.top is not None:
                return f"It's {who}'s turn; you may only jump in with an exact copy of {v.top.code}."
            return f"Wait: it's {who}'s turn."
        if v.phase == "color":
            return f"Name the colour first: {colors_text(v.colors)}."
        if v.phase == "swap":
            keep = ", or K to keep your hand" if v.has("seven-o-optional") else ""
            return f"Choose whom to swap hands with: type a seat number{keep}."
        if v.phase == "drawn":
            drawn = v.drawn.code if v.drawn is not None else "the drawn card"
            if v.drawn is not None and v.drawn.id not in v.playable:
                return f"You drew {drawn}, which doesn't fit: Enter or K keeps it."
            keep = " (it must be played)" if v.has("draw-and-play") else ", K keeps it"
            return f"After drawing only {drawn} may be played: Enter plays it{keep}."
        if v.phase == "challenge":
            top = v.top.code if v.top is not None else "W+4"
            what = {"W+4": "Wild Draw Four", "W+2": "Wild Draw Two", "W+C": "Wild Draw Colour"}.get(top, top)
            keys = "D accept" if v.has("no-challenges") else "C challenge, D accept"
            return f"A {what} is on you: {keys}" + (", or stack a draw card." if v.has("stacking") else ".")
        if v.pending:
            return f"{v.pending} cards are on you: stack a draw card or D to draw them."
        if "no-wild-endings" in v.house and card.wild and len(v.hand) == 1:
            return "No wild endings: your last card cannot be a wild. D to draw."
        top = v.top.code if v.top is not None else "?"
        return (f"{card.code} doesn't fit on {top} (colour in force: {color_name(v.color)}); "
                "play a matching colour, number or symbol, a wild, or D to draw.")

    def draw(self) -> None:
        v = self.view
        if v.round_over:
            self.flash("The round is over: Enter deals the next one.")
        elif v.out:
            self.flash("You are out of this round (deadly): watch until it ends.")
        elif v.race:
            self.flash(self.why_not(v.hand[0]) if v.hand else "Wait: a race is on.")
        elif not v.my_turn:
            self.flash(f"Wait: it's {v.name(v.turn)}'s turn.")
        elif v.phase == "drawn":
            code = v.drawn.code if v.drawn else "it"
            if v.drawn is not None and v.drawn.id not in v.playable:
                self.flash(f"You already drew: {code} doesn't fit, Enter or K keeps it.")
            elif v.has("draw-and-play"):
                self.flash(f"You already drew: {code} fits, so Enter plays it.")
            else:
                self.flash(f"You already drew: Enter plays {code}, K keeps it.")
        elif v.phase in ("color", "swap"):
            self.flash(self.why_not(v.hand[0]) if v.hand else "Not now.")
        elif v.has("must-play-wd4") and v.phase == "play" and not v.pending and any(
                c.rank == "W+4" and c.id in v.playable for c in v.hand):
            self.flash("You hold a Wild Draw Four: no drawing, play it (must-play-wd4).")
        elif v.has("deadly") and v.phase == "play" and not v.pending:
            if v.playable:
                self.flash("Deadly: no drawing while a card fits - play one (Tab finds it).")
            else:
                self.mode = "out"  # drawing is going out: ask first
        else:
            self.submit(Draw(self.me))

    def keep(self) -> None:
        v = self.view
        if v.my_turn and v.phase == "drawn":
            if v.has("draw-and-play") and v.drawn is not None and v.drawn.id in v.playable:
                code = v.drawn.code if v.drawn is not None else "it"
                self.flash(f"Draw-and-play: a drawn card that fits must be played - Enter plays {code}.")
            else:
                self.submit(Pass(self.me))
        elif v.my_turn and v.phase == "swap" and v.has("seven-o-optional"):
            self.submit(Pass(self.me))  # keep your own hand
        else:
            self.flash("K keeps a card you just drew; draw first with D.")

    def respond(self) -> None:
        """Slap the card of a reaction race (6-smackdown, Wild Kevin's Famous Chili)."""
        v = self.view
        if v.racing:
            self.submit(Respond(self.me))
        elif v.race:
            self.flash("You are done with this race; the others are still slapping.")
        else:
            self.flash("No race is on: SPACE slaps a card only in a reaction race.")

    def uno(self) -> None:
        v = self.view
        if v.uno_ok:
            self.submit(CallUno(self.me))
        elif v.my_turn and len(v.hand) == 2:
            self.flash("Call UNO as you play: type the card with ! (r7!), or press U then play.")
        else:
            self.flash(f"UNO is for your next-to-last card; you hold {len(v.hand)} "
                       "(a false call costs 2 cards, so it was not sent).")

    def challenge_or_catch(self) -> None:
        v = self.view
        if v.my_turn and v.phase == "challenge":
            if v.has("no-challenges"):
                self.flash("No challenges at this table: D takes the cards"
                           + (", or stack a draw card." if v.playable else "."))
            else:
                self.submit(Challenge(self.me))
        elif v.can_catch is not None:
            self.catch()
        else:
            self.flash("C challenges a Wild Draw Four played on you, or catches a player who forgot UNO.")

    def catch(self) -> None:
        v = self.view
        if v.can_catch is not None:
            self.submit(Catch(self.me, v.can_catch))
        else:
            self.flash("Nobody to catch: only a player on one card who did not call UNO, "
                       "before the next player begins a turn.")

    def jump(self) -> None:
        v = self.view
        card = next((c for c in v.hand if c.id in v.jump_in), None)
        if card is None:
            top = v.top.code if v.top is not None else "the top card"
            self.flash(f"Jump in needs an exact copy of {top}, out of turn"
                       + ("" if "jump-in" in v.house else " (jump-in is not in these rules)") + ".")
            return
        self.submit(Play(self.me, card, None, len(v.hand) == 2))

    def digit(self, n: int) -> None:
        v = self.view
        if v.my_turn and v.phase == "swap":
            if n == self.me or n >= v.players or n not in v.active:
                self.flash(f"Seat {n} is not someone you can swap with.")
            else:
                self.submit(Swap(self.me, n))
        else:
            self.flash("Numbers choose a seat when you swap hands (seven-o).")

    def next_round(self) -> None:
        v = self.view
        if not v.round_over:
            self.flash("The round is still being played.")
        elif v.match_over:
            self.flash("The match is over: Q to quit.")
        elif v.is_ready:
            self.flash("You are ready already: the table deals once every player is.")
        elif self.submit(feed.Ready(self.me)):
            v.readied = v.result

    def pick_color(self, color: str) -> None:
        if color not in self.view.colors:
            return
        if self.mode == "color":
            self._play_wild(color)

"""The screen on prompt_toolkit: the table screen's text (`screen.table_screen`) in one
window, and in its place the round result or the help, with the header, the hand and the
status lines around them.  No game logic here; nothing writes to the view.

The text itself - what each part says and where it goes - is `screen`'s, which needs no
screen library: the first frame of `unonet play` is drawn from it before prompt_toolkit is
loaded (`first_frame`), the same lines this layout then shows.
"""

from __future__ import annotations

from prompt_toolkit.application.current import get_app
from prompt_toolkit.filters import Condition
from prompt_toolkit.layout import ConditionalContainer, Dimension, HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl, UIContent, UIControl
from prompt_toolkit.styles import Style

from .screen import (STYLE_RULES, feedback_text, hand_rows, hand_text, header_text, help_text, result_text,
                     status_text, table_screen, text_rows)
from .view import TableView

STYLE = Style(STYLE_RULES)


def hand_height(view: TableView, ctl) -> Dimension:
    return Dimension.exact(hand_rows(view, ctl))


def _lines(text: str) -> Dimension:
    return Dimension.exact(text_rows(text))


# ---------------------------------------------------------------------- containers
class TooSmall:
    """prompt_toolkit's "Window too small" in place of a container, remembering the render
    that showed it: while it covers the table, the controller takes no move (a key must
    never play a card the player cannot see)."""

    def __init__(self) -> None:
        self.shown: tuple | None = None  # (the application, its render_counter) when shown

    def window(self) -> Window:
        return Window(FormattedTextControl(self._text, focusable=False))

    def _text(self):
        app = get_app()
        self.shown = (app, app.render_counter)
        return [("class:window-too-small", " Window too small... ")]

    def __call__(self) -> bool:
        """Did the last screen drawn show it?"""
        return self.shown is not None and self.shown[0].render_counter == self.shown[1]


class TableScreen(UIControl):
    """The table screen as `screen.table_screen` lays it out for this window's size (or
    "Window too small..." when it does not fit)."""

    def __init__(self, view: TableView, ctl, too_small: TooSmall) -> None:
        self.view, self.ctl, self.too_small = view, ctl, too_small

    def create_content(self, width: int, height: int) -> UIContent:
        lines = self.ctl.lay_out_table(lambda: table_screen(self.view, self.ctl, width, height))
        if lines is None:
            lines = [self.too_small._text()]
        return UIContent(get_line=lambda i: lines[i], line_count=len(lines), show_cursor=False)

    def is_focusable(self) -> bool:
        return False


def build_layout(view: TableView, ctl) -> Layout:
    showing_result = Condition(lambda: view.result is not None and ctl.mode != "help")
    showing_help = Condition(lambda: ctl.mode == "help")
    showing_table = ~showing_result & ~showing_help
    too_small = TooSmall()
    ctl.blind = too_small

    def ft(fn, **kw):
        return FormattedTextControl(fn, focusable=False, **kw)

    # the round result or the help, with the header, the hand and the status around them
    other = HSplit([
        Window(ft(lambda: header_text(view)), height=1),
        HSplit([
            ConditionalContainer(Window(ft(lambda: result_text(view, ctl))), filter=showing_result),
            ConditionalContainer(Window(ft(lambda: help_text(view, ctl))), filter=showing_help),
        ], window_too_small=too_small.window()),
        # the help uses every line but the header and the status line
        ConditionalContainer(HSplit([
            Window(height=1, char="-", style="class:line"),
            Window(ft(lambda: hand_text(view, ctl)), height=lambda: hand_height(view, ctl)),
        ]), filter=~showing_help),
        Window(ft(lambda: status_text(ctl)), height=lambda: _lines(ctl.status())),
        ConditionalContainer(
            Window(ft(lambda: feedback_text(ctl)), height=lambda: _lines(ctl.feedback())),
            filter=~showing_help),
    ], window_too_small=too_small.window())
    return Layout(HSplit([
        ConditionalContainer(Window(TableScreen(view, ctl, too_small)), filter=showing_table),
        ConditionalContainer(other, filter=~showing_table),
    ]))

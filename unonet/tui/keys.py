"""Key bindings: prompt_toolkit keys mapped onto `Controller` methods, nothing more."""

from __future__ import annotations

from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.keys import Keys


def build_keys(ctl, on_quit) -> KeyBindings:
    kb = KeyBindings()

    def after(event) -> None:
        if ctl.quit:
            on_quit()

    @kb.add(Keys.Any)
    def _(event):
        for kp in event.key_sequence:
            ch = kp.data
            if len(ch) == 1 and ch.isprintable():
                ctl.key(ch)
        after(event)

    @kb.add("enter")
    def _(event):
        ctl.enter()
        after(event)

    @kb.add("escape", eager=True)
    def _(event):
        ctl.escape()

    @kb.add("backspace")
    def _(event):
        ctl.backspace()

    @kb.add("left")
    def _(event):
        ctl.move(-1)

    @kb.add("right")
    def _(event):
        ctl.move(1)

    @kb.add("up")
    def _(event):
        ctl.move(-1)

    @kb.add("down")
    def _(event):
        ctl.move(1)

    @kb.add("pageup")
    def _(event):
        ctl.scroll_log(1)

    @kb.add("pagedown")
    def _(event):
        ctl.scroll_log(-1)

    @kb.add("home")
    def _(event):
        ctl.home()

    @kb.add("end")
    def _(event):
        ctl.home(end=True)

    @kb.add("tab")
    def _(event):
        ctl.next_playable()

    # a SIGINT from outside (`kill -INT`, a supervisor) reads as a Ctrl-C: evening19 found the
    # full-screen host playing on with no word
    @kb.add("c-c")
    @kb.add("<sigint>")
    def _(event):
        ctl.interrupt()
        after(event)

    @kb.add("c-l")
    def _(event):
        event.app.renderer.clear()

    return kb

"""`arena replay FILE`: the interactive terminal viewer (textual).

The frames are the rich renderables of `arena.replay.render`; this module
only adds the keys, the play/pause timer and the jump prompt.  textual's
`App.run_test()` pilot drives it headless in the tests.
"""

from __future__ import annotations

from rich.console import Console, RenderableType
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Footer, Header, Input, Static

from arena.replay.reader import Replay
from arena.replay.render import FrameBuilder, View

#: Seconds per step while playing, slowest to fastest.
SPEEDS = (2.0, 1.0, 0.5, 0.25, 0.1, 0.03)


class ReplayViewer(App):
    """Step through a replay from any seat's eyes."""

    TITLE = "Mau Arena replay"
    AUTO_FOCUS = None  # keys go to the viewer, not to the (hidden) jump prompt or the scroll area
    CSS = """
    #table-scroll { width: 1fr; }
    #log { width: 40%; min-width: 34; max-width: 52; }
    /* under NARROW columns (an 80x24 terminal) the log goes under the table, full width */
    #frame.narrow { layout: vertical; }
    #frame.narrow #table-scroll { width: 100%; height: 1fr; }
    #frame.narrow #log { width: 100%; max-width: 100%; height: auto; border-top: solid $secondary; }
    Screen.narrow Header { display: none; }
    #jump { dock: bottom; display: none; }
    #jump.open { display: block; }
    """
    #: Below this many columns the log moves under the table.
    NARROW = 110
    BINDINGS = [
        Binding("right,n", "step(1)", "next"),
        Binding("left,p", "step(-1)", "previous"),
        Binding("home,g", "go_start", "start"),
        Binding("end,G", "go_end", "end"),
        Binding("colon,j", "ask_jump", "jump"),
        Binding("space", "toggle_play", "play/pause"),
        Binding("plus,equals_sign", "speed(1)", "faster"),
        Binding("minus", "speed(-1)", "slower"),
        Binding("v", "cycle_view", "view"),
        Binding("a", "toggle_ahead", "moves ahead"),
        Binding("q", "quit", "quit"),
    ]

    def __init__(self, replay: Replay, step: int = 0, view: View | None = None, ahead: bool = False) -> None:
        super().__init__()
        self.builder = FrameBuilder(replay)
        self.replay = replay
        self.step = max(0, min(step, self.builder.last_step))
        self.view = view or View.omniscient()
        self.ahead = ahead  # list the moves after this step (omniscient view only): a spoiler, so asked for
        self.playing = False
        self.speed = 2
        self._timer = None

    def compose(self) -> ComposeResult:
        yield Header(icon="♠")
        with Horizontal(id="frame"):
            with VerticalScroll(id="table-scroll", can_focus=False):
                yield Static(id="table")
            yield Static(id="log")
        yield Input(placeholder="jump to decision (0 is the deal), Enter to go, Esc to cancel", id="jump")
        yield Footer()

    def on_mount(self) -> None:
        self.show()

    # -------------------------------------------------------------- drawing

    def show(self) -> None:
        narrow = 0 < self.size.width < self.NARROW
        self.query_one("#frame").set_class(narrow, "narrow")
        self.screen.set_class(narrow, "narrow")
        rows = 4 if narrow else max(5, self.size.height - 7)
        if narrow:
            table_width = log_width = self.size.width - 1
        else:
            table_width = self.query_one("#table-scroll").size.width or max(40, self.size.width - 52)
            log_width = self.query_one("#log").size.width or 52
        table = flatten(self.builder.table(self.step, self.view, compact=narrow), table_width - 2)
        self.query_one("#table", Static).update(table)
        if narrow:  # the log gives up rows before the table scrolls (footer 1, log border and header 2)
            rows = max(2, min(4, self.size.height - 3 - len(table.plain.splitlines()) - 1))
        self.query_one("#log", Static).update(
            flatten(self.builder.log(self.step, self.view, rows, self.ahead, compact=narrow), log_width))
        state = "playing" if self.playing else "paused"
        self.sub_title = (f"{self.replay.path.name} · step {self.step}/{len(self.replay.decisions)} · "
                          f"{self.view} · {state} {SPEEDS[self.speed]}s/step")

    def on_resize(self, event) -> None:
        # The panels get their new sizes in the layout pass after this event: redraw once it is done
        # (right after the refresh, the table still had its old width until the next key).
        self.set_timer(0.05, self.show)

    def frame_text(self, width: int = 120) -> str:
        """What the table and the log show now, as plain text (for tests and bug reports)."""
        console = Console(width=width, color_system=None, force_terminal=False)
        with console.capture() as capture:
            for widget_id in ("#table", "#log"):
                console.print(self.query_one(widget_id, Static).content)
        return capture.get()

    # -------------------------------------------------------------- actions

    def go(self, step: int) -> None:
        self.step = max(0, min(step, self.builder.last_step))
        if self.step == self.builder.last_step:
            self._stop()
        self.show()

    def action_step(self, delta: int) -> None:
        self.go(self.step + delta)

    def action_go_start(self) -> None:
        self.go(0)

    def action_go_end(self) -> None:
        self.go(self.builder.last_step)

    def action_cycle_view(self) -> None:
        self.view = self.view.next(self.replay.players)
        self.show()

    def action_toggle_ahead(self) -> None:
        self.ahead = not self.ahead
        if self.ahead and self.view.kind != "omniscient":
            self.notify("moves ahead are shown in the omniscient view only (v switches)", severity="information")
        self.show()

    def action_toggle_play(self) -> None:
        if self.playing:
            self._stop()
        else:
            if self.step >= self.builder.last_step:
                self.step = 0
            self.playing = True
            self._restart_timer()
        self.show()

    def action_speed(self, delta: int) -> None:
        self.speed = max(0, min(len(SPEEDS) - 1, self.speed + delta))
        if self.playing:
            self._restart_timer()
        self.show()

    def action_ask_jump(self) -> None:
        prompt = self.query_one("#jump", Input)
        prompt.value = ""
        prompt.add_class("open")
        prompt.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        self._close_prompt()
        try:
            target = int(text)
        except ValueError:
            self.notify(f"not a decision number: {text!r}", severity="warning")
            return
        self.go(target)

    def on_key(self, event) -> None:
        if event.key == "escape" and self.query_one("#jump", Input).has_class("open"):
            self._close_prompt()
            event.stop()

    def _close_prompt(self) -> None:
        prompt = self.query_one("#jump", Input)
        prompt.remove_class("open")
        self.set_focus(None)

    def _restart_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_interval(SPEEDS[self.speed], self._tick)

    def _tick(self) -> None:
        self.go(self.step + 1)

    def _stop(self) -> None:
        self.playing = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None



def flatten(renderable: RenderableType, width: int) -> Text:
    """Lay a frame out once, at the widget's width, as styled text.

    textual lays a Static out several times per refresh; nested rich tables
    and panels made that ~0.2 s a step, styled lines cost almost nothing.
    """
    console = Console(width=max(20, width), force_terminal=True, color_system="truecolor", legacy_windows=False)
    lines = console.render_lines(renderable, console.options, pad=False)
    text = Text(end="", no_wrap=True, overflow="crop")  # already laid out: never re-wrap
    for number, line in enumerate(lines):
        if number:
            text.append("\n")
        for segment in line:
            if not segment.control:
                text.append(segment.text, segment.style)
    return text

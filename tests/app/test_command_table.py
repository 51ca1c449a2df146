"""A screen's command table is read into the commands it writes, or refused."""

from __future__ import annotations

import pytest
from textual.binding import Binding
from textual.screen import ModalScreen

from memexplorer.app.command import Command, Commands
from memexplorer.app.screens.keys_from_commands import KeysFromCommands


def test_a_table_reads_into_typed_commands():
    table = Commands.table("Things", """
        close   escape,q     screen.close          Close
            Back to where the things
            were opened from
        widen   greater_than_sign  screen.resize(4)  Wider things  [no footer, rank 2]
            Give the things more room
        run     ctrl+r,f5    screen.run            Run  [priority, no palette, rank 1]
            Run it
    """)  # fmt: skip
    assert table.title == "Things"
    assert table.commands == (
        Command("close", "escape,q", "screen.close", "Close",
                "Back to where the things were opened from"),
        Command("widen", "greater_than_sign", "screen.resize(4)", "Wider things",
                "Give the things more room", footer=False, rank=2),
        Command("run", "ctrl+r,f5", "screen.run", "Run", "Run it", palette=False,
                priority=True, rank=1),
    )  # fmt: skip
    # The footer shows rank 1, then 2, then the unranked.
    assert [b.id for b in table.bindings()] == ["run", "widen", "close"]
    assert table.bindings()[0] == Binding("ctrl+r,f5", "screen.run", "Run", show=True,
                                          id="run", priority=True)  # fmt: skip
    assert [c.id for c in table.palette()] == ["close", "widen"]


def test_where_an_action_runs():
    on_app = Command("help", "f1", "app.help", "Help", "Show the keys")
    on_screen = Command("up", "k", "screen.select('up')", "Up", "Select the box above")
    bare = Command("copy", "c", "copy", "Copy", "Copy it")
    assert (on_app.on_app(), on_app.action_name()) == (True, "help")
    assert (on_screen.on_app(), on_screen.action_name()) == (False, "select('up')")
    assert (bare.on_app(), bare.action_name()) == (False, "copy")
    threshold = Command("raise", "]", "screen.threshold(0.05)", "Up", "Raise it")
    assert threshold.action_name() == "threshold(0.05)"


@pytest.mark.parametrize(
    ("rows", "says"),
    [
        ("\n    close  escape  screen.close\n        Back\n", "'close  escape  screen.close'"),
        ("\n    close  escape  screen.close  Close\n", "its help line indented below it"),
        ("\n        Back\n    close  escape  screen.close  Close\n", "'Back' is not"),
        ("\n    close  escape  screen.close  Close  [hidden]\n        Back\n",
         "close: 'hidden' is not a flag"),
        ("\n    close  escape  screen.close  Close  [rank x]\n        Back\n",
         "'rank x' is not a flag"),
    ],
)  # fmt: skip
def test_a_malformed_row_is_refused_with_what_to_write(rows, says):
    with pytest.raises(ValueError, match="The 'Things' commands") as refused:
        Commands.table("Things", rows)
    assert says in str(refused.value)


_TWO = Commands.table("Two", """
    later   l   screen.later   Later  [rank 5]
        Do it later
    now     n   screen.now     Now  [rank 1]
        Do it now
""")  # fmt: skip


def test_a_screen_that_names_its_commands_is_bound_to_their_keys():
    class Twice(ModalScreen[None], inherit_bindings=False):
        pass

    class Named(KeysFromCommands, Twice):
        SCREEN_COMMANDS = _TWO

    bound = list(Named._merged_bindings.key_to_bindings)  # what Textual merged for it
    assert bound == ["n", "l"]
    assert [b.id for b in Named.BINDINGS] == ["now", "later"]

    class Below(Named):  # a subclass keeps the keys it inherits
        pass

    assert list(Below._merged_bindings.key_to_bindings) == ["n", "l"]


def test_keys_written_beside_the_commands_are_refused():
    with pytest.raises(TypeError, match="BINDINGS come from its SCREEN_COMMANDS"):

        class Both(KeysFromCommands, ModalScreen[None]):
            SCREEN_COMMANDS = _TWO
            BINDINGS = [Binding("x", "screen.x", "X")]

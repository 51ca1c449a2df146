"""Help names every key as an operator types it: "<", ":", "?", never Textual's
internal names ("less_than_sign", "colon") that the help once showed."""

from __future__ import annotations

import re

from memexplorer.app.every_command import APP_COMMANDS, EVERY_SCREEN
from memexplorer.app.screens.help_screen import help_markdown, key_shown


def test_character_keys_are_shown_as_characters():
    assert [key_shown(k) for k in ("less_than_sign", "greater_than_sign", "colon",
                                   "question_mark", "slash", "left_square_bracket")] == [
        "<", ">", ":", "?", "/", "["]  # fmt: skip
    assert [key_shown(k) for k in ("escape", "pagedown", "enter", "ctrl+r", "f1", "space",
                                   "shift+delete")] == [
        "esc", "PgDn", "enter", "ctrl+r", "f1", "space", "shift+Del"]  # fmt: skip


def test_no_help_page_shows_an_internal_key_name():
    text = help_markdown([APP_COMMANDS, *EVERY_SCREEN])
    keys = re.findall(r"^\\| `([^`]+)` \\|", text, re.M)
    assert len(keys) > 60
    internal = [k for k in keys if re.search(r"[a-z]_[a-z]|^colon$|_sign", k)]
    assert not internal, internal


def test_every_help_heading_reads_as_a_title():
    """Each screen's heading in help is a title like its neighbours' ("Stores and
    tables", "A node"), never the bare lower-case id some showed ("duplicates", "merge")."""
    headings = re.findall(r"^## (.+)$", help_markdown([APP_COMMANDS, *EVERY_SCREEN]), re.M)
    assert len(headings) == 1 + len(EVERY_SCREEN)
    bare = [heading for heading in headings if not heading[:1].isupper()]
    assert not bare, bare

"""memexplorer's own theme: colours picked for reading graphs on dark terminals.

Nodes, edges and highlights are told apart by hue, not by shade, so primary
(sky blue), secondary (violet) and accent (amber) sit far apart on the colour
wheel, each bright enough on the near-black background to read at a glance.
"""

from __future__ import annotations

from textual.theme import Theme

from memexplorer.app import palette

__all__ = ["THEME", "THEME_NAME"]

THEME_NAME = "memexplorer"

THEME = Theme(
    name=THEME_NAME,
    primary=palette.PRIMARY,
    secondary=palette.SECONDARY,
    accent=palette.ACCENT,
    warning=palette.WARNING,
    error=palette.ERROR,
    success=palette.SUCCESS,
    foreground=palette.FOREGROUND,
    background=palette.BACKGROUND,
    surface=palette.SURFACE,
    panel=palette.PANEL,
    dark=True,
)

"""memexplorer's own theme: colours picked for reading graphs on dark terminals.

Nodes, edges and highlights are told apart by hue, not by shade, so primary
(sky blue), secondary (violet) and accent (amber) sit far apart on the colour
wheel, each bright enough on the near-black background to read at a glance.
"""

from __future__ import annotations

from textual.theme import Theme

__all__ = ["THEME", "THEME_NAME"]

THEME_NAME = "memexplorer"

THEME = Theme(
    name=THEME_NAME,
    primary="#4FA3E0",
    secondary="#8A63D2",
    accent="#F2B84B",
    warning="#E8A33D",
    error="#E5566B",
    success="#5CC98A",
    foreground="#DCE3EA",
    background="#12161C",
    surface="#1A2029",
    panel="#232B36",
    dark=True,
)

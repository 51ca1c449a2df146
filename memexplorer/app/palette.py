"""The app's colours as plain values, for the theme and for what is drawn without
Textual (the command line's help): one palette, nothing imported."""

from __future__ import annotations

PRIMARY = "#4FA3E0"
SECONDARY = "#8A63D2"
ACCENT = "#F2B84B"
WARNING = "#E8A33D"
ERROR = "#E5566B"
SUCCESS = "#5CC98A"
FOREGROUND = "#DCE3EA"
BACKGROUND = "#12161C"
SURFACE = "#1A2029"
PANEL = "#232B36"

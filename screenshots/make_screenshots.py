"""Regenerate screenshots/*.svg: every screen of the app on a fresh demo home.

Usage: python screenshots/make_screenshots.py [--png]

Writes the demo home into a temporary folder (memexplorer's own engine, as
`memexplorer demo` does), drives the app with the Pilot at 120x36 and saves one
SVG per scene. With --png, also renders each SVG to PNG with headless Chromium
(for looking at them; the PNGs are not kept in git).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import TextArea

from memexplorer.app.explorer_app import create_app
from memexplorer.operator.demo import write_demo_home
from memexplorer.app.widgets.stores_tree import StoresTree

HERE = Path(__file__).parent
SIZE = (120, 36)

Scene = Callable[[Pilot], Awaitable[None]]


async def _settle(pilot: Pilot) -> None:
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def press(pilot: Pilot, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await _settle(pilot)


async def open_table(
    pilot: Pilot, kind: str = "hierarchical", table: str = "SemanticMemory"
) -> None:
    """Choose ``table`` of the first agent of the first store of ``kind``."""
    tree = pilot.app.screen.query_one(StoresTree)
    store = next(n for n in tree.root.children if n.data.entry.kind == kind)
    agent = store.children[0]
    agent.expand()
    await _settle(pilot)
    leaf = next(n for n in agent.children if n.data.table.name == table)
    tree.select_node(leaf)
    await _settle(pilot)


def scene(*steps: Callable[[Pilot], Awaitable[None]]) -> Scene:
    async def run(pilot: Pilot) -> None:
        for step in steps:
            await step(pilot)

    return run


def keys(*names: str) -> Callable[[Pilot], Awaitable[None]]:
    return lambda pilot: press(pilot, *names)


CONSOLE_EXAMPLE = (
    "MATCH (f:SemanticMemory)\nWHERE f.confidence >= 0.8\n"
    "RETURN f.concept, f.content, f.confidence\nORDER BY f.confidence DESC LIMIT 12"
)


def console_text(text: str) -> Callable[[Pilot], Awaitable[None]]:
    """Replace the console's editor text (typing would add to its example)."""

    async def run(pilot: Pilot) -> None:
        pilot.app.screen.query_one("#editor", TextArea).text = text
        await _settle(pilot)

    return run


SCENES: dict[str, Scene] = {
    "01-stores": scene(),
    "02-node-table": scene(open_table),
    "03-node-table-sorted-filtered": scene(
        open_table, keys("right", "s", "s", "slash", *"replica", "enter")
    ),
    "04-node-detail": scene(open_table, keys("o")),
    "05-value": scene(open_table, keys(*["right"] * 6, "v")),
    "06-cognitive-table": scene(lambda p: open_table(p, "cognitive", "ProspectiveMemory")),
    "07-experience-table": scene(lambda p: open_table(p, "experience", "experiences")),
    "08-help": scene(keys("f1")),
    "11-graph": scene(open_table, keys("m")),
    "12-chains": scene(open_table, keys("c")),
    "13-query-box": scene(open_table, keys("q", *"checkout-api connection pool", "enter")),
    "14-console": scene(open_table, keys("colon"), console_text(CONSOLE_EXAMPLE), keys("f5")),
    "15-clean-preview": scene(open_table, keys("delete")),
    "16-export": scene(open_table, keys("e")),
    "17-import-preview": scene(open_table, keys("i")),
    "18-backups": scene(open_table, keys("delete", "y", "b")),
    "19-duplicates": scene(keys("down", "down", "d")),
    "20-merge-preview": scene(keys("down", "down", "d", "m")),
    "10-writing-confirm": scene(keys("w")),
    "09-credential-audit": scene(keys("a")),
}


async def _shoot(home: Path, name: str, run: Scene, out: Path) -> None:
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        await run(pilot)
        app.save_screenshot(str(out / f"{name}.svg"))


def _png(svg: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("--png needs chromium (Debian package `chromium`)")
    subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu",
         f"--screenshot={svg.with_suffix('.png')}", "--window-size=1500,950", svg.as_uri()],
        check=True, capture_output=True,
    )  # fmt: skip


def main(argv: list[str], scenes: dict[str, Scene] = SCENES) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / ".amplihack"
        write_demo_home(home)
        for name, run in scenes.items():
            asyncio.run(_shoot(home, name, run, HERE))
            print(f"screenshots/{name}.svg", flush=True)
            if "--png" in argv:
                _png(HERE / f"{name}.svg")


if __name__ == "__main__":
    main(sys.argv[1:])

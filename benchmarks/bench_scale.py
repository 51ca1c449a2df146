"""Every operation at 10k, 100k and 1M facts, beside the reference library: a table and a plot.

Usage: python benchmarks/bench_scale.py [N ...] [--only MODULE] [--render]
       LIBRARY_PYTHON=/tmp/libvenv-kuzu/bin/python LIBRARY_SRC=/tmp/lib-4ae0813/src \
       MEMEXPLORER_BENCH_CACHE=/work/scale-cache python benchmarks/bench_scale.py

The homes come from scale_stores.scale_home(n) (built once, cached). Each module
in MODULES that exists defines ``measure(n, folder) -> list[Row]`` (scale_rows.py);
it is called once per size. Rows are kept in scale_results.json (a row replaces
the one of the same operation, size and tool), so a run of one size or one module
updates its rows only. The table (markdown) and a log-log plot of wall time and
peak memory against size (scale.png) go into README.md between the
``bench_scale`` markers, with the date, the machine and the load averages seen.
``--render`` rebuilds the table and plot from scale_results.json alone.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import platform
import time
from pathlib import Path

from scale_rows import Row
from scale_stores import SIZES, scale_home

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "scale_results.json"
PLOT = HERE / "scale.png"
README = HERE / "README.md"
BEGIN, END = "<!-- bench_scale: begin -->", "<!-- bench_scale: end -->"
#: The modules that add rows, in table order; a missing one is skipped with a word.
MODULES = ("scale_io", "scale_app", "scale_query")


def _key(row: Row) -> tuple[str, int, str]:
    return (row.operation, row.n, row.tool)


def load_rows() -> list[Row]:
    if not RESULTS.exists():
        return []
    return [Row(**item) for item in json.loads(RESULTS.read_text())["rows"]]


def save_rows(rows: list[Row], run: dict[str, str]) -> None:
    kept = {_key(row): row for row in load_rows()}
    kept.update({_key(row): row for row in rows})
    ordered = sorted(kept.values(), key=lambda r: (r.operation, r.tool, r.n))
    payload = {"run": run, "rows": [dataclasses.asdict(row) for row in ordered]}
    RESULTS.write_text(json.dumps(payload, indent=1) + "\n")


def machine() -> str:
    cpus = os.cpu_count()
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024**3
    python = platform.python_version()
    return f"{platform.machine()}, {cpus} cores, {memory:.0f} GB, Python {python}"


def _cell(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def table(rows: list[Row]) -> str:
    lines = [
        "| operation | tool | facts | wall s | CPU s | peak MB | load (1 min) | target | note |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for row in sorted(rows, key=lambda r: (r.operation, r.tool, r.n)):
        lines.append(
            f"| {row.operation} | {row.tool} | {row.n:,} | {_cell(row.seconds)} | "
            f"{_cell(row.cpu_seconds)} | {_cell(row.peak_mb, 0)} | {_cell(row.load, 1)} | "
            f"{row.target} | {row.note.replace('|', '/')} |"
        )
    return "\n".join(lines)


def plot(rows: list[Row]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (times, peaks) = plt.subplots(1, 2, figsize=(12, 5))
    series: dict[tuple[str, str], list[Row]] = {}
    for row in rows:
        series.setdefault((row.operation, row.tool), []).append(row)
    for (operation, tool), points in sorted(series.items()):
        points.sort(key=lambda r: r.n)
        style = "--" if tool == "reference" else "-"
        label = f"{operation} ({tool})"
        timed = [(r.n, r.seconds) for r in points if r.seconds]
        if timed:
            times.plot(*zip(*timed, strict=True), style, marker="o", label=label)
        peaked = [(r.n, r.peak_mb) for r in points if r.peak_mb and r.seconds]
        if peaked:
            peaks.plot(*zip(*peaked, strict=True), style, marker="o", label=label)
    for axes, title in ((times, "wall time (s)"), (peaks, "peak memory (MB)")):
        axes.set_xscale("log")
        axes.set_yscale("log")
        axes.set_xlabel("facts")
        axes.set_title(title)
        axes.grid(True, which="both", alpha=0.3)
    times.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(PLOT, dpi=110)
    plt.close(figure)


def readme(rows: list[Row], run: dict[str, str]) -> None:
    section = "\n".join([
        BEGIN,
        f"Measured {run['date']} on {run['machine']}; load average (1/5/15 min) "
        f"{run['load']} when the run ended. The machine is shared: read CPU seconds "
        "beside wall time, and the load beside each figure.",
        "",
        table(rows),
        "",
        f"![time and peak memory against size]({PLOT.name})",
        END,
    ])  # fmt: skip
    text = README.read_text()
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + section + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n## Scale: 10k, 100k and 1M facts (bench_scale.py)\n\n"
        text += section + "\n"
    README.write_text(text)


def measure(sizes: list[int], only: str | None) -> list[Row]:
    rows: list[Row] = []
    for name in MODULES:
        if only and name != only:
            continue
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as missing:
            if missing.name != name:
                raise
            print(f"{name}: not there yet, skipped", flush=True)
            continue
        for n in sizes:
            folder = scale_home(n)
            found = module.measure(n, folder)
            for row in found:
                print(json.dumps(dataclasses.asdict(row)), flush=True)
            rows += found
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="*", type=int, default=list(SIZES))
    parser.add_argument("--only", choices=MODULES, help="measure this module's rows only")
    parser.add_argument("--render", action="store_true", help="only rebuild table and plot")
    args = parser.parse_args()
    rows = [] if args.render else measure(args.sizes, args.only)
    run = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": machine(),
        "load": " / ".join(f"{value:.1f}" for value in os.getloadavg()),
    }
    if rows:
        save_rows(rows, run)
    else:
        run = json.loads(RESULTS.read_text())["run"] if RESULTS.exists() else run
    everything = load_rows()
    plot(everything)
    readme(everything, run)
    print(table(everything))


if __name__ == "__main__":
    main()

"""``python -m memexplorer`` runs the command-line twin."""

from memexplorer.cli.main import run

run()

"""``python -m memexplorer`` runs the command-line twin."""

import sys

from memexplorer.cli.main import main

sys.exit(main())

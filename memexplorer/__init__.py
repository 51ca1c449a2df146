"""memexplorer: explore and administer AI-agent memory stored in Kuzu."""

__version__ = "0.1.0"

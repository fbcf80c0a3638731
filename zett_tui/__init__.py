"""zett: a terminal coding assistant on the zett-agent runtime."""

__version__ = "0.1.0"

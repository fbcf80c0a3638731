"""The one private part of tomlkit zett uses: inserting a key at a position in a table's body.

tomlkit's public ``append`` puts a new key after any comments that close a table, which are the
comments of the next header in a hand-kept file. ``Container._insert_at`` is what tomlkit itself
uses to insert elsewhere. tests/test_upstream_contracts.py checks it; when an upgrade changes it,
fix this function, then the upper bound in pyproject.toml.
"""

from __future__ import annotations

from tomlkit.container import Container


def insert_at(body: Container, index: int, key: str, value: str | bool | int) -> None:
    """Insert ``key = value`` as the ``index``-th item of ``body`` (comments and blank lines count)."""
    body._insert_at(index, key, value)

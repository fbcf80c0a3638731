"""Import the ACP SDK's protocol schema without pydantic reading its source for docstrings.

``acp.schema``'s ~280 models set ``use_attribute_docstrings``: for each class pydantic finds its
source, tokenizes the module up to it and reads the docstring under each field, to put it in
the field's ``description``. That was ~40% of the schema's import (0.4-0.5 s of CPU of a 2-core
machine's ~1.1 s), paid by every ``zett acp`` an editor starts before it can answer
``session/new``. A description only shows in a JSON schema made from a model, and zett makes none
from the SDK's; validation and serialization do not read it. So the import runs with pydantic's
docstring step (``pydantic._internal._fields._update_fields_from_docstrings``) a no-op, put back
right after. If pydantic no longer has that step, the schema is imported as it is.
``tests/test_acp_sdk_import.py`` fails if the step stops being skipped or is not put back.
"""

from __future__ import annotations

import sys
from typing import Any


def import_acp_schema() -> None:
    """Import ``acp`` (and with it ``acp.schema``) once, skipping the fields' docstrings."""
    if "acp.schema" in sys.modules:
        return
    fields = _pydantic_fields()
    original = getattr(fields, _DOCSTRING_STEP, None)
    if callable(original):
        setattr(fields, _DOCSTRING_STEP, _no_docstrings)
    try:
        import acp
    finally:
        if callable(original):
            setattr(fields, _DOCSTRING_STEP, original)
    del acp


#: The function of ``pydantic._internal._fields`` that reads a model's attribute docstrings.
_DOCSTRING_STEP = "_update_fields_from_docstrings"


def _pydantic_fields() -> Any:
    try:
        from pydantic._internal import _fields
    except ImportError:
        return None
    return _fields


def _no_docstrings(*args: Any, **kwargs: Any) -> None:
    return None

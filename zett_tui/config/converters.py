"""The checks one setting's value must pass: each ``convert_*`` returns the value to use or raises
``InvalidValue`` with a reason fit to follow ``key:`` in a message.

``schema`` names which converter each key uses; these know nothing of files or layers.
"""

from __future__ import annotations

import difflib
import os
import re
from datetime import date, datetime, time
from typing import Any
from urllib.parse import urlsplit

from zett_tui.providers.efforts import EFFORT_ALIASES, REASONING_EFFORTS

SANDBOX_MODES = ("auto", "off")


class InvalidValue(ValueError):
    """A value that cannot be used; the message says why, fit to follow ``key:``."""


def describe_value(value: object, *, secret: bool = False) -> str:
    """``an integer (42)``; a secret's value is never shown."""
    kind = _kind_name(value)
    if secret or isinstance(value, dict | list):
        return kind
    if isinstance(value, bool):
        shown = "true" if value else "false"
    else:
        shown = repr(value) if isinstance(value, str) else str(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return f"{kind} ({shown})"


def _kind_name(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, datetime | date | time):
        return "a date/time"
    return type(value).__name__


def _expect_string(value: object, *, secret: bool = False) -> str:
    if not isinstance(value, str):
        raise InvalidValue(f"expected a string, got {describe_value(value, secret=secret)}")
    return value


def _non_empty_string(value: object, *, secret: bool = False) -> str:
    text = _expect_string(value, secret=secret).strip()
    if not text:
        raise InvalidValue("must not be empty")
    return text


def convert_bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise InvalidValue(f"expected true or false, got {describe_value(value)}")
    return value


def convert_context_window(value: object) -> int:
    """A token count: a whole number of at least 1024 (a smaller window cannot hold zett's prompt)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidValue(f"expected a number of tokens such as 32768, got {describe_value(value)}")
    if value < 1024:
        raise InvalidValue(f"expected at least 1024 tokens, got {value}")
    return value


def convert_small_count(value: object) -> int:
    """A whole number from 1 to 16 (``[subagents]`` limits)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidValue(f"expected a whole number such as 4, got {describe_value(value)}")
    if not 1 <= value <= 16:
        raise InvalidValue(f"expected between 1 and 16, got {value}")
    return value


def convert_file_count(value: object) -> int:
    """A number of files: a whole number from 1 to 100,000,000."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidValue(f"expected a whole number of files such as 100000, got {describe_value(value)}")
    if not 1 <= value <= 100_000_000:
        raise InvalidValue(f"expected between 1 and 100000000 files, got {value}")
    return value


def convert_megabytes(value: object) -> float:
    """A size in megabytes: a number from 0.001 to 100000."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidValue(f"expected a number of megabytes such as 10, got {describe_value(value)}")
    if not 0.001 <= value <= 100_000:
        raise InvalidValue(f"expected between 0.001 and 100000 megabytes, got {value}")
    return float(value)


def convert_model(value: object) -> str:
    """Only the shape is checked here; ``models.parse_model_spec`` knows providers and endpoints.

    A bare name passes (``openai`` alone means that provider's default model).
    """
    spec = _non_empty_string(value)
    provider, colon, name = spec.partition(":")
    if colon and (not provider.strip() or not name.strip()):
        part = "provider" if not provider.strip() else "model"
        raise InvalidValue(
            f"the {part} part of {spec!r} is empty; use PROVIDER:MODEL, ENDPOINT:MODEL or demo"
        )
    return f"{provider.strip()}:{name.strip()}" if colon else spec


def convert_reasoning_effort(value: object) -> str:
    effort = _non_empty_string(value).lower()
    effort = EFFORT_ALIASES.get(effort, effort)
    if effort in REASONING_EFFORTS:
        return effort
    message = f"unknown reasoning effort {effort!r}; expected one of {', '.join(REASONING_EFFORTS)}"
    close = difflib.get_close_matches(effort, REASONING_EFFORTS, n=1)
    raise InvalidValue(f"{message}; did you mean {close[0]!r}?" if close else message)


def convert_theme(value: object) -> str | None:
    """A theme name; ``auto`` means None (follow the terminal) so a higher layer can undo a lower one."""
    theme = _non_empty_string(value)
    return None if theme.lower() == "auto" else theme


NOTIFY_MODES = ("auto", "off")


def convert_notify(value: object) -> str:
    """``[ui] notify``: ``auto`` or ``off`` (any case)."""
    if not isinstance(value, str):
        raise InvalidValue(f'expected "auto" or "off", got {describe_value(value)}')
    mode = value.strip().lower()
    if mode not in NOTIFY_MODES:
        raise InvalidValue(f'expected "auto" or "off", got {value.strip()!r}')
    return mode


def convert_base_url(value: object) -> str:
    url = _non_empty_string(value)
    try:
        parts = urlsplit(url)
        has_host = bool(parts.hostname)
    except ValueError as error:
        raise InvalidValue(f"{url!r} is not a URL: {error}") from None
    if parts.scheme not in ("http", "https") or not has_host:
        raise InvalidValue(
            f"expected an http:// or https:// URL such as 'http://127.0.0.1:8080/v1', got {url!r}"
        )
    return url


def convert_api_key(value: object) -> str:
    return _non_empty_string(value, secret=True)


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def convert_env_name(value: object) -> str:
    name = _non_empty_string(value, secret=True)
    if not _ENV_NAME.fullmatch(name):
        raise InvalidValue(
            "expected the name of an environment variable such as OPENAI_API_KEY, not the key itself"
        )
    return name


def convert_pattern(value: object) -> str:
    pattern = _expect_string(value)
    try:
        compiled = re.compile(pattern)
    except re.error as error:
        raise InvalidValue(f"regex {pattern!r} does not compile: {error}") from None
    if compiled.search("") is not None:
        raise InvalidValue(f"regex {pattern!r} matches the empty string, so it would match everywhere")
    return pattern


_IMPORT_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def convert_import_path(value: object) -> str:
    path = _non_empty_string(value)
    if not _IMPORT_PATH.fullmatch(path):
        raise InvalidValue(f"expected 'package.module:Class', got {path!r}")
    return path


def convert_extension_file(value: object) -> str:
    """A plain file name: the file is looked up in the ``extensions/`` folder beside the config file."""
    name = _non_empty_string(value)
    if "/" in name or "\\" in name or name.startswith(".") or not name.endswith(".py"):
        raise InvalidValue(
            f"expected a file name such as 'timer.py' in the extensions/ folder beside this config file, "
            f"got {name!r}"
        )
    return name


def convert_class_name(value: object) -> str:
    name = _non_empty_string(value)
    if not name.isidentifier():
        raise InvalidValue(f"expected a class name such as 'TurnTimer', got {name!r}")
    return name


def convert_options(value: object) -> dict[str, Any]:
    """The keyword arguments for the extension's class: a table whose keys are Python names."""
    if not isinstance(value, dict):
        raise InvalidValue(f"expected a table such as {{ max_lines = 20 }}, got {describe_value(value)}")
    bad = [str(key) for key in value if not str(key).isidentifier()]
    if bad:
        raise InvalidValue(f"option names must be Python names (letters, digits, '_'); {bad[0]!r} is not")
    return dict(value)


def convert_sandbox_mode(value: object) -> str:
    mode = _non_empty_string(value).lower()
    if mode not in SANDBOX_MODES:
        raise InvalidValue(f"expected one of {', '.join(map(repr, SANDBOX_MODES))}, got {mode!r}")
    return mode


#: Provider keys never enter a sandboxed command, whatever ``[sandbox] env`` says.
_PROVIDER_KEY_NAME = re.compile(r"(?i:.*_API_KEY)")


def convert_sandbox_hidden_path(value: object) -> str:
    """A place commands must not see: an absolute path, or one under ``~``."""
    text = _non_empty_string(value)
    expanded = os.path.expanduser(text)
    if not os.path.isabs(expanded):
        raise InvalidValue(f"expected an absolute path or one starting with ~/, got {text!r}")
    return os.path.normpath(expanded)


def convert_sandbox_env_name(value: object) -> str:
    name = _non_empty_string(value)
    if not _ENV_NAME.fullmatch(name):
        raise InvalidValue(f"expected the name of an environment variable such as JAVA_HOME, got {name!r}")
    if _PROVIDER_KEY_NAME.fullmatch(name):
        raise InvalidValue(f"{name} is not passed to shell commands: provider keys stay with zett")
    return name

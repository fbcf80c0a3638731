"""The redactor as the user's config sees it, for commands that do not go through startup."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from zett_tui.config.settings import load_settings
from zett_tui.config.trust import project_trusted
from zett_tui.core.redact import Redactor, redactor_from_environment


def configured_redactor(cwd: Path | None = None, env: Mapping[str, str] | None = None) -> Redactor:
    """The redactor for commands that do not go through startup (``zett sessions export``): the
    config's patterns and endpoint keys as seen from ``cwd``, and the environment's keys."""
    env = os.environ if env is None else env
    try:
        folder = cwd or Path.cwd()
        settings, _problems = load_settings(cwd=folder, env=env, project_trusted=project_trusted(folder, env))
    except Exception:  # a config that cannot be read must not stop an export; keys still go
        return redactor_from_environment(env)
    return redactor_from_environment(env, settings.redact_patterns, settings.endpoints.values())

"""What zett imports after its first frame, in a worker thread, so the prompt shows sooner.

The first frame needs only the composer, the status line and an empty transcript. Everything else
(the agent runtime with SQLAlchemy and pydantic, the Markdown renderer, the slash commands, the
dialogs, the event translator, the HTTP client's async backend, a code lexer) is about 0.5 s of
imports. Imported on the event loop, they would
delay the first frame, or hold the loop while keys typed meanwhile wait; from a thread the loop
keeps running (the GIL is handed back every few milliseconds).

Each use still imports what it needs itself, so nothing depends on this having finished: a
slash command typed before it has, for one, imports the commands on the loop.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable

from zett_tui.ui.speed.import_pauses import imports_step_aside

#: In the order they are first needed: what a typed ``/`` or the first answer needs comes first.
AFTER_FIRST_FRAME = (
    "zett_tui.ui.chat.commands.builtin",
    "zett_tui.ui.widgets.transcript_markdown",
    "zett_tui.ui.chat.presenter",
    "zett_tui.ui.chat.decisions",
    "zett_tui.ui.chat.palette",
    "zett_tui.runtime.host",
    # What opening the session (``session_start.start_host``) imported on the event loop: ~80
    # modules (the history's SQLite, the sandbox, the extensions), loop steps of 40-115 ms on a
    # quiet machine while keys waited; imported here, they step aside for typed keys instead
    "zett_tui.entry.bootstrap",
    "zett_tui.entry.host_options",
    "zett_tui.providers.server_info",
    "zett_tui.ui.chat.mcp_status",
    "zett_tui.ui.chat.workspace_commands",
    "zett_tui.runtime.skills_extension",
    "zett_tui.runtime.history_open",
    "zett_tui.runtime.history_sqlite",
    "zett_tui.runtime.plan_mode",
    "zett_tui.runtime.project_instructions",
    "zett_tui.runtime.shell.bash_tool",
    "zett_tui.runtime.shell.approval",
    "zett_tui.runtime.shell.project_sandbox",
    "zett_tui.runtime.tool_arguments",
    "zett_tui.runtime.mcp.extension",
    "zett_tui.runtime.mcp.manager",
    "zett_tui.runtime.mcp.plan_tools",
    "zett_tui.runtime.mcp.saved_rules",
    "zett_agent.extensions.internal_message",
    "zett_agent.extensions.memory",
    "zett_agent.extensions.steering",
    "zett_tui.runtime.session",
    "zett_tui.ui.chat.session_label",
    # What the first answer's request imports on the event loop (httpcore's async backend, resolved
    # at the first connection: ~70 ms under load while the first keys typed after Enter waited)
    "anyio._backends._asyncio",
    "httpcore._backends.anyio",
)
#: Code languages whose Pygments lexer is built ahead: a lexer compiles its regular expressions
#: when first made, tens of milliseconds on the event loop at the answer's first code block.
WARM_LEXERS = ("python",)


def import_after_first_frame(
    code_theme: str | None = None, key_waiting: Callable[[], bool] = lambda: False
) -> None:
    """Import :data:`AFTER_FIRST_FRAME`, build :data:`WARM_LEXERS` and import the Pygments style
    ``code_theme`` (call it in a worker thread). The style's module was imported on the event loop
    at the answer's first code block, mid-stream (``benchmarks/bench_stream_hops.py`` lists what a
    fresh zett imports while it streams). Each module waits while ``key_waiting()`` says a typed key
    is on its way to the prompt (``import_pauses``)."""
    with imports_step_aside(key_waiting):
        _import_ahead(code_theme)


def _import_ahead(code_theme: str | None) -> None:
    for name in AFTER_FIRST_FRAME:
        importlib.import_module(name)
    from zett_tui.ui.widgets.transcript_render import lexer_for

    for language in WARM_LEXERS:
        lexer_for(language)
    if code_theme:
        from pygments.styles import get_style_by_name
        from pygments.util import ClassNotFound

        with contextlib.suppress(ClassNotFound):  # a theme naming an unknown style: said when it is used
            get_style_by_name(code_theme)

"""How long zett lets a provider stay silent before a turn is given up on.

zett-agent's defaults (connect 5 s, first byte 60 s, idle 600 s) leave a stalled provider hanging
for ten minutes. zett shortens the idle limit where a provider keeps talking while it works, and
keeps it long where silence is normal:

==============  =======  ==========  ======  ==================================================
provider        connect  first byte  idle    why
==============  =======  ==========  ======  ==================================================
anthropic       10 s     60 s        120 s   thinking streams as it happens
openai          10 s     60 s        300 s   Chat Completions says nothing while a model reasons
ollama          5 s      600 s       600 s   the first byte waits for the model to load
endpoint        5 s      600 s       600 s   a local server may process a long prompt in silence
==============  =======  ==========  ======  ==================================================

Ctrl+C ends a turn at any moment whatever these are. There is no setting: a provider that goes
quiet for longer than this has stalled, and the message says to try again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zett_agent.model import TimeoutOptions

#: (connect, first byte, idle) in seconds, by ``ModelChoice.provider``.
PROVIDER_TIMEOUTS: dict[str, tuple[float, float, float]] = {
    "anthropic": (10.0, 60.0, 120.0),
    "openai": (10.0, 60.0, 300.0),
    "ollama": (5.0, 600.0, 600.0),
    "endpoint": (5.0, 600.0, 600.0),
}


def provider_timeouts(provider: str) -> TimeoutOptions:
    """The limits for ``provider`` (a hosted provider's for one zett does not know)."""
    from zett_agent.model import TimeoutOptions

    connect, first_byte, idle = PROVIDER_TIMEOUTS.get(provider, PROVIDER_TIMEOUTS["openai"])
    return TimeoutOptions(connect=connect, first_byte=first_byte, idle=idle)

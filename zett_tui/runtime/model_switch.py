"""Switching models under running requests: a model that was replaced (``/model``) or built for
one turn (``/model`` with a prompt) is closed only once no request uses it, so a turn that is
still running finishes with the model it started with.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from zett_agent.model import AgentModel


class ModelsInUse:
    """Counts the requests running now, and closes the retired models when none is."""

    def __init__(self) -> None:
        self._running = 0
        self._retired: list[AgentModel] = []

    @contextlib.asynccontextmanager
    async def request(self) -> AsyncIterator[None]:
        """One request runs for the block; the last one to end closes what was retired meanwhile."""
        self._running += 1
        try:
            yield
        finally:
            self._running -= 1
            if not self._running:
                await self.close_retired()

    async def retire(self, model: AgentModel) -> None:
        """``model`` is no longer used for new requests: closed now, or when the running ones end."""
        self._retired.append(model)
        if not self._running:
            await self.close_retired()

    async def close_retired(self) -> None:
        """Close every retired model now (a failure to close one is not the user's problem)."""
        retired, self._retired = self._retired, []
        for model in retired:
            if hasattr(model, "aclose"):
                with contextlib.suppress(Exception):
                    await model.aclose()

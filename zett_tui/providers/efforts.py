"""The names of reasoning effort levels, readable without importing a provider or the runtime."""

REASONING_EFFORTS = ("off", "minimal", "low", "medium", "high", "xhigh", "max", "ultra")
"""The values ``zett_agent.ReasoningEffort`` knows, lowest first (a test keeps them equal).

Start-up reads effort names without importing ``zett_agent.model`` (~20 ms before the first frame).
"""

EFFORT_ALIASES = {"none": "off", "false": "off", "disabled": "off", "no": "off"}
"""Other words people use for "no reasoning"."""

"""MCP servers for zett: one long-lived connection per server (``manager``), no Textual."""

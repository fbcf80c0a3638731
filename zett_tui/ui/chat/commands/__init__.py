"""Slash commands: ``registry`` (what the composer, ``/help`` and the palette read) and one module per
group of commands. Importing ``builtin`` registers them all; the package itself imports nothing, so
the chat screen can reach the registry before the first frame without loading every command."""

"""The web, asked and contained: the ``web_fetch`` tool, its address guard and its permissions."""

"""``python -m zett_tui`` runs zett."""

from zett_tui.cli import main

raise SystemExit(main())

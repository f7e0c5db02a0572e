"""Usage and cost, shared by both front ends: prices per model call (prices.py), the spend reports (report.py), the
monthly budget (budget.py) and pricing of runs recorded before costs existed (backfill.py). ``parley usage`` and the
budget question of ``parley chat`` live in app/cli/ (usage_command.py, cli_budget.py), the window's status bar,
banner and usage dialog in app/session/window_usage.py; this package imports neither front end."""

"""Usage and cost: prices per model call (prices.py), the spend reports (report.py), the monthly budget
(budget.py), pricing of runs recorded before costs existed (backfill.py) and ``parley usage`` (command.py)."""

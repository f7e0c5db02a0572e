"""``parley tools list``: what the model can call, with category, visibility and approval."""

from __future__ import annotations

import argparse
import json

from app.cli_common import EXIT_OK
from tools import default_registry


def run_tools(args: argparse.Namespace) -> int:
    registry = default_registry()
    rows = [
        {
            "name": tool.name,
            "category": tool.category,
            "visibility": tool.visibility,
            "needs_approval": tool.needs_approval,
            "parallel_safe": tool.parallel_safe,
            "description": tool.description,
        }
        for tool in registry
    ]
    if getattr(args, "json", False):
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    width = max((len(r["name"]) for r in rows), default=4)
    print(f"{'NAME':<{width}}  CATEGORY  VISIBILITY  APPROVAL  DESCRIPTION")
    for r in rows:
        approval = "ask" if r["needs_approval"] else "allow"
        print(f"{r['name']:<{width}}  {r['category']:<8}  {r['visibility']:<10}  {approval:<8}  {r['description']}")
    return EXIT_OK

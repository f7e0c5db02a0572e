"""The registry entry every file-changing tool shares: secondary, one call at a time, approval by default, and a
preview of the change for the approval question (docs/tools.md)."""

from __future__ import annotations

from pydantic import BaseModel

from tools.registry import Handler, Preview, Tool


def writing_tool(name: str, description: str, arguments: type[BaseModel], handler: Handler,
                 preview: Preview) -> Tool:
    return Tool(name=name, description=description, arguments=arguments, handler=handler, category="file",
                visibility="secondary", parallel_safe=False, needs_approval=True, preview=preview)

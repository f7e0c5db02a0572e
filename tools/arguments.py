"""The base of every built-in tool's argument model: built on first use, not when its module is imported.

A tool's argument model is needed when a run validates a call or sends the tools' JSON schemas, never for
listing the tools (``parley tools list``: name, category, visibility, description). pydantic builds a model's
validator and serializer when the class is defined unless ``defer_build`` is set; with it they are built at the
first validation or schema request, with the same result (issue 17: about 1 to 2 ms per model at start-up,
bench/RESULTS.md). tests/tools/test_tool_arguments.py checks that every built-in tool's model uses it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ToolArguments(BaseModel):
    model_config = ConfigDict(defer_build=True)

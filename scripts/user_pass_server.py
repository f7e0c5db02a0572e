"""A loopback OpenAI-compatible server for the manual user pass (docs/user-pass.md), with hostile answers.

Run: ``python scripts/user_pass_server.py PORT``. ``GET /v1/models`` lists one model, ``pass-model``;
``POST /v1/chat/completions`` streams an answer chosen by a keyword in the last user message:

- ``huge``: one 200,000-character line without spaces
- ``nest``: markdown nested 60 levels deep (quotes and lists)
- ``html``: HTML with ``<script>``, ``<img onerror>`` and an ``<iframe>``
- ``bidi``: right-to-left overrides and other control characters
- ``big``: a 5 MB answer in 64 KB pieces
- ``malformed``: a few good frames, then a frame that is not JSON
- ``badtool``: a tool call whose arguments are not JSON
- ``slow``: 200 words, one every 0.1 s (time to press Stop)
- ``calc``: a valid ``calculate`` call (6*7); once its result is back, an answer quoting it (for approval prompts)
- ``table``: a markdown table of 2,000 rows and 20 columns
- ``lists``: bullet lists nested 200 levels deep
- ``code50k``: a Python code block of 50,000 lines
- ``rtl``: Arabic and Hebrew paragraphs mixed with English, and emoji (ZWJ sequences, flags, skin tones)
- ``storm``: 25 tool calls in every answer (the calculator), again after each tool turn
- anything else: a short markdown answer that quotes the question's first 60 characters

Only for trying the window by hand; the tests use tests/support/loopback.py.
"""

from __future__ import annotations

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _frame(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {"id": "pass", "object": "chat.completion.chunk", "model": "pass-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def _text_frames(text: str, piece: int = 40, delay: float = 0.0) -> list[tuple[bytes, float]]:
    return [(_frame({"content": text[i:i + piece]}), delay) for i in range(0, len(text), piece)]


def _last_user_text(request: dict[str, Any]) -> str:
    for message in reversed(request.get("messages", [])):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            return " ".join(part.get("text", "") for part in content or [] if isinstance(part, dict))
    return ""


def _answer(request: dict[str, Any]) -> list[tuple[bytes, float]]:
    question = _last_user_text(request)
    word = question.lower()
    if "huge" in word:
        return _text_frames("x" * 200_000, piece=8192)
    if "nest" in word:
        nested = "".join("> " * depth + f"- level {depth}\n" for depth in range(60))
        return _text_frames("Deep nesting:\n\n" + nested + "\n" + "[" * 500 + "]" * 500)
    if "html" in word:
        return _text_frames('<script>alert("x")</script>\n\n<img src=x onerror="alert(1)">\n\n'
                            '<iframe src="http://127.0.0.1:1/"></iframe>\n\n**bold** after the tags')
    if "bidi" in word:
        return _text_frames("safe \u202eevil.exe\u202c text, \u2066isolate\u2069, bell \x07, esc \x1b[31mred\x1b[0m, "
                            "zero\u200bwidth, done")
    if "big" in word:
        line = ("The quick brown fox jumps over the lazy dog. " * 20 + "\n\n")
        text = line * (5_000_000 // len(line))
        return _text_frames(text, piece=65536)
    if "malformed" in word:
        return [*_text_frames("This starts fine and then "), (b"data: {not json at all\n\n", 0.0)]
    if "badtool" in word:
        call = {"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                                "function": {"name": "calculate", "arguments": "{\"expression\": 6*7"}}]}
        return [(_frame(call), 0.0), (_frame({}, "tool_calls"), 0.0)]
    if "calc" in word:
        last = (request.get("messages") or [{}])[-1]
        if last.get("role") == "tool":
            return _text_frames(f"The tool answered: {str(last.get('content'))[:200]}")
        call = {"tool_calls": [{"index": 0, "id": "call_calc", "type": "function",
                                "function": {"name": "calculate", "arguments": "{\"expression\": \"6*7\"}"}}]}
        return [(_frame(call), 0.0), (_frame({}, "tool_calls"), 0.0)]
    if "slow" in word:
        return [(_frame({"content": f"word{i} "}), 0.1) for i in range(200)]
    if "table" in word:
        head = "| " + " | ".join(f"col {c}" for c in range(20)) + " |\n|" + "---|" * 20 + "\n"
        rows = "".join("| " + " | ".join(f"r{r}c{c}" for c in range(20)) + " |\n" for r in range(2000))
        return _text_frames("A big table:\n\n" + head + rows, piece=4096)
    if "lists" in word:
        return _text_frames("Nested lists:\n\n" + "".join("  " * d + f"- item at depth {d}\n" for d in range(200)),
                            piece=2048)
    if "code50k" in word:
        code = "".join(f"value_{i} = {i} * 2  # line {i}\n" for i in range(50_000))
        return _text_frames("Here is the code:\n\n```python\n" + code + "```\n\nThat was all of it.", piece=65536)
    if "rtl" in word:
        return _text_frames("English first. \u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645 "
                            "(Arabic), \u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd (Hebrew) and back.\n\n"
                            "\u0647\u0630\u0627 \u0633\u0637\u0631 \u0639\u0631\u0628\u064a \u0643\u0627\u0645\u0644 "
                            "\u0645\u0639 123 \u0623\u0631\u0642\u0627\u0645.\n\n"
                            "Emoji: \U0001F469\u200d\U0001F469\u200d\U0001F467 family, \U0001F1EF\U0001F1F5 flag, "
                            "\U0001F44D\U0001F3FD thumbs, \U0001F9D1\u200d\U0001F4BB coder.\n")
    if "storm" in word:
        turns = sum(1 for m in request.get("messages", []) if m.get("role") == "tool")
        calls = [{"index": i, "id": f"call_{turns}_{i}", "type": "function",
                  "function": {"name": "calculate", "arguments": json.dumps({"expression": f"{i}+{turns}"})}}
                 for i in range(25)]
        return [(_frame({"tool_calls": calls}), 0.0), (_frame({}, "tool_calls"), 0.0)]
    asked = question[:60].replace("*", "")
    return _text_frames(f"## Answer\n\nYou asked: *{asked}*\n\n- one\n- two\n\n```python\nprint(42)\n```\n")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write("pass-server: " + format % args + "\n")

    def _send_json(self, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send_json({"object": "list", "data": [{"id": "pass-model", "object": "model"}]})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        request = json.loads(self.rfile.read(length) or b"{}")
        if not request.get("stream"):
            self._send_json({"id": "pass", "object": "chat.completion", "model": "pass-model",
                             "choices": [{"index": 0, "finish_reason": "stop",
                                          "message": {"role": "assistant", "content": "ok"}}]})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        frames = _answer(request)
        if not frames[-1][0].startswith(b"data: {not"):
            frames = [*frames, (_frame({}, "stop"), 0.0), (b"data: [DONE]\n\n", 0.0)]
        try:
            for data, delay in frames:
                if delay:
                    time.sleep(delay)
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            return


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), _Handler).serve_forever()

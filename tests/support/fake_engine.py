"""A stand-in for ``python -m llama_cpp.server`` for the engine-management tests that need a server to fail in
chosen ways (crash while loading, never answer, die after answering, take a port that is in use). Run as
``python fake_engine.py -m llama_cpp.server --port P ...``; ``FAKE_ENGINE_MODE`` picks the behaviour:

- ``ok``: after ``FAKE_ENGINE_DELAY`` seconds, serve ``/v1/models`` and a one-chunk streamed chat answer;
- ``crash``: print a llama.cpp load error and exit 1;
- ``hang``: never listen;
- ``die_on_chat``: serve the model list, then exit abruptly on the first chat request.

The real server is tested in tests/e2e/local_server; this only plays the process's part.
"""

from __future__ import annotations

import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer


def main() -> None:
    args = sys.argv[1:]
    port = int(args[args.index("--port") + 1])
    alias = args[args.index("--model_alias") + 1] if "--model_alias" in args else "m"
    mode = os.environ.get("FAKE_ENGINE_MODE", "ok")
    print(f"fake engine: {mode} on port {port}", flush=True)
    if mode == "crash":
        print("llama_model_load: error loading model: tensor data is not within the file bounds", flush=True)
        sys.exit(1)
    if mode == "hang":
        time.sleep(3600)
    time.sleep(float(os.environ.get("FAKE_ENGINE_DELAY", "0")))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"object": "list", "data": [{"id": alias, "object": "model"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if mode == "die_on_chat":
                print("fake engine: GGML_ASSERT failed, aborting", flush=True)
                os._exit(134)
            chunk = {"id": "c1", "model": alias, "choices": [{"index": 0, "delta": {"content": "hello"},
                                                              "finish_reason": "stop"}]}
            body = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: object) -> None:
            pass

    try:
        server = HTTPServer(("127.0.0.1", port), Handler)
    except OSError as exc:
        print(f"ERROR: [Errno {exc.errno}] error while attempting to bind: address already in use", flush=True)
        sys.exit(1)
    server.serve_forever()


if __name__ == "__main__":
    main()

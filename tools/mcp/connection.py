"""One MCP server kept connected: started in its own task, its tools listed, restarted with backoff when it exits.

The SDK's transports and session are anyio context managers that must be entered and left in one task, so
each server has a supervisor task that holds them for the life of a connection. Tool calls come from the
run's tasks and go through the session; when the server goes away, calls fail at once with
``ServerNotRunning`` and the supervisor starts it again after a delay.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

import httpx2
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tools.mcp import child_guard
from tools.mcp.settings import McpServerSettings, secret_entry
from tools.mcp.status import DEFAULT_RESTART_POLICY, RestartPolicy, SecretLookup, ServerState, ServerStatus

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 20.0  # start (or reach) a server, initialize and list its tools
HEARTBEAT_INTERVAL_S = 5.0  # a ping this often notices a server that exited while idle
PING_TIMEOUT_S = 10.0  # pings are skipped while a call waits: its call_timeout (settings) applies then
CALL_TIMEOUT_BACKSTOP_S = 5.0  # past a call's call_timeout, in case the SDK's own clock never started
MAX_LISTED_TOOLS = 200  # tools taken from one server (across pages)
MAX_LIST_PAGES = 100  # pages of a tool listing read, to count what a server offers beyond MAX_LISTED_TOOLS
STDERR_TAIL_CHARS = 400  # of a failed server's standard error, quoted in its status
HTTP_CONNECT_TIMEOUT_S = 30.0
HTTP_READ_TIMEOUT_S = 300.0  # a server may hold a response stream open while a tool runs
STOP_GRACE_S = 6.0  # the SDK's own stop: stdin closed, 2 s, SIGTERM, 2 s, SIGKILL; then we kill the group
KILL_WAIT_S = 2.0  # after that kill, for the connection's task to end before it is abandoned

LAUNCHER_HINTS = {  # what to install when a common MCP launcher is missing
    "uvx": "; uvx comes with uv (https://docs.astral.sh/uv/)",
    "uv": "; install uv (https://docs.astral.sh/uv/)",
    "npx": "; npx comes with Node.js (https://nodejs.org/)",
    "node": "; install Node.js (https://nodejs.org/)",
    "docker": "; install Docker, or give the server's own command",
}





class ServerNotRunning(Exception):
    """A call reached a server that is not connected; the message is for the model and the user."""


class CallTimedOut(Exception):
    """The server did not answer one tool call within its ``call_timeout``; the message names the limit."""


class SetupProblem(ConnectionError):
    """A failure that starting the server again will not fix (a secret missing from the keyring, credentials
    the server refuses): the server is marked failed at once instead of being restarted."""


SETUP_HINT = "fix it in Preferences > MCP servers and press Reconnect"


@dataclass
class _Live:
    session: ClientSession
    lost: asyncio.Event = field(default_factory=asyncio.Event)
    calls: int = 0  # tool calls waiting for an answer; their own timeout watches the server meanwhile


class ServerConnection:
    def __init__(self, settings: McpServerSettings, secret_lookup: SecretLookup | None = None, *,
                 policy: RestartPolicy | None = None, connect_timeout: float = CONNECT_TIMEOUT_S,
                 on_change: Callable[[ServerConnection], None] | None = None) -> None:
        self.settings = settings
        self.name = settings.name
        self.secret_lookup = secret_lookup
        self.policy = policy or DEFAULT_RESTART_POLICY
        self.connect_timeout = connect_timeout
        self.on_change = on_change
        self.tools: list[types.Tool] = []  # the last listing; kept while the server is down
        self._state: ServerState = "starting" if settings.enabled else "disabled"
        self._message: str | None = None
        self._restarts = 0
        self._live: _Live | None = None
        self._task: asyncio.Task[None] | None = None
        self._settled = asyncio.Event()  # the first attempt has connected or failed
        self._http_refusal: httpx2.Response | None = None  # the last HTTP error status the server answered
        self._pid_file: str | None = None  # where the stdio launcher wrote the server's pid (child_guard)
        self._waiting_for = "starting"  # what a server in state starting waits for, and since when
        self._waiting_since = time.monotonic()

    # --- status -------------------------------------------------------------------------------------
    def status(self) -> ServerStatus:
        message = self._starting_message() if self._state == "starting" else self._message
        return ServerStatus(self.name, self.settings.transport, self._state, message,
                            tuple(t.name for t in self.tools), self._restarts)

    def target(self) -> str:
        """The command line (stdio) or URL (http) the user configured."""
        s = self.settings
        return f"URL {s.url}" if s.transport == "http" else f"command: {' '.join([s.command or '', *s.args])}"

    def _starting_message(self) -> str:
        """What a server in ``starting`` waits for, since when, what was started and when it gives up: a slow
        server or one stuck in its start-up says so instead of a bare "starting". The clock time keeps the
        message true in a window that shows it until the next change."""
        waited = time.monotonic() - self._waiting_since
        since = time.strftime("%H:%M:%S", time.localtime(time.time() - waited))
        said = (f"{self._waiting_for} since {since} ({waited:.0f} s; {self.target()}); gives up after "
                f"{self.connect_timeout:g} s")
        return f"{said}; before: {self._message}" if self._message else said

    def _phase(self, waiting_for: str) -> None:
        self._waiting_for, self._waiting_since = waiting_for, time.monotonic()
        if self._state == "starting":
            self._notify()

    def _set(self, state: ServerState, message: str | None = None) -> None:
        self._state, self._message = state, message
        if state != "starting":
            self._settled.set()
        self._notify()

    def _notify(self) -> None:
        if self.on_change is not None:
            try:
                self.on_change(self)
            except Exception:  # a listener's bug must not take the connection down
                log.exception("MCP status listener failed")

    async def wait_settled(self) -> None:
        await self._settled.wait()

    # --- lifecycle ----------------------------------------------------------------------------------
    def start(self) -> None:
        if self.settings.enabled and self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._supervise(), name=f"mcp:{self.name}")

    def server_pid(self) -> int | None:
        """The stdio server's process id while it may be running (Linux, where child_guard records it)."""
        return child_guard.read_pid(self._pid_file)

    def kill_now(self) -> None:
        """SIGKILL the stdio server's process group at once, without the orderly stop (Parley is quitting)."""
        child_guard.kill_group(self.server_pid())

    async def stop(self) -> None:
        """Close the connection; a server whose transport does not wind down within ``STOP_GRACE_S`` is killed
        so that stopping (and so quitting) never hangs on it."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            done, _ = await asyncio.wait({task}, timeout=STOP_GRACE_S)
            if not done:
                log.warning("MCP server %r did not stop within %g s; killing it", self.name, STOP_GRACE_S)
                self.kill_now()
                done, _ = await asyncio.wait({task}, timeout=KILL_WAIT_S)
            if not done:
                log.warning("MCP server %r: its connection did not end after the kill; abandoned", self.name)
            elif not task.cancelled() and task.exception() is not None:
                log.warning("MCP server %r ended with %r", self.name, task.exception())
        self._live = None
        self._set("stopped" if self.settings.enabled else "disabled")

    async def reconnect(self) -> None:
        """Start over after the user fixed something (a secret, the server itself): the restart count is reset."""
        await self.stop()
        if self.settings.enabled:
            self._restarts, self._message = 0, None
            self._settled.clear()
            self.start()

    async def _supervise(self) -> None:
        failures = 0
        while True:
            self._set("starting", self._message)
            started = time.monotonic()
            try:
                reason = await self._serve_once()
            except asyncio.CancelledError:
                raise
            except SetupProblem as exc:
                self._set("failed", f"{exc}; {SETUP_HINT}")
                return
            except Exception as exc:
                reason = describe_failure(exc)
            finally:
                self._live = None
            if time.monotonic() - started >= self.policy.stable_after_s:
                failures = 0
            failures += 1
            if failures > self.policy.max_attempts:
                self._set("failed", f"{reason}; gave up after {self.policy.max_attempts} restarts")
                return
            delay = self.policy.delay(failures)
            self._restarts += 1
            self._set("restarting", f"{reason}; restarting in {delay:g} s")
            await asyncio.sleep(delay)

    async def _serve_once(self) -> str:
        """Connect, list the tools and serve calls until the server goes away; returns why it ended."""
        with tempfile.TemporaryDirectory(prefix="parley-mcp-") as scratch:
            self._pid_file = os.path.join(scratch, "pid")
            try:
                return await self._serve_with_log()
            finally:
                self._pid_file = None

    async def _serve_with_log(self) -> str:
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
            try:
                self._phase("starting the server" if self.settings.transport == "stdio" else "connecting")
                async with contextlib.AsyncExitStack() as stack:
                    read, write = await stack.enter_async_context(await self._transport(errlog))
                    session = await stack.enter_async_context(ClientSession(read, write))
                    async with asyncio.timeout(self.connect_timeout):
                        self._phase("waiting for its answer to initialize")
                        await session.initialize()
                        self._phase("listing its tools")
                        listing = await _list_tools(session)
                    self.tools = listing.tools
                    dropped = listing.dropped_message(self.name)
                    if dropped:
                        log.warning("MCP %s", dropped)
                    live = _Live(session)
                    self._live = live
                    self._http_refusal = None
                    self._set("running", dropped)
                    return await self._watch(live)
            except TimeoutError:
                raise ConnectionError(f"no answer within {self.connect_timeout:g} s"
                                      f"{_stderr_tail(errlog)}") from None
            except SetupProblem:
                raise
            except Exception as exc:
                refusal = self._refusal_problem()
                if refusal is not None:
                    raise refusal from exc
                raise ConnectionError(f"{self._describe(exc)}{_stderr_tail(errlog)}") from exc

    def _refusal_problem(self) -> ConnectionError | None:
        """The HTTP status the server refused the connection with, said plainly (the SDK reports it as a bare
        "Server returned an error response")."""
        response, self._http_refusal = self._http_refusal, None
        if response is None:
            return None
        said = f"the server answered HTTP {response.status_code} {response.reason_phrase}".rstrip()
        if response.status_code in (401, 403):
            secret = self.settings.secret_headers
            where = (f"check the secret header {', '.join(secret)} (keyring entry "
                     f"{', '.join(secret_entry(self.name, h) for h in secret)})" if secret else
                     "it may need a secret header such as Authorization")
            return SetupProblem(f"{said}: it refused the credentials; {where}")
        return ConnectionError(said)

    def _describe(self, exc: BaseException) -> str:
        cause = _innermost(exc)
        if isinstance(cause, httpx2.ConnectError):
            return f"could not connect to {self.settings.url} ({cause})"
        if isinstance(cause, httpx2.TimeoutException):
            return f"{self.settings.url} did not answer in time ({type(cause).__name__})"
        return describe_failure(exc)

    async def _note_refusal(self, response: httpx2.Response) -> None:
        # Only while connecting (calls report their own errors), and only a POST: a server may answer the
        # optional GET event stream with 405, which is not a failure.
        if response.status_code >= 400 and response.request.method == "POST" and self._live is None:
            self._http_refusal = response

    async def _transport(self, errlog: IO[str]) -> Any:
        s = self.settings
        secrets = await asyncio.to_thread(self._secrets)
        if s.transport == "stdio":
            assert s.command is not None
            env = {**s.env, **{k: v for k, v in secrets.items() if k in s.secret_env}}
            command, args = s.command, s.args
            if child_guard.available() and self._pid_file is not None:
                command, args = child_guard.guarded(command, args, pid_file=self._pid_file, cwd=s.cwd,
                                                    path=env.get("PATH", os.environ.get("PATH")))
            params = StdioServerParameters(command=command, args=args, env=env or None, cwd=s.cwd)
            return stdio_client(params, errlog=errlog)
        assert s.url is not None
        headers = {**s.headers, **{k: v for k, v in secrets.items() if k in s.secret_headers}}
        client = httpx2.AsyncClient(headers=headers, event_hooks={"response": [self._note_refusal]},
                                    timeout=httpx2.Timeout(HTTP_CONNECT_TIMEOUT_S, read=HTTP_READ_TIMEOUT_S))
        return _owning(client, streamable_http_client(s.url, http_client=client))

    def _secrets(self) -> dict[str, str]:
        names = [*self.settings.secret_env, *self.settings.secret_headers]
        values: dict[str, str] = {}
        for name in names:
            value = self.secret_lookup(secret_entry(self.name, name)) if self.secret_lookup else None
            if value is None:
                raise SetupProblem(f"the secret {name} is not in the keyring (entry {secret_entry(self.name, name)},"
                                   " set with `parley keys set`)")
            values[name] = value
        return values

    async def _watch(self, live: _Live) -> str:
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(HEARTBEAT_INTERVAL_S):
                    await live.lost.wait()
            if live.lost.is_set():
                return "the server closed the connection"
            if live.calls:
                # A server busy with a call may not answer pings (a blocking tool stalls a single-threaded
                # server); the call's own timeout says what happened instead of a misleading "closed".
                continue
            try:
                async with asyncio.timeout(PING_TIMEOUT_S):
                    await live.session.send_ping()
            except TimeoutError:
                return f"the server did not answer a ping within {PING_TIMEOUT_S:g} s"
            except MCPError as exc:
                return f"the server closed the connection ({exc.error.message})"

    # --- calls --------------------------------------------------------------------------------------
    def not_running_message(self) -> str:
        detail = f" ({self._state}: {self._message})" if self._message else f" ({self._state})"
        return f"MCP server {self.name!r} is not running{detail}."

    def timeout_message(self, tool: str) -> str:
        limit = self.settings.call_timeout
        return (f"MCP server {self.name!r} did not answer tool {tool!r} within {limit:g} s (the server's "
                f"call_timeout); the call was cancelled.")

    async def call(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """The tool's result; ``ServerNotRunning`` when the server is down, ``CallTimedOut`` after
        ``settings.call_timeout`` without an answer (the server is sent a cancellation)."""
        live = self._live
        if live is None or live.lost.is_set():
            raise ServerNotRunning(self.not_running_message())
        limit = self.settings.call_timeout
        live.calls += 1
        try:
            # The SDK's own timeout sends the server a cancellation; ours is the backstop should a write to a
            # server that stopped reading block before the SDK's clock starts.
            async with asyncio.timeout(limit + CALL_TIMEOUT_BACKSTOP_S):
                return await live.session.call_tool(tool, arguments, read_timeout_seconds=limit)
        except TimeoutError:
            raise CallTimedOut(self.timeout_message(tool)) from None
        except MCPError as exc:
            if exc.error.code == types.REQUEST_TIMEOUT:
                raise CallTimedOut(self.timeout_message(tool)) from None
            if exc.error.code == types.CONNECTION_CLOSED:
                live.lost.set()
                raise ServerNotRunning(f"MCP server {self.name!r} is not running: it closed the connection "
                                       "during the call.") from None
            raise
        finally:
            live.calls -= 1


@dataclass(frozen=True)
class _Listing:
    tools: list[types.Tool]
    offered: int  # tools the server listed (counted over at most MAX_LIST_PAGES pages)
    more: bool  # it had more pages than were read

    def dropped_message(self, server: str) -> str | None:
        if self.offered <= len(self.tools) and not self.more:
            return None
        offered = f"more than {self.offered:,}" if self.more else f"{self.offered:,}"
        return (f"server {server!r} offered {offered} tools; {len(self.tools):,} are used (limit "
                f"MAX_LISTED_TOOLS = {MAX_LISTED_TOOLS:,}, in the order the server listed them)")


async def _list_tools(session: ClientSession) -> _Listing:
    tools: list[types.Tool] = []
    offered = 0
    cursor: str | None = None
    for _ in range(MAX_LIST_PAGES):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        offered += len(page.tools)
        tools.extend(page.tools[:max(0, MAX_LISTED_TOOLS - len(tools))])
        cursor = page.next_cursor
        if not cursor:
            break
    return _Listing(tools, offered, more=bool(cursor))


@contextlib.asynccontextmanager
async def _owning(client: httpx2.AsyncClient, transport: Any) -> Any:
    async with client, transport as streams:
        yield streams


def _stderr_tail(errlog: IO[str]) -> str:
    try:
        errlog.flush()
        errlog.seek(0)
        text = errlog.read().strip()
    except (OSError, ValueError):
        return ""
    if not text:
        return ""
    tail = text[-STDERR_TAIL_CHARS:]
    return f"; its last output: {tail}"


def _innermost(exc: BaseException) -> BaseException:
    """The first real failure inside task-group wrappers."""
    while isinstance(exc, BaseExceptionGroup):
        inner = [e for e in exc.exceptions if not isinstance(e, asyncio.CancelledError)]
        if not inner:
            break
        exc = inner[0]
    return exc


def describe_failure(exc: BaseException) -> str:
    exc = _innermost(exc)
    if isinstance(exc, FileNotFoundError):
        command = str(exc.filename or exc)
        hint = LAUNCHER_HINTS.get(command.rsplit("/", 1)[-1].removesuffix(".exe"), "")
        return f"the command was not found ({command}){hint}"
    if isinstance(exc, ConnectionError) and str(exc):
        return str(exc)
    if isinstance(exc, MCPError):
        return exc.error.message
    if isinstance(exc, httpx2.HTTPError):
        return f"{type(exc).__name__}: {exc}"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__

"""``parley history`` (list, show, rename, delete, branch, switch), ``parley search``, ``parley export`` and
``parley import``: the saved conversations from the terminal."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from app.cli.cli_common import EXIT_OK, UsageError
from app.cli.cli_context import open_history
from app.cli.list_output import printed_json_or_empty
from app.cli.match_marks import MatchMarks, wants_bold
from app.cli.terminal_text import raw_stdout
from app.file_write import write_file_atomically
from app.storage.attachment_index import index_all, pending_count
from app.storage.branches import versions
from app.storage.errors import storage_errors
from app.storage.exchange import export_json, import_conversation, read_export
from app.storage.import_notes import import_note
from app.storage.markdown import export_markdown, format_time
from app.storage.search import DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, HistorySearch, SearchQueryError

# Characters of a message shown per line in `parley history show`.
PREVIEW_CHARS = 100


def _limit(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 1 <= value <= MAX_SEARCH_LIMIT:
        raise argparse.ArgumentTypeError(f"expected 1 to {MAX_SEARCH_LIMIT}, got {value}")
    return value


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser],
                parents: list[argparse.ArgumentParser]) -> None:
    history = sub.add_parser("history", parents=parents, help="saved conversations: list, show, rename, delete, "
                                                             "branch",
                             description="Conversations saved by `parley chat` (and the window).")
    actions = history.add_subparsers(dest="history_command", metavar="ACTION", required=True)
    listing = actions.add_parser("list", parents=parents, help="list conversations, newest first (pinned on top)")
    listing.add_argument("--all", action="store_true", help="include archived conversations")
    listing.add_argument("--json", action="store_true", help="print as JSON")
    show = actions.add_parser("show", parents=parents, help="the current branch of a conversation, with message ids")
    show.add_argument("id", type=int, metavar="ID")
    show.add_argument("--json", action="store_true", help="print as JSON")
    rename = actions.add_parser("rename", parents=parents, help="give a conversation a new title")
    rename.add_argument("id", type=int, metavar="ID")
    rename.add_argument("title", metavar="TITLE")
    delete = actions.add_parser("delete", parents=parents, help="delete a conversation with all its messages and runs")
    delete.add_argument("id", type=int, metavar="ID")
    branch = actions.add_parser(
        "branch", parents=parents, help="start a new branch beside MESSAGE_ID; the old branch is kept",
        description="The next message (`parley chat --conversation ID ...`, or `--regenerate` for an answer) "
                    "becomes a sibling of MESSAGE_ID: use it to edit a message or get another answer.")
    branch.add_argument("id", type=int, metavar="ID")
    branch.add_argument("message_id", type=int, metavar="MESSAGE_ID")
    switch = actions.add_parser("switch", parents=parents, help="continue on the branch through MESSAGE_ID")
    switch.add_argument("id", type=int, metavar="ID")
    switch.add_argument("message_id", type=int, metavar="MESSAGE_ID")

    search = sub.add_parser("search", parents=parents,
                            help="full-text search over saved messages, titles and attached files (name and text)")
    search.add_argument("query", metavar="QUERY", help="words that must all appear; word* matches a prefix")
    search.add_argument("--limit", type=_limit, default=DEFAULT_SEARCH_LIMIT,
                        help=f"most results to show (default: {DEFAULT_SEARCH_LIMIT})")
    search.add_argument("--json", action="store_true", help="print as JSON")

    export = sub.add_parser("export", parents=parents, help="export a conversation as Markdown or JSON")
    export.add_argument("id", type=int, metavar="ID")
    export.add_argument("--format", choices=["md", "json"], default="md",
                        help="md: the current branch, readable; json: everything, for `parley import` (default: md)")
    export.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of standard output")

    importer = sub.add_parser("import", parents=parents, help="import a conversation exported as JSON")
    importer.add_argument("file", metavar="FILE")


def _preview(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"


def _list(args: argparse.Namespace) -> int:
    with open_history(args) as history:
        rows = history.list_conversations(include_archived=args.all)
    if printed_json_or_empty(rows, as_json=args.json, empty="No saved conversations yet.", to_json=asdict):
        return EXIT_OK
    width = max(len(str(r.id)) for r in rows)
    for r in rows:
        flags = ("pinned " if r.pinned else "") + ("archived " if r.archived else "")
        print(f"{r.id:>{width}}  {format_time(r.updated_at)}  {r.message_count:>4} msgs  {flags}{r.title}")
    return EXIT_OK


def _show(args: argparse.Namespace) -> int:
    with open_history(args) as history:
        conversation = history.conversation(args.id)
        branch = history.branch(args.id)
        found = versions(history, args.id)  # the same count and position the window's ‹ 2/3 › shows
    if args.json:
        print(json.dumps({"conversation": asdict(conversation), "messages": [asdict(m) for m in branch]}, indent=2))
        return EXIT_OK
    print(f"{conversation.id}: {conversation.title}")
    for m in branch:
        note = "" if m.status == "complete" else f" [{m.status}]"
        alternatives = f" ({found[m.id].position} of {found[m.id].count} versions)" if found[m.id].count > 1 else ""
        calls = f" [tools: {', '.join(c.name for c in m.tool_calls)}]" if m.tool_calls else ""
        files = f" [attached: {', '.join(a.name for a in m.attachments)}]" if m.attachments else ""
        print(f"  #{m.id} {m.role}{note}{alternatives}{calls}{files}: {_preview(m.content)}")
    return EXIT_OK


def _rename(args: argparse.Namespace) -> int:
    if not args.title.strip():
        raise UsageError("the title is empty")
    with open_history(args) as history:
        history.rename(args.id, args.title)
    print(f"Renamed conversation {args.id}.")
    return EXIT_OK


def _delete(args: argparse.Namespace) -> int:
    with open_history(args) as history:
        title = history.conversation(args.id).title
        history.delete(args.id)
    print(f"Deleted conversation {args.id} ({title}).")
    return EXIT_OK


def _branch(args: argparse.Namespace) -> int:
    with open_history(args) as history:
        history.branch_from(args.id, args.message_id)
    print(f"The next message in conversation {args.id} starts a new branch beside #{args.message_id}: "
          f"`parley chat --conversation {args.id} \"...\"` (or --regenerate to answer the last message again).")
    return EXIT_OK


def _switch(args: argparse.Namespace) -> int:
    with open_history(args) as history:
        leaf = history.switch_branch(args.id, args.message_id)
    print(f"Conversation {args.id} now continues after #{leaf}.")
    return EXIT_OK


def run_history(args: argparse.Namespace) -> int:
    return {"list": _list, "show": _show, "rename": _rename, "delete": _delete, "branch": _branch,
            "switch": _switch}[args.history_command](args)


def run_search(args: argparse.Namespace) -> int:
    with open_history(args) as history:
        with storage_errors(history.path, "index the attachments for search"):
            waiting = pending_count(history.db)
            if waiting:  # attachments stored before the index existed (migration 6): indexed once, here
                print(f"Indexing {waiting:,} earlier attachments for search (once)…", file=sys.stderr)
                index_all(history.db)
        marks = MatchMarks.for_terminal(bold=wants_bold(sys.stdout))
        try:
            hits = HistorySearch(history).search(args.query, limit=args.limit,
                                                 **({} if args.json else {"marks": marks.pair}))
        except SearchQueryError as exc:
            raise UsageError(str(exc)) from None
    if printed_json_or_empty(hits, as_json=args.json, empty="No matches.", to_json=asdict):
        return EXIT_OK
    for hit in hits:
        where = "title" if hit.message_id is None else f"#{hit.message_id} {hit.role}"
        if hit.attachment_name is not None:
            where += f", attached {hit.attachment_name}"
        print(f"{hit.conversation_id}  {hit.conversation_title}  ({where}, {format_time(hit.created_at)})")
        raw_stdout(sys.stdout).write(f"    {marks.shown(' '.join(hit.snippet.split()))}\n")  # already safe
    return EXIT_OK


def run_export(args: argparse.Namespace) -> int:
    with open_history(args) as history:
        text = export_json(history, args.id) if args.format == "json" else export_markdown(history, args.id)
    if args.output:
        write_file_atomically(Path(args.output), text)
        print(f"Exported conversation {args.id} to {args.output}.", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def run_import(args: argparse.Namespace) -> int:
    document = read_export(Path(args.file))
    with open_history(args) as history:
        conversation_id = import_conversation(history, document)
    print(f"Imported {len(document.messages)} messages as conversation {conversation_id}.")
    note = import_note(document)
    if note is not None:
        print(note, file=sys.stderr)
    return EXIT_OK

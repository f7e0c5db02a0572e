"""How ``parley chat`` saves: a new conversation (titled after the prompt) or the one given with
``--conversation``, whose current branch is loaded as the context; the run recorder writes the rest.

With ``--no-save`` nothing is written: a new chat stays in memory, and ``--conversation`` only reads.
``--regenerate`` answers the last user message of the current branch again, as a new branch.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from app.cli_common import UsageError
from app.storage import History
from app.storage.history import title_from_text
from app.storage.replay import conversation_messages
from app.storage.run_recorder import RunRecorder
from orchestration.messages import Message, SystemMessage, UserMessage


@dataclass
class ChatConversation:
    messages: list[Message]  # what the model gets: the conversation so far and the new prompt
    prompt: str | None  # the new user message; None when regenerating
    reply_to: int | None  # the user message being answered again, when regenerating
    conversation_id: int | None
    recorder: RunRecorder | None


def _with_system(messages: list[Message], system: str | None) -> list[Message]:
    if not system:
        return messages
    rest = messages[1:] if messages and isinstance(messages[0], SystemMessage) else messages
    return [SystemMessage(content=system), *rest]


def prepare_conversation(history: History | None, args: argparse.Namespace, prompt: str | None, *,
                         provider: str, model: str, secrets: list[str]) -> ChatConversation:
    save = not args.no_save
    if args.conversation is None:
        messages = [*_with_system([], args.system), UserMessage(content=prompt or "")]
        if history is None or not save:
            return ChatConversation(messages, prompt, None, None, None)
        conversation_id = history.create_conversation(title_from_text(prompt or "", secrets), provider=provider,
                                                      model=model, system_prompt=args.system)
        return ChatConversation(messages, prompt, None, conversation_id,
                                RunRecorder(history, conversation_id, secrets=secrets))
    assert history is not None
    conversation_id = args.conversation
    history.conversation(conversation_id)  # NotFoundError for a wrong id
    if args.system and save:
        history.set_details(conversation_id, system_prompt=args.system)
    reply_to = resume = None
    if args.regenerate:
        users = [m for m in history.branch(conversation_id) if m.role == "user"]
        if not users:
            raise UsageError(f"conversation {conversation_id} has no user message to answer again")
        reply_to = users[-1].id
        messages = conversation_messages(history, conversation_id, leaf_id=reply_to)
    else:  # the new message is stored right after the context it is sent with
        resume = history.resume_point(conversation_id)
        messages = [*conversation_messages(history, conversation_id, upto=resume), UserMessage(content=prompt or "")]
    recorder = RunRecorder(history, conversation_id, secrets=secrets, resume=resume) if save else None
    return ChatConversation(_with_system(messages, args.system), prompt, reply_to, conversation_id, recorder)

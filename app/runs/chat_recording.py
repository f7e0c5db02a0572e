"""Where a run's messages come from and go: a new conversation (titled after the prompt) or an existing one,
whose current branch is loaded as the context; the run recorder writes the rest. Used by the run service
(app/runs/run_service.py) for ``parley chat`` and the window alike.

Without saving nothing is written: a new chat stays in memory, and an existing conversation is only read.
Regenerating answers the last user message of the current branch again, as a new branch. The window's message
actions place a run elsewhere in the tree (``Placement``): an edited question beside the original, another
answer to any question, or the continuation of an answer stopped early.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from app.storage import History
from app.storage.history import ResumePoint, title_from_text
from app.storage.replay import conversation_messages
from app.storage.run_recorder import RunRecorder
from orchestration.messages import Attachment, Message, SystemMessage, UserMessage

# What the model is asked when it continues an answer stopped early; sent, never stored (the stored answer
# simply goes on).
CONTINUE_PROMPT = "Continue your previous answer exactly where it stopped, without repeating any of it."


class NothingToRegenerateError(ValueError):
    """Regenerating in a conversation that has no user message yet."""


class NothingToContinueError(NothingToRegenerateError):
    """Continuing a conversation whose current branch does not end with an answer."""


@dataclass(frozen=True)
class Placement:
    """Where a run's messages go when they are not simply the next ones (the window's message actions).

    ``edit``: the prompt is a new version of question ``message_id`` (its sibling, a new branch);
    ``answer``: a new answer to question ``message_id`` (regenerate, retry);
    ``continue``: the answer whose last message is ``message_id`` goes on after it (continue after Stop).
    """

    kind: Literal["edit", "answer", "continue"]
    message_id: int


@dataclass
class ChatConversation:
    messages: list[Message]  # what the model gets: the conversation so far and the new prompt
    prompt: str | None  # the new user message; None when regenerating
    reply_to: int | None  # the user message being answered again, when regenerating
    conversation_id: int | None
    recorder: RunRecorder | None
    after: int | None = None  # the answer message a continuation follows


def continuation(history: History, conversation_id: int) -> Placement:
    """Where ``parley chat --continue`` goes on: after the last message of the current branch, an answer."""
    branch = history.branch(conversation_id)
    if not branch or branch[-1].role != "assistant":
        raise NothingToContinueError(f"conversation {conversation_id} does not end with an answer to continue")
    return Placement("continue", branch[-1].id)


def _with_system(messages: list[Message], system: str | None) -> list[Message]:
    """None keeps the conversation's own system prompt; "" removes it; text replaces it."""
    if system is None:
        return messages
    rest = messages[1:] if messages and isinstance(messages[0], SystemMessage) else messages
    return [SystemMessage(content=system), *rest] if system else rest


def prepare_conversation(history: History | None, conversation_id: int | None, prompt: str | None, *,
                         system: str | None, regenerate: bool, save: bool, provider: str, model: str,
                         secrets: list[str], memory: Sequence[Message] = (),
                         placement: Placement | None = None,
                         attachments: Sequence[Attachment] = ()) -> ChatConversation:
    """``memory``: the chat so far when there is no database to read it from (a new conversation only).
    ``attachments``: files sent with the new prompt."""
    question = UserMessage(content=prompt or "", attachments=list(attachments))
    if conversation_id is None:
        messages = [*_with_system(list(memory), system), question]
        if history is None or not save:
            return ChatConversation(messages, prompt, None, None, None)
        title = title_from_text(prompt or "", secrets) or ", ".join(a.name for a in attachments)
        conversation_id = history.create_conversation(title, provider=provider, model=model,
                                                      system_prompt=system or None)
        return ChatConversation(messages, prompt, None, conversation_id,
                                RunRecorder(history, conversation_id, secrets=secrets))
    assert history is not None
    history.conversation(conversation_id)  # NotFoundError for a wrong id
    if system and save:
        history.set_details(conversation_id, system_prompt=system)
    reply_to = resume = after = None
    if regenerate and placement is None:
        users = [m for m in history.branch(conversation_id) if m.role == "user"]
        if not users:
            raise NothingToRegenerateError(f"conversation {conversation_id} has no user message to answer again")
        placement = Placement("answer", users[-1].id)
    if placement is not None and placement.kind != "edit":
        target = history.message_in(conversation_id, placement.message_id)
        path = history.branch(conversation_id, target.id)
        users = [m for m in path if m.role == "user"]
        if not users:
            raise NothingToRegenerateError(f"message {target.id} follows no question to answer")
        reply_to = users[-1].id
        if placement.kind == "answer":
            messages = conversation_messages(history, conversation_id, leaf_id=reply_to)
        else:
            after = target.id
            messages = [*conversation_messages(history, conversation_id, leaf_id=after),
                        UserMessage(content=CONTINUE_PROMPT)]
    elif placement is not None:  # an edited question goes beside the original
        resume = ResumePoint(conversation_id, history.message_in(conversation_id, placement.message_id).parent_id)
        messages = [*conversation_messages(history, conversation_id, upto=resume), question]
    else:  # the new message is stored right after the context it is sent with
        resume = history.resume_point(conversation_id)
        messages = [*conversation_messages(history, conversation_id, upto=resume), question]
    recorder = RunRecorder(history, conversation_id, secrets=secrets, resume=resume) if save else None
    return ChatConversation(_with_system(messages, system), None if reply_to else prompt, reply_to, conversation_id,
                            recorder, after)

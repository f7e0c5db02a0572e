"""Where a run's messages come from and go: a new conversation (titled after the prompt) or an existing one,
whose current branch is loaded as the context; the run recorder writes the rest. Used by the run service
(app/run_service.py) for ``parley chat`` and the window alike.

Without saving nothing is written: a new chat stays in memory, and an existing conversation is only read.
Regenerating answers the last user message of the current branch again, as a new branch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.storage import History
from app.storage.history import title_from_text
from app.storage.replay import conversation_messages
from app.storage.run_recorder import RunRecorder
from orchestration.messages import Attachment, Message, SystemMessage, UserMessage


class NothingToRegenerateError(ValueError):
    """Regenerating in a conversation that has no user message yet."""


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


def prepare_conversation(history: History | None, conversation_id: int | None, prompt: str | None, *,
                         system: str | None, regenerate: bool, save: bool, provider: str, model: str,
                         secrets: list[str], memory: Sequence[Message] = (),
                         attachments: Sequence[Attachment] = ()) -> ChatConversation:
    """``memory``: the chat so far when there is no database to read it from (a new conversation only).
    ``attachments``: files sent with the new prompt."""
    question = UserMessage(content=prompt or "", attachments=list(attachments))
    if conversation_id is None:
        messages = [*_with_system(list(memory), system), question]
        if history is None or not save:
            return ChatConversation(messages, prompt, None, None, None)
        title = title_from_text(prompt or "", secrets) or ", ".join(a.name for a in attachments)
        conversation_id = history.create_conversation(title, provider=provider, model=model, system_prompt=system)
        return ChatConversation(messages, prompt, None, conversation_id,
                                RunRecorder(history, conversation_id, secrets=secrets))
    assert history is not None
    history.conversation(conversation_id)  # NotFoundError for a wrong id
    if system and save:
        history.set_details(conversation_id, system_prompt=system)
    reply_to = resume = None
    if regenerate:
        users = [m for m in history.branch(conversation_id) if m.role == "user"]
        if not users:
            raise NothingToRegenerateError(f"conversation {conversation_id} has no user message to answer again")
        reply_to = users[-1].id
        messages = conversation_messages(history, conversation_id, leaf_id=reply_to)
    else:  # the new message is stored right after the context it is sent with
        resume = history.resume_point(conversation_id)
        messages = [*conversation_messages(history, conversation_id, upto=resume), question]
    recorder = RunRecorder(history, conversation_id, secrets=secrets, resume=resume) if save else None
    return ChatConversation(_with_system(messages, system), prompt, reply_to, conversation_id, recorder)

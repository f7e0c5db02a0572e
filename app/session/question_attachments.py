"""The attachments of a stored question, ready to be sent again with its edited text (the window's "edit a
question" message action, app/session/chat_actions.py).

The editor lists the original question's attachments and the user may remove some; the ones kept are read back
from the history (their rows) and the attachment store (their files), so the new version carries exactly those,
never what happens to be in the composer's draft. A kept file that is no longer in the store cannot be sent
again: that is an error naming it, and the edit is not sent (the text goes back to the composer).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.attachments import PreparedAttachment
from app.attachments.store import MissingAttachmentError
from app.storage import History
from app.storage.attachments import message_parts


class AttachmentGoneError(LookupError):
    """A kept attachment's file is no longer in the data folder."""


def kept_attachments(history: History, conversation_id: int, question_id: int,
                     keys: Sequence[str]) -> list[PreparedAttachment]:
    """The question's attachments named by ``keys`` (their SHA-256, as the editor lists them), in the
    question's order. LookupError for a key the question does not have (a bug) or a file that is gone."""
    record = history.message_in(conversation_id, question_id)
    known = {attachment.sha256 for attachment in record.attachments}
    unknown = [key for key in keys if key not in known]
    if unknown:
        raise LookupError(f"message {question_id} has no attachment {unknown[0]}")
    chosen = [attachment for attachment in record.attachments if attachment.sha256 in set(keys)]
    prepared: list[PreparedAttachment] = []
    for attachment, part in zip(chosen, message_parts(history.attachments, chosen), strict=True):
        try:
            stored = history.attachments.read(attachment.sha256)
        except (MissingAttachmentError, OSError, ValueError) as problem:
            raise AttachmentGoneError(
                f"{attachment.name} is no longer in Parley's data folder ({history.attachments.root}), so it "
                "cannot be sent again; edit the question again and remove it.") from problem
        prepared.append(PreparedAttachment(part=part, stored=stored))
    return prepared

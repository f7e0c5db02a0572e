"""What an import changed or left out of the file, in one note for the user (``parley import``, File > Import).

An import keeps everything it can and says what it did not keep as it was: fields a newer Parley added
(export_fields.py), and attachment names longer than MAX_ATTACHMENT_NAME_CHARS, cut to their start and extension
(app/attachments/names.py) so every place that shows a name stays readable. Nothing else of the file is changed.
"""

from __future__ import annotations

from app.attachments.limits import MAX_ATTACHMENT_NAME_CHARS
from app.storage.exchange import ConversationExport
from app.storage.export_fields import ignored_note


def cut_names_note(document: ConversationExport) -> str | None:
    """One sentence on the attachment names the import cut, or None when every name fitted."""
    lengths = [a.name_cut_from for m in document.messages for a in m.attachments if a.name_cut_from is not None]
    if not lengths:
        return None
    names, its = ("name", "its") if len(lengths) == 1 else ("names", "their")
    return (f"Cut {len(lengths)} attachment {names} longer than {MAX_ATTACHMENT_NAME_CHARS} characters to {its} "
            f"start and extension (the longest had {max(lengths):,}).")


def import_note(document: ConversationExport) -> str | None:
    """Everything the import did not keep as it was in the file, or None when it kept it all."""
    notes = [note for note in (ignored_note(document), cut_names_note(document)) if note is not None]
    return " ".join(notes) or None


__all__ = ["cut_names_note", "import_note"]

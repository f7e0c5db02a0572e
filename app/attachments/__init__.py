"""Files the user attaches to a message: read and checked (``loader``), images prepared for sending
(``images``), documents turned into text (``documents``, ``pdf``) and kept once by content (``store``)."""

from app.attachments.errors import AttachmentError
from app.attachments.loader import PreparedAttachment, attachment_from_bytes, load_attachment, load_attachments

__all__ = ["AttachmentError", "PreparedAttachment", "attachment_from_bytes", "load_attachment", "load_attachments"]

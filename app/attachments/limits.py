"""The limits on attachments, in one place (docs/providers.md "Attachments" lists them for people)."""

from __future__ import annotations

MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024  # largest file accepted (OpenAI's per-image limit)
MAX_ATTACHMENTS = 10  # attachments on one message
MAX_IMAGE_EDGE = 2048  # longer side of an image as sent, in pixels; larger images are scaled down, aspect kept
MAX_IMAGE_PIXELS = 50_000_000  # decoded size (width x height) refused before decoding: no decompression bombs
MAX_IMAGE_SENT_BYTES = 3_750_000  # one image as sent: 5 MB once in base64, Anthropic's per-image limit
MAX_MESSAGE_BYTES = 20 * 1024 * 1024  # all attachments of one message as sent (Gemini's inline request limit)
JPEG_QUALITY = 90  # when a downscaled JPEG or WebP is encoded again
MAX_DOCUMENT_CHARS = 100_000  # characters of a document's text sent; the rest is cut with a note saying so
# Characters of an attachment's name kept: the longest file name the usual file systems allow (255), so a file
# attached from disk keeps its name whole; a longer one (an import file can carry any) is cut to its start and
# extension by app/attachments/names.py. Below the search index's ATTACHMENT_NAME_INDEX_CHARS (1,000).
MAX_ATTACHMENT_NAME_CHARS = 255

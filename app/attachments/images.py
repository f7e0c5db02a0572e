"""Images for sending: decoded and checked with Pillow, the first frame of an animation, scaled down to
``MAX_IMAGE_EDGE`` on the longer side (aspect ratio kept), in a format every wire format accepts.

PNG, JPEG and WebP that are small enough go as they are (byte for byte); a GIF, or an animated image, goes
as its first frame in PNG; a scaled image is encoded again in its own format (JPEG and WebP at quality
``JPEG_QUALITY``). An image still over ``MAX_IMAGE_SENT_BYTES`` (Anthropic's per-image limit) becomes a JPEG
(transparency on white), then is scaled down by a quarter at a time until it fits. The decoded size is checked
from the header before any pixel is decoded.
"""

from __future__ import annotations

import hashlib
import io
import warnings

from PIL import Image, ImageOps, UnidentifiedImageError

from app.attachments.errors import AttachmentError
from app.attachments.limits import JPEG_QUALITY, MAX_IMAGE_EDGE, MAX_IMAGE_PIXELS, MAX_IMAGE_SENT_BYTES
from orchestration.messages import ImagePart

# Pillow format name -> the media type sent, for formats sent as they are
_MEDIA_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}
SUPPORTED_FORMATS = ("PNG", "JPEG", "WEBP", "GIF")


def _open(name: str, data: bytes) -> Image.Image:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=SUPPORTED_FORMATS)
            if image.width * image.height > MAX_IMAGE_PIXELS:
                raise AttachmentError("too_large", name, (
                    f"{name} is {image.width} x {image.height} pixels; images over {MAX_IMAGE_PIXELS:,} pixels are "
                    "not attached. Scale it down first."))
            image.load()  # decode every pixel now: a truncated or damaged file fails here, not when sent
    except AttachmentError:
        raise
    except UnidentifiedImageError:
        raise AttachmentError("unsupported", name, (
            f"{name} is not an image Parley can send (PNG, JPEG, WebP or GIF).")) from None
    except Exception as exc:  # Pillow's decoders raise many kinds on damaged input (found by fuzzing)
        raise _corrupt(name, exc) from None
    return image


def _corrupt(name: str, exc: Exception) -> AttachmentError:
    return AttachmentError("corrupt", name, f"{name} is damaged and cannot be read as an image ({exc}).")


def prepare_image(name: str, data: bytes) -> ImagePart:
    """The image as sent. Raises AttachmentError (``unsupported``, ``corrupt`` or ``too_large``)."""
    image = _open(name, data)
    fmt = image.format or ""
    try:
        animated = bool(getattr(image, "is_animated", False))
    except Exception as exc:  # counting frames reads the rest of a damaged file; Pillow raises many kinds
        raise _corrupt(name, exc) from None
    too_big = max(image.size) > MAX_IMAGE_EDGE
    if fmt in _MEDIA_TYPES and not animated and not too_big and len(data) <= MAX_IMAGE_SENT_BYTES:
        return _part(name, _MEDIA_TYPES[fmt], data, image.size)
    try:
        image.seek(0)
        frame = image  # ours alone: changed in place, no copies of a 12 MP photo
        if fmt == "JPEG":
            ImageOps.exif_transpose(frame, in_place=True)
        if too_big:
            # bicubic: about twice as fast as Lanczos on a phone photo (bench/attachments.py), as sharp for a model
            frame.thumbnail((MAX_IMAGE_EDGE, MAX_IMAGE_EDGE), Image.Resampling.BICUBIC)
        out_format = fmt if fmt in ("JPEG", "WEBP") else "PNG"
        encoded = _encode(frame, out_format)
        # Still over the per-image limit (a photo saved as PNG, say): JPEG, then smaller, until it fits.
        while len(encoded) > MAX_IMAGE_SENT_BYTES:
            if out_format != "JPEG":
                frame, out_format = _flatten(frame), "JPEG"
            else:
                frame = frame.resize((max(1, frame.width * 3 // 4), max(1, frame.height * 3 // 4)),
                                     Image.Resampling.BICUBIC)
            encoded = _encode(frame, out_format)
    except Exception as exc:  # as in _open: any failure on outside bytes is a damaged file
        raise _corrupt(name, exc) from None
    return _part(name, _MEDIA_TYPES[out_format], encoded, frame.size)


def _flatten(frame: Image.Image) -> Image.Image:
    """RGB for JPEG: transparency becomes white."""
    if frame.mode in ("RGB", "L"):
        return frame
    rgba = frame.convert("RGBA")
    background = Image.new("RGB", rgba.size, (255, 255, 255))
    background.paste(rgba, mask=rgba.getchannel("A"))
    return background


def _encode(frame: Image.Image, out_format: str) -> bytes:
    if out_format == "JPEG":
        frame = _flatten(frame)
    elif out_format == "PNG" and frame.mode == "P":
        frame = frame.convert("RGBA")
    buffer = io.BytesIO()
    options = {"quality": JPEG_QUALITY} if out_format in ("JPEG", "WEBP") else {"optimize": True}
    frame.save(buffer, format=out_format, **options)
    return buffer.getvalue()


def _part(name: str, media_type: str, data: bytes, size: tuple[int, int]) -> ImagePart:
    return ImagePart(name=name, media_type=media_type, data=data,  # type: ignore[arg-type]
                     sha256=hashlib.sha256(data).hexdigest(), width=size[0], height=size[1])

"""Downloading a GGUF model from a Hugging Face repository, safely enough to register the result.

Through ``huggingface_hub``: ``get_hf_file_metadata`` asks the Hub (``HF_ENDPOINT``, default huggingface.co)
for the file's size, its LFS sha256 and where to fetch it; ``http_get`` streams it, retrying a dropped
connection from where it stopped. Parley keeps the bytes in ``<file>.part`` beside the destination (with the
sha256 it belongs to in ``<file>.part.json``), so a download stopped by Ctrl+C, a crash or a dropped network
continues from there the next time; a part file for another version of the file is started afresh.

Before anything is fetched the free disk space is checked (``DISK_MARGIN`` to spare). Once all bytes are in,
the part file is hashed and compared with the Hub's sha256; a mismatch deletes it. Only a verified, whole GGUF
file is renamed to its final name, and only then may the caller register it: a half-written file never is.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from app.engine import gguf_info, library
from app.engine.download_claim import claimed

DEFAULT_ENDPOINT = "https://huggingface.co"
DISK_MARGIN = 200 * 1024 * 1024  # bytes left free after a download, so the disk is never filled to the brim
RESUME_ATTEMPTS = 3  # our own retries after huggingface_hub's (which retry timeouts and protocol errors 5 times)
HASH_BLOCK = 4 * 1024 * 1024
REPO_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
SHA256_PATTERN = re.compile(r"^[0-9a-f]{64}$")
REVISION = "main"
MODELS_FOLDER = "models"  # under the data folder: where downloads go, for the CLI and the window alike

Progress = Callable[[str, int, int | None], None]  # (phase "download" | "verify", bytes done, total)


class DownloadError(Exception):
    """A download that did not give a usable model; the message says what to do."""


class DownloadCancelled(DownloadError):
    """Stopped on request; the part file is kept so the next attempt resumes."""


class ChecksumMismatch(DownloadError):
    pass


class NotEnoughSpace(DownloadError):
    pass


class DownloadBusy(DownloadError):
    """The same file is being downloaded by another process (app/engine/download_claim.py)."""


@dataclass(frozen=True)
class RemoteFile:
    repo: str
    file: str
    size: int | None
    sha256: str | None
    url: str
    commit: str | None


def endpoint() -> str:
    """The Hub to use, read now (not at import time) so HF_ENDPOINT set by a test or the user always counts.

    huggingface_hub reads HF_ENDPOINT once, at import, into ``constants.ENDPOINT``, and uses that for requests
    Parley does not make itself (its daily agent-registry lookup): it is set to the same endpoint here, so every
    request of a download goes to one place."""
    from huggingface_hub import constants

    hub = (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")
    constants.ENDPOINT = hub
    return hub


def check_names(repo: str, file: str) -> None:
    if not REPO_PATTERN.match(repo):
        raise DownloadError(f"{repo!r} is not a Hugging Face repository id; it looks like OWNER/NAME, for example "
                            "Qwen/Qwen2.5-0.5B-Instruct-GGUF")
    parts = file.split("/")
    if not file.lower().endswith(".gguf") or any(p in ("", ".", "..") for p in parts) or file.startswith("/"):
        raise DownloadError(f"{file!r} is not a .gguf file in the repository; name one of its *.gguf files, as "
                            "listed under 'Files and versions' on its page")


def destination(models_dir: Path, repo: str, file: str) -> Path:
    return models_dir / repo.replace("/", "--") / file


def _hub_error(exc: Exception, repo: str, file: str) -> DownloadError:
    from huggingface_hub import errors

    if isinstance(exc, errors.GatedRepoError):
        return DownloadError(f"{repo} is gated: accept its terms on its Hugging Face page and log in with "
                             "`hf auth login`, then try again")
    if isinstance(exc, errors.RepositoryNotFoundError):
        return DownloadError(f"there is no repository {repo} on {endpoint()} (or it is private)")
    if isinstance(exc, errors.EntryNotFoundError):
        return DownloadError(f"{repo} has no file {file}; check the name under 'Files and versions'")
    if isinstance(exc, errors.OfflineModeIsEnabled):
        return DownloadError("HF_HUB_OFFLINE is set, so nothing can be downloaded; unset it and try again")
    if isinstance(exc, errors.HfHubHTTPError):
        status = exc.response.status_code if exc.response is not None else "?"
        return DownloadError(f"{endpoint()} answered HTTP {status} for {repo}/{file}; try again later")
    return DownloadError(f"cannot reach {endpoint()} ({type(exc).__name__}: {exc}); check the network and try "
                         "again: the download continues where it stopped")


def remote_file(repo: str, file: str) -> RemoteFile:
    """What the Hub says about the file, without fetching it."""
    from huggingface_hub import get_hf_file_metadata

    check_names(repo, file)
    hub = endpoint()
    url = f"{hub}/{repo}/resolve/{REVISION}/{quote(file)}"  # hf_hub_url's form, on the endpoint read now
    try:
        meta = get_hf_file_metadata(url, endpoint=hub)
    except Exception as exc:  # huggingface_hub's and httpx2's errors, all reported the same way
        raise _hub_error(exc, repo, file) from None
    sha = meta.etag if meta.etag and SHA256_PATTERN.match(meta.etag) else None
    return RemoteFile(repo, file, meta.size, sha, meta.location, meta.commit_hash)


class _Part:
    """``<file>.part`` and the sha256 it belongs to."""

    def __init__(self, target: Path) -> None:
        self.path = target.with_name(target.name + ".part")
        self.meta = target.with_name(target.name + ".part.json")

    def size_for(self, remote: RemoteFile) -> int:
        """Bytes already fetched for this version of the file (0, and a fresh start, for any other)."""
        try:
            saved = json.loads(self.meta.read_text(encoding="utf-8"))
            size = self.path.stat().st_size
        except (OSError, ValueError):
            self.discard()
            return 0
        if saved.get("sha256") != remote.sha256 or saved.get("size") != remote.size or \
                (remote.size is not None and size > remote.size):
            self.discard()
            return 0
        return size

    def begin(self, remote: RemoteFile) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.meta.write_text(json.dumps({"repo": remote.repo, "file": remote.file, "sha256": remote.sha256,
                                         "size": remote.size}), encoding="utf-8")

    def discard(self) -> None:
        self.path.unlink(missing_ok=True)
        self.meta.unlink(missing_ok=True)


def _progress_class(report: Progress | None, cancel: threading.Event | None) -> type:
    """A tqdm class for ``http_get`` that reports bytes and stops the transfer when ``cancel`` is set."""
    from tqdm.auto import tqdm

    class _Report(tqdm):  # type: ignore[misc]  # tqdm has no types: a subclass of Any
        def __init__(self, *args: object, **kwargs: object) -> None:
            kwargs["disable"] = True
            super().__init__(*args, **kwargs)
            self.done = int(kwargs.get("initial") or 0)  # type: ignore[call-overload]
            self.expected = kwargs.get("total")

        def update(self, n: float | None = 1) -> bool | None:
            if cancel is not None and cancel.is_set():
                raise DownloadCancelled("download stopped")
            self.done += int(n or 0)
            if report is not None:
                report("download", self.done, self.expected)  # type: ignore[arg-type]
            return None

    return _Report


def check_space(folder: Path, needed: int) -> None:
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    if free < needed + DISK_MARGIN:
        raise NotEnoughSpace(f"not enough free disk space in {folder}: the download needs {needed / 1e6:,.0f} MB "
                             f"more (plus {DISK_MARGIN / 1e6:,.0f} MB to spare) and {free / 1e6:,.0f} MB is free; "
                             "free some space and try again")


def sha256_of(path: Path, report: Progress | None = None, cancel: threading.Event | None = None) -> str:
    digest = hashlib.sha256()
    total = path.stat().st_size
    done = 0
    with path.open("rb") as handle:
        while block := handle.read(HASH_BLOCK):
            if cancel is not None and cancel.is_set():
                raise DownloadCancelled("download stopped while checking it")
            digest.update(block)
            done += len(block)
            if report is not None:
                report("verify", done, total)
    return digest.hexdigest()


def download(repo: str, file: str, models_dir: Path, *, progress: Progress | None = None,
             cancel: threading.Event | None = None) -> Path:
    """Fetch ``file`` from ``repo`` into ``models_dir`` and return the verified GGUF file's path.

    Raises DownloadError (DownloadCancelled, ChecksumMismatch, NotEnoughSpace, DownloadBusy) or library.ModelFileError;
    nothing but a whole, verified file ever gets the final name."""
    remote = remote_file(repo, file)
    target = destination(models_dir, repo, file)
    if target.is_file() and remote.sha256 and target.stat().st_size == remote.size and \
            sha256_of(target, progress, cancel) == remote.sha256:
        return target
    with claimed(target.with_name(target.name + ".part.lock")) as mine:
        if not mine:
            raise DownloadBusy(f"{file} is already being downloaded by another Parley window or command; let that "
                               "one finish (or stop it) and try again")
        return _fetch(remote, target, progress, cancel)


def _fetch(remote: RemoteFile, target: Path, progress: Progress | None, cancel: threading.Event | None) -> Path:
    """The transfer into ``<file>.part``, its checks and the rename, for the one claimant of ``target``."""
    import httpx2
    from huggingface_hub import errors
    from huggingface_hub.file_download import http_get
    from huggingface_hub.utils import build_hf_headers

    repo, file = remote.repo, remote.file
    part = _Part(target)
    have = part.size_for(remote)
    if remote.size is not None:
        check_space(target.parent, remote.size - have)
    if have == 0:
        part.begin(remote)
    headers = build_hf_headers()
    progress_class = _progress_class(progress, cancel)
    for attempt in range(RESUME_ATTEMPTS + 1):
        have = part.path.stat().st_size if part.path.exists() else 0
        try:
            with part.path.open("ab") as handle:
                http_get(remote.url, handle, resume_size=have, headers=headers, expected_size=remote.size,
                         displayed_filename=file, tqdm_class=progress_class)
            break
        except DownloadCancelled:
            raise
        except errors.HfHubHTTPError as exc:  # an OSError too, but an answer, not a broken transfer
            raise _hub_error(exc, repo, file) from None
        except (httpx2.TransportError, OSError) as exc:
            if attempt == RESUME_ATTEMPTS:
                raise DownloadError(f"the download of {file} broke off ({exc}); run it again to continue where "
                                    "it stopped") from None
        except Exception as exc:
            raise _hub_error(exc, repo, file) from None
    if remote.sha256 is not None and sha256_of(part.path, progress, cancel) != remote.sha256:
        part.discard()
        raise ChecksumMismatch(f"{file} from {repo} does not match the Hub's checksum (sha256 {remote.sha256[:12]}…): "
                               "the copy was damaged on the way and has been deleted; download it again")
    try:
        library.check_gguf(part.path)
        gguf_info.read_info(part.path)
    except (library.ModelFileError, gguf_info.DamagedModelError) as exc:
        part.discard()
        raise DownloadError(f"{file} from {repo} is not a usable GGUF model ({exc}); it has been deleted") from None
    os.replace(part.path, target)
    part.meta.unlink(missing_ok=True)
    return target

"""A regular (non-editable) install must carry the icons and style sheets, not only a checkout."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT

PACKAGES = ("app", "widgets", "orchestration", "tools", "resources")


def test_build_includes_every_resource_file(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO_ROOT / name, source / name)
    for package in PACKAGES:
        shutil.copytree(REPO_ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    build = tmp_path / "build"
    # build_py lays out exactly what a wheel holds: packages plus their package data.
    proc = subprocess.run([sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py",
                           "--build-lib", str(build)], cwd=source, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    bundled = {path.relative_to(REPO_ROOT / "resources").as_posix()
               for path in (REPO_ROOT / "resources").rglob("*")
               if path.is_file() and "__pycache__" not in path.parts}
    built = {path.relative_to(build / "resources").as_posix() for path in (build / "resources").rglob("*")
             if path.is_file()}
    assert {"icons/send.svg", "styles/light.qss", "styles/dark.qss"} <= bundled
    assert bundled <= built, f"missing from a build: {sorted(bundled - built)}"

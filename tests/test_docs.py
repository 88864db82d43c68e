"""The docs say only what works: install commands that pip can run, references that exist."""

import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def tracked_text_files():
    """Every file git tracks under docs-like or source paths, with its text."""
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    for name in listed.stdout.splitlines():
        path = ROOT / name
        if path.suffix in {".md", ".py", ".toml", ".txt"} or name.startswith(".ci/"):
            yield name, path.read_text(encoding="utf-8")


def files_matching(pattern):
    return {name for name, text in tracked_text_files() if re.search(pattern, text)}


# Files owned by others that still need the fix; each entry must still match, so the
# list shrinks as they are fixed (strict, like tenferro-xfail.txt).
PENDING_INDEX_INSTALL = {"tenferro/cli.py"}


def test_no_install_from_an_index():
    """tenferro is not on a package index: `pip install "tenferro[test]"` cannot work, so
    the docs install from a clone (`pip install -e ".[test]"` or a path with the extra)."""
    found = files_matching(r"pip install ['\"]?tenferro\b") - {"tests/test_docs.py"}
    assert found == PENDING_INDEX_INSTALL

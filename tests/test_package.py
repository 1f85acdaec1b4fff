"""What the package says about itself: its version (``gtpgames --version``, GTP ``version``
and pyproject agree), its licence (LICENSE and pyproject agree) and the README's facts."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

from tests.gtp_helpers import make_engine, ok
from tests.protocol.test_e2e import COMMAND

ROOT = Path(__file__).parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]


def test_version_flag_prints_the_package_version() -> None:
    done = subprocess.run([*COMMAND, "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"gtpgames {PROJECT['version']}\n"
    gtp, _ = make_engine()
    assert ok(gtp, "version") == PROJECT["version"]


def test_license_file_matches_pyproject() -> None:
    assert PROJECT["license"] == {"text": "MIT"}
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n\nCopyright (c) 2026 the gtpgames authors\n")
    assert "THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND" in text


def test_readme_states_the_python_version_and_the_quick_tests() -> None:
    readme = (ROOT / "README.md").read_text()
    minimum = re.fullmatch(r">=(\d+\.\d+)", PROJECT["requires-python"])
    assert minimum is not None
    assert f"Python {minimum.group(1)} or later" in readme
    # the default run leaves the slow tests out (pyproject's addopts); the README says how to
    # run them
    assert "-m 'not slow'" in PYPROJECT["tool"]["pytest"]["ini_options"]["addopts"]
    assert "pytest -m slow" in readme

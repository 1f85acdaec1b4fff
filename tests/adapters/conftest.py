"""Fixtures of the browser tests: one headless Chromium per test module, and the directory
their screenshots go to (``$GTPGAMES_SCREENSHOTS``, else a new temporary one)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.adapters.web_helpers import ARGS, CHROMIUM


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def shots() -> Path:
    path = Path(os.environ.get("GTPGAMES_SCREENSHOTS") or tempfile.mkdtemp(prefix="gtpgames-"))
    path.mkdir(parents=True, exist_ok=True)
    return path

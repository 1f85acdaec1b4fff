"""Every process the tests start runs the code of this checkout: the source tree comes first
on PYTHONPATH, so that ``gtpgames`` (installed or not) imports the same files as the tests.
numba keys its cache by source file, and an installed copy beside the source tree would make
every kernel compile twice on a cold cache (once in the test process, once in its children)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
)

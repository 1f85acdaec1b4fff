"""Test engine: exits with status 3, without answering, on its second genmove of a game."""

import os
import sys

import tinygtp


def hook(count: int, game: object) -> str | None:
    if count >= 2:
        sys.stdout.flush()
        os._exit(3)
    return None


tinygtp.main(hook)

"""Test engine: never answers its second genmove of a game (sleeps for an hour)."""

import time

import tinygtp


def hook(count: int, game: object) -> str | None:
    if count >= 2:
        time.sleep(3600)
    return None


tinygtp.main(hook)

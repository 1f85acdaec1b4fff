"""Test engine: on its second genmove of a game, prints a line that is not a GTP response."""

import sys

import tinygtp


def hook(count: int, game: object) -> str | None:
    if count >= 2:
        sys.stdout.write("I am thinking very hard\n\n")
        sys.stdout.flush()
        return "a1"
    return None


tinygtp.main(hook)

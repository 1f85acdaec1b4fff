"""The examples in README.md and docs/ are real: every GTP session, UGI session and
command-line example is replayed through the real process and must give exactly the text
shown (trailing spaces aside, and the fields a ``<!-- varies: ... -->`` comment names);
every other fenced block is listed, with its reason, in tests/doc_sessions.py."""

from __future__ import annotations

import pytest

from tests.doc_sessions import NOT_EXAMPLES, Block, all_blocks, normalise, not_example_key, replay

BLOCKS = all_blocks()
EXAMPLES = [block for block in BLOCKS if block.kind is not None]


def test_every_block_is_an_example_or_listed_with_its_reason() -> None:
    others = [block for block in BLOCKS if block.kind is None]
    unlisted = [block.name for block in others if not_example_key(block) is None]
    assert unlisted == [], "replay these blocks, or list them with their reason"
    listed = {not_example_key(block) for block in others}
    assert set(NOT_EXAMPLES) - listed == set(), "listed, but no longer in the docs"


def test_docs_have_sessions() -> None:
    names = {block.name.split(":")[0] for block in EXAMPLES}
    assert "README.md" in names and "docs/protocol.md" in names and "docs/ugi.md" in names
    for game in ("brique", "trisq", "flicker", "brax", "bricka"):
        assert f"docs/games/{game}.md" in names
    assert {block.kind for block in EXAMPLES} == {"gtp", "ugi", "cli"}


@pytest.mark.slow  # each replays a session through gtpgames processes: 30-40 s in all
@pytest.mark.parametrize("block", EXAMPLES, ids=[block.name for block in EXAMPLES])
def test_documented_example(block: Block) -> None:
    assert normalise(replay(block), block.varies) == normalise(block.text, block.varies)

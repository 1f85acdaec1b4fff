"""``python -m gtpgames``: the same as the ``gtpgames`` command."""

from gtpgames.cli import main

main()

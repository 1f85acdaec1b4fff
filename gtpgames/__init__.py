"""gtpgames: the command-line front end (``gtpgames`` and ``python -m gtpgames``)."""

"""The rules pages of the games (NAME.md), installed as the package ``gtpgames.rules`` so that
the engine can read them with importlib.resources (see pyproject.toml)."""

"""The browser app of ``gtpgames serve``: a Starlette server driving one GTP engine process per
open game, and the static page that shows the board and turns clicks into moves
(docs/web.md)."""

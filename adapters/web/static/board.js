// The board picture of the renderer (docs/render.md) in a page, shared by the analysis
// board (app.js) and the online game page (online/game.js): it draws the server's SVG,
// marks the clicks made so far and the highlighted places, shows Trisq's empty squares in
// the orientation chosen, and hands the token of a clicked place to the page. The page
// never judges a move: the server does.
"use strict";

class BoardView {
  // element: the box the SVG goes in; onClick(token): a place or a piece was clicked.
  constructor(element, onClick) {
    this.element = element;
    this.onClick = onClick;
    this.orientation = "h";       // Trisq: the slots shown on an empty square, h or v
    this.squareOrientation = {};  // ... and the squares turned alone (right-click)
    element.addEventListener("click", (event) => this.click(event));
    element.addEventListener("contextmenu", (event) => this.rightClick(event));
  }

  get svg() { return this.element.querySelector("svg"); }

  // Draw a picture; `pending` and `targets` are tokens marked "pending" and "legal".
  draw(svg, pending = [], targets = []) {
    this.element.innerHTML = svg;
    this.mark(pending, "pending");
    this.mark(targets, "legal");
    this.showOrientation();
  }

  mark(tokens, name) {
    const board = this.svg;
    if (!board) return;
    for (const token of tokens) {
      const t = CSS.escape(token);
      for (const el of board.querySelectorAll(`[data-target="${t}"],[data-piece="${t}"]`)) {
        el.classList.add(name);
      }
    }
  }

  // Take a mark off every element that has it.
  unmark(name) {
    const board = this.svg;
    if (!board) return;
    for (const el of board.querySelectorAll(`.${name}`)) el.classList.remove(name);
  }

  // A new game: the squares turned alone turn back.
  forget() { this.squareOrientation = {}; }

  // Switch every empty square to the other orientation; returns the new one.
  toggleOrientation() {
    this.orientation = this.orientation === "h" ? "v" : "h";
    this.squareOrientation = {};
    this.showOrientation();
    return this.orientation;
  }

  showOrientation() {
    const board = this.svg;
    if (!board) return;
    const groups = [...board.querySelectorAll("g.slots[data-square]")];
    const count = {};
    for (const group of groups) count[group.dataset.square] = (count[group.dataset.square] || 0) + 1;
    for (const group of groups) {
      if (count[group.dataset.square] < 2) continue;  // a cut square: its own orientation
      const chosen = this.squareOrientation[group.dataset.square] || this.orientation;
      if (group.classList.contains(chosen)) group.removeAttribute("display");
      else group.setAttribute("display", "none");
    }
  }

  click(event) {
    const el = event.target.closest("[data-piece],[data-target]");
    if (!el || !this.element.contains(el)) return;
    this.onClick(el.dataset.piece || el.dataset.target);
  }

  rightClick(event) {
    const group = event.target.closest("g.slots[data-square]");
    if (!group) return;
    event.preventDefault();
    const square = group.dataset.square;
    const now = this.squareOrientation[square] || this.orientation;
    this.squareOrientation[square] = now === "h" ? "v" : "h";
    this.showOrientation();
  }
}

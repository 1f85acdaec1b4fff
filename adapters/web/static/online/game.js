// A game's page on the online site (docs/online.md, "The site"): the board (the server's
// SVG), the players and their clocks, the moves, live through the WebSocket
// /api/game/ID/live. On the player's turn a click on the board goes to /api/game/ID/clicks
// (as on the analysis board, the clicks of a turn are kept until they make a move), the
// move to /api/game/ID/move. A finished game can be replayed move by move.
"use strict";

const GAME_ID = Number((location.pathname.match(/\/game\/(\d+)/) || [])[1]);
let record = null;       // the last game record
let receivedAt = 0;      // performance.now() when it came: the clocks run from there
let pending = [];        // the clicks of this turn so far
let hint = "";
let viewPly = null;      // the move shown in a replay; null: the game as it stands
let board = null;        // BoardView
let boardRequest = 0;    // the last picture asked for (older answers are dropped)
let busy = false;        // a click or move is on its way
let socket = null;
let retry = 1000;
// For tests and the curious: the records and pictures shown, the clicks answered.
window.online = Object.assign(window.online || {}, { records: 0, record: null, boards: 0, boardPly: null, steps: 0 });

function mySide() {
  if (!me || !record || !record.players) return null;
  for (const [side, name] of Object.entries(record.players)) if (name === me.name) return side;
  return null;
}

function myTurn() {
  return Boolean(record) && record.status === "playing" && record.to_move === mySide() && viewPly === null;
}

// ------------------------------------------------------------------ the record

// A newer record than the one shown (answers of moves and live messages can cross).
function newer(r) {
  if (!record) return true;
  if (r.ply !== record.ply) return r.ply > record.ply;
  return !(record.status !== "playing" && r.status === "playing");
}

function applyRecord(r) {
  if (!r || !newer(r)) return;
  const old = record;
  record = r;
  receivedAt = performance.now();
  window.online.records += 1;
  window.online.record = r;
  if (!old || old.ply !== r.ply || old.status !== r.status) {
    pending = [];
    hint = "";
  }
  if (!old || old.ply !== r.ply) loadBoard();
  show();
  if (!old || (old.status === "playing" && r.status !== "playing")) loadRatings();
}

// Load the record; false when there is no such game.
async function loadRecord() {
  try {
    applyRecord(await api("GET", `/api/game/${GAME_ID}`));
  } catch (error) {
    showError("error", error.message);
    if (error.status === 404) {
      $("status").textContent = "No such game.";
      return false;
    }
  }
  return true;
}

async function loadBoard() {
  const ply = viewPly === null ? record.ply : viewPly;
  const request = ++boardRequest;
  let svg;
  try {
    const response = await fetch(`/api/game/${GAME_ID}/svg?ply=${ply}`, { credentials: "same-origin" });
    if (!response.ok) throw new Error(`the board cannot be loaded (${response.status})`);
    svg = await response.text();
  } catch (error) {
    if (request === boardRequest) showError("error", error.message);
    return;
  }
  if (request !== boardRequest) return;
  board.draw(svg, viewPly === null ? pending : []);
  window.online.boards += 1;
  window.online.boardPly = ply;
}

// ------------------------------------------------------------------ showing it

// The players' ratings in this game ({name: "1512"}), asked for on loading and at the end.
let ratings = {};

async function loadRatings() {
  const found = {};
  for (const name of Object.values(record.players || {})) {
    try {
      const player = await api("GET", `/api/players/${encodeURIComponent(name)}`);
      const rating = (player.ratings || {})[record.game];
      if (rating && typeof rating.rating === "number") found[name] = String(Math.round(rating.rating));
    } catch (error) { /* no rating shown */ }
  }
  ratings = found;
  showClocks();
}

function showClocks() {
  const box = $("clocks");
  if (!record) return;
  const running = record.status === "playing";
  const mine = mySide();
  box.replaceChildren(...sides(record.game).map((side) => {
    const active = running && record.to_move === side;
    const name = record.players ? record.players[side] : "";
    return el("div", { className: `clock${active ? " active" : ""}${side === mine ? " mine" : ""}`, "data-side": side },
      el("span", { className: "who" },
        el("span", { className: `dot ${sideLabel(record.game, side).toLowerCase()}`, "aria-hidden": "true" }),
        el("span", { className: "side" }, sideLabel(record.game, side)), " ",
        el("span", { className: "name" }, name || "?"),
        ratings[name] ? el("span", { className: "rating", title: "rating in this game" }, ` ${ratings[name]}`) : null,
        side === mine ? el("span", { className: "you" }, " (you)") : null),
      el("span", { className: "time", role: "timer", "aria-label": `${sideLabel(record.game, side)}'s clock` }, ""),
      active ? el("span", { className: "sr" }, " to move") : null);
  }));
  tickClocks();
}

function tickClocks() {
  if (!record || !record.clocks) return;
  const elapsed = performance.now() - receivedAt;
  for (const clock of $("clocks").querySelectorAll(".clock")) {
    const side = clock.dataset.side;
    let ms = record.clocks[side];
    if (ms === undefined) continue;
    if (record.status === "playing" && record.to_move === side) ms -= elapsed;
    clock.querySelector(".time").textContent = clockText(ms);
    clock.classList.toggle("low", ms < 10000 && record.status === "playing");
  }
}

function showMoves() {
  const list = $("moves");
  const focused = list.contains(document.activeElement);  // stepping with the keyboard
  list.replaceChildren();
  const finished = record.status !== "playing";
  const current = viewPly === null ? record.ply : viewPly;
  (record.moves || []).forEach((move, i) => {
    const seconds = typeof move.ms === "number" ? `${(move.ms / 1000).toFixed(1)} s` : "";
    const text = [el("span", { className: "move" }, move.move), " ", el("span", { className: "ms" }, seconds)];
    const item = finished
      ? el("li", {}, el("button", { type: "button", className: "step", title: `show the board after move ${i + 1}`, onclick: () => view(i + 1) }, ...text))
      : el("li", {}, ...text);
    if (i === current - 1) item.className = "current";
    list.append(item);
  });
  const item = list.querySelector(".current");
  if (item && !finished) list.scrollTop = list.scrollHeight;
  else if (item) item.scrollIntoView({ block: "nearest" });
  if (focused && item && item.firstElementChild) item.firstElementChild.focus();
}

function show() {
  if (!record) return;
  const title = `${gameTitle(record.game)} #${record.id}`;
  const names = sides(record.game).map((side) => (record.players || {})[side]).join(" – ");
  document.title = `${myTurn() ? "(your turn) " : ""}gtpgames: ${title}, ${names}`;
  $("title").textContent = title;
  const options = optionsText(record.options);
  $("game-info").textContent = [options, `time ${timeText(record.time)}`, record.rated ? "rated" : "casual"]
    .filter(Boolean).join(" · ");
  const side = mySide();
  let status;
  if (record.status !== "playing") {
    status = resultText(record) || "The game is over.";
  } else {
    const mover = `${sideLabel(record.game, record.to_move)} (${record.players[record.to_move]})`;
    status = myTurn() ? `Your turn: ${sideLabel(record.game, side)} to move` : `${mover} to move`;
  }
  setText("status", status);  // unchanged text is not announced again
  $("status").className = record.status !== "playing" ? "over" : myTurn() ? "turn" : "";
  setText("hint", myTurn() ? hint : "");
  const turn = myTurn();
  $("confirm").disabled = !(turn && pending.length);
  $("cancel").disabled = !(turn && pending.length);
  // a turn of several clicks: Trisq's two pieces, a Brax path
  $("confirm").hidden = $("cancel").hidden = !(side && record.status === "playing" && ["trisq", "brax"].includes(record.game));
  const specials = $("specials");
  const offered = turn ? record.specials || [] : [];
  if (specials.dataset.moves !== offered.join(" ")) {  // redrawn only when they change
    specials.dataset.moves = offered.join(" ");
    specials.replaceChildren(...offered.map((move) =>
      el("button", { type: "button", id: `special-${move}`, onclick: () => play(move) }, move)));
  }
  $("move-form").hidden = !turn;
  $("orientation").hidden = record.game !== "trisq";
  $("call-label").hidden = !(record.game === "brax" && side && record.status === "playing");
  $("resign-box").hidden = !(side && record.status === "playing");
  $("replay-controls").hidden = record.status === "playing";
  if (record.status !== "playing") {
    const at = viewPly === null ? record.ply : viewPly;
    setText("replay-pos", `move ${at} of ${record.ply}`);
    $("first").disabled = $("prev").disabled = at === 0;
    $("next").disabled = $("last").disabled = at === record.ply;
  }
  if (record.status !== "playing") $("connection").textContent = "";
  showClocks();
  showMoves();
}

// ------------------------------------------------------------------ playing

function whyNot() {
  if (!record) return "the game is loading";
  if (record.status !== "playing") return "the game is over";
  if (!me) return "sign in to play";
  if (!mySide()) return "you are watching this game";
  return "it is not your turn";
}

function onClick(token) {
  if (viewPly !== null) return;
  showError("error", "");
  if (!myTurn()) { showError("error", whyNot()); return; }
  step({ pending, click: token });
}

// Send a click (or a confirmation) to the server: it answers with a whole move, played at
// once, or with the clicks so far and a hint.
async function step(body) {
  if (busy) return;
  busy = true;
  let answer;
  try {
    answer = await api("POST", `/api/game/${GAME_ID}/clicks`, body);
  } catch (error) {
    showError("error", error.message);
    window.online.steps += 1;
    return;
  } finally {
    busy = false;
  }
  if (typeof answer.move === "string") {
    await play(answer.move);
  } else {
    pending = answer.pending || [];
    hint = answer.hint || "";
    board.unmark("pending");
    board.mark(pending, "pending");
    show();
  }
  window.online.steps += 1;
}

// Play a whole move (a token of the game's notation) at the current ply.
async function play(move) {
  if (busy) return;
  showError("error", "");
  if (record.game === "brax" && $("call").checked && !move.endsWith("!") && move !== "pass" && move !== "swap") move += "!";
  busy = true;
  try {
    const answer = await api("POST", `/api/game/${GAME_ID}/move`, { ply: record.ply, move });
    $("call").checked = false;
    applyRecord(answer);
  } catch (error) {
    showError("error", error.message);
  } finally {
    busy = false;
  }
}

// Confirm: the clicks so far are the whole move (Trisq's one piece, a Brax path that could
// go on), if the server finds them one.
function confirmClicks() {
  if (pending.length) step({ pending, confirm: true });
}

function cancelClicks() {
  pending = [];
  hint = "";
  board.unmark("pending");
  show();
}

async function resign() {
  $("resign-ask").hidden = true;
  $("resign").hidden = false;
  showError("error", "");
  try {
    applyRecord(await api("POST", `/api/game/${GAME_ID}/resign`, {}));
  } catch (error) {
    showError("error", error.message);
  }
}

// ------------------------------------------------------------------ replay

function view(ply) {
  if (!record || record.status === "playing") return;
  const to = Math.max(0, Math.min(ply, record.ply));
  viewPly = to === record.ply ? null : to;
  loadBoard();
  show();
}

function current() { return viewPly === null ? record.ply : viewPly; }

// ------------------------------------------------------------------ live

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/api/game/${GAME_ID}/live`);
  socket.onopen = () => { if (record && record.status === "playing") $("connection").textContent = "live"; retry = 1000; };
  socket.onmessage = (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch (error) { return; }
    if (message.type === "game") applyRecord(message.game);
    else if (message.type === "error") showError("error", message.message);
  };
  socket.onclose = () => {
    socket = null;
    if (record && record.status !== "playing") { $("connection").textContent = ""; return; }
    $("connection").textContent = "connection lost: reconnecting…";
    setTimeout(() => { loadRecord(); connect(); }, retry);
    retry = Math.min(retry * 2, 15000);
  };
}

async function start() {
  board = new BoardView($("board"), onClick);
  if (!GAME_ID) { showError("error", "no such game"); return; }
  try {
    await loadGames();
    await loadAccount();
  } catch (error) {
    showError("error", error.message);
  }
  showAccount(show);
  $("confirm").onclick = confirmClicks;
  $("cancel").onclick = cancelClicks;
  $("orientation").onclick = () => { $("orientation").textContent = `empty squares: ${board.toggleOrientation()}`; };
  $("resign").onclick = () => { $("resign").hidden = true; $("resign-ask").hidden = false; $("resign-no").focus(); };
  $("resign-no").onclick = () => { $("resign-ask").hidden = true; $("resign").hidden = false; $("resign").focus(); };
  $("resign-yes").onclick = resign;
  $("move-form").onsubmit = async (event) => {
    event.preventDefault();
    const text = $("move-text").value.trim();
    if (!text || !myTurn()) return;
    const before = record.ply;
    await play(text);
    if (record.ply > before) $("move-text").value = "";
  };
  $("first").onclick = () => view(0);
  $("prev").onclick = () => view(current() - 1);
  $("next").onclick = () => view(current() + 1);
  $("last").onclick = () => view(record.ply);
  document.addEventListener("keydown", (event) => {
    if (!record || record.status === "playing" || event.target.closest("input, textarea, select")) return;
    if (event.key === "ArrowLeft") view(current() - 1);
    else if (event.key === "ArrowRight") view(current() + 1);
    else if (event.key === "Home") view(0);
    else if (event.key === "End") view(record.ply);
  });
  setInterval(tickClocks, 200);
  if (await loadRecord()) connect();
}

start();

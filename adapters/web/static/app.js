// The gtpgames browser app: shows the server's board, sends clicks and actions over one
// WebSocket. The server (and its engine) decides every move; this page only displays.
"use strict";

const $ = (id) => document.getElementById(id);
let socket = null;
let games = [];
let state = null;

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws`);
  socket.onopen = () => { $("connection").textContent = "connected"; };
  socket.onclose = () => { $("connection").textContent = "disconnected: reload the page"; };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "state") showState(message);
    else if (message.type === "analysis") showAnalysis(message);
    else if (message.type === "error") $("error").textContent = message.message;
  };
}

// ------------------------------------------------------------------ setup form

function currentGame() { return games.find((g) => g.name === $("game").value); }

function showOptions() {
  const game = currentGame();
  const box = $("options");
  box.replaceChildren();
  for (const option of game.options) {
    const label = document.createElement("label");
    label.textContent = `${option.name} `;
    label.title = option.help;
    let input;
    if (option.kind === "int") {
      input = document.createElement("input");
      input.type = "number";
      input.min = option.min; input.max = option.max; input.value = option.default;
    } else {
      input = document.createElement("select");
      const values = option.kind === "bool" ? ["on", "off"] : option.choices;
      for (const value of values) input.add(new Option(value, value, false, value === option.default));
    }
    input.dataset.option = option.name;
    label.append(input);
    box.append(label);
  }
  const side = $("engine-side");
  side.replaceChildren();
  game.players.forEach((player, i) => side.add(new Option(player.label, player.token, false, i === 1)));
}

function newGame() {
  const options = {};
  for (const input of $("options").querySelectorAll("[data-option]")) options[input.dataset.option] = input.value;
  const message = { action: "new", game: $("game").value, options, mode: $("mode").value };
  if (message.mode === "engine") message.engine = $("engine-side").value;
  const strength = document.querySelector("input[name=strength]:checked").value;
  if (strength === "level") message.level = Number($("level").value);
  else message.time = Number($("time").value);
  send(message);
}

// ------------------------------------------------------------------ the board

function showState(s) {
  state = s;
  $("error").textContent = "";
  if (!s.game) return;
  $("board").innerHTML = s.svg;
  const board = $("board").querySelector("svg");
  if (board) board.addEventListener("click", onBoardClick);
  for (const token of s.pending) {
    for (const el of $("board").querySelectorAll(`[data-target="${token}"],[data-piece="${token}"]`)) el.classList.add("pending");
  }
  markTargets(s.targets);
  let status;
  if (s.result) {
    status = s.result.winner === "draw" ? `Draw: ${s.result.reason}` : `${cap(s.result.winner)} wins: ${s.result.reason}`;
  } else if (s.thinking) {
    status = `${s.to_move_label} to move: the engine is thinking…`;
  } else {
    status = `${s.to_move_label} to move` + (s.engine.includes(s.to_move) ? " (engine)" : "");
  }
  $("status").textContent = `${s.title}: ${status}`;
  $("status").className = s.result ? "over" : "";
  $("hint").textContent = s.hint;
  $("confirm").disabled = !(s.pending.length);
  $("cancel").disabled = !(s.pending.length);
  const specials = $("specials");
  specials.replaceChildren();
  for (const move of s.specials) {
    const button = document.createElement("button");
    button.textContent = move;
    button.id = `special-${move}`;
    button.onclick = () => send({ action: "move", move });
    specials.append(button);
  }
  $("call-label").hidden = s.game !== "brax" || s.mode === "replay";
  $("call").checked = s.call;
  $("legal").checked = s.legal;
  $("go").hidden = s.mode === "human" || s.mode === "replay";
  $("stop").hidden = s.mode === "human" || s.mode === "replay";
  $("undo").hidden = s.mode === "replay";
  const list = $("moves");
  list.replaceChildren();
  s.moves.forEach((move, i) => {
    const item = document.createElement("li");
    item.textContent = move;
    if (i === s.moves.length - 1) item.className = "current";
    list.append(item);
  });
  list.scrollTop = list.scrollHeight;
  $("movetext").value = s.moves.join(" ");
  $("position").value = s.position;
  $("replay-controls").hidden = !s.replay;
  if (s.replay) {
    $("replay-pos").textContent = `move ${s.moves.length} of ${s.replay.length}`;
    $("replay-result").textContent = s.replay.result;
  }
  if (!s.thinking) $("analysis").tBodies[0].replaceChildren();
}

function cap(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

function markTargets(targets) {
  const board = $("board").querySelector("svg");
  if (!board) return;
  for (const token of targets) {
    for (const el of board.querySelectorAll(`[data-target="${token}"],[data-piece="${token}"]`)) {
      el.classList.add("legal");
    }
  }
}

function onBoardClick(event) {
  const el = event.target.closest("[data-piece],[data-target]");
  if (!el || !state) return;
  const token = el.dataset.piece || el.dataset.target;
  $("error").textContent = "";
  send({ action: "click", target: token });
}

// ------------------------------------------------------------------ analysis

// The place on the board that stands for a move: a point, a Trisq turn's first slot, the
// end of a Brax path.
function moveTarget(move) {
  const first = move.replace("!", "").split("+")[0];
  const path = first.split("-");
  return path[path.length - 1];
}

function showAnalysis(message) {
  const body = $("analysis").tBodies[0];
  body.replaceChildren();
  for (const line of message.moves) {
    const row = body.insertRow();
    row.insertCell().textContent = line.move;
    row.insertCell().textContent = line.visits;
    row.insertCell().textContent = `${Math.round(line.winrate * 100)}%`;
    const pv = row.insertCell();
    pv.className = "pv";
    pv.textContent = (line.pv || []).join(" ");
  }
  const board = $("board").querySelector("svg");
  if (!board) return;
  for (const old of board.querySelectorAll(".analysis-mark")) old.remove();
  message.moves.slice(0, 5).forEach((line, i) => {
    const el = board.querySelector(`[data-target="${moveTarget(line.move)}"],[data-piece="${moveTarget(line.move)}"]`);
    if (!el) return;
    const box = el.getBBox();
    const ns = "http://www.w3.org/2000/svg";
    const group = document.createElementNS(ns, "g");
    group.setAttribute("class", i === 0 ? "analysis-mark best" : "analysis-mark");
    const r = Math.max(Math.min(box.width, box.height) * 0.45, 9);
    const circle = document.createElementNS(ns, "circle");
    circle.setAttribute("cx", box.x + box.width / 2);
    circle.setAttribute("cy", box.y + box.height / 2);
    circle.setAttribute("r", r);
    const text = document.createElementNS(ns, "text");
    text.setAttribute("x", box.x + box.width / 2);
    text.setAttribute("y", box.y + box.height / 2);
    text.setAttribute("font-size", r * 0.9);
    text.textContent = Math.round(line.winrate * 100);
    group.append(circle, text);
    board.append(group);
  });
}

// ------------------------------------------------------------------ wiring

function copy(id) {
  const input = $(id);
  input.select();
  if (navigator.clipboard) navigator.clipboard.writeText(input.value).catch(() => document.execCommand("copy"));
  else document.execCommand("copy");
}

async function start() {
  const response = await fetch("/api/games");
  const data = await response.json();
  games = data.games;
  for (const game of games) $("game").add(new Option(game.title, game.name));
  $("time").max = data.caps.max_think;
  $("game").onchange = showOptions;
  showOptions();
  $("mode").onchange = () => { $("engine-side-label").hidden = $("mode").value !== "engine"; };
  $("new").onclick = newGame;
  $("confirm").onclick = () => send({ action: "confirm" });
  $("cancel").onclick = () => send({ action: "cancel" });
  $("undo").onclick = () => send({ action: "undo" });
  $("go").onclick = () => send({ action: "go" });
  $("stop").onclick = () => send({ action: "stop" });
  $("call").onchange = () => send({ action: "call", on: $("call").checked });
  $("legal").onchange = () => send({ action: "legal", on: $("legal").checked });
  $("copy-moves").onclick = () => copy("movetext");
  $("copy-position").onclick = () => copy("position");
  $("setup-button").onclick = () => send({ action: "setup", text: $("setup-text").value });
  $("record-file").onchange = async () => {
    const file = $("record-file").files[0];
    if (file) $("record").value = await file.text();
  };
  $("load-record").onclick = () => send({
    action: "replay", record: $("record").value, index: Number($("record-index").value) - 1,
  });
  const step = (to) => send({ action: "step", to });
  $("first").onclick = () => step(0);
  $("prev").onclick = () => step(Math.max(state.moves.length - 1, 0));
  $("next").onclick = () => step(Math.min(state.moves.length + 1, state.replay.length));
  $("last").onclick = () => step(state.replay.length);
  connect();
}

start();

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
    else if (message.type === "error") {
      $("error").textContent = message.message;
      window.gtp.errors += 1;
      window.gtp.error = message.message;
    }
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

// For tests and the curious: the last state and how many have come.
window.gtp = { states: 0, state: null, errors: 0, error: null };

function showState(s) {
  state = s;
  window.gtp.states += 1;
  window.gtp.state = s;
  $("error").textContent = "";
  if (!s.game) return;
  if (s.game !== lastGame) { board.forget(); lastGame = s.game; }
  drawBoard(s.svg);
  let status;
  if (s.result) {
    const head = s.result.winner === "draw" ? "Draw" : `${s.result.winner} wins`;
    // the rules' reason often names the winner already ("Black wins: a chain joins...")
    const reason = s.result.reason.toLowerCase().startsWith(head.toLowerCase())
      ? s.result.reason.slice(head.length).replace(/^[:\s]+/, "") : s.result.reason;
    status = `${head}: ${reason}`;
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
  $("orientation").hidden = s.game !== "trisq" || s.mode === "replay";
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

let lastGame = null;
let board = null;  // the BoardView of #board (board.js)

function drawBoard(svg) {
  board.draw(svg, state.pending, state.targets);
}

function onBoardClick(token) {
  if (!state) return;
  $("error").textContent = "";
  send({ action: "click", target: token });
}

// ------------------------------------------------------------------ analysis

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
  if (message.svg && state) drawBoard(message.svg);
}

// ------------------------------------------------------------------ wiring

function copy(id) {
  const input = $(id);
  input.select();
  if (navigator.clipboard) navigator.clipboard.writeText(input.value).catch(() => document.execCommand("copy"));
  else document.execCommand("copy");
}

async function start() {
  board = new BoardView($("board"), onBoardClick);
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
  $("orientation").onclick = () => {
    $("orientation").textContent = `empty squares: ${board.toggleOrientation()}`;
  };
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

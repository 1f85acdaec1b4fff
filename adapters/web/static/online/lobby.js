// The lobby of the online site (docs/online.md, "The site"): the account, the open
// challenges, a form to open one, the games in progress and finished, and the bots. It
// polls /api/lobby every few seconds; when a challenge of this account is accepted, the
// page goes to the game.
"use strict";

const POLL_MS = 3000;
let lobby = null;            // the last /api/lobby answer
let waiting = new Set();     // ids of this account's open challenges, watched for acceptance
window.online = Object.assign(window.online || {}, { lobbies: 0, lobby: null });

// ------------------------------------------------------------------ the challenge form

function currentGame() { return GAMES[$("game").value]; }

function showOptions() {
  const game = currentGame();
  const box = $("options");
  box.replaceChildren();
  for (const option of game.options) {
    if (game.name === "brax" && option.name === "players") continue;  // two players online
    let input;
    if (option.kind === "int") {
      input = el("input", { type: "number", min: String(option.min), max: String(option.max), value: option.default, required: true });
    } else {
      input = el("select");
      const values = option.kind === "bool" ? ["on", "off"] : option.choices;
      for (const value of values) input.add(new Option(value, value, false, value === option.default));
    }
    input.dataset.option = option.name;
    box.append(el("label", {}, `${option.name} `, input, el("span", { className: "help" }, option.help)));
  }
  const color = $("color");
  color.replaceChildren(new Option("random", "random"));
  for (const player of game.players) color.add(new Option(player.label, player.token));
}

async function openChallenge(event) {
  event.preventDefault();
  showError("challenge-error", "");
  const options = {};
  for (const input of $("options").querySelectorAll("[data-option]")) options[input.dataset.option] = input.value;
  const challenge = {
    game: $("game").value, options, color: $("color").value,
    time: { initial: Math.round(Number($("minutes").value) * 60), increment: Number($("increment").value) },
    rated: $("rated").checked,
  };
  const opponent = $("opponent").value.trim();
  if (opponent) challenge.opponent = opponent;
  try {
    const made = await api("POST", "/api/challenges", challenge);
    waiting.add(made.id);
    $("challenge-status").textContent = opponent
      ? `Challenge sent to ${opponent}: waiting for an answer…` : "Challenge open: waiting for an opponent…";
  } catch (error) {
    showError("challenge-error", error.message);
    return;
  }
  refresh();
}

// ------------------------------------------------------------------ the lists

function playersCell(entry) {
  const players = entry.players || {};
  return el("td", {}, ...sides(entry.game).flatMap((side, i) => [
    i ? " – " : null,
    el("span", { className: me && players[side] === me.name ? "me" : null }, players[side] || "?"),
    el("span", { className: "side" }, ` (${sideLabel(entry.game, side)})`),
  ]));
}

function gameCell(entry) {
  const options = optionsText(entry.options, entry.game);
  return el("td", {}, gameTitle(entry.game), options ? el("span", { className: "options" }, ` ${options}`) : null);
}

function moveCount(entry) {
  if (typeof entry.ply === "number") return String(entry.ply);
  return Array.isArray(entry.moves) ? String(entry.moves.length) : "";
}

async function act(method, path, then) {
  showError("lobby-error", "");
  try {
    const answer = await api(method, path);
    if (then) then(answer);
  } catch (error) {
    showError("lobby-error", error.message);
  }
  refresh();
}

function showChallenges(list) {
  const body = $("challenges").tBodies[0];
  body.replaceChildren();
  for (const c of list) {
    const mine = me && c.from === me.name;
    const action = el("td", { className: "actions" });
    if (mine) {
      action.append(el("button", { type: "button", className: "withdraw", "data-challenge": String(c.id),
        onclick: () => act("DELETE", `/api/challenges/${c.id}`, () => waiting.delete(c.id)) }, "Withdraw"));
    } else if (me && (!c.opponent || c.opponent === me.name)) {
      action.append(el("button", { type: "button", className: "accept", "data-challenge": String(c.id),
        onclick: () => act("POST", `/api/challenges/${c.id}/accept`, (answer) => { location.href = `/game/${answer.game}`; }) }, "Accept"));
      if (c.opponent === me.name) {
        action.append(el("button", { type: "button", className: "decline", "data-challenge": String(c.id),
          onclick: () => act("POST", `/api/challenges/${c.id}/decline`) }, "Decline"));
      }
    }
    const plays = c.color === "random" || !c.color ? "random" : sideLabel(c.game, c.color);
    const forMe = me && c.opponent === me.name;
    body.append(el("tr", { className: mine ? "mine" : forMe ? "for-me" : null, "data-challenge": String(c.id) },
      gameCell(c), el("td", {}, c.from || "", el("span", { className: "side" }, ` (${plays})`)),
      el("td", {}, timeText(c.time)), el("td", {}, c.rated ? "rated" : "casual"),
      el("td", {}, forMe ? el("strong", {}, "you") : c.opponent || "anyone"), action));
  }
  $("challenges-empty").hidden = list.length > 0;
}

function showGames(id, list, finished) {
  const body = $(id).tBodies[0];
  body.replaceChildren();
  for (const g of list) {
    const mine = me && g.players && Object.values(g.players).includes(me.name);
    const yourTurn = mine && !finished && g.to_move && g.players[g.to_move] === me.name;
    const label = finished ? "Replay" : yourTurn ? "Play (your turn)" : mine ? "Play" : "Watch";
    const link = el("a", { href: `/game/${g.id}`, "aria-label": `${label} game ${g.id}` }, label);
    const third = finished ? el("td", { className: "result" }, resultText(g)) : el("td", {}, timeText(g.time));
    body.append(el("tr", { className: mine ? "mine" : null, "data-game": String(g.id) },
      gameCell(g), playersCell(g), third, el("td", {}, moveCount(g)), el("td", {}, link)));
  }
  $(`${id}-empty`).hidden = list.length > 0;
}

// A bot's rating in one game, {rating, rd, ...}: "1562 ±210".
function ratingText(rating) {
  if (!rating || typeof rating.rating !== "number") return "";
  return `${Math.round(rating.rating)}${typeof rating.rd === "number" ? ` ±${Math.round(rating.rd)}` : ""}`;
}

// Wins, losses and draws of a bot in one game: {wins, losses, draws} (in its rating).
function resultsText(results) {
  if (!results) return "";
  if (results.wins === undefined) return "";
  return `+${results.wins} −${results.losses || 0} =${results.draws || 0}`;
}

function showBots(list) {
  const body = $("bots").tBodies[0];
  body.replaceChildren();
  const names = $("bot-names");
  names.replaceChildren();
  for (const bot of list) {
    names.append(new Option(bot.online ? "online" : "offline", bot.name));
    const perGame = el("ul", { className: "per-game" });
    const ratings = bot.ratings || {};
    for (const [game, rating] of Object.entries(ratings)) {
      perGame.append(el("li", {}, el("span", { className: "game" }, gameTitle(game)), " ",
        ratingText(rating), " ", el("span", { className: "wld", title: "wins, losses, draws" }, resultsText(rating))));
    }
    if (!perGame.childElementCount) perGame.append(el("li", { className: "empty" }, "no game yet"));
    body.append(el("tr", { "data-bot": bot.name },
      el("td", {}, bot.name),
      el("td", { className: bot.online ? "online" : "offline" }, bot.online ? "● online" : "○ offline"),
      el("td", {}, perGame)));
  }
  $("bots-empty").hidden = list.length > 0;
}

function show() {
  $("signin-note").hidden = Boolean(me);
  $("challenge-form").hidden = !me;
  if (!lobby) return;
  showChallenges(lobby.challenges || []);
  showGames("playing", lobby.playing || [], false);
  showGames("finished", lobby.finished || [], true);
  showBots(lobby.bots || []);
}

// A challenge of this account that left the open list: if it was accepted, go to its game.
async function followChallenges() {
  const open = new Set((lobby.challenges || []).map((c) => c.id));
  for (const c of lobby.challenges || []) if (me && c.from === me.name) waiting.add(c.id);
  for (const id of [...waiting]) {
    if (open.has(id)) continue;
    waiting.delete(id);
    try {
      const c = await api("GET", `/api/challenges/${id}`);
      const game = c.game_id ?? (typeof c.game === "number" ? c.game : null);
      if (c.status === "accepted" && game !== null && game !== undefined) {
        location.href = `/game/${game}`;
        return;
      }
      $("challenge-status").textContent = `Your challenge was ${c.status}.`;
    } catch (error) { /* gone: nothing to follow */ }
  }
}

let timer = null;
let busy = false;
let stale = false;  // the error shown is a failed update, cleared by the next good one

async function refresh() {
  clearTimeout(timer);
  timer = setTimeout(refresh, waiting.size ? 1000 : POLL_MS);
  if (busy || document.hidden) return;
  busy = true;
  try {
    lobby = await api("GET", "/api/lobby");
    window.online.lobbies += 1;
    window.online.lobby = lobby;
    show();
    if (stale) { showError("lobby-error", ""); stale = false; }
    $("updated").textContent = `Updated ${new Date().toLocaleTimeString()}`;
    if (me) await followChallenges();
  } catch (error) {
    showError("lobby-error", `The lobby cannot be updated: ${error.message}`);
    stale = true;
  } finally {
    busy = false;
  }
}

function accountChanged() {
  waiting = new Set();
  $("challenge-status").textContent = "";
  show();
  refresh();
}

async function start() {
  try {
    const games = await loadGames();
    for (const game of games) $("game").add(new Option(game.title, game.name));
    $("game").onchange = showOptions;
    showOptions();
    await loadAccount();
  } catch (error) {
    showError("lobby-error", error.message);
  }
  showAccount(accountChanged);
  $("challenge-form").onsubmit = openChallenge;
  document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
  show();
  refresh();
}

start();

// Shared by the lobby and the game page of the online site (docs/online.md): calls to the
// JSON API, the account bar in the header, and the words for games, sides, time controls,
// clocks and results. Plain JavaScript, no build step; the server judges everything.
"use strict";

const $ = (id) => document.getElementById(id);

// For tests and the curious: how many errors have been shown, and the last one.
window.online = Object.assign(window.online || {}, { errors: 0, error: null });

class ApiError extends Error {}

// A JSON call; resolves to the answer's JSON, rejects with an ApiError holding the server's
// {"error": ...} message (or the status when there is none).
async function api(method, path, body) {
  const init = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError("the server cannot be reached");
  }
  let data = null;
  try { data = await response.json(); } catch (error) { data = null; }
  if (!response.ok) {
    const message = data && typeof data.error === "string" ? data.error : `${response.status} ${response.statusText}`;
    const error = new ApiError(message);
    error.status = response.status;
    throw error;
  }
  return data;
}

// Show an error in the element `id` (a role="alert" box); "" clears it.
function showError(id, message) {
  $(id).textContent = message;
  if (message) {
    window.online.errors += 1;
    window.online.error = message;
  }
}

// Set an element's text only when it changes (a live region then speaks only news).
function setText(id, text) {
  if ($(id).textContent !== text) $(id).textContent = text;
}

// Build an element: el("a", {href: "/"}, "text", child...).
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "className") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key in node && typeof value !== "string") node[key] = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

// ------------------------------------------------------------------ games and words

let GAMES = {};  // name -> {name, title, options, players: [{token, label}]} (/api/games)

async function loadGames() {
  const data = await api("GET", "/api/games");
  GAMES = {};
  for (const game of data.games) GAMES[game.name] = game;
  return data.games;
}

function gameTitle(name) { return GAMES[name] ? GAMES[name].title : name; }

// The name of a side ("b" or "w") in a game: Black, White, Red, Blue.
function sideLabel(game, side) {
  const info = GAMES[game];
  const player = info && info.players.find((p) => p.token === side);
  if (player) return player.label;
  return side === "b" ? "Black" : side === "w" ? "White" : side;
}

// The sides of a game in the order they move.
function sides(game) {
  const info = GAMES[game];
  return info ? info.players.map((p) => p.token) : ["b", "w"];
}

// "size 9, pie off": the options chosen; with `game`, only the size and the options that
// are not the game's default.
function optionsText(options, game) {
  const specs = GAMES[game] ? GAMES[game].options : [];
  return Object.entries(options || {})
    .filter(([key, value]) => {
      const spec = specs.find((o) => o.name === key);
      return key === "size" || !spec || String(spec.default) !== String(value);
    })
    .map(([key, value]) => `${key} ${value}`).join(", ");
}

function number(value) { return Number.isInteger(value) ? String(value) : value.toFixed(1).replace(/\.0$/, ""); }

// A time control {initial, increment} (seconds) as MIN+INC: "5+3".
function timeText(time) {
  if (!time) return "";
  return `${number(time.initial / 60)}+${number(time.increment)}`;
}

// Milliseconds left on a clock: "4:59", "1:02:03", "0:09.4" under ten seconds.
function clockText(ms) {
  const left = Math.max(0, ms);
  const tenths = Math.floor(left / 100);
  const seconds = Math.floor(tenths / 10);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, "0");
  const head = h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
  return seconds < 10 ? `${head}.${tenths % 10}` : head;
}

// A game record's result in words: "White (bob) wins on time".
function resultText(record) {
  const result = record.result;
  if (!result) return "";
  const why = {
    rules: result.text ? `: ${result.text}` : "",
    time: " on time",
    resign: " by resignation",
    forfeit: result.text ? ` by forfeit (${result.text})` : " by forfeit",
  }[result.reason] ?? (result.text ? `: ${result.text}` : "");
  if (result.winner === null || result.winner === undefined) return `Draw${why}`;
  const name = record.players ? record.players[result.winner] : "";
  return `${sideLabel(record.game, result.winner)}${name ? ` (${name})` : ""} wins${why}`;
}

// ------------------------------------------------------------------ the account bar

let me = null;  // {name, kind} of the account signed in, or null

async function loadAccount() {
  try {
    me = await api("GET", "/api/account");
  } catch (error) {
    if (error.status !== 401 && error.status !== 403) throw error;
    me = null;
  }
  return me;
}

// Fill the header's #account: who is signed in, with sign-out and API token buttons, or a
// sign-in form. `changed()` is called after signing in or out.
function showAccount(changed) {
  const box = $("account");
  box.replaceChildren();
  if (me) {
    const tokenBox = el("div", { id: "token-box", hidden: true, role: "status" });
    box.append(
      el("span", { id: "signed-in" }, "Signed in as ", el("strong", {}, me.name)),
      el("button", { id: "token", type: "button", title: "a new token for gtpgames challenge and scripts; the old one stops working",
        onclick: async () => {
          try {
            const data = await api("POST", "/api/account/token");
            const field = el("input", { id: "token-text", readonly: true, value: data.token, "aria-label": "your new API token" });
            tokenBox.replaceChildren(
              el("span", {}, "Your new API token, shown only this once (the old one no longer works): "),
              field,
              el("button", { type: "button", onclick: () => { field.select(); if (navigator.clipboard) navigator.clipboard.writeText(data.token).catch(() => {}); } }, "Copy"),
              el("button", { type: "button", onclick: () => { tokenBox.hidden = true; tokenBox.replaceChildren(); } }, "Hide"));
            tokenBox.hidden = false;
            field.select();
          } catch (error) { showError("account-error", error.message); }
        } }, "API token"),
      el("button", { id: "signout", type: "button", onclick: async () => {
        try { await api("POST", "/api/account/logout"); } catch (error) { showError("account-error", error.message); return; }
        me = null;
        showAccount(changed);
        changed();
      } }, "Sign out"),
      tokenBox,
      el("div", { id: "account-error", className: "error", role: "alert" }));
    return;
  }
  const name = el("input", { id: "name", name: "username", autocomplete: "username", required: true, minlength: "2", maxlength: "20", pattern: "[A-Za-z0-9_\\-]+", size: "12" });
  const password = el("input", { id: "password", name: "password", type: "password", autocomplete: "current-password", required: true, minlength: "8", maxlength: "200", size: "12" });
  const submit = async (path) => {
    showError("account-error", "");
    try {
      await api("POST", path, { name: name.value, password: password.value });
      me = await loadAccount();
    } catch (error) { showError("account-error", error.message); return; }
    showAccount(changed);
    changed();
  };
  const form = el("form", { id: "signin-form", onsubmit: (event) => { event.preventDefault(); submit("/api/account/login"); } },
    el("label", {}, "Name ", name),
    el("label", {}, "Password ", password),
    el("button", { id: "signin", type: "submit" }, "Sign in"),
    el("button", { id: "signup", type: "button", title: "open an account with this name and password",
      onclick: () => { if (form.reportValidity()) submit("/api/account/signup"); } }, "Sign up"));
  box.append(form, el("div", { id: "account-error", className: "error", role: "alert" }));
}

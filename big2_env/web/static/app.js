// The Big 2 table: talks to the JSON API of big2_env.web.server; no libraries, nothing fetched elsewhere.
"use strict";

const RANKS = "3456789TJQKA2";
const SUITS = ["\u2666", "\u2663", "\u2665", "\u2660"]; // diamonds, clubs, hearts, spades (ids: rank * 4 + suit)
const SVG = "http://www.w3.org/2000/svg";

const $ = (id) => document.getElementById(id);
let info = null;      // GET /api/info
let view = null;      // the game as the server shows it
let selected = new Set();
let timer = null;
let frames = null;    // a loaded replay's positions
let frameAt = 0;
let replayData = null;
let generation = 0;   // bumped by every new game or loaded replay: answers for an older one are dropped
let lastTrick = "";   // the trick last drawn, so that only a new play is animated

const POSITIONS = ["bottom", "left", "top", "right"];  // clockwise from the viewer: the order of play
const ARRIVALS = { bottom: ["0", "3rem"], left: ["-5rem", "0"], top: ["0", "-3rem"], right: ["5rem", "0"] };

function cardName(id) {
  const rank = RANKS[Math.floor(id / 4)];
  return (rank === "T" ? "10" : rank) + SUITS[id % 4];
}

function playName(cards) {
  return cards.length ? cards.map(cardName).join(" ") : "pass";
}

function cardSvg(id, faceUp) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 64 90");
  svg.classList.add("card");
  const rect = document.createElementNS(SVG, "rect");
  rect.setAttribute("x", "1"); rect.setAttribute("y", "1");
  rect.setAttribute("width", "62"); rect.setAttribute("height", "88"); rect.setAttribute("rx", "6");
  svg.appendChild(rect);
  if (!faceUp) {
    rect.classList.add("back");
    svg.setAttribute("aria-label", "a hidden card");
    return svg;
  }
  rect.classList.add("face");
  svg.dataset.card = String(id);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", cardName(id));
  const colour = id % 4 === 0 || id % 4 === 2 ? "red" : "black";
  const rank = RANKS[Math.floor(id / 4)];
  const corner = document.createElementNS(SVG, "text");
  corner.setAttribute("x", "6"); corner.setAttribute("y", "22"); corner.setAttribute("font-size", "20");
  corner.classList.add(colour);
  corner.textContent = rank === "T" ? "10" : rank;
  const suit = document.createElementNS(SVG, "text");
  suit.setAttribute("x", "32"); suit.setAttribute("y", "66"); suit.setAttribute("font-size", "34");
  suit.setAttribute("text-anchor", "middle");
  suit.classList.add(colour);
  suit.textContent = SUITS[id % 4];
  svg.appendChild(corner); svg.appendChild(suit);
  return svg;
}

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (method === "POST") {  // every POST is JSON (the server refuses others)
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body === undefined ? {} : body);
  }
  const response = await fetch(path, options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function delay() { return Number($("delay").value); }

function setStatus(text, isError) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("error", Boolean(isError));
}

// ------------------------------------------------------------------ setup
function seatPickers() {
  const box = $("seat-pickers");
  box.textContent = "";
  const watch = $("mode").value === "watch";
  const count = watch ? 4 : 3;
  for (let i = 0; i < count; i++) {
    const label = document.createElement("label");
    label.textContent = watch ? `Seat ${i} ` : `Opponent ${i + 1} `;
    const select = document.createElement("select");
    select.className = "agent";
    for (const agent of info.agents) {
      const option = document.createElement("option");
      option.value = agent; option.textContent = agent;
      select.appendChild(option);
    }
    select.value = info.agents.includes("smart") ? "smart" : info.agents[0];
    label.appendChild(select);
    box.appendChild(label);
  }
}

async function newGame(event) {
  if (event) event.preventDefault();
  clearTimeout(timer);
  const mine = ++generation;
  frames = null; replayData = null;
  $("replay-controls").hidden = true;
  const agents = [...document.querySelectorAll("#seat-pickers select.agent")].map((s) => s.value);
  const mode = $("mode").value;
  const request = { mode, rules: $("rules").value, insight: $("insight").checked,
    options: { lone_triples: !$("no-triples").checked, pass_locks: $("pass-locks").checked } };
  if (mode === "watch") request.seats = agents; else request.opponents = agents;
  if ($("seed").value !== "") request.seed = Number($("seed").value);
  let created;
  try {
    created = await api("POST", "/api/games", request);
  } catch (error) {
    setStatus(error.message, true);
    return;
  }
  if (mine !== generation) return;
  view = created;
  selected = new Set();
  lastTrick = "";
  $("welcome").hidden = true;
  $("table").hidden = false;
  render();
  schedule();
}

// ------------------------------------------------------------------ the game
function schedule() {
  clearTimeout(timer);
  if (!view || view.over || frames) return;
  if (view.mode === "play" && view.player === view.human) return;
  timer = setTimeout(advance, delay());
}

async function advance() {
  const mine = generation;
  let next;
  try {
    next = await api("POST", `/api/games/${view.id}/advance`);
  } catch (error) {
    if (mine === generation) setStatus(error.message, true);
    return;
  }
  if (mine !== generation) return;  // a new game or a replay came meanwhile
  view = next;
  render();
  schedule();
}

function legalPlays() { return view && view.legal ? view.legal : []; }

function sameCards(a, b) { return a.length === b.length && a.every((c, i) => c === b[i]); }

function selection() { return [...selected].sort((a, b) => a - b); }

function explain(cards) {
  // Why a selection is not a legal play now (it is never sent).
  if (!cards.length) return "select cards to play, or pass";
  const trick = view.trick;
  if (view.locked && view.locked.includes(view.player))
    return "you passed earlier in this trick: under pass locks you may only pass until it ends";
  if (cards.length === 3 && !view.rules.lone_triples) return "three of a kind is no play on its own under these rules";
  if (view.opening && !cards.includes(0)) return "the opening play must contain the 3\u2666";
  if (trick.length && cards.length !== trick.length) return `the trick is ${trick.length} card(s): play as many, or pass`;
  if (![1, 2, 3, 5].includes(cards.length) && !(cards.length === 4 && view.rules.four_card_plays))
    return `${cards.length} cards are no combination`;
  if (trick.length) return `${playName(cards)} does not beat ${playName(trick)} (or is no combination)`;
  return `${playName(cards)} is no combination under these rules`;
}

async function sendMove(cards) {
  const legal = legalPlays().some((p) => sameCards(p, cards));
  if (!legal) { $("selection-note").textContent = explain(cards); return; }
  try {
    view = await api("POST", `/api/games/${view.id}/move`, { cards });
  } catch (error) {
    setStatus(error.message, true);
    return;
  }
  selected = new Set();
  render();
  schedule();
}

function onCardClick(event) {
  const id = Number(event.currentTarget.dataset.card);
  if (selected.has(id)) selected.delete(id); else selected.add(id);
  render();
}

// ------------------------------------------------------------------ rendering
function seatName(seat, state) {
  const name = state.seats ? state.seats[seat] : `seat ${seat}`;
  return `${seat}: ${name}`;
}

function position(seat, state) {
  // where a seat sits around the table: you (or seat 0 when watching) at the bottom, the others clockwise
  const bottom = state.mode === "play" ? state.human : 0;
  return POSITIONS[(seat - bottom + 4) % 4];
}

function lastMoves(history) {
  // each seat's latest move, and whether it belongs to the trick on the table (older ones are dimmed)
  let lead = 0, passes = 0;
  history.forEach(([, cards], i) => {
    if (cards.length) { if (passes >= 3) lead = i; passes = 0; } else passes++;
  });
  if (passes >= 3) lead = history.length;  // everyone passed: the trick has been cleared
  const last = [null, null, null, null];
  history.forEach(([seat, cards], i) => { last[seat] = { cards, current: i >= lead }; });
  return last;
}

function playedSvg(card) {
  const svg = cardSvg(card, true);
  delete svg.dataset.card;  // a card already played, not one in a hand
  return svg;
}

function renderSeats(state, history) {
  const box = $("seats");
  box.textContent = "";
  const last = lastMoves(history || []);
  for (let seat = 0; seat < 4; seat++) {
    const panel = document.createElement("div");
    panel.className = `seat pos-${position(seat, state)}`;
    panel.id = `seat-${seat}`;
    if (state.player === seat) panel.classList.add("on-move");
    if (state.over && state.winner === seat) panel.classList.add("winner");
    if ((state.passed || []).includes(seat)) panel.classList.add("passed");
    const head = document.createElement("div");
    head.className = "seat-head";
    const name = document.createElement("span");
    name.className = "seat-name";
    name.textContent = seatName(seat, state);
    const left = document.createElement("span");
    left.className = "cards-left";
    left.textContent = `${state.cards_left[seat]} card(s) left`;
    head.append(name, left);
    const move = document.createElement("div");
    move.className = "last-play";
    if (last[seat]) {
      if (!last[seat].current) move.classList.add("old");
      move.append(last[seat].cards.length ? "played " : "passed");
      for (const card of last[seat].cards) move.appendChild(playedSvg(card));
    }
    const cards = document.createElement("div");
    cards.className = "cards";
    const hand = state.hands[seat];
    if (hand && !(state.mode === "play" && seat === state.human && !state.over)) {
      for (const card of hand) cards.appendChild(cardSvg(card, true));
    } else if (!hand) {
      cards.classList.add("backs");
      for (let i = 0; i < state.cards_left[seat]; i++) cards.appendChild(cardSvg(0, false));
    }
    panel.append(head, move, cards);
    box.appendChild(panel);
  }
}

function renderTrick(state) {
  const trick = $("trick");
  trick.textContent = "";
  for (const card of state.trick) trick.appendChild(cardSvg(card, true));
  const key = `${state.trick_player}:${state.trick.join(",")}`;
  trick.classList.remove("fresh");
  if (state.trick.length && key !== lastTrick) {  // a new play: slide it in from its seat
    const [x, y] = ARRIVALS[position(state.trick_player, state)];
    trick.style.setProperty("--from-x", x);
    trick.style.setProperty("--from-y", y);
    void trick.offsetWidth;  // restart the animation
    trick.classList.add("fresh");
  }
  lastTrick = key;
  $("trick-label").textContent = state.trick.length
    ? `trick by ${seatName(state.trick_player, state)}`
    : state.over ? "" : "no trick: the player on move leads";
}

function renderHistory(history, state) {
  const list = $("history");
  list.textContent = "";
  for (const [seat, cards] of history) {
    const item = document.createElement("li");
    item.textContent = `${seatName(seat, state)}: ${playName(cards)}`;
    list.appendChild(item);
  }
  list.scrollTop = list.scrollHeight;
}

function renderInsight(state) {
  const panel = $("insight-panel");
  const body = $("insight-body");
  body.textContent = "";
  const seen = state.insight;
  panel.hidden = !$("insight").checked || Boolean(frames);  // it keeps its place while a rule-based player moves
  if (!seen) {
    const note = document.createElement("p");
    note.className = "quiet";
    note.textContent = state.over ? "the game is over"
      : state.player === null || state.player === undefined ? ""
      : state.mode === "play" && state.player === state.human ? "your move: an agent's weighing shows while it is on move"
      : `${seatName(state.player, state)} plays by fixed rules: nothing to weigh`;
    body.appendChild(note);
    return;
  }
  if (seen.kind === "error") { body.textContent = `the agent failed to decide: ${seen.message}`; return; }
  const title = document.createElement("p");
  title.textContent = `${seatName(state.player, state)} weighs` + (seen.value === null ? "" : ` (value estimate ${seen.value.toFixed(3)})`);
  const table = document.createElement("table");
  const head = document.createElement("tr");
  for (const text of seen.kind === "search" ? ["play", "mean score", "deals"] : ["play", "probability", ""]) {
    const th = document.createElement("th"); th.textContent = text; head.appendChild(th);
  }
  table.appendChild(head);
  for (const row of seen.candidates.slice(0, 12)) {
    const tr = document.createElement("tr");
    if (sameCards(row.cards, seen.chosen)) tr.className = "chosen";
    const cells = seen.kind === "search"
      ? [playName(row.cards), row.mean.toFixed(2), String(row.visits)]
      : [playName(row.cards), (100 * row.p).toFixed(1) + "%", ""];
    for (const text of cells) { const td = document.createElement("td"); td.textContent = text; tr.appendChild(td); }
    if (seen.kind !== "search") {
      const bar = document.createElement("span"); bar.className = "bar";
      bar.style.width = `${Math.round(60 * row.p)}px`;
      tr.lastChild.appendChild(bar);
    }
    table.appendChild(tr);
  }
  body.append(title, table);
}

function renderResult(state) {
  $("result").hidden = !state.over;
  const box = $("scores");
  box.textContent = "";
  if (!state.over) return;
  const you = state.mode === "play" ? state.human : null;
  $("result-title").textContent = you === null ? `${seatName(state.winner, state)} wins`
    : state.winner === you ? "You win!" : `${seatName(state.winner, state)} wins`;
  const table = document.createElement("table");
  const head = document.createElement("tr");
  for (const text of ["player", "cards left", "score"]) { const th = document.createElement("th"); th.textContent = text; head.appendChild(th); }
  table.appendChild(head);
  const order = [0, 1, 2, 3].sort((a, b) => state.scores[b] - state.scores[a]);
  for (const seat of order) {
    const score = state.scores[seat];
    const row = document.createElement("tr");
    row.id = `score-${seat}`;
    row.dataset.score = String(score);
    if (seat === state.winner) row.className = "winner";
    const cells = [seatName(seat, state), String(state.cards_left[seat]), `${score > 0 ? "+" : ""}${score}`];
    cells.forEach((text, i) => {
      const td = document.createElement("td"); td.textContent = text; if (i === 2) td.className = "score"; row.appendChild(td);
    });
    table.appendChild(row);
  }
  box.appendChild(table);
  $("again").hidden = Boolean(frames);
}

function renderHand() {
  const hand = $("hand");
  hand.textContent = "";
  const mine = view.mode === "play" ? view.hands[view.human] || [] : [];
  const playable = new Set(legalPlays().flat());
  for (const card of mine) {
    const svg = cardSvg(card, true);
    if (selected.has(card)) svg.classList.add("selected");
    if (playable.has(card)) svg.classList.add("playable");
    svg.addEventListener("click", onCardClick);
    hand.appendChild(svg);
  }
  const myTurn = view.mode === "play" && view.player === view.human && !view.over;
  const cards = selection();
  const legal = legalPlays().some((p) => p.length && sameCards(p, cards));
  $("play").disabled = !myTurn || !cards.length;
  $("play").dataset.legal = legal ? "yes" : "no";
  $("pass").disabled = !myTurn || !legalPlays().some((p) => p.length === 0);
  $("selection-note").textContent = myTurn && cards.length && !legal ? explain(cards) : "";
  $("me").hidden = view.mode !== "play";
  const list = $("legal-list");
  list.textContent = "";
  if (!myTurn) return;
  const plays = legalPlays().filter((p) => p.length);
  const label = document.createElement("span");
  label.textContent = plays.length ? `${plays.length} legal play(s): ` : "nothing you hold beats the trick: pass";
  list.appendChild(label);
  for (const play of plays.slice(0, 40)) {  // a click selects it; Play then plays it
    const chip = document.createElement("button");
    chip.type = "button";
    chip.className = "legal-play";
    chip.dataset.cards = play.join(",");
    chip.textContent = playName(play);
    if (sameCards(play, cards)) chip.classList.add("chosen");
    chip.addEventListener("click", () => { selected = new Set(play); render(); });
    list.appendChild(chip);
  }
  if (plays.length > 40) list.appendChild(document.createTextNode(` and ${plays.length - 40} more`));
}

function render() {
  if (frames) return renderFrame();
  renderSeats(view, view.history);
  renderTrick(view);
  renderHistory(view.history, view);
  renderInsight(view);
  renderResult(view);
  renderHand();
  $("download").disabled = false;
  document.body.dataset.game = view.id;
  document.body.dataset.turn = String(view.turn);
  if (view.over) setStatus(`game over: ${seatName(view.winner, view)} wins`);
  else if (view.mode === "play" && view.player === view.human) setStatus("your move");
  else setStatus(`${seatName(view.player, view)} is thinking`);
}

// ------------------------------------------------------------------ replays
async function download() {
  const data = await api("GET", `/api/games/${view.id}/replay`);
  const blob = new Blob([JSON.stringify(data, null, 1)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `big2-replay-${data.seed}.json`;
  document.body.appendChild(link);
  link.click();
  link.remove();
}

async function loadReplay(event) {
  const file = event.target.files[0];
  if (!file) return;
  clearTimeout(timer);
  generation++;
  let data;
  try {
    data = JSON.parse(await file.text());
    const answer = await api("POST", "/api/replays", data);
    frames = answer.positions;
  } catch (error) {
    $("welcome").hidden = true;
    $("table").hidden = false;
    setStatus(`cannot load ${file.name}: ${error.message}`, true);
    return;
  }
  replayData = data;
  frameAt = 0;
  lastTrick = "";
  $("welcome").hidden = true;
  $("table").hidden = false;
  $("replay-controls").hidden = false;
  renderFrame();
}

function renderFrame() {
  const frame = frames[frameAt];
  const state = {
    mode: "watch", seats: replayData.seats, player: frame.winner === null ? frame.player : null, hands: frame.hands,
    cards_left: frame.hands.map((h) => h.length), trick: frame.trick, trick_player: frame.trick_player, passed: [],
    over: frame.winner !== null, winner: frame.winner, scores: frame.scores, insight: null,
  };
  renderSeats(state, replayData.moves.slice(0, frameAt));
  renderTrick(state);
  renderHistory(replayData.moves.slice(0, frameAt), state);
  renderInsight(state);
  renderResult(state);
  $("me").hidden = true;
  $("download").disabled = true;
  $("step-label").textContent = `move ${frameAt} of ${frames.length - 1}`;
  setStatus(frame.last ? `${seatName(frame.last[0], state)} played ${playName(frame.last[1])}` : "the deal");
}

function step(to) {
  if (!frames) return;
  frameAt = Math.max(0, Math.min(frames.length - 1, to));
  renderFrame();
}

// ------------------------------------------------------------------ start
async function start() {
  info = await api("GET", "/api/info");
  for (const preset of info.rules) {
    const option = document.createElement("option");
    option.value = preset; option.textContent = preset;
    $("rules").appendChild(option);
  }
  $("rules").value = info.default_rules;
  $("no-triples-label").title = info.options.lone_triples["false"];
  $("pass-locks-label").title = info.options.pass_locks["true"];
  seatPickers();
  $("insight").checked = $("mode").value === "watch";
  $("mode").addEventListener("change", () => { seatPickers(); $("insight").checked = $("mode").value === "watch"; });
  $("setup").addEventListener("submit", newGame);
  $("quick-start").addEventListener("click", () => newGame());
  $("again").addEventListener("click", () => newGame());
  $("delay").addEventListener("input", () => { $("delay-out").textContent = `${(delay() / 1000).toFixed(1)} s`; });
  $("insight").addEventListener("change", () => { if (view && !frames) renderInsight(view); });
  $("play").addEventListener("click", () => sendMove(selection()));
  $("pass").addEventListener("click", () => sendMove([]));
  $("clear").addEventListener("click", () => { selected = new Set(); render(); });
  $("download").addEventListener("click", download);
  $("replay-file").addEventListener("change", loadReplay);
  $("step-first").addEventListener("click", () => step(0));
  $("step-back").addEventListener("click", () => step(frameAt - 1));
  $("step-next").addEventListener("click", () => step(frameAt + 1));
  $("step-last").addEventListener("click", () => step(frames.length - 1));
  document.body.dataset.ready = "yes";
}

document.addEventListener("DOMContentLoaded", start);

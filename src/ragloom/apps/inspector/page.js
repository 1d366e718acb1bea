// ragloom inspect: the page's own script (no library, no network beyond this server).
// Every piece of index text goes in through textContent, never as HTML.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const FIELDS = ["q", "mode", "top_k", "min_score", "path"];

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value; else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

function svgEl(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

async function getJson(url) {
  const response = await fetch(url, {headers: {"Accept": "application/json"}});
  const payload = await response.json();
  if (!response.ok) throw new Error(`${response.status}: ${payload.error}`);
  return payload;
}

function fixed(value, digits) {
  return value === null || value === undefined ? "–" : Number(value).toFixed(digits);
}

// Horizontal bars: rows of [label, value] (and an optional second value drawn beside).
function barChart(title, rows, unit, secondName) {
  const width = 380, barHeight = 16, labelWidth = 120, top = 4;
  const max = Math.max(1, ...rows.map(r => Math.max(r[1], r[2] || 0)));
  const step = secondName ? barHeight * 2 + 4 : barHeight + 4;
  const svg = svgEl("svg", {width, height: top + rows.length * step + 4, class: "chart",
                            role: "img", "aria-label": title});
  rows.forEach(([label, value, second], i) => {
    const y = top + i * step;
    svg.append(svgEl("text", {x: 0, y: y + 12}, String(label).slice(0, 22)));
    const room = width - labelWidth - 100;
    svg.append(svgEl("rect", {class: "bar", x: labelWidth, y, height: barHeight - 2,
                              width: Math.max(1, room * value / max)}));
    svg.append(svgEl("text", {x: labelWidth + room * value / max + 4, y: y + 12}, `${value}${unit}`));
    if (secondName) {
      const w = room * (second || 0) / max;
      svg.append(svgEl("rect", {class: "bar second", x: labelWidth, y: y + barHeight, height: barHeight - 2,
                                width: Math.max(1, w)}));
      svg.append(svgEl("text", {x: labelWidth + w + 4, y: y + barHeight + 12}, `${second} ${secondName}`));
    }
  });
  return el("div", {class: "plot", "data-plot": title}, el("h3", {}, title), svg);
}

// Vertical bars of a histogram: edges are the bins' upper bounds.
function histogram(title, edges, counts) {
  const width = 360, height = 140, bottom = 18, left = 30;
  const max = Math.max(1, ...counts);
  const svg = svgEl("svg", {width, height, class: "chart", role: "img", "aria-label": title});
  const barWidth = (width - left) / Math.max(1, counts.length);
  counts.forEach((count, i) => {
    const h = (height - bottom - 6) * count / max;
    const bar = svgEl("rect", {class: "bar", x: left + i * barWidth, y: height - bottom - h,
                               width: Math.max(1, barWidth - 2), height: h});
    bar.append(svgEl("title", {}, `≤ ${edges[i]} chars: ${count} chunks`));
    svg.append(bar);
  });
  svg.append(svgEl("text", {x: 0, y: 12}, String(max)));
  svg.append(svgEl("text", {x: left, y: height - 4}, "0"));
  if (edges.length) svg.append(svgEl("text", {x: width - 70, y: height - 4}, `${edges[edges.length - 1]} chars`));
  return el("div", {class: "plot", "data-plot": title}, el("h3", {}, title), svg);
}

function showIndex(data) {
  const s = data.status;
  document.getElementById("summary").textContent =
    `${s.files} files · ${s.chunks} chunks · ${s.store} · ${s.embedding_provider}/${s.embedding_model}`;
  const facts = document.getElementById("index-facts");
  facts.replaceChildren();
  const skipped = s.files_skipped === null ? "not counted"
    : Object.values(s.files_skipped).reduce((a, b) => a + b, 0);
  const rows = [["files", s.files], ["chunks", s.chunks], ["store", s.store],
    ["server", s.server ? `${s.server} (${s.collection})` : null], ["index", s.index_dir || null],
    ["model", `${s.embedding_provider}/${s.embedding_model} (${s.dimension}-d)`],
    ["last indexed", s.last_indexed || "never"],
    ["files pending", s.files_pending === null ? "not counted" : s.files_pending],
    ["files skipped", skipped]];
  for (const [name, value] of rows) {
    if (value !== null) facts.append(el("dt", {}, name), el("dd", {id: `fact-${name.replace(/ /g, "-")}`}, String(value)));
  }
  const charts = document.getElementById("index-charts");
  charts.replaceChildren(
    barChart("Languages (files, chunks)", Object.entries(data.languages).map(([k, v]) => [k, v.files, v.chunks]), " files", "chunks"),
    barChart("Source types (files, chunks)", Object.entries(data.source_types).map(([k, v]) => [k, v.files, v.chunks]), " files", "chunks"),
    histogram(`Chunk sizes (${data.sizes.total} chunks)`, data.sizes.edges, data.sizes.counts));
  if (s.files_skipped && Object.keys(s.files_skipped).length) {
    charts.append(barChart("Skipped files by reason", Object.entries(s.files_skipped), ""));
  }
}

function showTimings(response) {
  const box = document.getElementById("timings");
  const stages = Object.entries(response.timings_ms);
  const total = stages.reduce((sum, [, ms]) => sum + ms, 0);
  box.replaceChildren(barChart(`Stage timings (${total.toFixed(1)} ms in all)`,
                               stages.map(([stage, ms]) => [stage, Number(ms.toFixed(2))]), " ms"));
  const counts = Object.entries(response.candidates).map(([k, v]) => `${k}: ${v}`).join(" · ");
  box.append(el("p", {class: "muted", id: "candidates"}, `candidates: ${counts || "none"}`));
}

function badge(label, value, cls) {
  return el("span", {class: "badge" + (cls ? " " + cls : "")}, `${label} ${value}`);
}

function lines(meta) {
  if (meta.page !== undefined) return meta.page_end && meta.page_end !== meta.page ? ` pages ${meta.page}-${meta.page_end}` : ` page ${meta.page}`;
  return meta.start_line !== undefined ? `:${meta.start_line}-${meta.end_line}` : "";
}

function showResult(result, rank, mode) {
  const meta = result.metadata;
  const badges = el("div", {class: "badges"},
    badge("cosine", fixed(result.score, 4)),
    badge(mode === "hybrid" ? "fused" : mode === "sparse" ? "bm25" : "rank score", fixed(result.rank_score, 4), "fused"));
  for (const name of ["dense", "sparse", "name"]) {
    const hit = result.retrievers[name];
    if (hit) badges.append(el("span", {class: "badge retriever", "data-retriever": name},
                              `${name === "sparse" ? "BM25" : name} rank ${hit.rank} (${fixed(hit.score, 3)})`));
    else if (name !== "name") badges.append(badge(name === "sparse" ? "BM25" : name, "not found", "missing"));
  }
  if (meta.symbol) badges.append(badge("symbol", meta.symbol));
  if (meta.heading_path) badges.append(badge("heading", meta.heading_path));
  badges.append(badge("source", meta.source_type || "–"), badge("language", meta.language || "–"));
  const view = el("details", {class: "in-file"}, el("summary", {}, "in its file"));
  view.addEventListener("toggle", () => { if (view.open && !view.dataset.loaded) loadFile(view, result); });
  const item = el("li", {class: "result", "data-id": result.id},
    el("div", {class: "where"}, `${result.path || result.id}${lines(meta)}`), badges, view);
  if (rank === 1) view.open = true;
  return item;
}

async function loadFile(view, result) {
  view.dataset.loaded = "yes";
  try {
    const file = await getJson(`/api/file?path=${encodeURIComponent(result.path)}&id=${encodeURIComponent(result.id)}`);
    const box = fileView(file);
    view.append(box);
    const selected = box.querySelector(".boundary.selected");
    if (selected) box.scrollTop = Math.max(0, selected.offsetTop - 60);  // the chunk in sight
  } catch (error) {
    view.append(el("p", {class: "error"}, String(error.message)));
  }
}

// The file around the chunk: from the chunk before it to the chunk after it, each chunk's
// first and last line marked, the chunk itself highlighted.
function fileView(file) {
  const text = file.text.replace(/\n$/, "").split("\n");
  const chunks = file.chunks.filter(c => c.start_line !== undefined);
  const at = chunks.findIndex(c => c.id === file.chunks[file.selected].id);
  const shown = chunks.slice(Math.max(0, at - 1), at + 2);
  const box = el("div", {class: "file", "data-path": file.path});
  if (at < 0 || !shown.length) {
    box.append(el("div", {class: "boundary"}, "this chunk has no line numbers (a paged document)"));
    return box;
  }
  const first = Math.max(1, shown[0].start_line - 2), last = Math.min(text.length, shown[shown.length - 1].end_line + 2);
  for (let no = first; no <= last; no++) {
    for (const chunk of shown.filter(c => c.start_line === no)) {
      const role = chunk.id === file.chunks[file.selected].id ? "selected" : "neighbour";
      const name = chunk.symbol || chunk.heading_path || chunk.kind || "";
      box.append(el("div", {class: `boundary start ${role}`, "data-chunk": chunk.id, "data-role": role,
                            "data-lines": `${chunk.start_line}-${chunk.end_line}`},
        `▼ ${role === "selected" ? "this chunk" : "neighbour"} #${chunk.chunk_index} lines ${chunk.start_line}-${chunk.end_line}${name ? " · " + name : ""}`));
    }
    const owner = shown.find(c => c.start_line <= no && no <= c.end_line);
    const role = owner ? (owner.id === file.chunks[file.selected].id ? "in-selected" : "in-neighbour") : "";
    box.append(el("div", {class: `line ${role}`, "data-line": no}, el("span", {class: "no"}, String(no)), text[no - 1] ?? ""));
    for (const chunk of shown.filter(c => c.end_line === no)) {
      box.append(el("div", {class: "boundary end", "data-chunk-end": chunk.id}, `▲ end of #${chunk.chunk_index}`));
    }
  }
  return box;
}

function queryFromForm() {
  const params = new URLSearchParams();
  for (const name of FIELDS) {
    const value = document.getElementById(name).value.trim();
    if (value) params.set(name, value);
  }
  for (const line of document.getElementById("where").value.split("\n")) {
    if (line.trim()) params.append("where", line.trim());
  }
  if (!document.getElementById("gate").checked) params.set("gate", "off");
  return params;
}

async function search(params) {
  const status = document.getElementById("search-status");
  const list = document.getElementById("results");
  status.textContent = "searching…";
  status.className = "muted";
  list.replaceChildren();
  try {
    const started = performance.now();
    const response = await getJson(`/api/search?${params}`);
    const ms = performance.now() - started;
    showTimings(response);
    response.results.forEach((result, i) => list.append(showResult(result, i + 1, response.mode)));
    const gate = response.relevance_gate === null ? "none" : fixed(response.relevance_gate, 3);
    status.textContent = `${response.results.length} results · mode ${response.mode} · best cosine ` +
      `${fixed(response.best_score, 4)} · relevance gate ${gate} (${params.get("gate") === "off" ? "off" : "on"})` +
      ` · ${ms.toFixed(0)} ms round trip`;
    status.id = "search-status";
    document.body.dataset.searched = "yes";
  } catch (error) {
    status.textContent = error.message;
    status.className = "error";
  }
}

function fillForm(params) {
  for (const name of FIELDS) {
    if (params.has(name)) document.getElementById(name).value = params.get(name);
  }
  document.getElementById("where").value = params.getAll("where").join("\n");
  document.getElementById("gate").checked = params.get("gate") !== "off";
}

document.addEventListener("DOMContentLoaded", () => {
  const start = new URLSearchParams(location.search);
  fillForm(start);
  document.getElementById("search-form").addEventListener("submit", event => {
    event.preventDefault();
    const params = queryFromForm();
    history.replaceState(null, "", `/?${params}`);
    search(params);
  });
  getJson("/api/index").then(showIndex).catch(error => {
    const summary = document.getElementById("summary");
    summary.textContent = error.message;
    summary.className = "error";
  });
  if (start.get("q")) search(queryFromForm());
});

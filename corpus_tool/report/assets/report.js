"use strict";
// Every value from the documents goes into the page as text (textContent), never as markup.
(function () {
  const HEAD = JSON.parse(document.getElementById("head-data").textContent);
  const LABELS = HEAD.labels;
  let details = null;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else node.setAttribute(k, v);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }
  const json = (value) => JSON.stringify(value, null, 2);
  const pre = (value) => el("pre", { text: typeof value === "string" ? value : json(value) });

  async function loadDetails() {
    if (details) return details;
    const text = document.getElementById("detail-data").textContent.trim();
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    details = JSON.parse(await new Response(stream).text());
    return details;
  }

  function meta() {
    const list = document.getElementById("meta");
    for (const [name, value] of HEAD.meta) {
      list.append(el("div", {}, el("dt", { text: name }), el("dd", { text: String(value) })));
    }
  }

  const TILES = {
    run: ["total", "passed", "failed", "error", "waived", "known_unknown", "skipped"],
    gate: ["blocked", "regression", "new_failure", "still_failing", "newly_passing", "passing",
      "not_counted", "waived", "known_unknown"],
    diff: ["total"],
  };
  const LIVE_KINDS = ["improved", "unchanged", "insufficient_data", "unreliable_baseline", "not_comparable"];

  function summary() {
    const box = document.getElementById("summary");
    if (HEAD.verdict) {
      const cls = HEAD.verdict === "blocked" ? "tile v v-failed" : "tile v v-passed";
      box.append(el("div", { class: cls, id: "gate-verdict" }, el("b", { text: HEAD.verdict }), "gate"));
    }
    const names = [...TILES[HEAD.kind]];
    if (HEAD.summary.flaky !== undefined) names.splice(names.indexOf("waived") + 1, 0, "flaky");
    if (HEAD.summary.stale !== undefined) names.push("stale");
    // a live gate's own verdicts, shown when the run has any (a recorded gate has none)
    if (HEAD.kind === "gate") {
      for (const name of LIVE_KINDS) if (HEAD.summary[name] !== undefined) names.push(name);
    }
    for (const name of names) {
      const count = HEAD.summary[name] || 0;
      box.append(el("div", { class: "tile", "data-count": name }, el("b", { text: String(count) }), name.replaceAll("_", " ")));
    }
    if (HEAD.live) {
      const live = HEAD.live;
      for (const [name, value, label] of [["model_calls", live.model_calls, "model calls"],
        ["input_tokens", live.input_tokens, "input tokens"], ["output_tokens", live.output_tokens, "output tokens"],
        ["model_ms", `${(live.model_ms / 1000).toFixed(2)} s`, "in the model"],
        ["skipped_budget", live.skipped_budget, "skipped for budget"]]) {
        box.append(el("div", { class: "tile live", "data-live": name }, el("b", { text: String(value) }), label));
      }
    }
    const notes = document.getElementById("notes");
    if (HEAD.waivers.length) notes.append(waiverTable(HEAD.waivers, "waivers"));
    if (HEAD.findings.length) {
      notes.append(el("h3", { text: `${HEAD.findings.length} validation finding(s)` }));
      const list = el("ul");
      for (const f of HEAD.findings) list.append(el("li", { text: `${f.path}${f.line ? ":" + f.line : ""}: ${f.rule}: ${f.message}` }));
      notes.append(list);
    }
    if (HEAD.removed && HEAD.removed.length) notes.append(el("p", { text: "removed by this change: " + HEAD.removed.join(", ") }));
  }

  function waiverTable(waivers, title) {
    const table = el("table", { class: "waivers" },
      el("thead", {}, el("tr", {}, ...["waiver", "case", "checks", "owner", "reason", "expires", "state"].map((h) => el("th", { text: h })))));
    const body = el("tbody");
    for (const w of waivers) {
      body.append(el("tr", {}, ...[w.id, w.case || "", (w.checks || []).join(", "), w.owner || "",
        w.reason || w.problem || "", w.expires || "", w.state || ""].map((v) => el("td", { text: String(v) }))));
    }
    table.append(body);
    return el("div", {}, el("h3", { text: title }), table);
  }

  function options(id, values) {
    const select = document.getElementById(id);
    for (const value of [...new Set(values)].filter(Boolean).sort()) select.append(el("option", { value: value, text: value }));
    return select;
  }

  function list() {
    const body = document.querySelector("#cases tbody");
    for (const c of HEAD.cases) {
      const verdict = el("td", { class: `v v-${c.verdict}`, text: c.verdict });
      if (c.gate) verdict.append(el("div", { class: c.blocks ? "blocks" : "", text: c.gate + (c.blocks ? " (blocks)" : "") }));
      const why = el("td", { text: c.why });
      if (c.live) {
        if (c.live.attempts) verdict.append(el("div", { class: "passes", text: `passed ${c.live.passes} of ${c.live.k}` }));
        why.append(el("div", { class: "live muted", text: liveLine(c.live) }));
      }
      const row = el("tr", { "data-case": c.id, "data-verdict": c.verdict, "data-tier": c.tier, "data-gate": c.gate || "" },
        el("td", { text: c.id }), verdict, el("td", { text: c.tier }), why);
      row.addEventListener("click", () => { location.hash = "case=" + encodeURIComponent(c.id); });
      body.append(row);
    }
    options("verdict", HEAD.cases.map((c) => c.verdict));
    options("tier", HEAD.cases.map((c) => c.tier));
    if (HEAD.kind === "gate") options("gatekind", HEAD.cases.map((c) => c.gate)).hidden = false;
    for (const id of ["search", "verdict", "tier", "gatekind"]) document.getElementById(id).addEventListener("input", filter);
    filter();
  }

  function liveLine(live) {
    const parts = [`${live.input_tokens} input and ${live.output_tokens} output tokens`];
    if (live.unmatched) parts.push(`${live.unmatched} unmatched tool call(s)`);
    if (live.provider_errors) parts.push(`${live.provider_errors} provider error(s)`);
    return "live: " + parts.join(", ");
  }

  function liveView(entry, live) {
    const box = el("div", { class: "box", id: "live" }, el("h3", { text: "live model" }));
    const figures = entry.live || {};
    if (figures.attempts) box.append(el("p", { class: "passes", text: `passed ${figures.passes} of ${figures.attempts} attempt(s) (k = ${figures.k})` }));
    box.append(el("p", { text: `${figures.input_tokens} input and ${figures.output_tokens} output tokens, ${live.model_ms} ms in the model` + (live.live_from ? `; live from seq ${live.live_from}` : "") }));
    if (live.calls.length) {
      const table = el("table", { class: "calls" },
        el("thead", {}, el("tr", {}, ...["attempt", "step", "model", "input", "output", "ms", "provider errors"].map((h) => el("th", { text: h })))));
      const body = el("tbody");
      for (const c of live.calls) {
        body.append(el("tr", { class: c.failed ? "bad" : "" }, ...[c.attempt, c.step, c.model || "", c.input_tokens, c.output_tokens, c.duration_ms,
          c.provider_errors.map((e) => `${e.status ?? "no status"}: ${e.message}`).join("; ")].map((v) => el("td", { text: String(v) }))));
      }
      table.append(body);
      box.append(table);
    }
    if (live.unmatched.length) {
      box.append(el("h4", { text: `${live.unmatched.length} unmatched tool call(s): no recorded call answered` }));
      const ul = el("ul", { class: "unmatched" });
      for (const u of live.unmatched) ul.append(el("li", {}, el("b", { text: `seq ${u.seq} ${u.tool}` }), " ", el("code", { text: JSON.stringify(u.arguments) })));
      box.append(ul);
    }
    if (live.provider_errors.length) {
      box.append(el("h4", { text: `${live.provider_errors.length} provider error(s)` }));
      const ul = el("ul", { class: "provider-errors" });
      for (const e of live.provider_errors) ul.append(el("li", { text: `${e.status ?? "no status"}: ${e.message}` }));
      box.append(ul);
    }
    return box;
  }

  function filter() {
    const text = document.getElementById("search").value.trim().toLowerCase();
    const verdict = document.getElementById("verdict").value;
    const tier = document.getElementById("tier").value;
    const kind = document.getElementById("gatekind").value;
    let shown = 0;
    for (const row of document.querySelectorAll("#cases tbody tr")) {
      const ok = (!text || row.dataset.case.toLowerCase().includes(text)) &&
        (!verdict || row.dataset.verdict === verdict) && (!tier || row.dataset.tier === tier) &&
        (!kind || row.dataset.gate === kind);
      row.hidden = !ok;
      if (ok) shown += 1;
    }
    document.getElementById("shown").textContent = `${shown} of ${HEAD.cases.length} cases`;
  }

  function eventView(e) {
    if (!e) return el("div", { class: "ev muted", text: "(no step)" });
    const box = el("div", { class: "ev" });
    const attempted = e.extra && e.extra.attempted ? " (attempted: the replay stopped here)" : "";
    const title = { model_call: `model call ${e.model || ""}`, tool_call: `tool call ${e.tool}` }[e.type] || e.type.replace("_", " ");
    box.append(el("div", {}, el("span", { class: "t", text: `#${e.seq} ${title}${attempted}` })));
    if (e.type === "model_call") {
      const messages = (e.request && e.request.messages) || [];
      const fold = el("details", {}, el("summary", { text: `request: ${messages.length} message(s)` }));
      for (const m of messages) fold.append(el("div", {}, el("span", { class: "badge", text: m.role }), pre(m.content === undefined ? m : m.content)));
      box.append(fold);
      const response = e.response || {};
      if (response.content) box.append(el("div", { text: "answer:" }), pre(response.content));
      for (const call of response.tool_calls || []) box.append(el("div", { text: `asks ${call.name}` }), pre(call.arguments));
    } else if (e.type === "tool_call") {
      box.append(el("div", { text: "arguments:" }), pre(e.arguments));
      if ("result" in e) box.append(el("div", { text: "result:" }), pre(e.result));
      if (e.error) box.append(el("div", { class: "check-failed", text: "error:" }), pre(e.error));
      if (e.egress) box.append(el("div", { text: `egress: ${e.egress}` }));
    } else if (e.type === "retry") {
      box.append(el("div", { text: `retry of #${e.of}, attempt ${e.attempt}` }));
    } else {
      const rest = Object.fromEntries(Object.entries(e).filter(([k]) => !["seq", "type", "timestamp"].includes(k)));
      box.append(pre(rest));
    }
    return box;
  }

  function diffTable(diff) {
    const table = el("table", { class: "diff" });
    for (const d of diff) {
      table.append(el("tr", {}, el("td", { text: d.path }),
        el("td", { text: "a" in d ? JSON.stringify(d.a) : "(absent)" }), el("td", { text: "b" in d ? JSON.stringify(d.b) : "(absent)" })));
    }
    return table;
  }

  function timeline(detail) {
    const two = detail.rows.some((r) => r.change !== "run");
    const table = el("table", { class: "timeline" });
    const head = two ? [el("th", { text: "step" }), el("th", { text: LABELS[0] }), el("th", { text: LABELS[1] })]
      : [el("th", { text: "step" }), el("th", { text: LABELS[1] })];
    table.append(el("thead", {}, el("tr", {}, ...head)));
    const body = el("tbody");
    for (const r of detail.rows) {
      const cls = [r.change, r.divergence || r.failing_check ? "divergent" : ""].join(" ").trim();
      const number = el("td", { class: "n", text: String(r.n) });
      if (r.divergence) number.append(el("div", { class: "badge div", text: "divergence" }));
      else if (r.failing_check) number.append(el("div", { class: "badge div", text: "first failing check: " + r.failing_check }));
      else if (r.change !== "same" && r.change !== "run") number.append(el("div", { class: "badge", text: r.change }));
      const row = el("tr", { class: cls, "data-step": String(r.n) }, number);
      if (!two) row.append(el("td", {}, eventView(r.b)));
      else if (r.change === "same") row.append(el("td", { colspan: "2" }, el("span", { class: "badge", text: "same on both" }), eventView(r.b)));
      else {
        const right = el("td", {}, eventView(r.b));
        if (r.diff) right.append(diffTable(r.diff));
        row.append(el("td", {}, eventView(r.a)), right);
      }
      body.append(row);
    }
    const end = detail.ending;
    const endRow = el("tr", { class: end.changed ? "changed" : "" }, el("td", { class: "n", text: "end" }));
    if (two && end.a) endRow.append(el("td", {}, pre(end.a)), el("td", {}, pre(end.b)));
    else endRow.append(el("td", { colspan: two ? "2" : "1" }, pre(end.b)));
    body.append(endRow);
    table.append(body);
    return table;
  }

  function checks(list) {
    const ul = el("ul", { class: "checks" });
    const order = { failed: 0, not_reached: 1, passed: 2 };
    for (const c of [...list].sort((a, b) => (order[a.outcome] ?? 3) - (order[b.outcome] ?? 3))) {
      ul.append(el("li", { class: `check-${c.outcome}` }, el("b", { text: `${c.name} ${c.outcome.replace("_", " ")}` }), ": ", el("span", { class: "msg", text: c.message })));
    }
    return ul;
  }

  async function open(id) {
    const entry = HEAD.cases.find((c) => c.id === id);
    const pane = document.getElementById("case");
    if (!entry) { pane.hidden = true; return; }
    for (const row of document.querySelectorAll("#cases tr.open")) row.classList.remove("open");
    const listed = [...document.querySelectorAll("#cases tbody tr")].find((r) => r.dataset.case === id);
    if (listed) listed.classList.add("open");
    const detail = (await loadDetails())[id];
    pane.replaceChildren(el("h2", {}, el("span", { text: entry.id + " " }), el("span", { class: `v v-${entry.verdict}`, text: entry.verdict })));
    if (entry.why) pane.append(el("p", { text: entry.why }));
    if (detail.base_verdict !== undefined) pane.append(el("p", { text: `${LABELS[0]}: ${detail.base_verdict || "no verdict"}; ${LABELS[1]}: ${entry.verdict}` + (entry.gate ? `; ${entry.gate}${entry.blocks ? ", blocks the merge" : ""}` : "") }));
    const waivers = HEAD.waivers.filter((w) => w.case === id);
    if (waivers.length) pane.append(waiverTable(waivers, "waivers of this case"));
    const d = detail.divergence;
    if (d) {
      const box = el("div", { class: "box bad", id: "divergence" }, el("b", { text: `divergence ${d.kind} at step ${d.step}` }), el("div", { class: "msg", text: d.message }));
      if (d.diff && d.diff.length) box.append(diffTable(d.diff.map((x) => Object.assign({ path: x.path }, "expected" in x ? { a: x.expected } : {}, "actual" in x ? { b: x.actual } : {}))));
      pane.append(box);
    }
    if (detail.error) pane.append(el("div", { class: "box bad" }, el("b", { text: "error: " }), el("span", { class: "msg", text: detail.error })));
    if (detail.live) pane.append(liveView(entry, detail.live));
    if (detail.checks.length) pane.append(el("h3", { text: "checks" }), checks(detail.checks));
    if (detail.rows) {
      pane.append(el("h3", { text: detail.rows.some((r) => r.change !== "run") ? `timeline: ${LABELS[0]} and ${LABELS[1]}, steps aligned` : `timeline: ${LABELS[1]}` }), timeline(detail));
    } else pane.append(el("p", { text: "the case did not run: no timeline" }));
    if (detail.output) pane.append(el("h3", { text: "captured output of the agent" }), pre(detail.output));
    pane.hidden = false;
    const marked = pane.querySelector("tr.divergent");
    if (marked) marked.scrollIntoView({ block: "center" });
  }

  function route() {
    const match = /^#case=(.*)$/.exec(location.hash);
    if (match) open(decodeURIComponent(match[1])).catch((err) => console.error(err));
  }

  meta();
  summary();
  list();
  window.addEventListener("hashchange", route);
  route();
})();

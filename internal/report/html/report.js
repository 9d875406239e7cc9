// bsadapter HTML report. It reads the command's JSON document from the
// element #bsadapter-data and draws the page. Every value from the document
// reaches the page as text (textContent, attribute values), never as
// markup: the messages and values come from the code under test.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("bsadapter-data").textContent);
  const kind = data.kind;
  const doc = data.doc || {};
  const app = document.getElementById("app");

  // el builds an element: attrs are attributes (values as text), kids
  // are nodes or strings (made text nodes).
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v === undefined || v === null || v === false) continue;
        e.setAttribute(k, String(v));
      }
    }
    for (const k of kids.flat()) {
      if (k === undefined || k === null || k === false) continue;
      e.append(typeof k === "string" || typeof k === "number" ? document.createTextNode(String(k)) : k);
    }
    return e;
  }
  const svgNS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, text) {
    const e = document.createElementNS(svgNS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const plural = (n, one, many) => n + " " + (n === 1 ? one : many || one + "s");
  const dirOf = (f) => { const i = String(f || "").lastIndexOf("/"); return i < 0 ? "." : f.slice(0, i); };
  const slug = (s) => String(s).replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 120) || "x";
  const usedIds = new Set();
  function anchor(prefix, key) {
    let id = prefix + "-" + slug(key), n = 2;
    while (usedIds.has(id)) id = prefix + "-" + slug(key) + "-" + n++;
    usedIds.add(id);
    return id;
  }
  function pretty(s) {
    if (typeof s !== "string") return JSON.stringify(s, null, 2);
    try { return JSON.stringify(JSON.parse(s), null, 2); } catch (e) { return s; }
  }

  // gen draws any JSON value: the fields this page does not know yet show
  // up as they are.
  function gen(v, depth) {
    depth = depth || 0;
    if (v === null || v === undefined) return el("span", { class: "empty" }, "none");
    if (typeof v !== "object") return el("span", { class: typeof v === "string" ? "" : "mono" }, String(v));
    if (depth > 4) return el("pre", null, JSON.stringify(v, null, 2));
    if (Array.isArray(v)) {
      if (v.length === 0) return el("span", { class: "empty" }, "none");
      if (v.every(isObj)) {
        const cols = [];
        for (const o of v) for (const k of Object.keys(o)) if (!cols.includes(k)) cols.push(k);
        if (cols.length <= 8 && v.every((o) => Object.values(o).every((x) => x === null || typeof x !== "object"))) {
          return el("table", null,
            el("thead", null, el("tr", null, cols.map((c) => el("th", null, c)))),
            el("tbody", null, v.map((o) => el("tr", null, cols.map((c) => el("td", null, o[c] === undefined ? "" : String(o[c])))))));
        }
        return el("div", null, v.map((o, i) => el("div", { class: "gen-item" }, el("h3", null, "#" + (i + 1)), gen(o, depth + 1))));
      }
      return el("ul", null, v.map((x) => el("li", null, gen(x, depth + 1))));
    }
    return el("dl", { class: "kv" }, Object.entries(v).flatMap(([k, x]) => [el("dt", null, k), el("dd", null, gen(x, depth + 1))]));
  }
  // rest draws the fields of o that are not in known.
  function rest(o, known) {
    const extra = Object.entries(o).filter(([k]) => !known.includes(k));
    if (!extra.length) return null;
    return el("dl", { class: "kv extra" }, extra.flatMap(([k, x]) => [el("dt", null, k), el("dd", null, gen(x, 1))]));
  }

  // diffTable draws changes ({pointer, op, before, after}) side by side.
  function diffTable(changes, beforeName, afterName) {
    return el("table", { class: "diff" },
      el("thead", null, el("tr", null, el("th", null, "pointer"), el("th", null, beforeName), el("th", null, afterName))),
      el("tbody", null, changes.map((c) => el("tr", { class: "op-" + (c.op || "changed") },
        el("td", { class: "ptr" }, el("code", null, c.pointer || "(whole value)"), c.op && c.op !== "changed" ? " " + c.op : ""),
        el("td", { class: "before" }, c.before === undefined ? (c.op === "added" ? "(absent)" : "") : c.before),
        el("td", { class: "after" }, c.after === undefined ? (c.op === "removed" ? "(absent)" : "") : c.after)))));
  }
  function problemTable(problems) {
    return el("table", null,
      el("thead", null, el("tr", null, el("th", null, "pointer"), el("th", null, "rule"))),
      el("tbody", null, problems.map((p) => el("tr", null, el("td", { class: "mono" }, p.pointer || "(message)"), el("td", null, p.rule || "")))));
  }
  function kv(pairs) {
    return el("dl", { class: "kv" }, pairs.filter((p) => p[1] !== undefined && p[1] !== null && p[1] !== "")
      .flatMap(([k, v]) => [el("dt", null, k), el("dd", null, typeof v === "object" && v.nodeType ? v : String(v))]));
  }

  // ---- the items: one per checked thing, each a details element ----
  // An item is {key, outcome, suite, file, title, sub, body()}.
  let items = [];
  let suiteLabel = "Suite";
  const summaryCounts = {};
  const sections = []; // extra sections after the list: [title, node]
  let verdictOK = true;

  const fixtureKnown = ["name", "file", "index", "line", "col", "status", "problems", "error", "roundTrip", "warnings",
    "nativeRoundTrip", "ignored", "unstorable", "roundTripProblems", "input", "shrunk", "refused", "lostText", "snapshot"];
  function fixtureBody(r) {
    const b = [];
    b.push(kv([["file", r.file + (r.line ? ":" + r.line + (r.col ? ":" + r.col : "") : "")], ["message", r.name], ["index", r.index]]));
    if (r.error) b.push(el("h3", null, "Error"), el("pre", null, r.error));
    if (r.problems && r.problems.length) b.push(el("h3", null, "The canonical message breaks ai-message-v1"), problemTable(r.problems));
    if (r.nativeRoundTrip && r.nativeRoundTrip.length)
      b.push(el("h3", null, "Native round trip: the native message and what came back"), diffTable(r.nativeRoundTrip, "native message", "came back"));
    if (r.roundTrip && r.roundTrip.length)
      b.push(el("h3", null, "Canonical round trip: the parts before and after"), diffTable(r.roundTrip, "first fromSdk", "after toSdk and fromSdk"));
    if (r.roundTripProblems && r.roundTripProblems.length) b.push(el("h3", null, "The round trip's message breaks ai-message-v1"), problemTable(r.roundTripProblems));
    if (r.unstorable && r.unstorable.length) b.push(el("h3", null, "PostgreSQL cannot store"), problemTable(r.unstorable));
    if (r.warnings && r.warnings.length) b.push(el("h3", null, "Warnings: id, role or metadata changed"), diffTable(r.warnings, "before", "after"));
    if (r.snapshot && r.snapshot.length) b.push(el("h3", null, "Differs from the snapshot"), diffTable(r.snapshot, "snapshot", "this run"));
    if (r.refused) b.push(el("h3", null, "Refused by toSdk"), el("pre", null, r.refused));
    if (r.lostText) b.push(el("h3", null, "Text lost"), el("pre", null, r.lostText));
    if (r.ignored && r.ignored.length) b.push(el("h3", null, "Differences an ignore rule covered"), gen(r.ignored, 1));
    if (r.input) b.push(el("h3", null, r.shrunk ? "Shrunk example (the smallest message that still fails)" : "Generated message"), el("pre", null, pretty(r.input)));
    const x = rest(r, fixtureKnown);
    if (x) b.push(el("h3", null, "More"), x);
    return b;
  }
  function fixtureOutcome(r) {
    const s = r.status || "failed";
    if (s === "passed" && ((r.warnings && r.warnings.length) || r.refused || r.lostText)) return "warned";
    return s;
  }

  function buildFixtures() {
    suiteLabel = "Folder";
    const s = doc.summary || {};
    Object.assign(summaryCounts, s);
    verdictOK = !s.failed && !s.fileErrors && !s.notRun && !doc.bridgeError;
    for (const r of doc.results || []) {
      const generated = doc.mode === "generated" || !r.file;
      items.push({
        key: (r.file || "") + "#" + r.index, outcome: fixtureOutcome(r), suite: generated ? "(generated)" : dirOf(r.file), file: r.file || "",
        title: generated ? "generated #" + r.index : r.file + (r.line ? ":" + r.line : ""),
        sub: firstLine(r.error) || firstProblem(r) || (r.name !== (r.file || "") + "#" + r.index ? r.name : ""), prefix: "msg", body: () => fixtureBody(r),
      });
    }
    for (const fe of doc.fileErrors || []) {
      items.push({
        key: "file:" + fe.file + ":" + (fe.line || 0), outcome: "file error", suite: dirOf(fe.file), file: fe.file,
        title: fe.file + (fe.line ? ":" + fe.line + (fe.col ? ":" + fe.col : "") : ""), sub: fe.message, prefix: "file",
        body: () => [kv([["file", fe.file], ["line", fe.line], ["column", fe.col]]), el("pre", null, fe.message), fe.hint ? el("p", null, "Fix: " + fe.hint) : null, rest(fe, ["file", "line", "col", "message", "hint"])],
      });
    }
    const meta = [];
    if (doc.adapter) meta.push("adapter " + [doc.adapter.name, doc.adapter.format, doc.adapter.sdk, doc.adapter.version].filter(Boolean).join(" · "));
    if (doc.mode) meta.push("mode " + doc.mode);
    if (doc.timing && doc.timing.totalMs !== undefined) meta.push((doc.timing.totalMs / 1000).toFixed(2) + " s");
    metaLine = meta.join(" — ");
    if (doc.bridgeError) sections.push(["The bridge stopped working", el("pre", null, doc.bridgeError)]);
    if (doc.generated) sections.push(["Generated messages", gen(doc.generated)]);
    // Failures of generated runs gathered into groups (any array field
    // whose name says group), each with its examples.
    for (const [k, v] of Object.entries(doc)) {
      if (/group/i.test(k) && Array.isArray(v)) sections.unshift(["Failure groups (" + k + ")", groupsView(v)]);
    }
    if (doc.omitted) sections.push(["Not listed", el("p", null, plural(doc.omitted, "more failed or warned generated message") + " not listed (a generated run lists the first ones by index).")]);
    if (doc.refusals && doc.refusals.length) sections.push(["Refused by toSdk, by reason", gen(doc.refusals)]);
    const notRun = (doc.results || []).filter((r) => r.status === "not run");
    if (notRun.length) sections.push(["Messages not checked", el("p", null, plural(notRun.length, "message") + " not checked: " + (notRun[0].error || "the bridge stopped"))]);
    if (doc.coverage) sections.push(["Part-type coverage", coverageChart(doc.coverage, doc.missingParts || [])]);
    if (doc.snapshots && doc.snapshots.length) sections.push(["Snapshots", gen(doc.snapshots)]);
    const other = rest(doc, ["schemaVersion", "mode", "adapter", "generated", "summary", "coverage", "missingParts", "bridgeError", "timing",
      "fileErrors", "snapshots", "results", "omitted", "refusals"].concat(Object.keys(doc).filter((k) => /group/i.test(k))));
    if (other) sections.push(["More in the report", other]);
  }
  function firstLine(s) { return s ? String(s).split("\n")[0] : ""; }
  function firstProblem(r) {
    for (const k of ["problems", "nativeRoundTrip", "roundTrip", "roundTripProblems", "unstorable", "warnings", "snapshot"]) {
      const a = r[k];
      if (a && a.length) return (a[0].pointer || "(message)") + ": " + (a[0].rule || a[0].op || "") + (a.length > 1 ? " (+" + (a.length - 1) + ")" : "");
    }
    return r.refused || r.lostText || "";
  }
  // groupsView draws groups of failures: each group's own fields, and its
  // examples (arrays of results) drawn as results.
  function groupsView(groups) {
    return el("div", null, groups.map((g, i) => {
      if (!isObj(g)) return gen(g, 1);
      const name = g.reason || g.key || g.signature || g.name || g.title || g.pointer || "group " + (i + 1);
      const count = g.count !== undefined ? g.count : (g.messages !== undefined ? g.messages : undefined);
      const own = {}, examples = [];
      for (const [k, v] of Object.entries(g)) {
        if (Array.isArray(v) && v.length && v.every((x) => isObj(x) && ("status" in x || "input" in x || "index" in x))) examples.push(...v);
        else own[k] = v;
      }
      const id = anchor("group", name);
      return el("details", { class: "item group", id, "data-key": "group:" + i },
        el("summary", null, el("span", { class: "badge b-failed" }, count !== undefined ? String(count) : "group"),
          el("span", { class: "title" }, String(name)), el("a", { class: "anchor", href: "#" + id, title: "link to this group" }, "#")),
        el("div", { class: "body" }, gen(own, 1), examples.map((r) => el("div", { class: "example" }, el("h3", null, "Example #" + r.index), fixtureBody(r)))));
    }));
  }
  function coverageChart(cov, missing) {
    const max = Math.max(1, ...cov.map((c) => c.count || 0));
    const rowH = 22, labelW = 150, barW = 420, h = cov.length * rowH + 8;
    const s = svg("svg", { class: "chart", role: "img", width: labelW + barW + 90, height: h, viewBox: "0 0 " + (labelW + barW + 90) + " " + h });
    s.append(svg("title", {}, "Parts of each type in the checked messages"));
    cov.forEach((c, i) => {
      const y = i * rowH + 4, w = c.count ? Math.max(2, Math.round((c.count / max) * barW)) : 0;
      const miss = missing.includes(c.type) || (c.required && !c.count);
      s.append(svg("text", { x: labelW - 8, y: y + 14, "text-anchor": "end" }, c.type + (c.required ? " *" : "")));
      s.append(svg("rect", { class: "bar" + (miss ? " missing" : ""), x: labelW, y: y + 2, width: miss && !w ? 3 : w, height: rowH - 8, rx: 2 }));
      s.append(svg("text", { class: "count", x: labelW + w + 8, y: y + 14 }, miss ? (c.count || 0) + " — missing" : c.count || 0));
    });
    return el("div", null, s, el("p", { class: "keys" }, "* a required part type. ",
      missing.length ? "Missing: " + missing.join(", ") + "." : "Every required part type appeared."));
  }

  const conformKnown = ["id", "suite", "rule", "outcome", "elapsedMs", "failures", "reason", "needs"];
  function buildConform() {
    const s = doc.summary || {};
    Object.assign(summaryCounts, s);
    verdictOK = !s.failed && !s.notRun;
    metaLine = "store " + (doc.store || "?") + (doc.elapsedMs !== undefined ? " — " + (doc.elapsedMs / 1000).toFixed(2) + " s" : "");
    for (const r of doc.results || []) {
      items.push({
        key: r.id, outcome: r.outcome, suite: r.suite, file: r.id, title: r.id, sub: r.outcome === "failed" ? r.rule : (r.reason || r.rule),
        prefix: "case", ms: r.elapsedMs,
        body: () => {
          const b = [kv([["rule", r.rule], ["suite", r.suite], ["duration", r.elapsedMs !== undefined ? r.elapsedMs + " ms" : ""], ["reason", r.reason], ["needs", r.needs]])];
          for (const f of r.failures || []) {
            if (f.expected !== undefined || f.actual !== undefined) {
              b.push(el("h3", null, f.what || f.message || "expectation"),
                el("div", { class: "sbs diff" },
                  el("div", null, el("div", { class: "h" }, "expected"), el("pre", { class: "before" }, f.expected || "")),
                  el("div", null, el("div", { class: "h" }, "actual"), el("pre", { class: "after" }, f.actual || ""))));
              if (f.message && f.message !== f.what) b.push(el("pre", null, f.message));
            } else {
              b.push(el("h3", null, "Error"), el("pre", null, f.message || ""));
            }
            const x = rest(f, ["message", "what", "expected", "actual"]);
            if (x) b.push(x);
          }
          const x = rest(r, conformKnown);
          if (x) b.push(el("h3", null, "More"), x);
          return b;
        },
      });
    }
    // What did not run, by the capability it needs.
    const unrun = (doc.results || []).filter((r) => r.outcome === "skipped" || r.outcome === "not run");
    const nr = [];
    if (unrun.length) {
      const by = new Map();
      for (const r of unrun) {
        const k = r.needs ? "needs " + r.needs : (r.outcome === "not run" ? "not run: " + firstLine(r.reason) : "skipped: " + firstLine(r.reason));
        if (!by.has(k)) by.set(k, []);
        by.get(k).push(r);
      }
      nr.push(el("table", null, el("thead", null, el("tr", null, el("th", null, "capability or reason"), el("th", { class: "num" }, "cases"), el("th", null, "cases"))),
        el("tbody", null, [...by].sort((a, b) => b[1].length - a[1].length).map(([k, rs]) => el("tr", { "data-capability": k },
          el("td", null, k), el("td", { class: "num" }, rs.length),
          el("td", null, rs.slice(0, 50).flatMap((r, i) => [i ? ", " : "", el("a", { href: "#" + r._anchor }, r.id)]), rs.length > 50 ? " …" : ""))))));
    }
    if (doc.leftOut && doc.leftOut.length) nr.push(el("h3", null, "Suites the store does not implement"), gen(doc.leftOut));
    if (doc.notApplicable && doc.notApplicable.length) nr.push(el("h3", null, "Block rules the store does not keep"), gen(doc.notApplicable));
    if (doc.modulesLeftOut && doc.modulesLeftOut.length) nr.push(el("h3", null, "Block modules left out"), gen(doc.modulesLeftOut));
    if (nr.length) sections.push(["What did not run", el("div", { id: "not-run" }, nr)]);
    sections.push(["Outcomes by suite", suiteChart(doc.results || [])]);
    const other = rest(doc, ["schemaVersion", "store", "elapsedMs", "summary", "results", "leftOut", "notApplicable", "modulesLeftOut"]);
    if (other) sections.push(["More in the report", other]);
  }
  function suiteChart(results) {
    const by = new Map();
    for (const r of results) {
      if (!by.has(r.suite)) by.set(r.suite, { passed: 0, failed: 0, skipped: 0, "not run": 0 });
      const c = by.get(r.suite);
      c[r.outcome] = (c[r.outcome] || 0) + 1;
    }
    const rows = [...by], max = Math.max(1, ...rows.map(([, c]) => Object.values(c).reduce((a, b) => a + b, 0)));
    const rowH = 22, labelW = 170, barW = 420, h = rows.length * rowH + 8;
    const s = svg("svg", { class: "chart", role: "img", width: labelW + barW + 200, height: h, viewBox: "0 0 " + (labelW + barW + 200) + " " + h });
    s.append(svg("title", {}, "Cases of each suite by outcome"));
    rows.forEach(([suite, c], i) => {
      const y = i * rowH + 4;
      let x = labelW;
      s.append(svg("text", { x: labelW - 8, y: y + 14, "text-anchor": "end" }, suite));
      for (const o of ["passed", "failed", "skipped", "not run"]) {
        if (!c[o]) continue;
        const w = Math.max(2, Math.round((c[o] / max) * barW));
        s.append(svg("rect", { class: "seg-" + o.replace(" ", "-"), x, y: y + 2, width: w, height: rowH - 8 }));
        x += w;
      }
      s.append(svg("text", { class: "count", x: x + 8, y: y + 14 },
        Object.entries(c).filter(([, n]) => n).map(([o, n]) => n + " " + o).join(", ")));
    });
    return s;
  }

  function buildLint() {
    suiteLabel = "Rule";
    const f = doc.findings || [], sup = doc.suppressed || [];
    Object.assign(summaryCounts, { files: doc.files || 0, findings: f.length, suppressed: sup.length, unusedIgnores: (doc.unusedIgnores || []).length });
    verdictOK = !!doc.ok;
    const t = doc.target || {};
    metaLine = (t.kind ? t.kind + " " : "") + (t.name || "") + (t.sdks && t.sdks.length ? " — SDK " + t.sdks.join(", ") : "");
    const add = (x, outcome) => items.push({
      key: x.rule + ":" + x.file + ":" + x.line + ":" + x.column, outcome, suite: x.rule, file: x.file,
      title: x.file + ":" + x.line + ":" + x.column, sub: x.rule + ": " + x.message, prefix: "finding",
      body: () => {
        const b = [kv([["rule", x.rule], ["where", x.file + ":" + x.line + ":" + x.column], ["suppressed because", x.reason]]), el("p", null, x.message)];
        if (x.evidence) b.push(el("h3", null, "Source"), el("pre", { class: "src" }, el("span", { class: "ln" }, String(x.line)), el("code", null, x.evidence)));
        if (x.chain && x.chain.length) {
          const half = x.chainOmitted ? Math.ceil(x.chain.length / 2) : -1;
          b.push(el("h3", null, "Import chain, from an entry point"), el("ol", { class: "chain" }, x.chain.flatMap((l, i) => [
            i === half ? el("li", { class: "empty" }, "… " + plural(x.chainOmitted, "link") + " left out …") : null,
            el("li", null, l.file + ":" + l.line + ":" + l.column + "  import " + JSON.stringify(l.import))])));
        }
        if (x.fix) b.push(el("h3", null, "Fix"), el("p", null, x.fix));
        const r = rest(x, ["rule", "file", "line", "column", "message", "chain", "chainOmitted", "evidence", "fix", "reason"]);
        if (r) b.push(r);
        return b;
      },
    });
    f.forEach((x) => add(x, "failed"));
    sup.forEach((x) => add(x, "suppressed"));
    if (doc.unusedIgnores && doc.unusedIgnores.length) sections.push(["Ignore comments that silenced nothing", gen(doc.unusedIgnores)]);
    if (t.entries) sections.push(["Target", gen(t)]);
    const other = rest(doc, ["schemaVersion", "ok", "root", "target", "files", "findings", "suppressed", "unusedIgnores"]);
    if (other) sections.push(["More in the report", other]);
  }

  let metaLine = "";
  if (kind === "conform") buildConform();
  else if (kind === "check-fixtures") buildFixtures();
  else if (kind === "lint") buildLint();

  // ---- the page ----
  const order = { failed: 0, "file error": 1, "not run": 2, warned: 3, suppressed: 4, skipped: 5, passed: 6 };
  items.sort((a, b) => (order[a.outcome] ?? 9) - (order[b.outcome] ?? 9));
  for (const it of items) it.id = anchor(it.prefix, it.key);
  if (kind === "conform") {
    const byKey = new Map(items.map((it) => [it.key, it.id]));
    for (const r of doc.results || []) r._anchor = byKey.get(r.id);
  }

  const h1 = app.querySelector("h1");
  const head = [el("p", { class: "meta" }, el("span", { class: "verdict " + (verdictOK ? "good" : "bad") }, verdictOK ? "passed" : "failed"), " ", metaLine)];
  const cards = el("section", { id: "summary", class: "cards", "aria-label": "summary" },
    Object.entries(summaryCounts).filter(([, v]) => typeof v === "number").map(([k, v]) =>
      el("div", { class: "card " + k, "data-count": k }, el("span", { class: "n" }, String(v)), el("span", { class: "k" }, k.replace(/([A-Z])/g, " $1").toLowerCase()))));
  h1.after(...head, cards);

  const outcomes = [...new Set(items.map((i) => i.outcome))];
  const suites = [...new Set(items.map((i) => i.suite))].sort();
  const shownByDefault = (o) => o !== "passed";
  const filters = el("nav", { id: "filters", "aria-label": "filters" },
    el("fieldset", null, el("legend", null, "Outcome"), outcomes.map((o) =>
      el("label", null, el("input", { type: "checkbox", name: "outcome", value: o, checked: shownByDefault(o) ? "" : false }), " " + o + " (" + items.filter((i) => i.outcome === o).length + ")"))),
    el("label", null, suiteLabel + " ", el("select", { id: "suite-filter" }, el("option", { value: "" }, "all"), suites.map((s) => el("option", { value: s }, s)))),
    el("label", null, "File ", el("input", { type: "search", id: "file-filter", placeholder: "part of a file name or ID", size: 28 })),
    el("span", { id: "shown", "aria-live": "polite", "data-total": items.length }),
    el("span", { class: "keys" }, el("kbd", null, "/"), " search, ", el("kbd", null, "j"), " ", el("kbd", null, "k"), " next and previous, ", el("kbd", null, "Enter"), " open"));
  const list = el("section", { id: "items", "aria-label": "results" });
  const listTitle = el("h2", null, kind === "lint" ? "Findings" : "Failures and results");
  // drawItem makes an item's details element; its body is drawn when it
  // is first opened.
  function drawItem(it) {
    const d = el("details", { class: "item", id: it.id, "data-key": it.key, "data-outcome": it.outcome, "data-suite": it.suite, "data-file": it.file },
      el("summary", null, el("span", { class: "badge b-" + it.outcome.replace(" ", "-") }, it.outcome),
        el("span", { class: "title" }, it.title), el("span", { class: "sub" }, it.sub || ""),
        it.ms !== undefined ? el("span", { class: "mono" }, it.ms + " ms") : null,
        el("a", { class: "anchor", href: "#" + it.id, title: "link to this result", "aria-label": "link to " + it.title }, "#")));
    let drawn = false;
    d.addEventListener("toggle", () => {
      if (d.open && !drawn) { drawn = true; d.append(el("div", { class: "body" }, it.body())); }
    });
    it.node = d;
    return d;
  }
  // The items hidden at first (passed ones: a corpus is mostly those) are
  // drawn when a filter first shows them, so a large run paints at once.
  function drawMissing(need) {
    if (!items.some((it) => !it.node && need(it))) return;
    const frag = document.createDocumentFragment();
    for (const it of items) {
      if (!it.node && need(it)) drawItem(it);
      if (it.node) frag.append(it.node);
    }
    list.append(frag);
  }
  if (!items.length) list.append(el("p", { class: "empty" }, "Nothing to list."));
  app.append(filters, listTitle, list);
  for (const [title, node] of sections) app.append(el("h2", null, title), node);

  function apply() {
    const want = new Set([...filters.querySelectorAll("input[name=outcome]:checked")].map((i) => i.value));
    const suite = document.getElementById("suite-filter").value;
    const q = document.getElementById("file-filter").value.trim().toLowerCase();
    const shows = (it) => want.has(it.outcome) && (!suite || it.suite === suite) && (!q || it.file.toLowerCase().includes(q) || it.title.toLowerCase().includes(q));
    drawMissing(shows);
    let n = 0;
    for (const it of items) {
      const show = shows(it);
      if (it.node) it.node.classList.toggle("hidden", !show);
      if (show) n++;
    }
    document.getElementById("shown").textContent = n + " of " + items.length + " shown";
  }
  filters.addEventListener("input", apply);
  filters.addEventListener("change", apply);
  apply();

  // An anchor opens its result, shown whatever the filters say.
  function openHash() {
    const id = decodeURIComponent(location.hash.slice(1));
    if (id) drawMissing((it) => it.id === id);
    const d = id && document.getElementById(id);
    if (!d || !d.classList.contains("item")) return;
    d.classList.remove("hidden");
    if (!d.open) d.open = true;
    d.scrollIntoView({ block: "start" });
    const s = d.querySelector("summary");
    if (s) s.focus({ preventScroll: true });
  }
  window.addEventListener("hashchange", openHash);
  openHash();

  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target, typing = t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA");
    if (e.key === "Escape" && t && t.id === "file-filter") { t.value = ""; apply(); t.blur(); return; }
    if (typing) return;
    if (e.key === "/") { e.preventDefault(); document.getElementById("file-filter").focus(); return; }
    if (e.key === "j" || e.key === "k") {
      const vis = items.filter((i) => i.node && !i.node.classList.contains("hidden")).map((i) => i.node.querySelector("summary"));
      if (!vis.length) return;
      const at = vis.indexOf(document.activeElement);
      const next = e.key === "j" ? (at < 0 ? 0 : Math.min(vis.length - 1, at + 1)) : (at < 0 ? 0 : Math.max(0, at - 1));
      e.preventDefault();
      vis[next].focus();
      vis[next].scrollIntoView({ block: "nearest" });
    }
  });
  // When the page was drawn, in milliseconds from the navigation (read by
  // the benchmark).
  document.documentElement.setAttribute("data-drawn-ms", String(Math.round(performance.now())));
  document.documentElement.setAttribute("data-ready", "1");
})();

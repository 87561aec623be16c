// sqljudge report page: renders the items of the JSON blob #sj-data (see
// pageData in data.go) a screen at a time, filters them, and opens an
// item view. Filters and the open item live in the URL fragment:
// #metric=ex&status=wrong&diff=hard&cat=&cmp=a&q=order&open=16 (a status
// by its name: status=pred_error, or the select's value s:pred_error);
// and=equiv:wrong (another metric's verdict: correct, wrong, error),
// outcome=equiv:inequivalent, rests=equiv:null, step=verdict:ex (a
// metric's facet, see facets in data.go), hazard=any|none|limit_ties.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("sj-data").textContent);
  var M = D.metrics, ST = D.statuses, items = D.items, cmp = D.runs.length > 1;
  var IDX = 0, ID = 1, DB = 2, LVL = 3, CAT = 4, Q = 5, EV = 6, GOLD = 7, PRED = 8, V = 9, VD = 10, SMP = 11, CMP = 12, FAC = 13, HAZ = 14;
  var ROW = 30, OVER = 8, CLAMP_CHARS = 600, CLAMP_LINES = 8, CELL = 80;
  var $ = function (id) { return document.getElementById(id); };
  var list = $("list"), head = $("ihead"), detail = $("detail");
  var ESC = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" };
  var esc = function (s) { return String(s).replace(/[&<>"']/g, function (c) { return ESC[c]; }); };
  var plural = function (n, w) { return n + " " + w + (n === 1 ? "" : "s"); };

  // Filters: the select and input elements, by fragment key.
  var ids = { metric: "f-metric", status: "f-status", diff: "f-diff", cat: "f-cat", cmp: "f-cmp", and: "f-and", outcome: "f-outcome", rests: "f-rests", step: "f-step", hazard: "f-hazard", q: "f-text" };
  var dflt = function (k) { return k === "metric" ? M[0] : k === "q" ? "" : k === "hazard" ? "all" : "any"; };
  var addOptions = function (sel, values, labels) {
    if (!sel) return;
    values.forEach(function (v, k) {
      var o = document.createElement("option");
      o.value = v; o.textContent = labels ? labels[k] : v;
      sel.appendChild(o);
    });
  };
  addOptions($("f-status"), ST.map(function (s) { return "s:" + s; }));
  addOptions($("f-diff"), D.levels.concat([""]), D.levels.concat(["(none)"]));
  addOptions($("f-cat"), D.categories.concat([""]), D.categories.concat(["(none)"]));
  // The filters by another metric's verdict and by facets: "metric:value".
  var ands = [], andLabels = [];
  if (M.length > 1) M.forEach(function (m) {
    ands.push(m + ":correct", m + ":wrong", m + ":error");
    andLabels.push(m + " correct", m + " wrong (graded)", m + " not graded (error, timeout)");
  });
  addOptions($("f-and"), ands, andLabels);
  var OUTCOME = { equivalent_proved: "proved", equivalent_bounded: "bounded (no witness)", inequivalent: "refuted", unknown: "undecided" };
  var facetLabel = function (v) {
    var c = v.indexOf(":"), m = v.slice(0, c), x = v.slice(c + 1);
    return m + ": " + (OUTCOME[x] ? OUTCOME[x] + " (" + x + ")" : x === "no_witness" ? "no witness (the item's database)" : x);
  };
  addOptions($("f-outcome"), D.facets.outcome, D.facets.outcome.map(facetLabel));
  addOptions($("f-rests"), D.facets.rests_on, D.facets.rests_on.map(facetLabel));
  addOptions($("f-step"), D.facets.step, D.facets.step.map(facetLabel));
  addOptions($("f-hazard"), D.facets.hazard);
  // A filter with nothing to choose is not shown.
  ["f-and", "f-outcome", "f-rests", "f-step"].forEach(function (id) { if ($(id).options.length < 2) $(id).parentNode.hidden = true; });
  if (!D.facets.hazard.length) $("f-hazard").parentNode.hidden = true;
  var val = function (k) { var e = $(ids[k]); return e ? e.value : dflt(k); };

  // Columns: #, id, db_id, difficulty, question / prediction, a badge per metric (and per metric of the second run).
  var cols = "4.5em 7em 12em 7em minmax(12em, 1fr)";
  M.forEach(function () { cols += " 6.5em"; });
  if (cmp) M.forEach(function () { cols += " 6.5em"; });
  document.documentElement.style.setProperty("--cols", cols);
  var hcells = ["#", "id", "db_id", "difficulty", "question / prediction"].concat(M);
  if (cmp) hcells = hcells.concat(M.map(function (m) { return m + " \u00b7 " + D.runs[1]; }));
  head.innerHTML = hcells.map(function (h) { return "<span>" + esc(h) + "</span>"; }).join("");
  if (cmp) head.children[5].title = D.runs[0];

  var verdict = function (vs, m) {
    var x = vs[m];
    return x < 0 ? null : { status: ST[x >> 1], correct: (x & 1) === 1 };
  };
  var badge = function (v, detail) {
    if (!v) return '<span class="v n" title="not graded">&ndash;</span>';
    if (v.correct) return '<span class="v c" title="' + esc(v.status) + '">&#10003;</span>';
    if (v.status === "ok") return '<span class="v w" title="wrong result">&#10007;</span>';
    return '<span class="v e" title="' + esc(detail || v.status) + '">' + esc(v.status) + "</span>";
  };

  // Search covers what the page shows of an item: id, db_id, question,
  // evidence, gold and predicted SQL (not verdict fields).
  var hay = null;
  var haystack = function (it) {
    var s = it[ID] + "\n" + it[DB] + "\n" + it[Q] + "\n" + it[EV] + "\n" + it[GOLD] + "\n" + it[PRED];
    if (it[CMP]) s += "\n" + it[CMP][0];
    return s.toLowerCase();
  };

  // Build the search text in slices once the page is ready, so that the
  // first keystroke does not pay for it (filter builds what is left).
  var buildHay = function (upTo) {
    if (!hay) hay = [];
    for (var k = hay.length; k < upTo; k++) hay.push(haystack(items[k]));
  };
  var idleHay = function () {
    if (hay && hay.length === items.length) {
      window.sjSearchReadyAt = performance.now();
      return;
    }
    buildHay(Math.min(items.length, (hay ? hay.length : 0) + 5000));
    setTimeout(idleHay, 0);
  };

  var shown = [];
  // wantV is whether verdict code x (see pageData) passes the status
  // filter s.
  var wantV = function (x, s) {
    if (s === "any") return true;
    if (x < 0) return false;
    if (s === "correct") return (x & 1) === 1;
    if (s === "wrong") return (x & 1) === 0;
    return ST[x >> 1] === s.slice(2);
  };
  // wantCmp is whether verdict codes x (first run) and y (second run, -1
  // without) pass the runs filter c: "one" graded in one run only,
  // "status" both graded with other statuses; the others compare
  // correctness as report.CompareRuns pairs items (both graded and
  // judged), "differs" being right in one run only (only A + only B).
  var unjudged = function (x) { return x >= 0 && (ST[x >> 1] === "judge_error" || ST[x >> 1] === "judge_unparseable"); };
  var wantCmp = function (x, y, c) {
    var a = x >= 0 && (x & 1) === 1, b = y >= 0 && (y & 1) === 1;
    if (c === "one") return (x < 0) !== (y < 0);
    if (x < 0 || y < 0) return false;
    if (c === "status") return (x >> 1) !== (y >> 1);
    if (unjudged(x) || unjudged(y)) return false;
    switch (c) {
      case "differs": return a !== b;
      case "a": return a && !b;
      case "b": return !a && b;
      case "both": return a && b;
      case "neither": return !a && !b;
    }
    return true;
  };
  // wantAnd is whether item it passes the filter by another metric's
  // verdict a ("equiv:wrong": not correct with status ok).
  var wantAnd = function (it, a) {
    if (a === "any") return true;
    var c = a.lastIndexOf(":"), x = it[V][M.indexOf(a.slice(0, c))], w = a.slice(c + 1);
    if (x === undefined || x < 0) return false;
    if (w === "correct") return (x & 1) === 1;
    if ((x & 1) === 1) return false;
    return (ST[x >> 1] === "ok") === (w === "wrong");
  };
  // wantFacet is whether item it's facet at pos (0 outcome, 1 rests_on,
  // 2 step) of a metric is v ("equiv:null").
  var wantFacet = function (it, v, pos) {
    if (v === "any") return true;
    var c = v.indexOf(":"), k = M.indexOf(v.slice(0, c)), f = it[FAC] && it[FAC][k];
    return !!f && f[pos] === v.slice(c + 1);
  };
  var wantHazard = function (it, h) {
    if (h === "all") return true;
    if (h === "none") return !it[HAZ];
    if (!it[HAZ]) return false;
    return h === "any" || it[HAZ].some(function (p) { return p[0] === h; });
  };
  var last = null;
  var filter = function () {
    var f = { m: Math.max(0, M.indexOf(val("metric"))), status: val("status"), diff: val("diff"), cat: val("cat"), cmp: val("cmp"),
      and: val("and"), outcome: val("outcome"), rests: val("rests"), step: val("step"), hazard: val("hazard") };
    var text = ($("f-text").value || "").toLowerCase();
    var lvl = f.diff === "any" ? -2 : f.diff === "" ? -1 : D.levels.indexOf(f.diff);
    var cat = f.cat === "any" ? -2 : f.cat === "" ? -1 : D.categories.indexOf(f.cat);
    if (text) buildHay(items.length);
    // A longer search with the same filters narrows the last result.
    var key = [f.m, f.status, f.diff, f.cat, f.cmp, f.and, f.outcome, f.rests, f.step, f.hazard].join("\u0000");
    var from = null;
    if (last && last.key === key && text && text.indexOf(last.text) === 0) from = shown;
    var out = [], n = from ? from.length : items.length;
    for (var j = 0; j < n; j++) {
      var k = from ? from[j] : j, it = items[k];
      if (lvl !== -2 && it[LVL] !== lvl) continue;
      if (cat !== -2 && it[CAT] !== cat) continue;
      var x = it[V][f.m];
      if (!wantV(x, f.status)) continue;
      if (f.cmp !== "any" && !wantCmp(x, it[CMP] ? it[CMP][1][f.m] : -1, f.cmp)) continue;
      if (!wantAnd(it, f.and) || !wantFacet(it, f.outcome, 0) || !wantFacet(it, f.rests, 1) || !wantFacet(it, f.step, 2) || !wantHazard(it, f.hazard)) continue;
      if (text && hay[k].indexOf(text) < 0) continue;
      out.push(k);
    }
    shown = out;
    last = { key: key, text: text };
    $("count").textContent = shown.length + " of " + plural(items.length, "item") + " shown";
    $("empty").hidden = shown.length > 0;
    list.style.height = shown.length * ROW + "px";
    rendered = null;
    render();
  };

  var openK = -1, rendered = null;
  var rowHTML = function (pos) {
    var k = shown[pos], it = items[k];
    var h = '<div class="item grid-row' + (k === openK ? " open" : "") + '" role="row" tabindex="0" data-index="' + it[IDX] +
      '" data-pos="' + pos + '" style="top:' + pos * ROW + 'px"><span>' + it[IDX] + "</span><span>" + esc(it[ID]) +
      "</span><span>" + esc(it[DB]) + "</span><span>" + (it[LVL] < 0 ? "" : esc(D.levels[it[LVL]])) + '</span><span class="q">' +
      (it[Q] ? esc(it[Q]) : "<code>" + esc(it[PRED]) + "</code>") + "</span>";
    for (var m = 0; m < M.length; m++) h += "<span>" + badge(verdict(it[V], m), it[VD] && it[VD][m] && it[VD][m][0]) + "</span>";
    if (cmp) {
      var c = it[CMP];
      for (m = 0; m < M.length; m++) h += "<span>" + (c ? badge(verdict(c[1], m), c[2] && c[2][m] && c[2][m][0]) : '<span class="muted">&ndash;</span>') + "</span>";
    }
    return h + "</div>";
  };
  // render draws the rows on screen (and a few either side), only when
  // that range changed.
  var render = function () {
    var top = list.getBoundingClientRect().top;
    var first = Math.max(0, Math.floor(-top / ROW) - OVER);
    var last = Math.min(shown.length, Math.ceil((window.innerHeight - top) / ROW) + OVER);
    if (first > last) first = last;
    var key = first + ":" + last;
    if (rendered === key) return;
    rendered = key;
    var h = "";
    for (var p = first; p < last; p++) h += rowHTML(p);
    list.innerHTML = h;
  };
  var frame = 0;
  window.addEventListener("scroll", function () {
    if (!frame) frame = requestAnimationFrame(function () { frame = 0; render(); });
  }, { passive: true });
  window.addEventListener("resize", function () { rendered = null; render(); });

  // The item view.
  var clampPre = function (text) {
    var s = String(text), long = s.length > CLAMP_CHARS || s.split("\n").length > CLAMP_LINES;
    return '<pre' + (long ? ' class="clamped"' : "") + ">" + esc(s) + "</pre>" +
      (long ? '<button class="more" type="button">show all (' + plural(s.length, "character") + ")</button>" : "");
  };
  var cellHTML = function (s) {
    s = String(s);
    if (s.length <= CELL) return "<td>" + esc(s) + "</td>";
    return '<td class="cut" title="click to expand or shorten"><span class="s">' + esc(s.slice(0, CELL)) + '&hellip;</span><span class="f">' + esc(s) + "</span></td>";
  };
  var sampleHTML = function (s) {
    if (!s) return "";
    var h = "<h3>result sample (gold &minus; / prediction +)</h3>";
    if (s[5]) return h + '<div class="muted">' + esc(s[5]) + "</div>";
    h += '<div class="muted">gold (' + esc(s[0].join(", ")) + "): " + plural(s[2], "row") + " &middot; prediction (" + esc(s[1].join(", ")) + "): " + plural(s[3], "row");
    var n = s[4].length;
    h += (n < s[2] + s[3] ? " &middot; first rows shown" : "") + '</div><table class="diff">';
    s[4].forEach(function (r) {
      var cls = r[0] === "-" ? "op-minus" : r[0] === "+" ? "op-plus" : "";
      h += '<tr class="' + cls + '"><td class="op">' + esc(r[0]) + "</td>" + r.slice(1).map(cellHTML).join("") + "</tr>";
    });
    return h + "</table>";
  };
  var verdictsHTML = function (vs, vd) {
    var h = "<h3>verdicts</h3><table><tr><th>metric</th><th>correct</th><th>status</th><th>detail</th></tr>";
    M.forEach(function (m, k) {
      var v = verdict(vs, k);
      if (!v) return;
      var d = vd && vd[k];
      h += "<tr><td>" + esc(m) + "</td><td>" + (v.correct ? "yes" : "no") + "</td><td>" + esc(v.status) + "</td><td>" +
        (d && d[0] ? clampPre(d[0]) : "") + (d && d[1] ? '<details class="fields"><summary>fields</summary><pre>' + esc(d[1]) + "</pre></details>" : "") + "</td></tr>";
    });
    return h + "</table>";
  };
  // An equiv witness (the "witness" field of equiv or verdict): the SQL of
  // the database that tells gold (q1) from prediction (q2), and both results.
  var resultHTML = function (label, r) {
    r = r || {};
    var rows = r.rows || [], cols = r.columns || [];
    var h = '<div class="muted">' + esc(label) + " (" + esc(cols.join(", ")) + "): " + plural(rows.length, "row") + (r.truncated ? " &middot; first rows shown" : "") + "</div><table><tr>" +
      cols.map(function (c) { return "<th>" + esc(c) + "</th>"; }).join("") + "</tr>";
    rows.forEach(function (row) {
      h += "<tr>" + row.map(function (c) { return cellHTML(c === null ? "NULL" : typeof c === "string" ? c : JSON.stringify(c)); }).join("") + "</tr>";
    });
    return h + "</table>";
  };
  // What the witness's difference rests on, and each check that decided
  // it (the witness's rests_on and rests_on_checks).
  var restsOnHTML = function (w) {
    if (!Array.isArray(w.rests_on) || !w.rests_on.length) return "";
    var h = '<div class="rests">rests on: <b>' + esc(w.rests_on.join(", ")) + "</b></div>";
    if (Array.isArray(w.rests_on_checks) && w.rests_on_checks.length) {
      h += '<details class="fields"><summary>checks</summary><ul>' + w.rests_on_checks.map(function (c) {
        return "<li>" + esc(String(c.kind)) + ": " + esc(String(c.check)) + (c.removed ? " &mdash; the difference disappears" : " &mdash; the difference stays") + "</li>";
      }).join("") + "</ul></details>";
    }
    return h;
  };
  var witnessHTML = function (vd) {
    var h = "";
    M.forEach(function (m, k) {
      var d = vd && vd[k], w = null;
      if ((m !== "equiv" && m !== "verdict") || !d || !d[1]) return;
      try { w = JSON.parse(d[1]).witness; } catch (e) { return; }
      if (!w || typeof w !== "object" || typeof w.sql !== "string") return;
      h += '<div class="witness"><h3>witness (' + esc(m) + ")</h3>" + resultHTML("gold / q1", w.q1) + resultHTML("prediction / q2", w.q2) + restsOnHTML(w) +
        '<div class="muted">the witness database: ' + plural(w.rows || 0, "row") + "</div>" + clampPre(w.sql) + "</div>";
    });
    return h;
  };
  // An equiv proof (the "proof" field of equiv or verdict): the steps that
  // rewrite each query into its normal form (rule, facts, SQL after), the
  // method, the pairing of tables and the solver's obligations by name.
  // Everything is text, escaped; nothing links anywhere.
  var factText = function (f) {
    if (!f || typeof f !== "object") return "";
    var cols = f.column ? "." + f.column : f.columns ? "(" + f.columns.join(", ") + ")" : "";
    return f.fact + " " + f.table + cols + (f.ref_table ? " -> " + f.ref_table + "(" + (f.ref_columns || []).join(", ") + ")" : "") + (f.family ? " " + f.family : "");
  };
  var stepsHTML = function (label, list) {
    var h = "";
    (Array.isArray(list) ? list : []).forEach(function (st, i) {
      var facts = Array.isArray(st.facts) && st.facts.length ? '<div class="muted">relies on ' + esc(st.facts.map(factText).join("; ")) + "</div>" : "";
      h += "<li>" + esc(label + " step " + (i + 1) + ": " + st.rule) + facts + clampPre(st.after) + "</li>";
    });
    return h;
  };
  var proofHTML = function (vd) {
    var h = "";
    M.forEach(function (m, k) {
      var d = vd && vd[k], p = null;
      if ((m !== "equiv" && m !== "verdict") || !d || !d[1]) return;
      try { p = JSON.parse(d[1]).proof; } catch (e) { return; }
      if (!p || typeof p !== "object") return;
      var obl = Array.isArray(p.obligations) ? p.obligations : [];
      var pairs = (Array.isArray(p.bijection) ? p.bijection : []).map(function (b) { return b.q1 + " = " + b.q2 + " (" + b.table + ")"; });
      h += '<div class="proof"><h3>proof (' + esc(m) + ")</h3><div class=\"muted\">" + esc(p.method) + " &middot; " + plural(obl.length, "SMT obligation") + " &middot; re-check: sqljudge equiv check</div><ol>" +
        stepsHTML("q1", p.q1_steps) + stepsHTML("q2", p.q2_steps) + "</ol>" +
        (p.normal_forms ? '<div class="muted">normal forms</div>' + clampPre((p.normal_forms.q1 || "") + "\n" + (p.normal_forms.q2 || "")) : "") +
        (pairs.length ? '<div class="muted">tables paired: ' + esc(pairs.join(", ")) + "</div>" : "") +
        obl.map(function (o) { return '<div class="muted">obligation (expected ' + esc(o.expect) + "): " + esc(o.name) + "</div>"; }).join("") + "</div>";
    });
    return h;
  };
  // The verdict first: per metric correct or not, and what equiv or the
  // escalation decided (proved, bounded, refuted and on what, by which
  // step), read from the facets and details.
  var fieldsOf = function (vd, k) {
    var d = vd && vd[k];
    if (!d || !d[1]) return {};
    try { return JSON.parse(d[1]) || {}; } catch (e) { return {}; }
  };
  var verdictFirstHTML = function (name, vs, vd, fac) {
    var h = '<div class="vfirst"><h3>verdict' + (cmp ? " &middot; " + esc(name) : "") + "</h3>";
    M.forEach(function (m, k) {
      var v = verdict(vs, k);
      if (!v) return;
      var f = fac && fac[k], d = fieldsOf(vd, k), parts = [];
      if (f && f[0]) {
        var o = OUTCOME[f[0]] || f[0];
        if (f[0] === "inequivalent") o += f[1] && f[1] !== "no_witness" ? ": a witness database, resting on " + f[1] : ": the item's database tells them apart";
        if (f[0] === "equivalent_bounded" && d.databases) o += " among " + plural(d.databases, "database");
        if (f[0] === "equivalent_proved") o += " equivalent on every database";
        parts.push(o);
      }
      if (f && f[2]) parts.push("decided by " + f[2]);
      if (d.assume || (f && f[0] && m === "equiv")) parts.push("assume " + (d.assume || "declared"));
      h += '<div data-verdict="' + esc(m) + '">' + badge(v, "") + " <b>" + esc(m) + "</b> " + (v.correct ? "correct" : v.status === "ok" ? "wrong" : esc(v.status)) +
        (parts.length ? ' <span class="step">&mdash; ' + esc(parts.join("; ")) + "</span>" : "") + "</div>";
    });
    return h + "</div>";
  };
  var hazardsHTML = function (hz) {
    if (!hz) return "";
    return '<div class="hazards"><h3>gold hazards (eval --audit)</h3><ul>' + hz.map(function (p) {
      return "<li><b>" + esc(p[0]) + "</b>: " + esc(p[1]) + "</li>";
    }).join("") + "</ul></div>";
  };
  var runPanel = function (name, pred, vs, vd, s) {
    return '<div class="panel"><h3>prediction' + (cmp ? " &middot; " + esc(name) : "") + "</h3>" + clampPre(pred) + verdictsHTML(vs, vd) + witnessHTML(vd) + proofHTML(vd) + sampleHTML(s) + "</div>";
  };
  var openItem = function (k, focus) {
    openK = k;
    var it = items[k];
    var h = '<div class="dhead"><b>item #' + it[IDX] + '</b><span>id <code class="item-id">' + esc(it[ID]) + "</code></span><span>db_id <code>" + esc(it[DB]) + "</code></span>" +
      (it[LVL] >= 0 ? "<span>difficulty " + esc(D.levels[it[LVL]]) + "</span>" : "") +
      (it[CAT] >= 0 ? "<span>category " + esc(D.categories[it[CAT]]) + "</span>" : "") +
      '<button type="button" class="close" title="close (Esc)">close</button></div>';
    var vf = verdictFirstHTML(D.runs[0], it[V], it[VD], it[FAC]);
    if (cmp) vf = '<div class="two">' + vf + (it[CMP] ? verdictFirstHTML(D.runs[1], it[CMP][1], it[CMP][2], null) : "<div></div>") + "</div>";
    h += vf + hazardsHTML(it[HAZ]);
    if (it[Q]) h += '<div class="panel"><h3>question</h3><div>' + esc(it[Q]) + "</div>" + (it[EV] ? '<div class="muted">evidence: ' + esc(it[EV]) + "</div>" : "") + "</div>";
    h += '<div class="panel"><h3>gold</h3>' + clampPre(it[GOLD]) + "</div>";
    var a = runPanel(D.runs[0], it[PRED], it[V], it[VD], it[SMP]);
    if (cmp) {
      var c = it[CMP];
      h += '<div class="two">' + a + (c ? runPanel(D.runs[1], c[0], c[1], c[2], c[3]) : '<div class="panel muted">not in ' + esc(D.runs[1]) + "</div>") + "</div>";
    } else h += a;
    detail.innerHTML = h;
    detail.hidden = false;
    detail.scrollTop = 0;
    rendered = null; render(); writeHash();
    if (focus) detail.focus();
  };
  var closeItem = function () {
    var k = openK;
    openK = -1; detail.hidden = true; rendered = null; render(); writeHash();
    var row = list.querySelector('.item[data-index="' + (k >= 0 ? items[k][IDX] : -1) + '"]');
    if (row) row.focus();
  };
  detail.addEventListener("click", function (e) {
    var t = e.target;
    if (t.closest(".close")) { closeItem(); return; }
    if (t.classList.contains("more")) {
      var pre = t.previousElementSibling;
      var clamped = pre.classList.toggle("clamped");
      t.textContent = clamped ? "show all" : "show less";
      return;
    }
    var td = t.closest("td.cut");
    if (td) td.classList.toggle("full");
  });

  // Rows open on click, Enter or Space; arrow keys move between rows.
  var posOf = function (el) { return +el.getAttribute("data-pos"); };
  list.addEventListener("click", function (e) {
    var row = e.target.closest(".item");
    if (row) openItem(shown[posOf(row)], false);
  });
  var focusPos = function (p) {
    if (p < 0 || p >= shown.length) return;
    var y = list.getBoundingClientRect().top + p * ROW;
    if (y < 60) window.scrollBy(0, y - 60);
    else if (y + ROW > window.innerHeight) window.scrollBy(0, y + ROW - window.innerHeight);
    render();
    var row = list.querySelector('.item[data-pos="' + p + '"]');
    if (row) row.focus();
  };
  list.addEventListener("keydown", function (e) {
    var row = e.target.closest(".item");
    if (!row) return;
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); openItem(shown[posOf(row)], false); }
    else if (e.key === "ArrowDown") { e.preventDefault(); focusPos(posOf(row) + 1); }
    else if (e.key === "ArrowUp") { e.preventDefault(); focusPos(posOf(row) - 1); }
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && !detail.hidden) closeItem();
  });

  // The fragment holds the filters and the open item.
  var writeHash = function () {
    var parts = [];
    Object.keys(ids).forEach(function (k) {
      var e = $(ids[k]);
      if (!e) return;
      var v = k === "status" && e.value.indexOf("s:") === 0 ? bareStatus(e.value.slice(2)) : e.value;
      if (e.value !== dflt(k)) parts.push(k + "=" + encodeURIComponent(v));
    });
    if (openK >= 0) parts.push("open=" + items[openK][IDX]);
    var h = parts.length ? "#" + parts.join("&") : "";
    if (h !== location.hash) history.replaceState(null, "", h || location.pathname + location.search);
  };
  // A status is written bare (status=pred_error) where no other status
  // option has that name, and read bare or as the select's "s:" value.
  var bareStatus = function (s) { return s === "any" || s === "correct" || s === "wrong" ? "s:" + s : s; };
  var readHash = function () {
    var open = null;
    (location.hash || "").slice(1).split("&").forEach(function (p) {
      if (!p) return;
      var eq = p.indexOf("="), k = decodeURIComponent(eq < 0 ? p : p.slice(0, eq)), v = eq < 0 ? "" : decodeURIComponent(p.slice(eq + 1));
      if (k === "status" && ST.indexOf(v) >= 0 && bareStatus(v) === v) v = "s:" + v;
      if (k === "open") open = v;
      else if (ids[k] && $(ids[k])) $(ids[k]).value = v;
    });
    return open;
  };
  Object.keys(ids).forEach(function (k) {
    var e = $(ids[k]);
    if (e) e.addEventListener("input", function () { filter(); writeHash(); });
  });
  window.addEventListener("hashchange", function () {
    var o = readHash();
    filter();
    if (o === null && openK >= 0) closeItem();
  });
  var open = readHash();
  filter();
  if (open !== null) {
    for (var k = 0; k < items.length; k++) {
      if (String(items[k][IDX]) === open) { openItem(k, false); break; }
    }
  }
  setTimeout(idleHay, 0);
  window.sjReadyAt = performance.now();
  document.documentElement.setAttribute("data-ready", "1");
})();

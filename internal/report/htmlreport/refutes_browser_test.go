package htmlreport_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sqljudge/sqljudge/internal/eval"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/report/htmlreport"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/status"
)

// auditedEquivRun grades the items [from, to) of the committed Spider
// subset (DIN-SQL's predictions) with ex and equiv under eval --audit, and
// loads the run.
func auditedEquivRun(t *testing.T, from, to int) *htmlreport.Run {
	t.Helper()
	spider := shareddata.SubsetPath(t, "spider")
	dir := t.TempDir()
	head := func(src, dst string) {
		f, err := os.Open(src)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var lines []string
		for i, sc := 0, bufio.NewScanner(f); sc.Scan() && i < to; i++ {
			if i >= from {
				lines = append(lines, sc.Text())
			}
		}
		if err := os.WriteFile(dst, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gold, pred := filepath.Join(dir, "gold.sql"), filepath.Join(dir, "pred.sql")
	head(filepath.Join(spider, "dev_gold.sql"), gold)
	head(filepath.Join(spider, "predictions", "din_sql.sql"), pred)
	out := filepath.Join(dir, "run")
	_, err := eval.Run(context.Background(), eval.Options{
		Gold: gold, Pred: pred, DB: filepath.Join(spider, "database"), Out: out, Audit: true,
		Metrics: []string{"ex", "equiv"}, Timeout: 30 * time.Second, Workers: 2, MaxRows: 1 << 20, MaxBytes: 1 << 30,
		Settings: metric.Options{TS: metric.TSOptions{MaxPlug: 1000}, VES: metric.VESOptions{Repeats: 1}, Equiv: metric.EquivOptions{Seed: 1, Budget: time.Minute, MaxDatabases: 300}},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := htmlreport.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRefutationsInBrowser drives the page of an ex+equiv run with
// --audit (the Spider subset's items 90 to 139, car_1's) in headless
// Chromium:
// the header and the score table name equiv's assumption; the table of
// equiv on the items ex calls correct counts them as the records do, by
// what each refutation rests on, and each count's link shows that many
// items; the gold audit's table counts ex's wrong verdicts on hazardous
// golds and links to them; the filters by equiv verdict and hazard count
// as the records do; the item view shows the verdict first (before the
// question) and the witness's rows before its SQL.
func TestRefutationsInBrowser(t *testing.T) {
	ctx := browser(t)
	r := auditedEquivRun(t, 90, 170) // 166: a proof up to ties
	url := writePage(t, r, htmlreport.Options{})
	load(ctx, t, url)

	if h := evalString(ctx, t, `document.getElementById("assume").textContent`); !strings.Contains(h, "equiv assumes declared constraints") {
		t.Errorf("header: %q", h)
	}
	if h := evalString(ctx, t, `document.querySelector("#summary tr").textContent`); !strings.Contains(h, "equiv (assume declared)") {
		t.Errorf("score table header: %q", h)
	}

	// The records' own counts.
	correct, refuted, proved, accepted, exWrong, onHazard := 0, 0, 0, 0, 0, 0
	upToTies := 0
	rests := map[string]int{}
	var refutedItem = -1
	for _, rec := range r.Records {
		ex, eq := rec.Verdicts["ex"], rec.Verdicts["equiv"]
		if !ex.Correct {
			exWrong++
			if len(rec.GoldHazards) > 0 {
				onHazard++
			}
			if eq.Correct {
				accepted++
			}
			continue
		}
		correct++
		if eq.Details != nil && eq.Details.Numbers()["proved"] == 1 {
			proved++
			if eq.Details.Numbers()["proved_up_to_ties"] == 1 {
				upToTies++
			}
		}
		if !eq.Correct && eq.Status == status.OK {
			refuted++
			rests[report.RestsOnKey(eq.Details.(metric.Refutation).RestsOn())]++
			if refutedItem < 0 && len(eq.Details.(metric.Refutation).RestsOn()) > 0 {
				refutedItem = rec.Index
			}
		}
	}
	if refuted == 0 || onHazard == 0 || refutedItem < 0 {
		t.Fatalf("the run has %d refutations of ex-correct items, %d ex-wrong items on hazards: the test needs both", refuted, onHazard)
	}
	cell := func(sel string) string {
		return evalString(ctx, t, `(function () { var e = document.querySelector(`+"`"+sel+"`"+`); return e ? e.textContent : "missing"; })()`)
	}
	for sel, want := range map[string]int{
		`#refutes-ex tr.total td`: correct, `#refutes-ex tr[data-row="refuted"] td`: refuted,
		`#refutes-ex tr[data-row="proved"] td`: proved, `#refutes-ex tr[data-row="accepted"] td`: accepted,
		`#hazard-wrong tr[data-hazard-metric="ex"] td:nth-of-type(1)`: exWrong, `#hazard-wrong tr[data-hazard-metric="ex"] td:nth-of-type(2)`: onHazard,
	} {
		if got := cell(sel); got != fmt.Sprint(want) {
			t.Errorf("%s: %q, want %d", sel, got, want)
		}
	}
	// The row of proofs up to ties shows only when there are some.
	wantTies := "missing"
	if upToTies > 0 {
		wantTies = fmt.Sprint(upToTies)
	}
	if got := cell(`#refutes-ex tr[data-row="ties"] td`); got != wantTies {
		t.Errorf("proofs up to ties: %q, want %s", got, wantTies)
	}
	for k, n := range rests {
		label := k
		if k == report.NoWitness {
			label = "no witness (the item's database)"
		}
		if got := cell(`#refutes-ex tr[data-rests="` + label + `"] td`); got != fmt.Sprint(n) {
			t.Errorf("rests on %s: %q, want %d", k, got, n)
		}
	}
	// Every count links to as many items.
	links := evalString(ctx, t, `Array.from(document.querySelectorAll("#refutes-ex a, #hazard-wrong a")).map(function (a) { return a.getAttribute("href") + " " + a.textContent; }).join("\n")`)
	for _, l := range strings.Split(links, "\n") {
		href, text, _ := strings.Cut(l, " ")
		n := strings.TrimSpace(text)
		if i := strings.LastIndex(n, " "); i >= 0 {
			n = n[i+1:] // "limit_ties 3"
		}
		load(ctx, t, url+href)
		if got := shownCount(ctx, t); !strings.HasPrefix(got, n+" of ") {
			t.Errorf("%s (%s): %q", href, text, got)
		}
	}
	load(ctx, t, url+"#outcome=equiv%3Aequivalent_proved")
	if got, want := shownCount(ctx, t), countItems(r, func(rec run.Record) bool {
		d := rec.Verdicts["equiv"].Details
		return d != nil && d.Numbers()["proved"] == 1
	}); !strings.HasPrefix(got, fmt.Sprint(want)+" of ") {
		t.Errorf("equiv verdict proved: %q, want %d", got, want)
	}
	load(ctx, t, url+"#hazard=none")
	if got, want := shownCount(ctx, t), countItems(r, func(rec run.Record) bool { return len(rec.GoldHazards) == 0 }); !strings.HasPrefix(got, fmt.Sprint(want)+" of ") {
		t.Errorf("no hazard: %q, want %d", got, want)
	}

	// The item view: the verdict first, the witness's rows before its SQL.
	load(ctx, t, url+fmt.Sprintf("#open=%d", refutedItem))
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#detail .witness"))); err != nil {
		t.Fatal(err)
	}
	order := evalString(ctx, t, `(function () {
  var d = document.getElementById("detail"), vf = d.querySelector(".vfirst"), q = d.querySelector(".panel");
  var w = d.querySelector(".witness"), rows = w.querySelector("table"), sql = w.querySelector("pre");
  var before = function (a, b) { return !!(a && b && (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING)); };
  return [before(vf, q), before(rows, sql), vf.querySelector('[data-verdict="equiv"]').textContent].join("|");
})()`)
	if parts := strings.SplitN(order, "|", 3); len(parts) != 3 || parts[0] != "true" || parts[1] != "true" || !strings.Contains(parts[2], "refuted: a witness database, resting on") || !strings.Contains(parts[2], "assume declared") {
		t.Errorf("item view: verdict first %q", order)
	}
}

// countItems counts the records for which f holds.
func countItems(r *htmlreport.Run, f func(run.Record) bool) int {
	n := 0
	for _, rec := range r.Records {
		if f(rec) {
			n++
		}
	}
	return n
}

package htmlreport_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sqljudge/sqljudge/internal/eval"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/report/htmlreport"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestProofInBrowser grades one Spider item with equiv: the prediction
// counts an INTEGER PRIMARY KEY (which SQLite keeps from NULL) where the
// gold counts rows, which the prover proves (count_star, relying on
// not_null); the item view must list the proof's steps, the fact and the
// normal forms, as escaped text.
func TestProofInBrowser(t *testing.T) {
	ctx := browser(t)
	dir := t.TempDir()
	gold, pred := filepath.Join(dir, "gold.sql"), filepath.Join(dir, "pred.sql")
	if err := os.WriteFile(gold, []byte("SELECT count(*) FROM car_makers WHERE maker = '<b>France</b>'\tcar_1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pred, []byte("SELECT COUNT(Id) FROM car_makers AS m WHERE m.Maker = '<b>France</b>'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	_, err := eval.Run(context.Background(), eval.Options{
		Gold: gold, Pred: pred, DB: shareddata.SubsetPath(t, "spider", "database"), Out: out,
		Metrics: []string{"equiv"}, Timeout: 30 * time.Second, Workers: 1, MaxRows: 1 << 20, MaxBytes: 1 << 30,
		Settings: metric.Options{TS: metric.TSOptions{MaxPlug: 1000}, VES: metric.VESOptions{Repeats: 1}, Equiv: metric.EquivOptions{Seed: 1, Budget: 5 * time.Second, MaxDatabases: 300}},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := htmlreport.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Records[0].Verdicts["equiv"]; !v.Correct {
		t.Fatalf("equiv %+v: want correct", v)
	}
	load(ctx, t, writePage(t, r, htmlreport.Options{})+"#open=0")
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#detail .proof"))); err != nil {
		t.Fatal(err)
	}
	p := evalString(ctx, t, `document.querySelector("#detail .proof").textContent`)
	for _, s := range []string{"proof (equiv)", "normal_form", "q2 step 2: count_star", "relies on not_null car_makers.Id", "SELECT count(*) FROM car_makers AS b1", "tables paired: a1 = b1 (car_makers)", "'<b>France</b>'"} {
		if !strings.Contains(p, s) {
			t.Errorf("proof section lacks %q:\n%s", s, p)
		}
	}
	if n := evalString(ctx, t, `String(document.querySelectorAll("#detail .proof a, #detail .proof b").length)`); n != "0" {
		t.Errorf("the proof section holds %s links or markup from the record", n)
	}
}

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

// TestWitnessInBrowser grades one Spider item with ex and equiv: the
// prediction "age > 35" returns the gold's singers on concert_singer, so
// ex accepts it, but equiv finds a witness database; the item view must
// show a witness section with its SQL and both results (gold / q1,
// prediction / q2).
func TestWitnessInBrowser(t *testing.T) {
	ctx := browser(t)
	dir := t.TempDir()
	gold, pred := filepath.Join(dir, "gold.sql"), filepath.Join(dir, "pred.sql")
	if err := os.WriteFile(gold, []byte("SELECT name FROM singer WHERE age > 40\tconcert_singer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pred, []byte("SELECT name FROM singer WHERE age > 35\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	_, err := eval.Run(context.Background(), eval.Options{
		Gold: gold, Pred: pred, DB: shareddata.SubsetPath(t, "spider", "database"), Out: out,
		Metrics: []string{"ex", "equiv"}, Timeout: 30 * time.Second, Workers: 1, MaxRows: 1 << 20, MaxBytes: 1 << 30,
		Settings: metric.Options{TS: metric.TSOptions{MaxPlug: 1000}, VES: metric.VESOptions{Repeats: 1}, Equiv: metric.EquivOptions{Seed: 1, Budget: 5 * time.Second, MaxDatabases: 300}},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := htmlreport.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Records[0].Verdicts; !v["ex"].Correct || v["equiv"].Correct {
		t.Fatalf("verdicts %+v: want ex correct, equiv wrong", v)
	}
	load(ctx, t, writePage(t, r, htmlreport.Options{})+"#open=0")
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#detail .witness"))); err != nil {
		t.Fatal(err)
	}
	w := evalString(ctx, t, `document.querySelector("#detail .witness").textContent`)
	for _, s := range []string{"witness (equiv)", "INSERT", "gold / q1 (Name): 0 rows", "prediction / q2 (Name): 1 row", "the witness database: 1 row"} {
		if !strings.Contains(w, s) {
			t.Errorf("witness section lacks %q:\n%s", s, w)
		}
	}
}

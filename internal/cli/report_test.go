package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/report/htmlreport"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func nodeText(n *html.Node) string {
	var b strings.Builder
	walk(n, func(x *html.Node) {
		if x.Type == html.TextNode {
			b.WriteString(x.Data)
		}
	})
	return b.String()
}

func nextElement(n *html.Node) *html.Node {
	for s := n.NextSibling; s != nil; s = s.NextSibling {
		if s.Type == html.ElementNode {
			return s
		}
	}
	return nil
}

func parsePage(t *testing.T, path string) *html.Node {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := html.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestHTMLReport checks the page eval writes for DIN-SQL's Spider dev
// predictions (ex and em by hardness) and the page report --compare
// writes against C3's: self-contained, summary cells equal to
// summary.json, one item per record in the page's blob with its verdicts
// and result sample.
func TestHTMLReport(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
	tmp := t.TempDir()
	outs := map[string]string{}
	for _, sys := range []string{"din_sql", "c3"} {
		outs[sys] = filepath.Join(tmp, sys)
		code, stdout, stderr := runMain(t, "eval",
			"--gold", filepath.Join(spider, "dev_gold.sql"),
			"--pred", filepath.Join(spider, "predictions", sys+".sql"),
			"--db", filepath.Join(spider, "database"),
			"--tables", filepath.Join(spider, "tables.json"),
			"--metrics", "ex,em", "--progress", "never", "--out", outs[sys])
		if code != ExitOK {
			t.Fatalf("eval %s: exit %d\n%s\n%s", sys, code, stdout, stderr)
		}
	}
	main, err := htmlreport.Load(outs["din_sql"])
	if err != nil {
		t.Fatal(err)
	}
	other, err := htmlreport.Load(outs["c3"])
	if err != nil {
		t.Fatal(err)
	}
	doc := parsePage(t, filepath.Join(outs["din_sql"], htmlreport.File))
	checkPage(t, doc, main, nil)

	cmpPath := filepath.Join(tmp, "cmp.html")
	code, stdout, stderr := runMain(t, "report", outs["din_sql"], "--compare", outs["c3"], "--db", filepath.Join(spider, "database"), "--html", cmpPath)
	if code != ExitOK || !strings.Contains(stdout, "easy") {
		t.Fatalf("report: exit %d\n%s\n%s", code, stdout, stderr)
	}
	cmpDoc := parsePage(t, cmpPath)
	checkPage(t, cmpDoc, main, other)
	c, err := report.CompareRuns(main.Records, other.Records, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range c.Metrics {
		var row *html.Node
		walk(cmpDoc, func(n *html.Node) {
			if v, ok := attr(n, "data-compare-metric"); ok && v == m.Metric {
				row = n
			}
		})
		if row == nil {
			t.Errorf("the page has no comparison row for %s", m.Metric)
			continue
		}
		want := fmt.Sprintf("%.4f%.4f%+.4f [%+.4f, %+.4f]%.3g%d%d", m.AccuracyA, m.AccuracyB, m.Diff.Value, m.Diff.CI.Lo, m.Diff.CI.Hi, m.McNemarP, m.OnlyA, m.OnlyB)
		var got strings.Builder
		for td := row.FirstChild; td != nil; td = td.NextSibling {
			if td.Type == html.ElementNode && td.Data == "td" && td != row.FirstChild.NextSibling {
				got.WriteString(nodeText(td))
			}
		}
		if g := strings.ReplaceAll(got.String(), " ", ""); g != strings.ReplaceAll(want, " ", "") {
			t.Errorf("comparison row %s: %q, want %q", m.Metric, g, want)
		}
	}

	if code, _, stderr := runMain(t, "report", filepath.Join(tmp, "nowhere"), "--html", cmpPath); code != ExitUsage || !strings.Contains(stderr, "no finished run") {
		t.Errorf("report of a missing folder: exit %d %s", code, stderr)
	}
}

// pageBlob is the page's JSON blob (htmlreport's pageData).
type pageBlob struct {
	Runs       []string            `json:"runs"`
	Metrics    []string            `json:"metrics"`
	Statuses   []string            `json:"statuses"`
	Levels     []string            `json:"levels"`
	Categories []string            `json:"categories"`
	Items      [][]json.RawMessage `json:"items"`
}

// readBlob decodes the page's <script id="sj-data"> blob.
func readBlob(t *testing.T, doc *html.Node) *pageBlob {
	t.Helper()
	var b *pageBlob
	walk(doc, func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "script" && attrOr(n, "id") == "sj-data" {
			b = &pageBlob{}
			if err := json.Unmarshal([]byte(nodeText(n)), b); err != nil {
				t.Fatalf("sj-data: %v", err)
			}
		}
	})
	if b == nil {
		t.Fatal("the page has no sj-data blob")
	}
	return b
}

// blobVerdict is the status and correctness of metric m in an item's
// verdicts array ("" when the item has none).
func blobVerdict(t *testing.T, b *pageBlob, raw json.RawMessage, m int) (string, bool) {
	t.Helper()
	var vs []int
	if err := json.Unmarshal(raw, &vs); err != nil || len(vs) != len(b.Metrics) {
		t.Fatalf("verdicts %s: %v", raw, err)
	}
	if vs[m] < 0 {
		return "", false
	}
	return b.Statuses[vs[m]>>1], vs[m]&1 == 1
}

func blobString(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return s
}

func checkPage(t *testing.T, doc *html.Node, main, other *htmlreport.Run) {
	t.Helper()
	sum := main.Summary
	cells := map[string]*html.Node{}
	cmpCells := map[string]*html.Node{}
	var external []string
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		for _, a := range n.Attr {
			if (a.Key == "src" || a.Key == "href") && !strings.HasPrefix(a.Val, "#") {
				external = append(external, n.Data+" "+a.Key+"="+a.Val)
			}
		}
		if n.Data == "link" || (n.Data == "script" && n.FirstChild == nil) {
			external = append(external, "<"+n.Data+">")
		}
		if n.Data == "style" && strings.Contains(nodeText(n), "url(") {
			external = append(external, "url() in <style>")
		}
		if s, ok := attr(n, "style"); ok && strings.Contains(s, "url(") {
			external = append(external, "url() in a style attribute")
		}
		if m, ok := attr(n, "data-metric"); ok {
			d, _ := attr(n, "data-difficulty")
			if cells[m+"/"+d] != nil {
				t.Errorf("two summary cells for %s/%s", m, d)
			}
			cells[m+"/"+d] = n
		}
		if m, ok := attr(n, "data-cmp-metric"); ok {
			d, _ := attr(n, "data-cmp-difficulty")
			cmpCells[m+"/"+d] = n
		}
		if _, ok := attr(n, "data-index"); ok {
			t.Errorf("<%s> has data-index in the page as written: rows are rendered by the script from the blob", n.Data)
		}
	})
	if len(external) > 0 {
		t.Errorf("the page loads from elsewhere: %v", external)
	}
	checkCells := func(s *report.Summary, cells map[string]*html.Node, what string) {
		t.Helper()
		n := 0
		for _, l := range append([]string{report.All}, s.Difficulties...) {
			scores := s.Overall
			if l != report.All {
				scores = s.ByDifficulty[l]
			}
			for _, m := range s.Metrics {
				sc := scores[m]
				c := cells[m+"/"+l]
				if c == nil {
					t.Errorf("%s: no summary cell for %s/%s", what, m, l)
					continue
				}
				n++
				want := fmt.Sprintf("%.4f (%d/%d)", sc.Accuracy, sc.Correct, sc.Count)
				if got := strings.TrimSpace(nodeText(c)); got != want {
					t.Errorf("%s: cell %s/%s shows %q, summary.json says %q", what, m, l, got, want)
				}
				if acc, ok := attr(c, "data-accuracy"); ok && acc != fmt.Sprint(sc.Accuracy) {
					t.Errorf("%s: cell %s/%s data-accuracy %s, summary.json %v", what, m, l, acc, sc.Accuracy)
				}
			}
		}
		if n != len(cells) || n != 2*5 {
			t.Errorf("%s: %d summary cells checked of %d; want 10 (ex, em x all + 4 levels)", what, n, len(cells))
		}
	}
	checkCells(sum, cells, main.Dir)
	if other != nil {
		checkCells(other.Summary, cmpCells, other.Dir)
	}
	checkBlob(t, readBlob(t, doc), main, other)
	for _, id := range []string{"f-metric", "f-status", "f-diff", "f-text", "list", "detail"} {
		var el *html.Node
		walk(doc, func(n *html.Node) {
			if v, _ := attr(n, "id"); v == id {
				el = n
			}
		})
		if el == nil {
			t.Errorf("no element #%s", id)
		}
	}
}

// checkBlob checks the page's items against the records: one per record
// in order, with its index, difficulty, gold, prediction and verdicts, a
// result sample for each wrong ex result, and the compared run's
// prediction and verdicts.
func checkBlob(t *testing.T, b *pageBlob, main, other *htmlreport.Run) {
	t.Helper()
	if len(b.Items) != len(main.Records) || len(b.Items) != shareddata.SubsetItems {
		t.Fatalf("%d items in the blob, want %d", len(b.Items), len(main.Records))
	}
	byIndex := map[int]run.Record{}
	if other != nil {
		for _, r := range other.Records {
			byIndex[r.Index] = r
		}
	}
	diffs, differs := 0, 0
	for k, rec := range main.Records {
		it := b.Items[k]
		var idx, lvl int
		if json.Unmarshal(it[0], &idx) != nil || idx != rec.Index || json.Unmarshal(it[3], &lvl) != nil {
			t.Fatalf("item %d: index %s, level %s", k, it[0], it[3])
		}
		if lvl < 0 || b.Levels[lvl] != rec.Difficulty {
			t.Errorf("item %d: level %d, record %q", rec.Index, lvl, rec.Difficulty)
		}
		if blobString(t, it[7]) != rec.Gold || blobString(t, it[8]) != rec.Pred {
			t.Errorf("item %d lacks the gold or the prediction", rec.Index)
		}
		for m, name := range b.Metrics {
			st, ok := blobVerdict(t, b, it[9], m)
			if v := rec.Verdicts[name]; st != string(v.Status) || ok != v.Correct {
				t.Errorf("item %d %s: page %s/%v, record %+v", rec.Index, name, st, ok, v)
			}
		}
		ex := rec.Verdicts["ex"]
		if !ex.Correct && ex.Status == "ok" {
			if string(it[11]) == "null" {
				t.Errorf("item %d (wrong result) has no result sample", rec.Index)
			}
			diffs++
		}
		if other != nil {
			o := byIndex[rec.Index]
			var c []json.RawMessage
			if err := json.Unmarshal(it[12], &c); err != nil || len(c) != 4 || blobString(t, c[0]) != o.Pred {
				t.Fatalf("item %d: compared run %s", rec.Index, it[12])
			}
			if _, ok := blobVerdict(t, b, c[1], 0); ok != o.Verdicts["ex"].Correct {
				t.Errorf("item %d: compared ex %v, record %v", rec.Index, ok, o.Verdicts["ex"].Correct)
			}
			if o.Verdicts["ex"].Correct != ex.Correct {
				differs++
			}
		}
	}
	if diffs == 0 || (other != nil && differs == 0) {
		t.Errorf("%d wrong results with a diff, %d items differing between runs", diffs, differs)
	}
}

func attrOr(n *html.Node, key string) string { v, _ := attr(n, key); return v }

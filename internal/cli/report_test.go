package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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
// summary.json, one data-index row per item with its drill-down.
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
	checkPage(t, parsePage(t, cmpPath), main, other)

	if code, _, stderr := runMain(t, "report", filepath.Join(tmp, "nowhere"), "--html", cmpPath); code != ExitUsage || !strings.Contains(stderr, "no finished run") {
		t.Errorf("report of a missing folder: exit %d %s", code, stderr)
	}
}

func checkPage(t *testing.T, doc *html.Node, main, other *htmlreport.Run) {
	t.Helper()
	sum := main.Summary
	cells := map[string]*html.Node{}
	cmpCells := map[string]*html.Node{}
	rows := map[int]*html.Node{}
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
		if v, ok := attr(n, "data-index"); ok {
			i, err := strconv.Atoi(v)
			if err != nil || n.Data != "tr" || !strings.Contains(attrOr(n, "class"), "item") {
				t.Fatalf("data-index=%q on <%s class=%q>", v, n.Data, attrOr(n, "class"))
			}
			if _, hidden := attr(n, "hidden"); hidden {
				t.Errorf("row %d is hidden when the page loads", i)
			}
			if rows[i] != nil {
				t.Errorf("two rows with data-index %d", i)
			}
			rows[i] = n
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
	if len(rows) != len(main.Records) || len(rows) != shareddata.SubsetItems {
		t.Fatalf("%d item rows, want %d", len(rows), len(main.Records))
	}
	byIndex := map[int]run.Record{}
	if other != nil {
		for _, r := range other.Records {
			byIndex[r.Index] = r
		}
	}
	diffs, differs := 0, 0
	for _, rec := range main.Records {
		tr := rows[rec.Index]
		if tr == nil {
			t.Fatalf("no row for item %d", rec.Index)
		}
		if d, _ := attr(tr, "data-difficulty"); d != rec.Difficulty {
			t.Errorf("row %d: difficulty %q, record %q", rec.Index, d, rec.Difficulty)
		}
		det := nextElement(tr)
		if det == nil || attrOr(det, "class") != "detail" {
			t.Fatalf("row %d has no drill-down row after it", rec.Index)
		}
		body := nodeText(det)
		if !strings.Contains(body, rec.Gold) || !strings.Contains(body, rec.Pred) {
			t.Errorf("drill-down %d lacks the gold or the prediction", rec.Index)
		}
		ex := rec.Verdicts["ex"]
		if !ex.Correct && ex.Status == "ok" {
			hasDiff := false
			walk(det, func(n *html.Node) {
				if n.Type == html.ElementNode && n.Data == "table" && attrOr(n, "class") == "diff" {
					hasDiff = true
				}
			})
			if !hasDiff {
				t.Errorf("drill-down %d (wrong result) has no result diff", rec.Index)
			}
			diffs++
		}
		if other != nil {
			o := byIndex[rec.Index]
			want := o.Verdicts["ex"].Correct != ex.Correct || o.Verdicts["em"].Correct != rec.Verdicts["em"].Correct
			if _, got := attr(tr, "data-differs"); got != want {
				t.Errorf("row %d: data-differs %v, want %v", rec.Index, got, want)
			}
			if want {
				differs++
				if !strings.Contains(body, o.Pred) {
					t.Errorf("drill-down %d lacks the compared run's prediction", rec.Index)
				}
			}
		}
	}
	if diffs == 0 || (other != nil && differs == 0) {
		t.Errorf("%d wrong results with a diff, %d items differing between runs", diffs, differs)
	}
	for _, id := range []string{"f-metric", "f-status", "f-diff"} {
		var sel *html.Node
		walk(doc, func(n *html.Node) {
			if v, _ := attr(n, "id"); v == id {
				sel = n
			}
		})
		if sel == nil {
			t.Errorf("no filter %s", id)
		}
	}
}

func attrOr(n *html.Node, key string) string { v, _ := attr(n, key); return v }

package spider_test

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/sqlast/spider"
)

// TestTableMatchesOfficialPrint asserts that Table aggregates the c3
// predictions' grades into the table the official evaluator prints
// (testdata/official_match_table_c3.txt: evaluation.evaluate with --etype
// match on dev_gold.sql and predictions/c3.sql, printed to 3 decimals).
func TestTableMatchesOfficialPrint(t *testing.T) {
	schemas, items := loadSpider(t, "c3")
	var tab spider.Table
	for _, it := range items {
		g, err := spider.GradeOfficial(schemas[it.DBID], it.Gold[0], it.Pred)
		if err != nil {
			t.Fatal(err)
		}
		tab.Add(g.Hardness, g.Exact, g.Partial)
	}
	f, err := os.Open("testdata/official_match_table_c3.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	levels := append(append([]string(nil), spider.Levels...), spider.AllLevels)
	section := ""
	comps := map[string]spider.Component{}
	for c := spider.Component(0); c < spider.NumComponents; c++ {
		comps[c.String()] = c
	}
	checked := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, "PARTIAL MATCHING ACCURACY"):
			section = "acc"
			continue
		case strings.Contains(line, "PARTIAL MATCHING RECALL"):
			section = "rec"
			continue
		case strings.Contains(line, "PARTIAL MATCHING F1"):
			section = "f1"
			continue
		case len(line) < 21 || strings.HasPrefix(line, "="):
			continue
		}
		name, fields := strings.TrimSpace(line[:21]), strings.Fields(line[21:])
		if len(fields) != len(levels) {
			continue
		}
		for i, l := range levels {
			s := tab.Level(l)
			var got string
			switch {
			case name == "count":
				got = fmt.Sprint(s.Count)
			case name == "exact match":
				got = fmt.Sprintf("%.3f", s.Exact())
			default:
				c, ok := comps[name]
				if !ok {
					continue
				}
				acc, rec, f1 := s.Partial(c)
				got = fmt.Sprintf("%.3f", map[string]float64{"acc": acc, "rec": rec, "f1": f1}[section])
			}
			if got != fields[i] {
				t.Errorf("%s %s %s: %s; official %s", section, name, l, got, fields[i])
			}
			checked++
		}
	}
	if checked != 5*(2+3*int(spider.NumComponents)) {
		t.Fatalf("checked %d cells of the official table", checked)
	}
}

package spider_test

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/sqlast/spider"
)

// TestTableMatchesOfficialPrint asserts that Table aggregates the c3
// predictions' grades into the table the official evaluator prints
// (testdata/official_match_table_c3.txt: evaluation.evaluate with --etype
// match on dev_gold.sql and predictions/c3.sql, printed to 3 decimals).
func TestTableMatchesOfficialPrint(t *testing.T) {
	schemas, items := loadSpider(t, shareddata.FullSet(t), "c3")
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

// TestTableEmptyLevel asserts that a level without items reads 0 in every
// cell, as evaluation.evaluate leaves a level whose count is 0, while a
// level whose items lack a component reads F1 1.
func TestTableEmptyLevel(t *testing.T) {
	var tab spider.Table
	var p spider.Partial
	p[spider.CompSelect] = spider.Score{Match: 1, LabelTotal: 1, PredTotal: 1}
	tab.Add(spider.Easy, true, p)
	if acc, rec, f1 := tab.Level(spider.Hard).Partial(spider.CompSelect); acc != 0 || rec != 0 || f1 != 0 {
		t.Errorf("empty level: acc %v rec %v f1 %v; want 0 0 0", acc, rec, f1)
	}
	if acc, rec, f1 := tab.Level(spider.Easy).Partial(spider.CompWhere); acc != 0 || rec != 0 || f1 != 1 {
		t.Errorf("component absent on both sides: acc %v rec %v f1 %v; want 0 0 1", acc, rec, f1)
	}
	e := tab.Level(spider.AllLevels)
	if acc, rec, f1 := e.Partial(spider.CompSelect); acc != 1 || rec != 1 || f1 != 1 || e.Count != 1 || e.Exact() != 1 {
		t.Errorf("all: count %d exact %v select %v %v %v", e.Count, e.Exact(), acc, rec, f1)
	}
	if a, r := e.Counts(spider.CompSelect); a != 1 || r != 1 {
		t.Errorf("select counts %d %d; want 1 1", a, r)
	}
}

package check

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func coverSchema() *MapSchema {
	return &MapSchema{D: SQLite, Tables: []*Table{
		{Name: "movies", Columns: []Column{{Name: "id", Family: Int, NotNull: true}, {Name: "country", Family: Text}, {Name: "score", Family: Real}},
			Keys: []Key{{Cols: []int{0}, Primary: true}}},
		{Name: "directs", Columns: []Column{{Name: "movie_id", Family: Int}, {Name: "genre", Family: Text}},
			FKs: []ForeignKey{{Cols: []int{0}, RefTable: "movies", RefCols: []int{0}}}},
	}}
}

// TestConditionCoverModels asks Z3 for every goal of a join under three
// conditions and checks the models: the goal holding puts the literals in
// the rows, a flipped goal breaks exactly its conjunct, the duplicate goal
// shares the movie row, the LIMIT goal has n + 1 distinct movies.
func TestConditionCoverModels(t *testing.T) {
	z, err := FindZ3()
	if err != nil {
		t.Skip(err)
	}
	z.RLimit = 2_000_000
	q := "SELECT count(m.id) FROM movies m JOIN directs d ON m.id = d.movie_id WHERE m.country = 'Cuba' AND d.genre = 'Wuxia' AND m.score * 3 = 122883 LIMIT 2"
	cv, err := ConditionCover(q, coverSchema(), CoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var scripts []string
	for _, g := range cv.Goals {
		names = append(names, g.Name)
		scripts = append(scripts, g.SMT)
	}
	want := "holds,duplicate t1,duplicate t2,limit 3,false 1,null 1,false 2,null 2,false 3,null 3,false 4,null 4"
	if got := strings.Join(names, ","); got != want {
		t.Fatalf("goals %s, want %s", got, want)
	}
	models, err := z.Models(context.Background(), scripts)
	if err != nil {
		t.Fatal(err)
	}
	val := func(m Model, name string) string { return m["|"+name+"|"] }
	byName := map[string]Model{}
	for i, g := range cv.Goals {
		byName[g.Name] = models[i]
	}
	holds := byName["holds"]
	if holds == nil {
		t.Fatal("no model of holds")
	}
	if val(holds, "t1.country#1") != `"Cuba"` || val(holds, "t2.genre#1") != `"Wuxia"` || val(holds, "t1.id#1") != val(holds, "t2.movie_id#1") {
		t.Errorf("holds: %v", holds)
	}
	// m.score * 3 = 122883 is arithmetic on a REAL column: the model
	// holds the one value that meets it, outside every pool of literals.
	if got := val(holds, "t1.score#1"); got != "40961.0" {
		t.Errorf("holds: score %s, want 40961.0", got)
	}
	// The flip of conjunct 2 (country) must break it.
	if m := byName["false 2"]; m == nil || val(m, "t1.country#1") == `"Cuba"` && val(m, "t1.country null#1") != "true" {
		t.Errorf("false 2: %v", m)
	}
	if m := byName["duplicate t1"]; m == nil || val(m, "t1.id#1") != val(m, "t1.id#2") || val(m, "t2.genre#2") != `"Wuxia"` {
		t.Errorf("duplicate t1: %v", m)
	}
	lim := byName["limit 3"]
	if lim == nil {
		t.Fatal("no model of limit 3")
	}
	ids := map[string]bool{}
	for _, r := range cv.Goals[3].Rows {
		if row := cv.Rows[r]; row.Table == "movies" {
			ids[lim[row.Columns[0].Value]] = true
		}
	}
	if len(ids) != 3 {
		t.Errorf("limit 3: movie ids %v", ids)
	}
}

func TestModelValues(t *testing.T) {
	if s, ok := ModelString(`"a""b\u{e9}\u{1f600}"`); !ok || s != "a\"b\u00e9\U0001f600" {
		t.Errorf("ModelString: %q %v", s, ok)
	}
	if f, ok := ModelReal("(- (/ 1.0 4.0))"); !ok || f != -0.25 {
		t.Errorf("ModelReal: %v %v", f, ok)
	}
	if n, ok := ModelInt("(- 40961)"); !ok || n != -40961 {
		t.Errorf("ModelInt: %v %v", n, ok)
	}
	m, err := parseModels("sat\n((x (- 3))\n (|a b| \"q\"))\n@end\nunsat\n(error \"model is not available\")\n@end\n", 2)
	if err != nil || m[0]["x"] != "(- 3)" || m[0]["|a b|"] != `"q"` || m[1] != nil {
		t.Errorf("parseModels: %v %v", m, err)
	}
}

// TestConditionCoverEncodesMore asks Z3 for the goals of conditions the
// prover's encoding leaves uninterpreted and ConditionCover models (on
// SQLite): a date's year, a LIKE prefix without letters, integer
// division, SUBSTR, a boundary of BETWEEN, a NULL where COUNT reads, a
// condition of the output in one row and not in another.
func TestConditionCoverEncodesMore(t *testing.T) {
	z, err := FindZ3()
	if err != nil {
		t.Skip(err)
	}
	z.RLimit = 2_000_000
	s := &MapSchema{D: SQLite, Tables: []*Table{{Name: "shows", Columns: []Column{
		{Name: "id", Family: Int, NotNull: true}, {Name: "day", Family: Other, Affinity: AffinityNumeric, Temporal: TemporalDate},
		{Name: "code", Family: Text}, {Name: "seats", Family: Int}, {Name: "city", Family: Text}},
		Keys: []Key{{Cols: []int{0}, Primary: true}}}}}
	q := "SELECT COUNT(city), SUM(IIF(city = 'Hue', 1, 0)) FROM shows WHERE STRFTIME('%Y', day) = '1997' AND day < '1997-03' AND code LIKE '12-%' AND seats / 7 = 3 AND SUBSTR(code, 4, 2) = '45' AND id BETWEEN 1000 AND 2000"
	cv, err := ConditionCover(q, s, CoverOptions{MaxGoals: 40})
	if err != nil {
		t.Fatal(err)
	}
	var scripts []string
	for _, g := range cv.Goals {
		scripts = append(scripts, g.SMT)
	}
	models, err := z.Models(context.Background(), scripts)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Model{}
	for i, g := range cv.Goals {
		byName[g.Name] = models[i]
	}
	val := func(m Model, name string) string { return m["|"+name+"|"] }
	holds := byName["holds"]
	if holds == nil {
		t.Fatalf("no model of holds; goals %v", byName)
	}
	day, _ := ModelInt(val(holds, "t1.day#1"))
	code, _ := ModelString(val(holds, "t1.code#1"))
	seats, _ := ModelInt(val(holds, "t1.seats#1"))
	if day/10000 != 1997 || day/100%100 > 2 || !strings.HasPrefix(code, "12-45") || seats/7 != 3 {
		t.Errorf("holds: day %d, code %q, seats %d", day, code, seats)
	}
	if m := byName["boundary 1"]; m == nil || val(m, "t1.id#1") != "1000" && val(m, "t1.id#1") != "2000" {
		t.Errorf("boundary 1: %v", m)
	}
	if m := byName["null aggregate 1"]; m == nil || val(m, "t1.city#1 null") != "true" {
		t.Errorf("null aggregate 1: %v", m)
	}
	m := byName["output condition 1"]
	if m == nil || val(m, "t1.city#1") != `"Hue"` || val(m, "t1.city#2") == `"Hue"` && val(m, "t1.city#2 null") != "true" {
		t.Errorf("output condition 1: %v", m)
	}
}

// TestConditionCoverSameOutput: a query whose outputs are columns gets a
// goal of two distinct rows meeting every condition with the same
// output, where SELECT and SELECT DISTINCT part (Spider dev 501).
func TestConditionCoverSameOutput(t *testing.T) {
	z, err := FindZ3()
	if err != nil {
		t.Skip(err)
	}
	q := "SELECT lang FROM movies WHERE country = 'Cuba' AND title = 'Lucia'"
	s := &MapSchema{D: SQLite, Tables: []*Table{{Name: "movies", Columns: []Column{
		{Name: "id", Family: Int, NotNull: true}, {Name: "title", Family: Text}, {Name: "country", Family: Text}, {Name: "lang", Family: Text}},
		Keys: []Key{{Cols: []int{0}, Primary: true}}}}}
	cv, err := ConditionCover(q, s, CoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range cv.Goals {
		if g.Name != "same output" {
			continue
		}
		models, err := z.Models(context.Background(), []string{g.SMT})
		if err != nil || models[0] == nil {
			t.Fatalf("no model: %v", err)
		}
		m := models[0]
		a, b := cv.Rows[g.Rows[0]], cv.Rows[g.Rows[1]]
		la, lb := a.Columns[3], b.Columns[3]
		sameLang := m[la.Null] == m[lb.Null] && (m[la.Null] == "true" || m[la.Value] == m[lb.Value])
		if m[a.Columns[0].Value] == m[b.Columns[0].Value] || !sameLang || !la.Read {
			t.Errorf("same output: rows %v", m)
		}
		return
	}
	t.Fatalf("no goal same output among %d", len(cv.Goals))
}

// TestConditionCoverGroup: a HAVING that compares aggregates with
// literals gets one group on each boundary (literature pair 51: SUM of
// the salaries exactly 100 with every salary under 75; a COUNT(*) of
// exactly 6; an AVG exactly 40 over three distinct actors), the copies the
// model leaves out flagged absent, the others sharing the movie row.
func TestConditionCoverGroup(t *testing.T) {
	z, err := FindZ3()
	if err != nil {
		t.Skip(err)
	}
	z.RLimit = 2_000_000
	s := &MapSchema{D: SQLite, Tables: []*Table{
		{Name: "movies", Columns: []Column{{Name: "id", Family: Int, NotNull: true}, {Name: "country", Family: Text}},
			Keys: []Key{{Cols: []int{0}, Primary: true}}},
		{Name: "credits", Columns: []Column{{Name: "movie_id", Family: Int}, {Name: "actor", Family: Text}, {Name: "fee", Family: Int}},
			FKs: []ForeignKey{{Cols: []int{0}, RefTable: "movies", RefCols: []int{0}}}},
	}}
	for _, c := range []struct {
		q     string
		check func(rows int, fees []int64, actors map[string]bool) bool
	}{
		{"SELECT m.id FROM movies m JOIN credits c ON m.id = c.movie_id WHERE m.country = 'Cuba' GROUP BY m.id HAVING SUM(c.fee) > 100 AND MAX(c.fee) < 75",
			func(_ int, fees []int64, _ map[string]bool) bool {
				var sum, most int64
				for _, f := range fees {
					sum, most = sum+f, max(most, f)
				}
				return sum == 100 && most < 75
			}},
		{"SELECT m.id FROM movies m JOIN credits c ON m.id = c.movie_id WHERE m.country = 'Cuba' GROUP BY m.id HAVING COUNT(*) > 6",
			func(rows int, _ []int64, _ map[string]bool) bool { return rows == 6 }},
		{"SELECT m.id FROM movies m JOIN credits c ON m.id = c.movie_id WHERE m.country = 'Cuba' GROUP BY m.id HAVING AVG(c.fee) > 40 AND COUNT(DISTINCT c.actor) >= 3",
			func(_ int, fees []int64, actors map[string]bool) bool {
				var sum int64
				for _, f := range fees {
					sum += f
				}
				return sum == 40*int64(len(fees)) && len(actors) >= 3
			}},
	} {
		cv, err := ConditionCover(c.q, s, CoverOptions{MaxGoals: 40})
		if err != nil {
			t.Fatal(err)
		}
		var g *CoverGoal
		for i := range cv.Goals {
			if cv.Goals[i].Name == "group boundary 1" {
				g = &cv.Goals[i]
			}
		}
		if g == nil {
			t.Fatalf("%s: no goal group boundary 1", c.q)
		}
		models, err := z.Models(context.Background(), []string{g.SMT})
		if err != nil || models[0] == nil {
			t.Fatalf("%s: no model (%v):\n%s", c.q, err, g.SMT)
		}
		m := models[0]
		var fees []int64
		rows := 0
		actors := map[string]bool{}
		movies := map[string]bool{}
		for _, ri := range g.Rows {
			r := cv.Rows[ri]
			if r.Present != "" && m[r.Present] != "true" {
				continue
			}
			if r.Table == "movies" {
				movies[m[r.Columns[0].Value]] = true
				continue
			}
			rows++
			if m[r.Columns[2].Null] != "true" {
				f, _ := ModelInt(m[r.Columns[2].Value])
				fees = append(fees, f)
			}
			if m[r.Columns[1].Null] != "true" {
				actors[m[r.Columns[1].Value]] = true
			}
		}
		if len(movies) != 1 || !c.check(rows, fees, actors) {
			t.Errorf("%s: movies %v, %d rows, fees %v, actors %v", c.q, movies, rows, fees, actors)
		}
	}
}

// TestConditionCoverSubqueryFrame: beside an IN subquery conjunct, the
// LIMIT goal's copies each hold a subquery row that makes the conjunct
// TRUE (frameBuild; the second IN and the output column once made the frame
// mark a column by the core's stride, out of range: C3's Spider dev item
// 60); beside a comparison with an average, the LIMIT goal's n + 1 rows
// are each above the average of the rows it counts, so a lower one is
// there too (frameBuild over scalarFrame).
func TestConditionCoverSubqueryFrame(t *testing.T) {
	z, err := FindZ3()
	if err != nil {
		t.Skip(err)
	}
	z.RLimit = 2_000_000
	goal := func(q, name string) (*Cover, CoverGoal, Model) {
		t.Helper()
		cv, err := ConditionCover(q, coverSchema(), CoverOptions{MaxGoals: 40})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, g := range cv.Goals {
			names = append(names, g.Name)
			if g.Name == name {
				models, err := z.Models(context.Background(), []string{g.SMT})
				if err != nil || models[0] == nil {
					t.Fatalf("%s: no model: %v", name, err)
				}
				return cv, g, models[0]
			}
		}
		t.Fatalf("no goal %q among %v", name, names)
		return nil, CoverGoal{}, nil
	}
	q := "SELECT m.score FROM movies m WHERE m.country = 'Cuba' AND m.id IN (SELECT d.movie_id FROM directs d WHERE d.genre = 'Wuxia') AND m.id IN (SELECT e.movie_id FROM directs e WHERE e.genre = 'Drama') LIMIT 2"
	cv, g, m := goal(q, "limit 3")
	ids := map[string]bool{}
	byCopy := map[int][]CoverRow{}
	for _, r := range g.Rows {
		byCopy[cv.Rows[r].Copy] = append(byCopy[cv.Rows[r].Copy], cv.Rows[r])
	}
	for k := 1; k <= 3; k++ {
		rows := byCopy[k]
		if len(rows) != 2 || rows[0].Table != "movies" || rows[1].Table != "directs" {
			t.Fatalf("copy %d reads back %+v, want a movie and its director row", k, rows)
		}
		mv, dr := rows[0].Columns, rows[1].Columns
		if m[mv[1].Value] != `"Cuba"` || m[dr[1].Value] != `"Wuxia"` || m[dr[0].Null] != "false" || m[dr[0].Value] != m[mv[0].Value] {
			t.Errorf("copy %d: movie %s %s, director row %s %s %s", k, m[mv[0].Value], m[mv[1].Value], m[dr[0].Null], m[dr[0].Value], m[dr[1].Value])
		}
		ids[m[mv[0].Value]] = true
	}
	if len(ids) != 3 {
		t.Errorf("movie ids %v, want 3 distinct", ids)
	}
	// The output column is marked read in each copy's movie row, not in
	// a row found by the core's stride.
	i := slices.IndexFunc(cv.Goals, func(g CoverGoal) bool { return g.Name == "same output" })
	if i < 0 {
		t.Fatal("no same output goal")
	}
	for _, r := range cv.Goals[i].Rows {
		if row := cv.Rows[r]; row.Table == "movies" && !row.Columns[2].Read {
			t.Errorf("same output: copy %d's movies.score not marked read", row.Copy)
		}
	}

	q = "SELECT m.id FROM movies m WHERE m.country = 'Cuba' AND m.score > (SELECT AVG(score) FROM movies WHERE country = 'Cuba') LIMIT 2"
	cv, g, m = goal(q, "limit 3")
	var outer []float64
	lower := false
	for _, r := range g.Rows {
		row := cv.Rows[r]
		if row.Table != "movies" || m[row.Columns[1].Value] != `"Cuba"` || m[row.Columns[2].Null] != "false" {
			continue
		}
		v, ok := ModelReal(m[row.Columns[2].Value])
		if !ok {
			t.Fatalf("score %q is not a real", m[row.Columns[2].Value])
		}
		if row.Present == "" {
			outer = append(outer, v)
		} else if m[row.Present] == "true" && v < slices.Min(append([]float64{v + 1}, outer...)) {
			lower = true
		}
	}
	if len(outer) != 3 || !lower {
		t.Errorf("outer scores %v (want 3), a present row below them all: %v; model %v", outer, lower, m)
	}
}

// TestConditionCoverThroughSubquery: a query whose conditions sit in a
// common table expression read as a grouped FROM subquery, over a
// NATURAL JOIN (VeriEQL's literature pair 44, cex-benchmarks-CQ9) gets
// its group goal: the boundary of HAVING COUNT(slot) > 4 is a group of
// exactly four rows of takes NATURAL JOIN section, one id, slot and
// year, beside a student of that id (coverReading: the CTE inlined, the
// subquery merged into the query, the NATURAL JOIN read as SQLite reads
// it). Before, the canonical form refused WITH and NATURAL JOIN and the
// query had no goal at all.
func TestConditionCoverThroughSubquery(t *testing.T) {
	z, err := FindZ3()
	if err != nil {
		t.Skip(err)
	}
	z.RLimit = 2_000_000
	col := func(name string) Column { return Column{Name: name, Family: Int, Affinity: AffinityInteger} }
	s := &MapSchema{D: SQLite, Tables: []*Table{
		{Name: "takes", Columns: []Column{col("id"), col("course_id"), col("year")}},
		{Name: "section", Columns: []Column{col("course_id"), col("year"), col("slot")}},
		{Name: "student", Columns: []Column{col("id"), col("name")}},
	}}
	q := "WITH s AS (SELECT id, slot, year FROM takes NATURAL JOIN section GROUP BY id, slot, year HAVING COUNT(slot) > 4) SELECT DISTINCT id, name FROM s NATURAL JOIN student"
	cv, err := ConditionCover(q, s, CoverOptions{MaxGoals: 40})
	if err != nil {
		t.Fatal(err)
	}
	var g *CoverGoal
	var names []string
	for i := range cv.Goals {
		names = append(names, cv.Goals[i].Name)
		if cv.Goals[i].Name == "group boundary 1" {
			g = &cv.Goals[i]
		}
	}
	if g == nil {
		t.Fatalf("no goal group boundary 1 among %v", names)
	}
	models, err := z.Models(context.Background(), []string{g.SMT})
	if err != nil || models[0] == nil {
		t.Fatalf("no model (%v):\n%s", err, g.SMT)
	}
	m := models[0]
	val := func(c CoverColumn) string {
		if m[c.Null] == "true" {
			return "NULL"
		}
		return m[c.Value]
	}
	type key [3]string
	var takes []key    // id, course_id, year
	var sections []key // course_id, year, slot
	students := map[string]bool{}
	for _, ri := range g.Rows {
		r := cv.Rows[ri]
		if r.Present != "" && m[r.Present] != "true" {
			continue
		}
		switch r.Table {
		case "takes":
			takes = append(takes, key{val(r.Columns[0]), val(r.Columns[1]), val(r.Columns[2])})
		case "section":
			sections = append(sections, key{val(r.Columns[0]), val(r.Columns[1]), val(r.Columns[2])})
		case "student":
			students[val(r.Columns[0])] = true
		}
	}
	// The group: the joined rows of takes and section, their id, slot
	// and year; the model's database holds one copy of each row.
	groups := map[key]int{}
	for _, tk := range takes {
		for _, sc := range sections {
			if tk[1] != "NULL" && tk[1] == sc[0] && tk[2] != "NULL" && tk[2] == sc[1] && sc[2] != "NULL" {
				groups[key{tk[0], sc[2], tk[2]}]++ // id, slot, year
			}
		}
	}
	found := false
	for k, n := range groups {
		found = found || n == 4 && students[k[0]]
	}
	if !found {
		t.Errorf("no group of four joined rows beside its student: takes %v, sections %v, students %v", takes, sections, students)
	}
}

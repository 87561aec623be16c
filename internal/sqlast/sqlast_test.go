package sqlast_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// Dev gold item 84 of Spider (car_1), with a join, aggregate, GROUP BY,
// HAVING and a comparison.
const carQuery = `SELECT T1.Maker, count(*) FROM CAR_MAKERS AS T1 JOIN MODEL_LIST AS T2 ON T1.Id = T2.Maker GROUP BY T1.Id HAVING count(*) >= 2 ORDER BY T1.Maker DESC LIMIT 3`

func TestParseErrors(t *testing.T) {
	for _, q := range []string{"", "  -- nothing\n", "SELECT FROM t", "SELECT 1; SELECT 2", "SELECT * FROM t WHERE a = 'x"} {
		_, err := sqlast.Parse(q)
		var e *sqlast.Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) = %v; want *sqlast.Error", q, err)
		}
	}
	if _, err := sqlast.Parse("SELECT 1;"); err != nil {
		t.Errorf("trailing semicolon: %v", err)
	}
}

func TestReaders(t *testing.T) {
	q := sqlast.MustParse(carQuery + ` `)
	var tables []string
	for _, u := range q.Tables() {
		tables = append(tables, u.Name+" "+u.Alias)
	}
	if !slices.Equal(tables, []string{"CAR_MAKERS T1", "MODEL_LIST T2"}) {
		t.Errorf("Tables = %q", tables)
	}
	var cols []string
	for _, c := range q.Columns() {
		cols = append(cols, c.Table+"."+c.Name)
	}
	want := []string{"T1.Maker", "T1.Id", "T2.Maker", "T1.Id", "T1.Maker"}
	if !slices.Equal(cols, want) {
		t.Errorf("Columns = %q; want %q", cols, want)
	}
	var lits []string
	for _, l := range q.Literals() {
		lits = append(lits, l.Raw)
	}
	if !slices.Equal(lits, []string{"2", "3"}) {
		t.Errorf("Literals = %q", lits)
	}
	s := sqlast.MustParse(`SELECT name FROM singer WHERE country = "France" AND age > -3.5 AND song LIKE '%Hey%'`)
	var got []string
	for _, l := range s.Literals() {
		got = append(got, l.Value)
		if l.Value == "3.5" && !l.Negated {
			t.Errorf("3.5 should be negated")
		}
	}
	if !slices.Equal(got, []string{"3.5", "%Hey%"}) {
		t.Errorf("Literals = %q", got)
	}
	for _, c := range s.Columns() {
		if c.Name == "France" && !c.MaybeString {
			t.Errorf("double-quoted bare name should be MaybeString")
		}
	}
}

func TestRewrite(t *testing.T) {
	q := sqlast.MustParse(`SELECT a + 1 FROM t WHERE b IN (SELECT c FROM u WHERE d = 2)`)
	sqlast.Rewrite(q.Stmt, func(e sqlast.Expr) sqlast.Expr {
		if l, ok := e.(*sqlast.Literal); ok {
			return sqlast.NumberLiteral(l.Value + "0")
		}
		return e
	})
	if got, want := q.String(), "SELECT a + 10 FROM t WHERE b IN (SELECT c FROM u WHERE d = 20)"; got != want {
		t.Errorf("rewritten: %s; want %s", got, want)
	}
}

func TestMutants(t *testing.T) {
	q := sqlast.MustParse(carQuery)
	before := q.String()
	ms := q.Mutants(sqlast.MutateOptions{Columns: func(c sqlast.ColumnRef) []string {
		if strings.EqualFold(c.Name, "maker") {
			return []string{"Maker", "FullName"}
		}
		return nil
	}})
	if q.String() != before {
		t.Fatalf("Mutants changed the query: %s", q.String())
	}
	kinds := map[sqlast.MutationKind]int{}
	seen := map[string]bool{}
	for _, m := range ms {
		kinds[m.Kind]++
		if m.SQL == before {
			t.Errorf("%s %s: mutant equals the query", m.Kind, m.Desc)
		}
		if _, err := sqlast.Parse(m.SQL); err != nil {
			t.Errorf("%s %s: mutant does not parse: %v\n  %s", m.Kind, m.Desc, err, m.SQL)
		}
		seen[m.SQL] = true
	}
	want := map[sqlast.MutationKind]int{
		sqlast.DropSelectItem: 2, sqlast.DropGroupBy: 1, sqlast.DropHaving: 1, sqlast.DropOrderBy: 1,
		sqlast.FlipOrder: 1, sqlast.DropLimit: 1, sqlast.SwapAggregate: 0, sqlast.SwapComparison: 10,
		sqlast.PerturbLiteral: 4, sqlast.ReplaceColumn: 3,
	}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%d %s mutants; want %d", kinds[k], k, n)
		}
	}
	for _, w := range []string{
		"SELECT T1.Maker, count(*) FROM CAR_MAKERS AS T1 JOIN MODEL_LIST AS T2 ON T1.Id = T2.Maker GROUP BY T1.Id HAVING count(*) >= 2 ORDER BY T1.Maker ASC LIMIT 3",
		"SELECT T1.Maker, count(*) FROM CAR_MAKERS AS T1 JOIN MODEL_LIST AS T2 ON T1.Id = T2.Maker GROUP BY T1.Id ORDER BY T1.Maker DESC LIMIT 3",
		"SELECT T1.Maker, count(*) FROM CAR_MAKERS AS T1 JOIN MODEL_LIST AS T2 ON T1.Id = T2.Maker GROUP BY T1.Id HAVING count(*) < 2 ORDER BY T1.Maker DESC LIMIT 3",
		"SELECT T1.FullName, count(*) FROM CAR_MAKERS AS T1 JOIN MODEL_LIST AS T2 ON T1.Id = T2.Maker GROUP BY T1.Id HAVING count(*) >= 2 ORDER BY T1.Maker DESC LIMIT 3",
	} {
		if !seen[w] {
			t.Errorf("missing mutant %s", w)
		}
	}
	p := sqlast.MustParse(`SELECT DISTINCT a, max(e) FROM t WHERE b = 1 AND c LIKE 'x%' OR d NOT IN (1, 2) INTERSECT SELECT a FROM u`)
	kinds = map[sqlast.MutationKind]int{}
	for _, m := range p.Mutants(sqlast.MutateOptions{}) {
		kinds[m.Kind]++
		if _, err := sqlast.Parse(m.SQL); err != nil {
			t.Errorf("%s: %v\n  %s", m.Desc, err, m.SQL)
		}
		if m.Kind == sqlast.SwapAndOr && m.Desc == "WHERE: OR -> AND" && m.SQL != "SELECT DISTINCT a, max(e) FROM t WHERE (b = 1 AND c LIKE 'x%') AND d NOT IN (1, 2) INTERSECT SELECT a FROM u" {
			t.Errorf("OR -> AND: %s", m.SQL)
		}
	}
	for _, k := range []sqlast.MutationKind{sqlast.DropDistinct, sqlast.ToggleNotLike, sqlast.ToggleNotIn, sqlast.SwapAndOr, sqlast.DropPredicate, sqlast.DropWhere, sqlast.SwapSetOperator, sqlast.SwapAggregate} {
		if kinds[k] == 0 {
			t.Errorf("no %s mutant", k)
		}
	}
}

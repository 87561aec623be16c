package audit

import (
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// TestMaskReadsPostgresGolds reads the committed Defog academic questions
// for PostgreSQL: SQLite's grammar rejects the queries that use ILIKE or
// ::casts as written, and reads every one once masked, the masked text
// being the same length (so every span is a span of the original) and
// the key of a cast (COUNT(...)::float) taken whole from the original.
func TestMaskReadsPostgresGolds(t *testing.T) {
	items, err := bench.LoadGold(shareddata.SubsetPath(t, "defog", "questions", "questions_gen_postgres.csv"), bench.FormatSQLEval)
	if err != nil {
		t.Fatal(err)
	}
	rejected, n := 0, 0
	for _, it := range items {
		for _, q := range GoldQueries(&it, true) {
			n++
			if _, err := sqlast.Parse(q); err != nil {
				rejected++
			}
			m, _ := mask(q)
			if len(m) != len(q) {
				t.Fatalf("item %d: masked length %d != %d", it.Index, len(m), len(q))
			}
			if _, ok := parse(q, engine.Postgres); !ok {
				t.Errorf("item %d: not read once masked: %s\n%s", it.Index, q, m)
			}
		}
	}
	if rejected < 10 {
		t.Errorf("only %d of %d queries rejected unmasked: the test no longer shows the masking", rejected, n)
	}
	q := "SELECT organization.continent, COUNT(DISTINCT author.aid)::float / NULLIF(COUNT(DISTINCT organization.oid), 0) AS ratio FROM organization LEFT JOIN author ON author.oid = organization.oid GROUP BY organization.continent ORDER BY ratio DESC NULLS LAST"
	p, ok := parse(q, engine.Postgres)
	if !ok {
		t.Fatal("not read")
	}
	rc := p.stmt.Cores[0].(*sqlast.SelectQuery).Columns[1]
	if got := p.text(rc.Expr); got != "COUNT(DISTINCT author.aid)::float / NULLIF(COUNT(DISTINCT organization.oid), 0)" {
		t.Errorf("result column read as %q", got)
	}
	if !strings.Contains(q, p.text(rc.Expr)) {
		t.Error("span outside the original")
	}
}

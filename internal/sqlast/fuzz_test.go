package sqlast_test

import (
	"testing"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// FuzzParse checks that no input makes the parser, printer, readers or
// mutators panic, and that whatever parses prints to SQL that parses back
// to the same text. The seed corpus is testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add(carQuery)
	f.Fuzz(func(t *testing.T, sql string) {
		q, err := sqlast.Parse(sql)
		if err != nil {
			return
		}
		printed := q.String()
		again, err := sqlast.Parse(printed)
		if err != nil {
			t.Fatalf("printed form does not parse: %v\n  in:  %q\n  out: %q", err, sql, printed)
		}
		if again.String() != printed {
			t.Fatalf("printing is not stable:\n  %q\n  %q", printed, again.String())
		}
		q.Tables()
		q.Columns()
		q.Literals()
		if len(sql) < 300 {
			for _, m := range q.Mutants(sqlast.MutateOptions{Columns: func(sqlast.ColumnRef) []string { return []string{"x"} }}) {
				if _, err := sqlast.Parse(m.SQL); err != nil {
					t.Fatalf("%s mutant %s does not parse: %v\n  %q", m.Kind, m.Desc, err, m.SQL)
				}
			}
		}
	})
}

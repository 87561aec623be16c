package catalog_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/catalog"
)

// FuzzParseDDLAsSQLite holds ParseDDL to SQLite on any text: it never
// panics, and what SQLite accepts it accepts with the same schema (but
// the two refusals TestParseDDLRefusesWhatSQLiteAccepts pins, AS SELECT
// and bracketed types, and a CHECK outside ParseCheck's grammar: a
// *CheckError; and names equal up to the case of letters past ASCII,
// which SQLite tells apart and sqljudge does not). What SQLite refuses ParseDDL may read as MySQL or
// PostgreSQL DDL. Seeds: sqliteGrammarCases. Run: go test
// ./internal/catalog -run XXX -fuzz FuzzParseDDLAsSQLite -fuzztime 60s.
func FuzzParseDDLAsSQLite(f *testing.F) {
	for _, c := range sqliteGrammarCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, ddl string) {
		got, err := catalog.ParseDDL(ddl)
		if len(ddl) > 2000 || !onlyCreates(ddl) {
			return // SQLite runs only CREATE statements here: no ATTACH, no VACUUM INTO
		}
		want, sqlErr := sqliteExec(t, ddl)
		if sqlErr != nil || want == nil {
			return
		}
		var ce *catalog.CheckError
		if err != nil {
			if strings.Contains(err.Error(), "SQLite accepts it") || errors.As(err, &ce) {
				return // a pinned refusal, or a CHECK outside ParseCheck's grammar
			}
			if strings.Contains(err.Error(), "declared twice") && !ascii(ddl) {
				return // names equal up to Unicode case: TestParseDDLErrors
			}
			t.Fatalf("%q: SQLite accepts it; ParseDDL: %v", ddl, err)
		}
		if g := parsedFacts(got); !slices.Equal(g, want) {
			t.Fatalf("%q:\n  SQLite:   %s\n  ParseDDL: %s", ddl, strings.Join(want, "; "), strings.Join(g, "; "))
		}
	})
}

// onlyCreates reports whether every statement of ddl starts with CREATE
// and no word of it could reach the file system (ATTACH, VACUUM, INTO,
// LOAD, PRAGMA).
func onlyCreates(ddl string) bool {
	u := strings.ToUpper(ddl)
	for _, w := range []string{"ATTACH", "VACUUM", "INTO", "LOAD", "PRAGMA"} {
		if strings.Contains(u, w) {
			return false
		}
	}
	for _, s := range strings.Split(u, ";") {
		if f := strings.Fields(s); len(f) > 0 && f[0] != "CREATE" {
			return false
		}
	}
	return true
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

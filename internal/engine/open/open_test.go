package open

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/engine"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "x.sqlite")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dsn     string
		dialect engine.Dialect
	}{
		{"postgres://u:p@127.0.0.1:1/?sslmode=disable", engine.Postgres},
		{"postgresql://u@localhost/db", engine.Postgres},
		{"mysql://u:p@127.0.0.1:1/", engine.MySQL},
		{"mysql:u:p@tcp(127.0.0.1:1)/", engine.MySQL},
		{dir, engine.SQLite},
		{file, engine.SQLite},
		{"sqlite:" + dir, engine.SQLite},
	} {
		e, err := Open(c.dsn, Options{})
		if err != nil {
			t.Errorf("Open(%q): %v", c.dsn, err)
			continue
		}
		if e.Dialect() != c.dialect {
			t.Errorf("Open(%q) is %s, want %s", c.dsn, e.Dialect(), c.dialect)
		}
		e.Close()
	}
	for _, dsn := range []string{"", "oracle://x", filepath.Join(dir, "missing"), "sqlite:" + filepath.Join(dir, "missing"), "postgres://u@h:notaport/"} {
		if e, err := Open(dsn, Options{}); err == nil {
			t.Errorf("Open(%q) = %s engine, want an error", dsn, e.Dialect())
		}
	}
	if _, err := Open("oracle://x", Options{}); !errors.Is(err, ErrDSN) {
		t.Errorf("unknown scheme: %v does not wrap ErrDSN", err)
	}
	_, err := Open("duckdb:"+dir, Options{})
	if _, _, built := OptionalEngine(engine.DuckDB); built != nil && (err == nil || !strings.Contains(err.Error(), "-tags duckdb")) {
		t.Errorf("duckdb without the build tag: err = %v, want a hint at -tags duckdb", err)
	}
}

// TestOptionalEngines: DuckDB is the one optional engine, registered with
// its engine and sandbox when the binary has the duckdb tag and otherwise
// an NotBuiltInError naming the tag; the engines always built in are not
// optional.
func TestOptionalEngines(t *testing.T) {
	for _, d := range []engine.Dialect{engine.SQLite, engine.Postgres, engine.MySQL} {
		if _, ok, err := OptionalEngine(d); ok || err != nil {
			t.Errorf("%s: optional %v, %v; want always built in", d, ok, err)
		}
	}
	o, ok, err := OptionalEngine(engine.DuckDB)
	var nb NotBuiltInError
	switch {
	case !ok:
		t.Fatal("duckdb: not an optional engine")
	case err == nil && (o.Engine == nil || o.Sandbox == nil || o.Dialect != engine.DuckDB):
		t.Errorf("duckdb built in without its engine or sandbox: %+v", o)
	case err != nil && (!errors.As(err, &nb) || nb.Tag != "duckdb" || err.Error() != "this sqljudge was built without DuckDB; rebuild with -tags duckdb"):
		t.Errorf("duckdb not built in: %v", err)
	}
	if err == nil {
		path := filepath.Join(t.TempDir(), "x.duckdb")
		if _, err := Open("duckdb:"+path, Options{}); err == nil || errors.Is(err, ErrDSN) && strings.Contains(err.Error(), "-tags") {
			t.Errorf("duckdb built in: Open of a missing file: %v, want a missing-file error", err)
		}
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:secret@h:5432/db?sslmode=disable": "postgres://u:xxxxx@h:5432/db?sslmode=disable",
		"postgres://u@h/db":                             "postgres://u@h/db",
		"mysql://u:secret@h:3306/":                      "mysql://u:xxxxx@h:3306/",
		"mysql:u:secret@tcp(h:3306)/":                   "mysql:u:xxxxx@tcp(h:3306)/",
		"host=h user=u password=secret dbname=d":        "host=h user=u password=xxxxx dbname=d",
		"/data/spider/database":                         "/data/spider/database",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

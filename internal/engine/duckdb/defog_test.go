package duckdb_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/dbload"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/duckdb"
	"github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestLoadDefog builds DuckDB databases from the 11 Defog dumps with
// dbload and reads them back through the engine: every table has the rows
// its INSERTs hold, schemas are kept (consumer_div.users), and the types
// come back as DuckDB's (BOOLEAN, DECIMAL, DATE, TIMESTAMP).
func TestLoadDefog(t *testing.T) {
	registerDuckDB()
	files := shareddata.DefogDumps(t)
	dumps, err := dbload.ReadDumps(files...)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := dbload.Load(context.Background(), "duckdb:"+dir, dumps, dbload.Options{}); err != nil {
		t.Fatal(err)
	}
	e := duckdb.New(dir, duckdb.Options{})
	defer e.Close()
	ctx := context.Background()
	tables := 0
	for _, d := range dumps {
		want := map[string]int{}
		for _, s := range d.Stmts {
			if s.Kind == dbload.Insert {
				want[qualified(s.Insert.Schema, s.Insert.Table)] += len(s.Insert.Rows)
			}
		}
		for _, tb := range d.Tables() {
			name := qualified(tb.Schema, tb.Name)
			s, err := e.Query(ctx, d.Name, "SELECT COUNT(*) FROM "+name)
			if err != nil {
				t.Errorf("%s: %s: %v", d.Name, name, err)
				continue
			}
			tables++
			if !result.Equal(s.Rows[0][0], result.IntValue(int64(want[name]))) {
				t.Errorf("%s: %s has %s rows, the dump inserts %d", d.Name, name, result.PyStr(s.Rows[0][0]), want[name])
			}
		}
	}
	if tables != 110 {
		t.Errorf("%d tables read, the dumps create 110", tables)
	}
	s, err := e.Query(ctx, "broker", "SELECT sbTickerIsActive, sbDpClose, sbDpDate, sbTxDateTime FROM sbTicker, sbDailyPrice, sbTransaction LIMIT 1")
	if err != nil {
		t.Fatal(err)
	}
	kinds := []result.Kind{result.Bool, result.Decimal, result.Date, result.Timestamp}
	for j, k := range kinds {
		if s.Rows[0][j].K != k {
			t.Errorf("broker column %s is %s, want %s", s.Columns[j], s.Rows[0][j].K, k)
		}
	}
}

// qualified names a table as the dump does, without the default schema.
func qualified(schema, name string) string {
	if schema == "" || schema == "public" {
		return name
	}
	return strings.Join([]string{schema, name}, ".")
}

// registerDuckDB makes DuckDB an engine of this test binary, which links
// it without the duckdb build tag: dbload asks open.OptionalEngine before
// it writes a DuckDB file, as every layer does (engine/open's duckdb.go
// registers it in a binary built with the tag).
func registerDuckDB() {
	if _, _, err := open.OptionalEngine(engine.DuckDB); err != nil {
		open.RegisterOptional(open.Optional{Dialect: engine.DuckDB, Engine: func(path string, o open.Options) (engine.Engine, error) {
			return duckdb.New(path, duckdb.Options{MaxRows: o.MaxRows, MaxBytes: o.MaxBytes, MaxConns: o.MaxConns}), nil
		}})
	}
}

package catalog

import (
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/engine"
)

// TestUnfaithful checks which columns, read from each engine as its
// reader spells their types, DeclType declares as they are: the built-in
// types of each family are, every type a family only approximates (an
// array, citext, a range, interval, timestamp with time zone, a domain, a
// column under its own collation; MariaDB's tinyint, unsigned, float,
// timestamp, enum) is not.
func TestUnfaithful(t *testing.T) {
	col := func(typ, typeName, coll string) Column {
		c := NewColumn("c", typ, false)
		if typeName != "" {
			c.TypeName = typeName
		}
		c.Collation = coll
		return c
	}
	for _, c := range []struct {
		src, d engine.Dialect
		c      Column
		want   string // "" faithful, else a substring of the reason
	}{
		// DDL: a type of the engine's own must be declared as it is; one
		// of another engine's spelling is translated by family.
		{"", engine.Postgres, col("CITEXT", "", ""), "declared TEXT"},
		{"", engine.Postgres, col("TIMESTAMP WITH TIME ZONE", "", ""), "declared TIMESTAMP"},
		{"", engine.Postgres, col("FLOAT(24)", "", ""), "declared DOUBLE PRECISION"},
		{"", engine.Postgres, col("CHAR", "", ""), "declared TEXT"},
		{"", engine.Postgres, col("TEXT", "", "C"), "collation C"},
		{"", engine.Postgres, col("INT", "", ""), ""},
		{"", engine.Postgres, col("TIMESTAMP(0)", "", ""), ""},
		{"", engine.Postgres, col("TIME(3)", "", ""), ""},
		{engine.Postgres, engine.Postgres, col("timestamp(0) without time zone", "timestamp without time zone", ""), ""},
		{"", engine.Postgres, col("SERIAL", "", ""), ""},
		{"", engine.Postgres, col("DECIMAL", "", ""), ""},
		{"", engine.Postgres, col("NUMERIC(10, 2)", "", ""), ""},
		{"", engine.Postgres, col("CHARACTER VARYING(5)", "", ""), ""},
		{"", engine.Postgres, col("DOUBLE PRECISION", "", ""), ""},
		{"", engine.Postgres, col("FLOAT", "", ""), ""},
		{"", engine.Postgres, col("INT(11)", "", ""), ""},
		{"", engine.Postgres, col("TINYINT", "", ""), ""},
		{"", engine.Postgres, col("DATETIME", "", ""), ""},
		{"", engine.Postgres, col("NUMBER", "", ""), ""},
		{"", engine.Postgres, col("DOUBLE", "", ""), ""},
		{"", engine.MySQL, col("TINYINT", "", ""), "declared SMALLINT"},
		{"", engine.MySQL, col("INT UNSIGNED", "", ""), "declared INTEGER"},
		{"", engine.MySQL, col("DECIMAL", "", ""), "declared DECIMAL(20, 6)"},
		{"", engine.MySQL, col("FLOAT", "", ""), "declared DOUBLE"},
		{"", engine.MySQL, col("TIMESTAMP", "", ""), "declared DATETIME"},
		{"", engine.MySQL, col("VARCHAR(20)", "", "utf8mb4_bin"), "collation utf8mb4_bin"},
		{"", engine.MySQL, col("INT(11)", "", ""), ""},
		{"", engine.MySQL, func() Column { c := col("CHAR(3)", "", ""); c.Charset = "binary"; return c }(), "character set binary"},
		{"", engine.MySQL, func() Column { c := col("CHAR(3)", "", ""); c.Charset = "utf8mb4"; return c }(), ""},
		{"", engine.MySQL, col("INT2", "", ""), ""}, // SMALLINT
		{"", engine.MySQL, col("INT8", "", ""), ""}, // BIGINT
		{"", engine.MySQL, col("INT1", "", ""), "declared SMALLINT"},
		{"", engine.MySQL, col("MIDDLEINT", "", ""), "declared INTEGER"},
		{"", engine.MySQL, col("VARCHAR(10) BINARY", "", ""), "declared VARCHAR"},
		{"", engine.Postgres, col("INT2", "", ""), ""},
		{"", engine.Postgres, col("INT8", "", ""), ""},
		{"", engine.MySQL, col("INTEGER", "", ""), ""},
		{"", engine.MySQL, col("NUMERIC(10, 2)", "", ""), ""},
		{"", engine.MySQL, col("REAL", "", ""), ""},
		{"", engine.MySQL, col("DOUBLE PRECISION", "", ""), ""},
		{"", engine.MySQL, col("BOOLEAN", "", ""), ""},
		{"", engine.MySQL, col("TEXT", "", ""), ""},
		{"", engine.MySQL, col("DATETIME", "", ""), ""},
		{"", engine.MySQL, col("NUMBER", "", ""), ""},
		{"", engine.MySQL, col("TIMESTAMP WITHOUT TIME ZONE", "", ""), ""}, // PostgreSQL's spelling
		{"", engine.MySQL, col("SERIAL", "", ""), "declared INTEGER"},      // BIGINT UNSIGNED there
		{"", engine.SQLite, col("VARCHAR(10)", "", "utf8mb4_bin"), ""},
		{"", engine.SQLite, col("NUMBER", "", ""), ""},
		{engine.SQLite, engine.SQLite, col("VARCHAR(10)", "", ""), ""},
		{engine.SQLite, engine.SQLite, col("DECIMAL(10,2)", "", ""), ""},
		{engine.SQLite, engine.SQLite, col("INT UNSIGNED", "", ""), ""},
		{engine.SQLite, engine.SQLite, col("", "", ""), ""},
		{engine.SQLite, engine.Postgres, col("INTEGER", "", ""), "read from sqlite"},
		{engine.Postgres, engine.Postgres, col("integer", "integer", ""), ""},
		{engine.Postgres, engine.Postgres, col("smallint", "smallint", ""), ""},
		{engine.Postgres, engine.Postgres, col("bigint", "bigint", ""), ""},
		{engine.Postgres, engine.Postgres, col("numeric(10,2)", "numeric", ""), ""},
		{engine.Postgres, engine.Postgres, col("numeric", "numeric", ""), ""},
		{engine.Postgres, engine.Postgres, col("character varying(20)", "character varying", ""), ""},
		{engine.Postgres, engine.Postgres, col("character varying", "character varying", ""), ""},
		{engine.Postgres, engine.Postgres, col("character(3)", "character", ""), ""},
		{engine.Postgres, engine.Postgres, col("text", "text", ""), ""},
		{engine.Postgres, engine.Postgres, col("real", "real", ""), ""},
		{engine.Postgres, engine.Postgres, col("double precision", "double precision", ""), ""},
		{engine.Postgres, engine.Postgres, col("boolean", "boolean", ""), ""},
		{engine.Postgres, engine.Postgres, col("date", "date", ""), ""},
		{engine.Postgres, engine.Postgres, col("timestamp without time zone", "timestamp without time zone", ""), ""},
		{engine.Postgres, engine.Postgres, col("time without time zone", "time without time zone", ""), ""},
		{engine.Postgres, engine.Postgres, col("bytea", "bytea", ""), ""},
		{engine.Postgres, engine.Postgres, col("citext", "USER-DEFINED", ""), "declared TEXT"},
		{engine.Postgres, engine.Postgres, col("integer[]", "ARRAY", ""), "declared INTEGER"},
		{engine.Postgres, engine.Postgres, col("int4range", "int4range", ""), "declared INTEGER"},
		{engine.Postgres, engine.Postgres, col("interval", "interval", ""), "declared INTEGER"},
		{engine.Postgres, engine.Postgres, col("point", "point", ""), "declared INTEGER"},
		{engine.Postgres, engine.Postgres, col("uuid", "uuid", ""), "declared TEXT"},
		{engine.Postgres, engine.Postgres, col("money", "money", ""), "declared DECIMAL"},
		{engine.Postgres, engine.Postgres, col("bpchar", "character", ""), "declared TEXT"},
		{engine.Postgres, engine.Postgres, col("timestamp with time zone", "timestamp with time zone", ""), "declared TIMESTAMP"},
		{engine.Postgres, engine.Postgres, col("timestamp(3) with time zone", "timestamp with time zone", ""), "declared TIMESTAMP"},
		{engine.Postgres, engine.Postgres, col("integer", "text", ""), "domain"},
		{engine.Postgres, engine.Postgres, col("text", "text", "C"), "collation C"},
		{engine.MySQL, engine.MySQL, col("int(11)", "", ""), ""},
		{engine.MySQL, engine.MySQL, col("bigint(20)", "", ""), ""},
		{engine.MySQL, engine.MySQL, col("smallint(6)", "", ""), ""},
		{engine.MySQL, engine.MySQL, col("varchar(50)", "", ""), ""},
		{engine.MySQL, engine.MySQL, col("char(2)", "", ""), ""},
		{engine.MySQL, engine.MySQL, col("text", "", ""), ""},
		{engine.MySQL, engine.MySQL, col("longtext", "", ""), ""},
		{engine.MySQL, engine.MySQL, col("decimal(10,2)", "", ""), ""},
		{engine.MySQL, engine.MySQL, col("double", "", ""), ""},
		{engine.MySQL, engine.MySQL, col("date", "", ""), ""},
		{engine.MySQL, engine.MySQL, col("datetime", "", ""), ""},
		{engine.MySQL, engine.MySQL, col("longblob", "", ""), ""},
		{engine.MySQL, engine.MySQL, col("tinyint(4)", "", ""), "declared SMALLINT"},
		{engine.MySQL, engine.MySQL, col("tinyint(1)", "", ""), "declared SMALLINT"},
		{engine.MySQL, engine.MySQL, col("mediumint(9)", "", ""), "declared INTEGER"},
		{engine.MySQL, engine.MySQL, col("int(10) unsigned", "", ""), "declared INTEGER"},
		{engine.MySQL, engine.MySQL, col("decimal(10,2) unsigned", "", ""), "declared DECIMAL"},
		{engine.MySQL, engine.MySQL, col("float", "", ""), "declared DOUBLE"},
		{engine.MySQL, engine.MySQL, col("double(8,2)", "", ""), "declared DOUBLE"},
		{engine.MySQL, engine.MySQL, col("timestamp", "", ""), "declared DATETIME"},
		{engine.MySQL, engine.MySQL, col("datetime(3)", "", ""), "declared DATETIME"},
		{engine.MySQL, engine.MySQL, col("year(4)", "", ""), "declared VARCHAR(4)"},
		{engine.MySQL, engine.MySQL, col("enum('a','b')", "", ""), "declared VARCHAR(255)"},
		{engine.MySQL, engine.MySQL, col("json", "", ""), "declared VARCHAR(255)"},
		{engine.MySQL, engine.MySQL, col("varchar(50)", "", "utf8mb4_bin"), "collation utf8mb4_bin"},
	} {
		got := Unfaithful(c.src, c.d, c.c)
		switch {
		case c.want == "" && got != "":
			t.Errorf("%s %q on %s: %q, want faithful", c.src, c.c.Type, c.d, got)
		case c.want != "" && !strings.Contains(got, c.want):
			t.Errorf("%s %q on %s: %q, want a reason with %q", c.src, c.c.Type, c.d, got, c.want)
		}
	}
}

// TestMatchFullRendered: a composite foreign key declared MATCH FULL keeps
// it on PostgreSQL (which then refuses a row with some of its columns NULL:
// a witness holding one was none for the pair's schema), read from DDL;
// a one-column key, SQLite and MySQL (which ignore it) are rendered as
// before. ZEROFILL and CHARACTER SET are read into the column.
func TestMatchFullRendered(t *testing.T) {
	db, err := ParseDDL("CREATE TABLE p (a INT NOT NULL, b INT NOT NULL, PRIMARY KEY (a, b)); CREATE TABLE c (id INT PRIMARY KEY, a INT, b INT, x INT(5) ZEROFILL, s CHAR(3) CHARACTER SET binary, FOREIGN KEY (a, b) REFERENCES p (a, b) MATCH FULL)")
	if err != nil {
		t.Fatal(err)
	}
	c := db.Table("c")
	if len(c.FKs) != 1 || !c.FKs[0].MatchFull {
		t.Fatalf("foreign keys %+v, want one MATCH FULL", c.FKs)
	}
	if x, s := c.Columns[c.Col("x")], c.Columns[c.Col("s")]; x.Type != "INT(5) ZEROFILL" || s.Charset != "binary" {
		t.Errorf("x %q, s charset %q", x.Type, s.Charset)
	}
	for d, want := range map[engine.Dialect]bool{engine.Postgres: true, engine.SQLite: false, engine.MySQL: false} {
		if got := strings.Contains(strings.Join(db.CreateStatements(d), ";"), "MATCH FULL"); got != want {
			t.Errorf("%s: MATCH FULL rendered %v, want %v", d, got, want)
		}
	}
}

package catalog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/engine"
)

func TestParseDDLDialects(t *testing.T) {
	cases := []struct{ name, ddl string }{
		{"sqlite", `CREATE TABLE "dept" ("deptno" INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
			CREATE TABLE emp (empno INTEGER, ename VARCHAR(10), deptno INTEGER NOT NULL, [job] TEXT,
			  PRIMARY KEY (empno, deptno), FOREIGN KEY (deptno) REFERENCES dept(deptno) ON DELETE CASCADE)`},
		{"postgres", `-- a comment
			CREATE TABLE public.dept (deptno SERIAL PRIMARY KEY, name CHARACTER VARYING(20) NOT NULL,
			  CONSTRAINT u_name UNIQUE (name));
			CREATE TABLE IF NOT EXISTS emp (empno integer NOT NULL, ename varchar(10) DEFAULT 'x'::character, deptno integer NOT NULL
			  REFERENCES dept, job text, CONSTRAINT pk PRIMARY KEY (empno, deptno));
			CREATE INDEX i ON emp (ename);`},
		{"mysql", "CREATE TABLE `dept` (`deptno` INT(11) NOT NULL AUTO_INCREMENT, `name` VARCHAR(20) CHARACTER SET utf8 NOT NULL, PRIMARY KEY (`deptno`), UNIQUE KEY `u` (`name`)) ENGINE=InnoDB DEFAULT CHARSET=utf8;\n" +
			"CREATE TABLE `emp` (`empno` INT UNSIGNED NOT NULL, `ename` VARCHAR(10), `deptno` INT NOT NULL, `job` TEXT COMMENT 'j', PRIMARY KEY (`empno`, `deptno`), KEY `k` (`ename`), CONSTRAINT `f` FOREIGN KEY (`deptno`) REFERENCES `dept` (`deptno`));"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := ParseDDL(c.ddl)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Tables) != 2 || s.Tables[0].Name != "dept" || s.Tables[1].Name != "emp" {
				t.Fatalf("tables %+v", s.Tables)
			}
			dept, emp := s.Tables[0], s.Tables[1]
			if len(dept.PK) != 1 || dept.Columns[0].Family != Integer || !dept.Columns[1].NotNull || len(dept.Uniques) != 1 || dept.Uniques[0][0] != 1 {
				t.Errorf("dept: %+v", dept)
			}
			if len(emp.PK) != 2 || emp.PK[0] != 0 || emp.PK[1] != 2 || !emp.Columns[0].NotNull || emp.Columns[1].Len != 10 || emp.Columns[1].NotNull {
				t.Errorf("emp: %+v", emp)
			}
			if len(emp.FKs) != 1 || emp.FKs[0].RefTable != "dept" || emp.FKs[0].Cols[0] != 2 || emp.FKs[0].RefCols[0] != 0 {
				t.Errorf("emp foreign keys: %+v", emp.FKs)
			}
			for _, d := range []engine.Dialect{engine.SQLite, engine.Postgres, engine.MySQL} {
				ddl := strings.Join(s.CreateStatements(d), ";\n")
				again, err := ParseDDL(ddl)
				if err != nil {
					t.Fatalf("%s DDL does not parse again: %v\n%s", d, err, ddl)
				}
				if got, want := strings.Join(again.CreateStatements(d), ";"), strings.Join(s.CreateStatements(d), ";"); got != want {
					t.Errorf("%s round trip:\n got %s\nwant %s", d, got, want)
				}
			}
		})
	}
}

// TestParseDDLErrors covers the refusals that are not SQLite's (those are
// TestParseDDLAsSQLite's): no table (SQLite's own tables are skipped),
// statements other than CREATE TABLE and CREATE UNIQUE INDEX, and names
// equal up to Unicode case.
func TestParseDDLErrors(t *testing.T) {
	cases := []struct{ ddl, want string }{
		{"", "no CREATE TABLE"},
		{"CREATE VIEW v AS SELECT 1", "expected TABLE"},
		{"INSERT INTO t VALUES (1)", "expected CREATE TABLE"},
		{"CREATE TABLE sqlite_sequence(name,seq)", "no CREATE TABLE"},
		// SQLite folds the case of ASCII letters only and accepts this;
		// the rest of sqljudge folds Unicode case (Table.Col), so two such
		// names are refused rather than confused.
		{"CREATE TABLE t (É INT, é INT)", "declared twice"},
	}
	for _, c := range cases {
		if _, err := ParseDDL(c.ddl); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseDDL(%q) = %v, want an error with %q", c.ddl, err, c.want)
		}
	}
}

// TestParseDDLConstraintsWithoutComma reads table constraints that follow
// each other without a comma, as SQLite's grammar allows (parse.y:
// "tconscomma ::= ." ) and BIRD's own sqlite_master is written: the
// statement below is BIRD dev's thrombosis_prediction.Laboratory in
// shape.
func TestParseDDLConstraintsWithoutComma(t *testing.T) {
	ddl := `CREATE TABLE p (a INT PRIMARY KEY); CREATE TABLE q (b INT PRIMARY KEY);
CREATE TABLE t (a INT, b INT, c TEXT,
    primary key (a, c)
    foreign key (a) references p(a)
        on update cascade on delete cascade
    foreign key (b) references q(b) UNIQUE (c) CHECK (a > 0))`
	s, err := ParseDDL(ddl)
	if err != nil {
		t.Fatal(err)
	}
	tb := s.Table("t")
	if len(tb.PK) != 2 || len(tb.FKs) != 2 || len(tb.Uniques) != 1 || len(tb.Checks) != 1 {
		t.Errorf("t: PK %v, FKs %v, uniques %v, checks %v", tb.PK, tb.FKs, tb.Uniques, tb.Checks)
	}
}

// TestParseDDLKeysByCollation: the issue 37 rules in the grammar's
// corners: the outermost COLLATE of an index item is the one it is under
// (SQLite's sqlite3CreateIndex), a primary key left out for its
// collation still counts as the table's one (a second is refused, WITHOUT
// ROWID is satisfied), a table-level PRIMARY KEY (id DESC) is no PKDesc.
func TestParseDDLKeysByCollation(t *testing.T) {
	cases := []struct {
		ddl, want string // want: "PK … desc … uniques …" or the error
	}{
		{`CREATE TABLE t (a TEXT COLLATE NOCASE, b TEXT); CREATE UNIQUE INDEX i ON t (a COLLATE BINARY COLLATE NOCASE); CREATE UNIQUE INDEX j ON t (a COLLATE NOCASE COLLATE BINARY, b)`, "PK [] desc false uniques [[0]]"},
		{`CREATE TABLE t (a TEXT COLLATE NOCASE, b TEXT, PRIMARY KEY (a COLLATE BINARY), PRIMARY KEY (b))`, `table "t" has more than one primary key`},
		{`CREATE TABLE t (a TEXT COLLATE NOCASE, PRIMARY KEY ((a) COLLATE rtrim)) WITHOUT ROWID`, "PK [] desc false uniques []"},
		{`CREATE TABLE t (a TEXT COLLATE "nocase", PRIMARY KEY (a COLLATE NOCASE)) WITHOUT ROWID`, "PK [0] desc false uniques []"},
		{`CREATE TABLE t (id INTEGER, x, PRIMARY KEY (id DESC)); CREATE UNIQUE INDEX i ON t (x) WHERE x > 0`, "PK [0] desc false uniques []"},
		{`CREATE TABLE t (id INTEGER PRIMARY KEY DESC, x COLLATE NOCASE UNIQUE)`, "PK [0] desc true uniques [[1]]"},
	}
	for _, c := range cases {
		db, err := ParseDDL(c.ddl)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			tb := db.Tables[0]
			got = fmt.Sprintf("PK %v desc %v uniques %v", tb.PK, tb.PKDesc, tb.Uniques)
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s:\n got  %s\n want %s", c.ddl, got, c.want)
		}
	}
}

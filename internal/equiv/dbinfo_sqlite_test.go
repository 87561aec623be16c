package equiv

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// constrainedSQLite is a database whose CHECKs and multi-column unique
// constraints and indexes decide pairs: each equivalent pair below is
// inequivalent on the same tables without them.
const constrainedSQLite = `CREATE TABLE dept (deptno INTEGER PRIMARY KEY, name TEXT NOT NULL, budget INT CHECK (budget >= 0));
CREATE TABLE emp (empno INTEGER PRIMARY KEY, first TEXT NOT NULL, last TEXT NOT NULL, deptno INT REFERENCES dept (deptno),
  sal INT NOT NULL, CHECK (sal BETWEEN 1 AND 100), UNIQUE (first, last));
CREATE TABLE proj (code TEXT NOT NULL, year INT NOT NULL, title TEXT);
CREATE UNIQUE INDEX proj_code_year ON proj (code, year);
CREATE UNIQUE INDEX proj_title_recent ON proj (title, year) WHERE year > 2000;
INSERT INTO dept VALUES (1, 'Sales', 10), (2, 'Research', NULL);
INSERT INTO emp VALUES (1, 'Ann', 'Lee', 1, 50), (2, 'Bo', 'Lee', 2, 70);
INSERT INTO proj VALUES ('P1', 2020, 'Apollo'), ('P1', 1999, 'Apollo');`

func writeSQLite(t *testing.T, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db.sqlite")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(script); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkTexts are t's CHECKs as Check.String prints them.
func checkTexts(t *catalog.Table) []string {
	var out []string
	for _, c := range t.Checks {
		out = append(out, c.String())
	}
	return out
}

// TestSQLiteDBConstraints reads a SQLite database's CHECKs (column and
// table ones) and its multi-column UNIQUE constraint and unique index (not
// the partial one, which leaves proj's pairs undecided), and decides db_id
// pairs that only they make equivalent; the pairs they do not decide stay
// inequivalent, with witnesses that satisfy them and re-verify.
func TestSQLiteDBConstraints(t *testing.T) {
	path := writeSQLite(t, constrainedSQLite)
	sch, _, err := inspectSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	dept, emp, proj := sch.Table("dept"), sch.Table("emp"), sch.Table("proj")
	if !slices.Equal(checkTexts(dept), []string{"(budget >= 0)"}) || !slices.Equal(checkTexts(emp), []string{"(sal BETWEEN 1 AND 100)"}) {
		t.Errorf("checks: dept %q, emp %q", dept.Checks, emp.Checks)
	}
	if !emp.IsKey([]int{emp.Col("first"), emp.Col("last")}) || !proj.IsKey([]int{proj.Col("code"), proj.Col("year")}) || proj.IsKey([]int{proj.Col("title"), proj.Col("year")}) || len(proj.Uniques) != 1 {
		t.Errorf("uniques: emp %v, proj %v", emp.Uniques, proj.Uniques)
	}
	sb := newSQLite(t)
	cases := []struct {
		q1, q2 string
		want   Verdict
	}{
		{"SELECT empno FROM emp WHERE sal > 0", "SELECT empno FROM emp", EquivalentBounded},
		{"SELECT deptno FROM dept WHERE budget >= 0 OR budget IS NULL", "SELECT deptno FROM dept", EquivalentBounded},
		{"SELECT DISTINCT first, last FROM emp", "SELECT first, last FROM emp", EquivalentBounded},
		// proj's partial unique index binds rows the search does not
		// model (TestSQLiteDBUnmodelled): its pairs are not searched.
		{"SELECT DISTINCT code, year FROM proj", "SELECT code, year FROM proj", Unknown},
		{"SELECT DISTINCT title, year FROM proj", "SELECT title, year FROM proj", Unknown},
		{"SELECT empno FROM emp WHERE sal > 1", "SELECT empno FROM emp", Inequivalent},
	}
	for _, c := range cases {
		out, err := Decide(context.Background(), Pair{Q1: c.q1, Q2: c.q2, DB: path}, Options{NoProof: true, Sandbox: sb, Seed: 1, Budget: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if out.Verdict != c.want {
			t.Errorf("%s / %s: %s (%s), want %s; %+v", c.q1, c.q2, out.Verdict, out.Reason, c.want, out.Witness)
			continue
		}
		if c.want == EquivalentBounded && (out.Search.Databases < 100 || out.Search.LargestTable < 3) {
			t.Errorf("%s / %s: bounded after a small search: %+v", c.q1, c.q2, out.Search)
		}
		if out.Witness != nil {
			reverifySQLite(t, out.Witness, c.q1, c.q2)
		}
	}
}

// TestSQLiteDBConstraintsSpider reads every Spider database of the
// subset: no constraint is read twice (a one-column UNIQUE that Inspect
// reads is not added again), and the CHECK-free databases get none.
func TestSQLiteDBConstraintsSpider(t *testing.T) {
	for _, db := range []string{"concert_singer", "pets_1", "car_1"} {
		sch, _, err := inspectSQLite(context.Background(), shareddata.SubsetPath(t, "spider", "database", db, db+".sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range sch.Tables {
			if len(tb.Checks) > 0 {
				t.Errorf("%s.%s: checks %q", db, tb.Name, tb.Checks)
			}
			for i, u := range tb.Uniques {
				for _, v := range tb.Uniques[i+1:] {
					if sameSet(u, v) {
						t.Errorf("%s.%s: UNIQUE %v twice", db, tb.Name, u)
					}
				}
			}
		}
	}
	sch, _, _ := inspectSQLite(context.Background(), shareddata.SubsetPath(t, "spider", "database", "car_1", "car_1.sqlite"))
	if ml := sch.Table("model_list"); ml == nil || !ml.IsKey([]int{ml.Col("Model")}) {
		t.Errorf("car_1.model_list: UNIQUE (Model) lost: %+v", ml)
	}
}

// TestSQLiteDBCompositeForeignKey: a foreign key over two columns binds
// them together (a child row's pair must be a parent row's), so a
// semi-join on both columns changes nothing; read as two foreign keys of
// one column each (as the schema reader once did), the pair was refuted
// by a child row whose values come from two different parent rows.
func TestSQLiteDBCompositeForeignKey(t *testing.T) {
	path := writeSQLite(t, `CREATE TABLE parent (a INT NOT NULL, b INT NOT NULL, PRIMARY KEY (a, b));
CREATE TABLE child (id INTEGER PRIMARY KEY, x INT NOT NULL, y INT NOT NULL, FOREIGN KEY (x, y) REFERENCES parent (a, b));
INSERT INTO parent VALUES (1, 2), (2, 1);
INSERT INTO child VALUES (1, 1, 2), (2, 2, 1);`)
	out, err := Decide(context.Background(), Pair{
		Q1: "SELECT id FROM child WHERE EXISTS (SELECT 1 FROM parent WHERE a = x AND b = y)",
		Q2: "SELECT id FROM child", DB: path,
	}, Options{Sandbox: newSQLite(t), Seed: 1, Budget: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdict != EquivalentBounded {
		t.Fatalf("%s (%s), want equivalent_bounded; %+v", out.Verdict, out.Reason, out.Witness)
	}
}

// unmodelledSQLite holds a table of each kind that the model leaves out
// (catalog.Table.Unmodelled) and one plain table.
const unmodelledSQLite = `CREATE TABLE trg (id INTEGER PRIMARY KEY, x INT);
CREATE TRIGGER trg_small BEFORE INSERT ON trg WHEN NEW.x > 5 BEGIN SELECT RAISE(ABORT, 'too big'); END;
CREATE TABLE pu (id INTEGER PRIMARY KEY, x INT, y INT);
CREATE UNIQUE INDEX pu_x ON pu (x) WHERE y = 1;
CREATE TABLE eu (id INTEGER PRIMARY KEY, x TEXT);
CREATE UNIQUE INDEX eu_x ON eu (lower(x));
CREATE TABLE cu (id INTEGER PRIMARY KEY, x TEXT);
CREATE UNIQUE INDEX cu_x ON cu (x COLLATE NOCASE);
CREATE TABLE gen (id INTEGER PRIMARY KEY, x INT, g INT GENERATED ALWAYS AS (x * 2));
CREATE TABLE plain (id INTEGER PRIMARY KEY, x INT, g INT, docid INT);
CREATE VIRTUAL TABLE docs USING fts4(body);
INSERT INTO docs (docid, body) VALUES (1, 'hello');
INSERT INTO trg VALUES (1, 1); INSERT INTO pu VALUES (1, 1, 1), (2, 1, 0);
INSERT INTO eu VALUES (1, 'a'); INSERT INTO cu VALUES (1, 'a'); INSERT INTO gen (id, x) VALUES (1, 2); INSERT INTO plain VALUES (1, 3, 10, 7);`

// TestSQLiteDBUnmodelled reads a SQLite database whose tables hold what
// the model leaves out — a trigger, a partial unique index, one on an
// expression, one under NOCASE on a BINARY column, a generated column, an
// FTS4 table (whose docid table_info does not list) —
// and refuses the pairs that read them: the search built witnesses those
// tables refuse (x = 100 past the trigger, two y = 1 rows of one x, 'a'
// and 'A') or lack (SELECT * without g). A pair over the plain table is
// still refuted.
func TestSQLiteDBUnmodelled(t *testing.T) {
	path := writeSQLite(t, unmodelledSQLite)
	sch, _, err := inspectSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	for tb, want := range map[string]string{"trg": "trigger trg_small", "pu": "partial unique index pu_x", "eu": "unique index eu_x on an expression", "cu": "unique index cu_x under collation NOCASE", "gen": "generated column g", "docs": "virtual table", "plain": ""} {
		if got := sch.Table(tb).Unmodelled; got != want {
			t.Errorf("%s: Unmodelled %q, want %q", tb, got, want)
		}
	}
	sb := newSQLite(t)
	checkVerdicts(t, Pair{DB: path}, Options{Sandbox: sb, Seed: 1, Budget: 20 * time.Second}, []verdictCase{
		{"SELECT count(*) FROM trg WHERE x > 5", "SELECT count(*) FROM trg WHERE x > 100", Unknown, "table trg: trigger trg_small"},
		// SQLite reads a string where a name stands: the names are read
		// from the raw text, not through one lexer.
		{"SELECT count(*) FROM 'trg' WHERE x > 5", "SELECT count(*) FROM 'trg' WHERE x > 100", Unknown, "table trg: trigger trg_small"},
		{"SELECT count(*) FROM pu WHERE y = 1", "SELECT count(DISTINCT x) FROM pu WHERE y = 1", Unknown, "table pu: partial unique index"},
		{"SELECT count(*) FROM cu WHERE x = 'a' COLLATE NOCASE", "SELECT count(*) FROM cu WHERE x = 'a'", Unknown, "table cu: unique index cu_x under collation NOCASE"},
		{"SELECT * FROM gen", "SELECT id, x, x * 2 FROM gen", Unknown, "table gen: generated column g"},
		// The prover proved these: g and docid, which PRAGMA table_info
		// does not list, bound to plain's columns.
		{"SELECT plain.id FROM plain WHERE EXISTS (SELECT 1 FROM gen WHERE g = 10)", "SELECT plain.id FROM plain WHERE EXISTS (SELECT 1 FROM gen WHERE plain.g = 10)", Unknown, "table gen: generated column g"},
		{"SELECT plain.id FROM plain WHERE EXISTS (SELECT 1 FROM docs WHERE docid = 1)", "SELECT plain.id FROM plain WHERE EXISTS (SELECT 1 FROM docs WHERE plain.docid = 1)", Unknown, "table docs: virtual table"},
		{"SELECT x FROM plain WHERE x > 1", "SELECT x FROM plain WHERE x > 2", Inequivalent, ""},
	})
	// A trigger or a unique index the model does not read only restricts
	// the rows: the kernel still proves over such a table (its claim holds
	// on every database of the model), a generated column it refuses.
	if !sch.Table("trg").UnmodelledRows || !sch.Table("cu").UnmodelledRows || sch.Table("gen").UnmodelledRows || sch.Table("docs").UnmodelledRows {
		t.Errorf("UnmodelledRows: trg %v, cu %v, gen %v, docs %v; want true, true, false, false", sch.Table("trg").UnmodelledRows, sch.Table("cu").UnmodelledRows, sch.Table("gen").UnmodelledRows, sch.Table("docs").UnmodelledRows)
	}
	if cert, note := ProveQueries(context.Background(), "SELECT DISTINCT id FROM trg", "SELECT id FROM trg", sch.Database, engine.SQLite, RuleBag, nil); cert == nil {
		t.Errorf("DISTINCT over trg's key: %+v, want a proof", note)
	}
	// The kernel's own entry point refuses alike, for DDL too.
	ddl, err := catalog.ParseDDL("CREATE TABLE t (id INTEGER PRIMARY KEY, a INT, g INT GENERATED ALWAYS AS (a * 2) VIRTUAL)")
	if err != nil {
		t.Fatal(err)
	}
	if cert, note := ProveQueries(context.Background(), "SELECT * FROM t", "SELECT id, a FROM t", ddl, engine.SQLite, RuleBag, nil); cert != nil || note.StoppedBy != "schema" {
		t.Errorf("ProveQueries over a generated column: proof %v, note %+v, want none, stopped by schema", cert != nil, note)
	}
}

// verdictCase is a pair's two queries, the verdict Decide must give
// them and a part of its reason ("" for any).
type verdictCase struct {
	q1, q2 string
	want   Verdict
	reason string
}

// checkVerdicts decides each case as pair (its DB, DBID or Schema) with
// the case's queries, under o, and fails a verdict or a reason other
// than the case's.
func checkVerdicts(t *testing.T, pair Pair, o Options, cases []verdictCase) {
	t.Helper()
	for _, c := range cases {
		p := pair
		p.Q1, p.Q2 = c.q1, c.q2
		out, err := Decide(context.Background(), p, o)
		if err != nil {
			t.Fatal(err)
		}
		if out.Verdict != c.want || !strings.Contains(out.Reason, c.reason) {
			t.Errorf("%s / %s: %s (%s), want %s with %q", c.q1, c.q2, out.Verdict, out.Reason, c.want, c.reason)
		}
	}
}

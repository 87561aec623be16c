package equiv

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	pgeng "github.com/sqljudge/sqljudge/internal/engine/postgres"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// pgCondDDL is the table of TestPostgresConditions: an integer that is
// never NULL, a boolean, an integer and a string that may be.
const pgCondDDL = "CREATE TABLE t (a INTEGER NOT NULL, b BOOLEAN, c INTEGER, s VARCHAR(10))"

// pgCondRows are its rows on the server: NULLs, zero, negatives, strings
// the LIKE patterns take and leave, both truth values, the largest
// INTEGER (whose a + 1 overflows).
const pgCondRows = `INSERT INTO t VALUES (0, TRUE, NULL, 'x'), (1, FALSE, 0, 'xa'), (2, NULL, 5, NULL), (-3, TRUE, -1, 'ya'), (7, FALSE, 2, 'x'), (2147483647, NULL, NULL, NULL)`

// pgCondCases are PostgreSQL pairs whose conditions hold TRUE or FALSE or
// stand without a comparison, and pairs whose outputs may fail. proved: the kernel proves them (and the
// server returns one bag for both); else stop is the prover's stopping
// reason and fails tells whether PostgreSQL fails q1 on pgCondRows (the
// error the refusal keeps out of a proof) or the refusal is only
// conservative.
var pgCondCases = []struct {
	q1, q2 string
	proved bool
	stop   string
	fails  bool
}{
	{q1: "SELECT a FROM t WHERE TRUE", q2: "SELECT a FROM t", proved: true},
	{q1: "SELECT a FROM t WHERE FALSE", q2: "SELECT a FROM t WHERE a <> a", proved: true},
	{q1: "SELECT a FROM t WHERE (a > 1) IS TRUE", q2: "SELECT a FROM t WHERE a > 1", proved: true},
	{q1: "SELECT a FROM t WHERE (c > 1) IS NOT TRUE", q2: "SELECT a FROM t WHERE c <= 1 OR c IS NULL", proved: true},
	{q1: "SELECT a FROM t WHERE (c > 1) IS NOT FALSE", q2: "SELECT a FROM t WHERE c > 1 OR c IS NULL", proved: true},
	{q1: "SELECT a FROM t WHERE CASE WHEN c > 1 THEN TRUE ELSE FALSE END", q2: "SELECT a FROM t WHERE c > 1", proved: true},
	{q1: "SELECT a FROM t WHERE b AND a > 1 OR FALSE", q2: "SELECT a FROM t WHERE a > 1 AND b", proved: true},
	{q1: "SELECT a FROM t WHERE s LIKE 'x%' OR TRUE", q2: "SELECT a FROM t", proved: true},
	{q1: "SELECT a, CASE WHEN FALSE THEN 2 ELSE 1 END FROM t", q2: "SELECT a, 1 FROM t", proved: true},
	{q1: "SELECT t.a FROM t JOIN t AS u ON TRUE WHERE t.a = u.a", q2: "SELECT t.a FROM t JOIN t AS u ON t.a = u.a", proved: true},
	// PostgreSQL wants a boolean condition: SQLite's reading of a number
	// as a truth value proved the first pair before (TypeRisk now refuses
	// a condition of another type, before the encoding). An operand that may
	// fail there (arithmetic, a CAST, a LIKE whose pattern ends in its
	// escape) stops the prover before the encoding (check.ConditionRisk).
	{q1: "SELECT a FROM t WHERE a", q2: "SELECT a FROM t WHERE a <> 0", stop: "type", fails: true},
	{q1: "SELECT a FROM t WHERE c OR TRUE", q2: "SELECT a FROM t", stop: "type", fails: true},
	{q1: "SELECT a FROM t WHERE a + 1 > 0 OR a + 1", q2: "SELECT a FROM t WHERE a + 1 > 0", stop: "may fail", fails: true},
	{q1: "SELECT a FROM t WHERE CASE WHEN c > 1 THEN 1 ELSE 0 END", q2: "SELECT a FROM t WHERE c > 1", stop: "type", fails: true},
	{q1: "SELECT a FROM t WHERE a LIKE 'x' OR TRUE", q2: "SELECT a FROM t", stop: "type", fails: true},
	{q1: "SELECT a FROM t WHERE s LIKE 'x\\' OR a = a", q2: "SELECT a FROM t", stop: "may fail", fails: true},
	{q1: "SELECT a FROM t WHERE CAST(c AS BOOLEAN) OR TRUE", q2: "SELECT a FROM t", stop: "may fail"},
	// TRUE and FALSE are booleans there, never 1 and 0.
	{q1: "SELECT a FROM t WHERE a = TRUE OR TRUE", q2: "SELECT a FROM t", stop: "type", fails: true},
	{q1: "SELECT a FROM t WHERE c + 1 = TRUE OR TRUE", q2: "SELECT a FROM t", stop: "may fail", fails: true},
	{q1: "SELECT TRUE FROM t", q2: "SELECT 1 FROM t", stop: "boolean value"},
	// An output that may fail must fail on the same databases in both
	// (check.FormRisk): the kernel proved the first pair before, whose
	// CASE evaluates a + 1 on every row and overflows on the largest
	// INTEGER; the second evaluates it on the same rows in both.
	{q1: "SELECT CASE WHEN a + 1 > 0 THEN 1 ELSE 1 END FROM t", q2: "SELECT 1 FROM t", stop: "may fail", fails: true},
	{q1: "SELECT a + 1 FROM t WHERE c = 1", q2: "SELECT a + 1 FROM t WHERE 1 = c", proved: true},
	// PostgreSQL types a query before it runs it and refuses one whose
	// operands do not compare, on every database (check.TypeRisk): the
	// kernel proved the first three pairs before, reading SQLite's
	// comparisons across storage classes.
	{q1: "SELECT a FROM t WHERE s > 1 AND 1 = 0", q2: "SELECT a FROM t WHERE 1 = 0", stop: "type", fails: true},
	{q1: "SELECT a FROM t WHERE s = a AND 1 = 0", q2: "SELECT a FROM t WHERE 1 = 0", stop: "type", fails: true},
	{q1: "SELECT a FROM t WHERE c = 'x' AND 1 = 0", q2: "SELECT a FROM t WHERE 1 = 0", stop: "type", fails: true},
	{q1: "SELECT a FROM t UNION SELECT s FROM t WHERE 1 = 0", q2: "SELECT a FROM t UNION SELECT a FROM t WHERE 1 = 0", stop: "type", fails: true},
	{q1: "SELECT a FROM t WHERE c = '5'", q2: "SELECT a FROM t WHERE c = 5", proved: true},
	// A collation PostgreSQL does not have, or one on an operand that is
	// not text, fails the query on every database (the kernel proved the
	// first two pairs before); "C" on a text column is read.
	{q1: "SELECT a FROM t WHERE s COLLATE nocase = 'x' AND 1 = 0", q2: "SELECT a FROM t WHERE 1 = 0", stop: "COLLATE", fails: true},
	{q1: `SELECT a FROM t WHERE c COLLATE "C" = 1 AND 1 = 0`, q2: "SELECT a FROM t WHERE 1 = 0", stop: "type", fails: true},
	{q1: "SELECT a FROM t WHERE s COLLATE C = 'x' AND 1 = 0", q2: "SELECT a FROM t WHERE 1 = 0", stop: "COLLATE", fails: true},
	{q1: `SELECT a FROM t WHERE s COLLATE "C" < 'xa' AND a > 0`, q2: `SELECT a FROM t WHERE 0 < a AND s COLLATE "C" < 'xa'`, proved: true},
	{q1: `SELECT s FROM t ORDER BY s COLLATE "POSIX", a`, q2: `SELECT s FROM t ORDER BY s COLLATE "POSIX", a`, proved: true},
	// PostgreSQL refuses two FROM items called alike, a subquery in FROM
	// without an alias (before 16) and a qualifier that names a table only
	// without regard to case; SQLite runs the first two (the kernel proved
	// both pairs before).
	{q1: "SELECT 1 FROM t, t WHERE 1 = 0", q2: "SELECT 1 FROM t AS x, t AS y WHERE 1 = 0", stop: "alias", fails: true},
	{q1: "SELECT 1 FROM (SELECT a FROM t) WHERE 1 = 0", q2: "SELECT 1 FROM t WHERE 1 = 0", stop: "alias", fails: true},
	{q1: `SELECT "T".a FROM t WHERE 1 = 0`, q2: "SELECT t.a FROM t WHERE 1 = 0", stop: "name case", fails: true},
	{q1: `SELECT x.a FROM t AS "X" WHERE 1 = 0`, q2: `SELECT "X".a FROM t AS "X" WHERE 1 = 0`, stop: "name case", fails: true},
	// Types read through derived tables and of expressions PostgreSQL
	// fixes (the kernel proved the three pairs before).
	{q1: "SELECT a FROM (SELECT s AS a FROM t) AS x WHERE 1 = 0 AND a = 1", q2: "SELECT a FROM (SELECT s AS a FROM t) AS x WHERE 1 = 0", stop: "type", fails: true},
	{q1: "SELECT a FROM t WHERE 1 = 0 AND s = (a > 1)", q2: "SELECT a FROM t WHERE 1 = 0", stop: "type", fails: true},
	{q1: "SELECT a FROM t GROUP BY a HAVING 1 = 0 AND max(s) = 1", q2: "SELECT a FROM t GROUP BY a HAVING 1 = 0", stop: "type", fails: true},
	{q1: "SELECT a FROM (SELECT s AS a FROM t) AS x WHERE a = 'x' AND TRUE", q2: "SELECT s FROM t WHERE s = 'x'", proved: true},
	// Found by an adversarial search (each proved before, PostgreSQL
	// refusing the first query on every database): a column determined by
	// the groups through a WHERE equality (PostgreSQL asks for the
	// PRIMARY KEY), ORDER BY a column SELECT DISTINCT does not output, a
	// FROM subquery's unread output that does not type, a derived table's
	// column named in the wrong case, arithmetic on text.
	{q1: "SELECT a, c FROM t WHERE a = c GROUP BY a", q2: "SELECT a, c FROM t WHERE a = c GROUP BY a, c", stop: "type", fails: true},
	{q1: "SELECT DISTINCT a FROM t ORDER BY c", q2: "SELECT DISTINCT a FROM t", stop: "type", fails: true},
	{q1: "SELECT d.a FROM (SELECT a, s + 1 AS z FROM t) AS d", q2: "SELECT a FROM t", stop: "may fail", fails: true},
	{q1: `SELECT d.a FROM (SELECT a AS "A" FROM t) AS d`, q2: "SELECT a FROM t", stop: "name case", fails: true},
	{q1: "SELECT a, s * 2 FROM t WHERE 1 = 0", q2: "SELECT a, s * 2 FROM t WHERE 0 = 1", stop: "type", fails: true},
	{q1: `SELECT d.a FROM (SELECT a AS "a" FROM t) AS d WHERE d.a > 1`, q2: "SELECT a FROM t WHERE a > 1", proved: true},
	// An output the statement reads (d.z in its SELECT list) is checked
	// where it is read, in the canonical form: proved when the other
	// query evaluates it on the same rows (calcite-172), refused when it
	// does not type. Read only by an ORDER BY (which the bag rule drops;
	// the largest INTEGER overflows in q1 alone), from a subquery's
	// SELECT, or by another output of the same name, it is unread.
	{q1: "SELECT d.z FROM (SELECT a, a + 1 AS z FROM t WHERE c > 0) AS d", q2: "SELECT a + 1 FROM t WHERE c > 0", proved: true},
	{q1: "SELECT d.z FROM (SELECT a, a + 1 AS z FROM t) AS d WHERE 1 = 0", q2: "SELECT a + 1 FROM t WHERE 1 = 0", proved: true},
	{q1: "SELECT d.a FROM (SELECT a, a + 1 AS z FROM t) AS d ORDER BY d.z", q2: "SELECT a FROM t", stop: "may fail", fails: true},
	{q1: "SELECT d.z FROM (SELECT a, s + 1 AS z FROM t) AS d WHERE 1 = 0", q2: "SELECT s + 1 FROM t WHERE 1 = 0", stop: "type", fails: true},
	{q1: "SELECT 1 FROM t WHERE EXISTS (SELECT d.z FROM (SELECT a, s + 1 AS z FROM t) AS d)", q2: "SELECT 1 FROM t WHERE EXISTS (SELECT a FROM t)", stop: "may fail", fails: true},
	{q1: "SELECT d.a FROM (SELECT a, s + 1 AS a FROM t) AS d WHERE 1 = 0", q2: "SELECT a FROM t WHERE 1 = 0", stop: "may fail", fails: true},
	// The same checks through a WITH and a RIGHT JOIN, which the
	// canonical form reads only once inlined or turned (TypeRisk skipped
	// such queries, and the kernel proved each pair).
	{q1: "WITH d AS (SELECT a, s FROM t) SELECT d.a FROM d WHERE d.s > 1 AND 1 = 0", q2: "SELECT a FROM t WHERE 1 = 0", stop: "type", fails: true},
	{q1: "WITH d AS (SELECT a, c FROM t) SELECT d.a, d.c FROM d GROUP BY d.a", q2: "SELECT a, c FROM t GROUP BY a, c", stop: "type", fails: true},
	{q1: "SELECT t.a FROM t AS u RIGHT JOIN t ON u.a = t.c WHERE t.s > 1 AND 1 = 0", q2: "SELECT a FROM t WHERE 1 = 0", stop: "type", fails: true},
	// Two small integer literals' arithmetic never fails (calcite-105:
	// group_by_fd drops the term).
	{q1: "SELECT a FROM t GROUP BY 42 + 24, a", q2: "SELECT a FROM t GROUP BY a", proved: true},
}

// TestPostgresConditions proves and refuses pgCondCases with the kernel on
// PostgreSQL's semantics, then runs each on a PostgreSQL server: a proved
// pair returns one bag there, and each refusal marked fails is a query
// PostgreSQL fails (without the server, the kernel's part alone runs).
func TestPostgresConditions(t *testing.T) {
	db, err := catalog.ParseDDL(pgCondDDL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range pgCondCases {
		cert, note := proveKernel(ctx, c.q1, c.q2, db, engine.Postgres, "", z3Solver(t))
		switch {
		case c.proved && cert == nil:
			t.Errorf("%s / %s: no proof (%s: %s)", c.q1, c.q2, note.StoppedBy, note.Detail)
		case !c.proved && (cert != nil || note.StoppedBy != c.stop):
			t.Errorf("%s / %s: proved %v, stopped by %q (%s), want %q", c.q1, c.q2, cert != nil, note.StoppedBy, note.Detail, c.stop)
		}
	}
	server := testserver.Postgres(t)
	name := testserver.Name("sjt_pgcond_")
	conn := testserver.CreatePostgresDB(t, server, name)
	defer testserver.DropPostgresDB(t, server, name)
	for _, st := range []string{pgCondDDL, pgCondRows} {
		if _, err := conn.Exec(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	bag := func(q string) (string, error) { return pgBag(ctx, conn, q) }
	for _, c := range pgCondCases {
		r1, err1 := bag(c.q1)
		r2, err2 := bag(c.q2)
		switch {
		case c.proved && (err1 != nil || err2 != nil || r1 != r2):
			t.Errorf("%s / %s: proved, but PostgreSQL gives %q (%v) and %q (%v)", c.q1, c.q2, r1, err1, r2, err2)
		case c.fails && err1 == nil:
			t.Errorf("%s: runs on PostgreSQL (%q); the case says it fails there", c.q1, r1)
		case !c.proved && !c.fails && err1 == nil && err2 == nil && r1 == r2 && c.stop == "boolean value":
			t.Errorf("%s / %s: one bag %q on PostgreSQL; the case says TRUE and 1 differ there", c.q1, c.q2, r1)
		}
	}
}

// pgTypesDDL is the server table of TestPostgresTypesAndCollations:
// types the kernel does not model (citext, an array, "char", TIME, a
// domain called serial, JSON, a nondeterministic collation), a
// double precision and a numeric, two text columns under two
// collations, and columns the kernel models. Its first row holds a
// numeric beyond double precision's range.
const pgTypesDDL = `CREATE EXTENSION IF NOT EXISTS citext;
CREATE DOMAIN serial AS TEXT;
CREATE COLLATION IF NOT EXISTS sj_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE w (id INTEGER PRIMARY KEY, f DOUBLE PRECISION, n NUMERIC, d DATE, tm TIME, ia INTEGER[], ct CITEXT, q "char", x TEXT COLLATE "C", y TEXT COLLATE "POSIX", s VARCHAR(10), c INTEGER, b BOOLEAN, ds public.serial, j JSON, nd TEXT COLLATE sj_ci);
INSERT INTO w VALUES (1, 1, 1e400, '2020-01-01', '10:00', '{1}', 'a', 'a', 'a', 'a', 'x', 1, TRUE, '01', '{}', 'a'), (2, 2, 1, NULL, NULL, '{2}', 'A', 'b', 'b', 'b', NULL, 2147483647, NULL, NULL, NULL, 'A');
CREATE TABLE u (id INTEGER PRIMARY KEY, wid INTEGER, f DOUBLE PRECISION);
INSERT INTO u VALUES (1, 1, 1e308), (2, 1, 1e308)`

// TestPostgresTypesAndCollations: pairs the kernel proved, and whose
// certificates it accepted, while PostgreSQL 15 fails q1 (and runs q2)
// or returns another bag, on the schema read from the server as
// `sqljudge equiv` reads a database of a server (catalog.Read: the types
// as format_type spells them). The catalog's families read substrings
// of type names (citext and arrays were text and integer to the kernel,
// a domain called serial an integer); a double precision compared with
// a numeric converts the numeric on every row; two columns' collations
// conflict on the first row compared, concatenated or hashed; a CASE
// output of a subquery under an outer join is computed at its scan,
// on rows the join then leaves unmatched; the
// rest PostgreSQL refuses on every database (UNION's types resolved two
// SELECTs at a time, NOT of an integer, a CASE of text against a number,
// a derived NULL typed text, a TIME against a DATE, a float literal out
// of range, DISTINCT over JSON, a WHERE of a CASE of NULLs); the SUM of
// a double precision in a subquery a LEFT JOIN reads overflows at run
// time, and so does LIKE under a nondeterministic collation. Pairs of
// modelled types still prove.
func TestPostgresTypesAndCollations(t *testing.T) {
	ctx := context.Background()
	server := testserver.Postgres(t)
	name := testserver.Name("sjt_pgtypes_")
	conn := testserver.CreatePostgresDB(t, server, name)
	defer testserver.DropPostgresDB(t, server, name)
	for _, st := range strings.Split(pgTypesDDL, ";\n") {
		if _, err := conn.Exec(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	eng, err := pgeng.New(server, pgeng.Options{AllowSuperuser: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	db, err := catalog.Read(ctx, eng, name, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bag := func(q string) (string, error) { return pgBag(ctx, conn, q) }
	for _, c := range []struct {
		q1, q2 string
		proved bool
	}{
		{q1: "SELECT id FROM w WHERE ct = 'a' AND ct = 'A'", q2: "SELECT id FROM w WHERE 1 = 0"},
		{q1: "SELECT id FROM w WHERE ia = '{1}' AND ia = '{ 1 }'", q2: "SELECT id FROM w WHERE 1 = 0"},
		{q1: "SELECT id FROM w WHERE q = 'ab' AND q = 'ac'", q2: "SELECT id FROM w WHERE 1 = 0"},
		{q1: "SELECT id FROM w WHERE d = tm AND 1 = 0", q2: "SELECT id FROM w WHERE 1 = 0"},
		{q1: "SELECT id FROM w WHERE f > n OR id > 0", q2: "SELECT id FROM w WHERE id > 0 OR f > n"},
		{q1: "SELECT id FROM w WHERE x = y OR id > 0", q2: "SELECT id FROM w WHERE id > 0 OR x = y"},
		{q1: `SELECT id FROM w WHERE s COLLATE "C" = s COLLATE "POSIX" AND 1 = 0`, q2: "SELECT id FROM w WHERE 1 = 0"},
		{q1: "SELECT NULL FROM w UNION ALL SELECT NULL FROM w UNION ALL SELECT id FROM w", q2: "SELECT NULL FROM w UNION ALL SELECT id FROM w UNION ALL SELECT NULL FROM w"},
		{q1: "SELECT id FROM w WHERE (NOT c) IS NULL OR TRUE", q2: "SELECT id FROM w"},
		{q1: "SELECT id FROM w WHERE CASE WHEN b THEN s END = 1 AND 1 = 0", q2: "SELECT id FROM w WHERE 1 = 0"},
		{q1: "SELECT d.x FROM (SELECT NULL AS x FROM w) AS d WHERE d.x = 1 AND 1 = 0", q2: "SELECT NULL FROM w WHERE 1 = 0"},
		{q1: "SELECT d.id FROM (SELECT id, c IN (SELECT s FROM w) AS m FROM w) AS d", q2: "SELECT id FROM w"},
		{q1: "SELECT id FROM w WHERE f = '1e-400' AND 1 = 0", q2: "SELECT id FROM w WHERE 1 = 0"},
		{q1: "SELECT d.z FROM w AS u LEFT JOIN (SELECT id, CASE WHEN c > 0 THEN c + 2147483647 END AS z FROM w) AS d ON u.id = d.id + 5", q2: "SELECT CASE WHEN v.c > 0 THEN v.c + 2147483647 END FROM w AS u LEFT JOIN w AS v ON u.id = v.id + 5"},
		{q1: "SELECT DISTINCT id, x || y FROM w", q2: "SELECT id, x || y FROM w"},
		{q1: "SELECT DISTINCT d.id, d.m FROM (SELECT id, coalesce(x, y) AS m FROM w) AS d", q2: "SELECT id, coalesce(x, y) FROM w"},
		{q1: "SELECT id FROM w WHERE ds > '0' AND ds < '1'", q2: "SELECT id FROM w WHERE 1 = 0"},
		{q1: "SELECT DISTINCT id, j FROM w", q2: "SELECT id, j FROM w"},
		{q1: "SELECT id FROM w WHERE CASE WHEN b THEN NULL END", q2: "SELECT id FROM w WHERE FALSE"},
		{q1: "SELECT w.id FROM w LEFT JOIN (SELECT wid, sum(f) AS a FROM u GROUP BY wid) AS b ON b.wid = 1 AND b.a > 0", q2: "SELECT w.id FROM w"},
		{q1: "SELECT id, count(*) FROM w GROUP BY id, nd LIKE 'a%'", q2: "SELECT id, count(*) FROM w GROUP BY id"},
		{q1: "SELECT id FROM w WHERE d = '2020-01-01' AND c > 0", q2: "SELECT id FROM w WHERE 0 < c AND d = '2020-01-01'", proved: true},
		{q1: "SELECT id FROM w WHERE f > 1.5 AND c = 1", q2: "SELECT id FROM w WHERE c = 1 AND f > 1.5", proved: true},
		{q1: "SELECT id FROM w WHERE s = 'x' AND x = 'a'", q2: "SELECT id FROM w WHERE x = 'a' AND s = 'x'", proved: true},
	} {
		cert, note := proveKernel(ctx, c.q1, c.q2, db, engine.Postgres, "", z3Solver(t))
		if (cert != nil) != c.proved {
			t.Errorf("%s / %s: proved %v (%s: %s), want %v", c.q1, c.q2, cert != nil, note.StoppedBy, note.Detail, c.proved)
		}
		r1, err1 := bag(c.q1)
		r2, err2 := bag(c.q2)
		switch {
		case c.proved && (err1 != nil || err2 != nil || r1 != r2):
			t.Errorf("%s / %s: proved, but PostgreSQL gives %q (%v) and %q (%v)", c.q1, c.q2, r1, err1, r2, err2)
		case !c.proved && (err2 != nil || err1 == nil && r1 == r2):
			t.Errorf("%s / %s: PostgreSQL gives %q (%v) and %q (%v); the case says q1 fails or differs and q2 runs", c.q1, c.q2, r1, err1, r2, err2)
		}
	}
}

// pgBag runs q on conn and returns its rows as a sorted bag (fmtRow,
// joined by ";"), or q's error.
func pgBag(ctx context.Context, conn *pgx.Conn, q string) (string, error) {
	rows, err := conn.Query(ctx, q)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return "", err
		}
		out = append(out, fmtRow(vals))
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	slices.Sort(out)
	return strings.Join(out, ";"), nil
}

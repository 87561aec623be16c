package fuzz

import (
	"context"
	"testing"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/sandbox/postgres"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// example is a pair of issue 37's table of root causes (a wrong proof of
// that day's kernel) or a trap of issue 40's rules (O1, O2: what a rule
// weakened would prove), which the fuzzer's databases must separate.
type example struct {
	cause string
	s     *schema
	p     *pairSpec
}

// issueExamples builds, for each root cause the fuzzer runs on SQLite,
// the example pair of issue 37 (or one of its kind where the issue gives
// none), as the fuzzer's own query trees.
func issueExamples() []example {
	var out []example
	add := func(cause string, s *schema, q1, q2 *sel) {
		out = append(out, example{cause, s, handPair(q1, q2)})
	}
	{ // R1: SELECT b AS a FROM t ORDER BY a * 3 = 122883, a
		t := tab("t", "a INT NOT NULL", "b INT NOT NULL")
		mk := func(alias bool) *sel {
			f := fr(t, "")
			q := query(nil, []*fromItem{f}, nil)
			b := it(bare(f, "b"), "a")
			q.items = []*item{b}
			var key, last expr = bare(f, "a"), &aliasRef{it: b}
			if !alias {
				key, last = bare(f, "b"), bare(f, "b")
			}
			q.orderBy = []*orderTerm{{x: bin("=", bin("*", key, num(3)), num(122883))}, {x: last}}
			return q
		}
		add("R1", mkSchema(engine.SQLite, t), mk(true), mk(false))
	}
	{ // R2: SELECT t.a AS z FROM t JOIN s ON "z" = s.c / 'z'
		t, s := tab("t", "a INT NOT NULL", "b INT NOT NULL"), tab("s", "c INT")
		mk := func(l *lit) *sel {
			ft, fs := fr(t, ""), fr(s, "")
			fs.join, fs.on = "JOIN", bin("=", l, col(fs, "c"))
			return query([]*item{it(col(ft, "a"), "z")}, []*fromItem{ft, fs}, nil)
		}
		add("R2", mkSchema(engine.SQLite, t, s), mk(dq("z")), mk(txt("z")))
	}
	{ // R3: … WHERE EXISTS (SELECT s.c FROM s WHERE s.c = "z") / 'z'
		t, s := tab("t", "a INT NOT NULL"), tab("s", "c INT")
		mk := func(l *lit) *sel {
			ft, fs := fr(t, ""), fr(s, "")
			q := query([]*item{it(col(ft, "a"), "z")}, []*fromItem{ft}, nil)
			q.where = &exists{sub: sub(q, []*item{it(col(fs, "c"), "")}, []*fromItem{fs}, bin("=", col(fs, "c"), l))}
			return q
		}
		add("R3", mkSchema(engine.SQLite, t, s), mk(dq("z")), mk(txt("z")))
	}
	{ // R4: SELECT "rowid", a FROM t / 'rowid'
		t := tab("t", "a INT")
		mk := func(l *lit) *sel {
			f := fr(t, "")
			return query([]*item{it(l, ""), it(col(f, "a"), "")}, []*fromItem{f}, nil)
		}
		add("R4", mkSchema(engine.SQLite, t), mk(dq("rowid")), mk(txt("rowid")))
	}
	{ // R5: WHERE '1' IN (a) / WHERE a = 1
		t := tab("t", "a INT", "b INT")
		f1, f2 := fr(t, ""), fr(t, "")
		add("R5", mkSchema(engine.SQLite, t),
			query([]*item{it(col(f1, "a"), "")}, []*fromItem{f1}, &inList{x: txt("1"), list: []expr{col(f1, "a")}}),
			query([]*item{it(col(f2, "a"), "")}, []*fromItem{f2}, bin("=", col(f2, "a"), num(1))))
	}
	{ // R6: x TEXT, i INTEGER: WHERE x IN (i) / WHERE x = i
		t := tab("t", "x TEXT", "i INTEGER")
		f1, f2 := fr(t, ""), fr(t, "")
		add("R6", mkSchema(engine.SQLite, t),
			query([]*item{it(col(f1, "x"), "")}, []*fromItem{f1}, &inList{x: col(f1, "x"), list: []expr{col(f1, "i")}}),
			query([]*item{it(col(f2, "x"), "")}, []*fromItem{f2}, bin("=", col(f2, "x"), col(f2, "i"))))
	}
	{ // R7: a = 5 AND a IN (SELECT y FROM u) / a = 5 AND 5 IN (SELECT y FROM u)
		t, u := tab("t", "a INT NOT NULL"), tab("u", "y TEXT")
		mk := func(lhs bool) *sel {
			ft, fu := fr(t, ""), fr(u, "")
			q := query([]*item{it(col(ft, "a"), "")}, []*fromItem{ft}, nil)
			var x expr = col(ft, "a")
			if !lhs {
				x = num(5)
			}
			q.where = bin("AND", bin("=", col(ft, "a"), num(5)), &inSub{x: x, sub: sub(q, []*item{it(col(fu, "y"), "")}, []*fromItem{fu}, nil)})
			return q
		}
		add("R7", mkSchema(engine.SQLite, t, u), mk(true), mk(false))
	}
	{ // R8: x REAL, y DECIMAL(10,2): x = y AND typeof(x) = 'real' / typeof(y)
		t := tab("t", "x REAL", "y DECIMAL(10,2)")
		mk := func(name string) *sel {
			f := fr(t, "")
			return query([]*item{it(col(f, "x"), "")}, []*fromItem{f},
				bin("AND", bin("=", col(f, "x"), col(f, "y")), bin("=", &call{name: "typeof", args: []expr{col(f, name)}}, txt("real"))))
		}
		add("R8", mkSchema(engine.SQLite, t), mk("x"), mk("y"))
	}
	{ // R9: x TEXT, v untyped: 5 IN (SELECT x … WHERE x = v) / (SELECT v …)
		t, u := tab("t", "k INT"), tab("u", "x TEXT", "v -")
		mk := func(name string) *sel {
			ft, fu := fr(t, ""), fr(u, "")
			q := query([]*item{it(col(ft, "k"), "")}, []*fromItem{ft}, nil)
			q.where = &inSub{x: num(5), sub: sub(q, []*item{it(col(fu, name), "")}, []*fromItem{fu}, bin("=", col(fu, "x"), col(fu, "v")))}
			return q
		}
		add("R9", mkSchema(engine.SQLite, t, u), mk("x"), mk("v"))
	}
	{ // R10: (SELECT COUNT(t.a) FROM s) / (SELECT COUNT(*) FROM s)
		t, s := tab("t", "a INT NOT NULL"), tab("s", "c INT")
		mk := func(star bool) *sel {
			ft, fs := fr(t, ""), fr(s, "")
			q := query(nil, []*fromItem{ft}, nil)
			cnt := &call{name: "count", args: []expr{col(ft, "a")}}
			if star {
				cnt = &call{name: "count", star: true}
			}
			q.items = []*item{it(&scalar{sub: sub(q, []*item{it(cnt, "")}, []*fromItem{fs}, nil)}, "")}
			return q
		}
		add("R10", mkSchema(engine.SQLite, t, s), mk(false), mk(true))
	}
	{ // R11: GROUP BY country / GROUP BY country, (SELECT count(*) FROM stadium WHERE capacity = singer.age)
		singer, stadium := tab("singer", "country TEXT", "age INT"), tab("stadium", "capacity INT")
		mk := func(extra bool) *sel {
			fs, fd := fr(singer, ""), fr(stadium, "")
			q := query([]*item{it(col(fs, "country"), ""), it(&call{name: "count", star: true}, "")}, []*fromItem{fs}, nil)
			q.groupBy = []expr{col(fs, "country")}
			if extra {
				q.groupBy = append(q.groupBy, &scalar{sub: sub(q, []*item{it(&call{name: "count", star: true}, "")}, []*fromItem{fd}, bin("=", col(fd, "capacity"), col(fs, "age")))})
			}
			return q
		}
		add("R11", mkSchema(engine.SQLite, singer, stadium), mk(false), mk(true))
	}
	{ // R12: SELECT x COLLATE NOCASE … GROUP BY x COLLATE NOCASE / … WHERE 1 = 1 …
		t := tab("t", "x TEXT", "y INT")
		mk := func(where bool) *sel {
			f := fr(t, "")
			q := query([]*item{it(&collate{x: col(f, "x"), name: "NOCASE"}, ""), it(&call{name: "count", star: true}, "")}, []*fromItem{f}, nil)
			q.groupBy = []expr{&collate{x: col(f, "x"), name: "NOCASE"}}
			if where {
				q.where = bin("=", num(1), num(1))
			}
			return q
		}
		add("R12", mkSchema(engine.SQLite, t), mk(false), mk(true))
	}
	{ // R13: id INTEGER PRIMARY KEY DESC: COUNT(id) / COUNT(*)
		t := tab("t", "id INTEGER", "a INT")
		t.pk, t.pkForm = []int{0}, pkIntegerDesc
		mk := func(star bool) *sel {
			f := fr(t, "")
			cnt := &call{name: "count", args: []expr{col(f, "id")}}
			if star {
				cnt = &call{name: "count", star: true}
			}
			return query([]*item{it(cnt, "")}, []*fromItem{f}, nil)
		}
		add("R13", mkSchema(engine.SQLite, t), mk(false), mk(true))
	}
	{ // R14: a UNIQUE only WHERE b > 0: SELECT DISTINCT a / SELECT a
		t := tab("t", "a INT NOT NULL", "b INT")
		t.indexes = []uniqueIndex{{name: "t_ux", cols: []int{0}, where: "b > 0"}}
		mk := func(distinct bool) *sel {
			f := fr(t, "")
			q := query([]*item{it(col(f, "a"), "")}, []*fromItem{f}, nil)
			q.distinct = distinct
			return q
		}
		add("R14", mkSchema(engine.SQLite, t), mk(true), mk(false))
	}
	{ // R15: SUM(x) / SUM(x) FROM (SELECT x … ORDER BY x DESC)
		t := tab("t", "x REAL")
		f1 := fr(t, "")
		inner := fr(t, "")
		d := query([]*item{{star: true}}, []*fromItem{inner}, nil)
		d.orderBy = []*orderTerm{{x: col(inner, "x"), desc: true}}
		f2 := &fromItem{sub: d, alias: "t"}
		add("R15", mkSchema(engine.SQLite, t),
			query([]*item{it(&call{name: "sum", args: []expr{col(f1, "x")}}, "")}, []*fromItem{f1}, nil),
			query([]*item{it(&call{name: "sum", args: []expr{col(f2, "x")}}, "")}, []*fromItem{f2}, nil))
	}
	{ // R17: x TEXT COLLATE NOCASE: SELECT x … WHERE x = 'a' / SELECT 'a' … WHERE x = 'a'
		t := tab("t", "x TEXT COLLATE NOCASE")
		f1, f2 := fr(t, ""), fr(t, "")
		add("R17", mkSchema(engine.SQLite, t),
			query([]*item{it(col(f1, "x"), "")}, []*fromItem{f1}, bin("=", col(f1, "x"), txt("a"))),
			query([]*item{it(txt("a"), "")}, []*fromItem{f2}, bin("=", col(f2, "x"), txt("a"))))
	}
	{ // O1 (issue 40, full_to_outer's trap): … FULL JOIN … WHERE t.x IS NULL AND s.y > 0 / JOIN
		t, s := tab("t", "a INT", "x INT"), tab("s", "c INT", "y INT")
		mk := func(join string) *sel {
			ft, fs := fr(t, ""), fr(s, "")
			fs.join, fs.on = join, bin("=", col(ft, "a"), col(fs, "c"))
			return query([]*item{it(col(fs, "c"), "")}, []*fromItem{ft, fs}, bin("AND", &isNull{x: col(ft, "x")}, bin(">", col(fs, "y"), num(0))))
		}
		add("O1", mkSchema(engine.SQLite, t, s), mk("FULL JOIN"), mk("JOIN"))
	}
	{ // O2 (issue 40, right_to_left's trap): SELECT * FROM t RIGHT JOIN s … / s LEFT JOIN t
		t, s := tab("t", "a INT", "x INT"), tab("s", "c INT", "y INT")
		ft, fs := fr(t, ""), fr(s, "")
		fs.join, fs.on = "RIGHT JOIN", bin("=", col(ft, "a"), col(fs, "c"))
		q1 := query([]*item{{star: true}}, []*fromItem{ft, fs}, nil)
		gt, gs := fr(t, ""), fr(s, "")
		gt.join, gt.on = "LEFT JOIN", bin("=", col(gt, "a"), col(gs, "c"))
		q2 := query([]*item{{star: true}}, []*fromItem{gs, gt}, nil)
		add("O2", mkSchema(engine.SQLite, t, s), q1, q2)
	}
	return out
}

// TestDatabasesSeparateIssueExamples: the fuzzer's databases (24 a pair,
// the CI run's number) separate every example pair of issue 37's root
// causes on SQLite, whatever the prover says of it, under each of five
// seeds: the oracle half of the fuzzer is strong enough for each root
// cause, not by the luck of one random stream.
func TestDatabasesSeparateIssueExamples(t *testing.T) {
	for i, ex := range issueExamples() {
		t.Run(ex.cause, func(t *testing.T) {
			for seed := uint64(1); seed <= 5; seed++ {
				cfg := Config{Dialect: engine.SQLite, Seed: seed, Databases: 24}
				w := &worker{cfg: cfg}
				out := w.separate(context.Background(), i, ex.s, ex.p, nil)
				w.close()
				if out.err != nil || out.ddlRefused {
					t.Fatalf("%v (DDL refused: %v)\n%s", out.err, out.ddlRefused, ex.s.script())
				}
				if out.cx == nil {
					t.Fatalf("seed %d: %d databases do not separate\nq1: %s\nq2: %s", seed, out.databases, ex.p.sql1, ex.p.sql2)
				}
				if seed == 1 {
					t.Logf("separated on database %d:\n%s", out.databases, out.cx)
				}
			}
		})
	}
}

// TestDatabasesSeparateIssueExamplePostgres: the same for R16 on
// PostgreSQL: c CHAR(3): SELECT c … WHERE c = 'a' / SELECT 'a' … WHERE
// c = 'a' (bpchar's = ignores the padding its values keep).
func TestDatabasesSeparateIssueExamplePostgres(t *testing.T) {
	dsn := testserver.Postgres(t)
	sb, err := postgres.New(context.Background(), dsn, true)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	tb := tab("t", "c char(3)", "k integer")
	s := mkSchema(engine.Postgres, tb)
	f1, f2 := fr(tb, ""), fr(tb, "")
	p := handPair(
		query([]*item{it(col(f1, "c"), "")}, []*fromItem{f1}, bin("=", col(f1, "c"), txt("a"))),
		query([]*item{it(txt("a"), "")}, []*fromItem{f2}, bin("=", col(f2, "c"), txt("a"))))
	for seed := uint64(1); seed <= 5; seed++ {
		w := &worker{cfg: Config{Dialect: engine.Postgres, Sandbox: sb, Seed: seed, Databases: ciDatabasesPostgres}}
		out := w.separate(context.Background(), 0, s, p, nil)
		w.close()
		if out.err != nil || out.ddlRefused {
			t.Fatalf("%v (DDL refused: %v)", out.err, out.ddlRefused)
		}
		if out.cx == nil {
			t.Fatalf("seed %d: %d databases do not separate\nq1: %s\nq2: %s", seed, out.databases, p.sql1, p.sql2)
		}
		if seed == 1 {
			t.Logf("separated on database %d:\n%s", out.databases, out.cx)
		}
	}
}

package equiv

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqljudge/sqljudge/internal/dbload"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/result"
	pgsb "github.com/sqljudge/sqljudge/internal/sandbox/postgres"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// loadSpiderIntoPostgres copies Spider database dbID (its schema with
// keys and foreign keys, and every row) into a new PostgreSQL database
// with names unquoted, as a PostgreSQL port of Spider writes them, and
// returns that database's name.
func loadSpiderIntoPostgres(t *testing.T, server, dbID string) string {
	t.Helper()
	ctx := context.Background()
	path := shareddata.SubsetPath(t, "spider", "database", dbID, dbID+".sqlite")
	sch, _, err := inspectSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range sch.Tables {
		tb.Unquoted = true
		for i := range tb.Columns {
			tb.Columns[i].Unquoted = true
		}
	}
	eng := sqlite.New("", sqlite.Options{})
	defer eng.Close()
	data, err := readSQLiteData(ctx, eng, path, sch)
	if err != nil {
		t.Fatal(err)
	}
	name := testserver.Name("sjt_spider_") + dbID
	conn := testserver.CreatePostgresDB(t, server, name)
	if _, err := conn.Exec(ctx, sch.Script(engine.Postgres, data)); err != nil {
		t.Fatal(err)
	}
	return name
}

// pgFingerprint is every table's rows of database db, as text, sorted: a
// database that equiv only reads keeps it.
func pgFingerprint(t *testing.T, conn *pgx.Conn) string {
	t.Helper()
	ctx := context.Background()
	var out string
	err := conn.QueryRow(ctx, `SELECT string_agg(c.relname || ':' || (xpath('/row/c/text()', query_to_xml(format('SELECT md5(coalesce(string_agg(t::text, '','' ORDER BY t::text), '''')) AS c FROM %I t', c.relname), false, true, '')))[1]::text, ';' ORDER BY c.relname)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'`).Scan(&out)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// readerSandbox returns a sandbox whose role may read database db and
// create databases, and nothing else (not a superuser): what a db_id pair
// on PostgreSQL needs.
func readerSandbox(t *testing.T, server, db string) *pgsb.Sandbox {
	t.Helper()
	ctx := context.Background()
	dsn := testserver.PostgresReader(t, server, db)
	u, _ := url.Parse(dsn)
	admin := testserver.ConnectPostgres(t, server, "")
	equivRole(t, admin, u.User.Username())
	sb, err := pgsb.New(ctx, dsn, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

// equivRole makes role fit for equiv as docs/equiv.md says: CREATEDB,
// and sessions that do not report their queries.
func equivRole(t *testing.T, admin *pgx.Conn, role string) {
	t.Helper()
	for _, q := range []string{"ALTER ROLE " + role + " CREATEDB", "ALTER ROLE " + role + " SET track_activities = off"} {
		if _, err := admin.Exec(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPostgresDBIDSpider decides db_id pairs over Spider's concert_singer
// loaded into PostgreSQL: its composite primary key and foreign keys,
// read from the catalog, make two pairs equivalent that are not without
// them; a witness re-verifies; the database is unchanged (read under a
// role that may only read it).
func TestPostgresDBIDSpider(t *testing.T) {
	server := testserver.Postgres(t)
	ctx := context.Background()
	db := loadSpiderIntoPostgres(t, server, "concert_singer")
	conn := testserver.ConnectPostgres(t, server, db)
	before := pgFingerprint(t, conn)
	sb := readerSandbox(t, server, db)
	sch, err := readServerSchema(ctx, sb, db)
	if err != nil {
		t.Fatal(err)
	}
	sic := sch.Table("singer_in_concert")
	if sic == nil || len(sic.PK) != 2 || len(sic.FKs) != 2 || slices.Index(sch.Tables, sic) < slices.Index(sch.Tables, sch.Table("concert")) {
		t.Fatalf("singer_in_concert: %+v (tables %d)", sic, len(sch.Tables))
	}
	singer := sch.Table("singer")
	if ci := singer.Col("name"); ci < 0 || len(singer.Columns[ci].Values) == 0 {
		t.Fatalf("no sample of singer.name: %+v", singer.Columns)
	}
	cases := []struct {
		q1, q2 string
		want   Verdict
	}{
		{"SELECT T1.concert_ID FROM singer_in_concert AS T1 JOIN singer AS T2 ON T1.Singer_ID = T2.Singer_ID", "SELECT concert_ID FROM singer_in_concert", EquivalentBounded},
		{"SELECT DISTINCT concert_ID, Singer_ID FROM singer_in_concert", "SELECT concert_ID, Singer_ID FROM singer_in_concert", EquivalentBounded},
		{"SELECT count(*) FROM singer", "SELECT count(Singer_ID) FROM singer", EquivalentBounded},
		{"SELECT name FROM singer WHERE age > 40", "SELECT name FROM singer WHERE age >= 40", Inequivalent},
		{"SELECT count(*) FROM singer", "SELECT count(Country) FROM singer", Inequivalent},
	}
	for _, c := range cases {
		out, err := Decide(ctx, Pair{Q1: c.q1, Q2: c.q2, DBID: db}, Options{NoProof: true, Sandbox: sb, Seed: 1, Budget: 20 * time.Second, MaxDatabases: 150})
		if err != nil {
			t.Fatal(err)
		}
		if out.Verdict != c.want {
			t.Errorf("%s / %s: %s (%s), want %s; %+v", c.q1, c.q2, out.Verdict, out.Reason, c.want, out.Witness)
			continue
		}
		if out.Witness != nil {
			reverifyPostgres(t, out.Witness, c.q1, c.q2)
		}
	}
	if after := pgFingerprint(t, conn); after != before {
		t.Fatalf("the db_id database changed:\n%s\n%s", before, after)
	}
}

// TestPostgresDBIDDefog runs `equiv` on db_id pairs over Defog's
// car_dealership, loaded from its PostgreSQL dump as it is (SERIAL keys,
// UNIQUE columns, REFERENCES): the catalog's constraints are read, the
// database's values seed the search, and the database is unchanged.
func TestPostgresDBIDDefog(t *testing.T) {
	server := testserver.Postgres(t)
	ctx := context.Background()
	dump, err := dbload.ReadDump(shareddata.Path(t, "defog", "defog_data", "car_dealership", "car_dealership.sql"))
	if err != nil {
		t.Fatal(err)
	}
	prefix := testserver.Name("sjt_defog_")
	t.Cleanup(func() { testserver.DropPostgresDB(t, server, prefix+"car_dealership") })
	if _, err := dbload.Load(ctx, server, []*dbload.Dump{dump}, dbload.Options{Prefix: prefix}); err != nil {
		t.Fatal(err)
	}
	db := prefix + "car_dealership"
	conn := testserver.ConnectPostgres(t, server, db)
	before := pgFingerprint(t, conn)
	sb := readerSandbox(t, server, db)
	sch, err := readServerSchema(ctx, sb, db)
	if err != nil {
		t.Fatal(err)
	}
	cars, sales := sch.Table("cars"), sch.Table("sales")
	if cars == nil || sales == nil || len(cars.PK) != 1 || len(cars.Uniques) != 1 || cars.Columns[cars.Uniques[0][0]].Name != "vin_number" || len(sales.FKs) != 3 {
		t.Fatalf("cars %+v\nsales %+v", cars, sales)
	}
	if mk := cars.Columns[cars.Col("make")].Values; !slices.ContainsFunc(mk, func(v result.Value) bool { return v.S == "Toyota" }) {
		t.Errorf("cars.make sample lacks Toyota: %v", mk)
	}
	pairs := `{"id": "fk", "q1": "SELECT s.id FROM sales s JOIN cars c ON s.car_id = c.id", "q2": "SELECT id FROM sales", "db_id": "` + db + `"}
{"id": "unique", "q1": "SELECT DISTINCT vin_number FROM cars", "q2": "SELECT vin_number FROM cars", "db_id": "` + db + `"}
{"id": "price", "q1": "SELECT id FROM sales WHERE sale_price > 30000", "q2": "SELECT id FROM sales WHERE sale_price >= 30000", "db_id": "` + db + `"}
{"id": "make", "q1": "SELECT count(*) FROM cars WHERE make = 'Toyota'", "q2": "SELECT count(*) FROM cars WHERE make LIKE 'Toyota%'", "db_id": "` + db + `"}
{"id": "missing", "q1": "SELECT 1", "q2": "SELECT 1", "db_id": "sjt_no_such_database"}
`
	dir := t.TempDir()
	file := filepath.Join(dir, "pairs.jsonl")
	if err := os.WriteFile(file, []byte(pairs), 0o644); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(testserver.PostgresReader(t, server, db))
	admin := testserver.ConnectPostgres(t, server, "")
	equivRole(t, admin, u.User.Username())
	var console strings.Builder
	if err := RunCommand(ctx, CommandOptions{Pairs: file, Out: filepath.Join(dir, "out"), DB: u.String(), Seed: 1, Budget: 20 * time.Second, MaxDatabases: 150}, &console); err != nil {
		t.Fatal(err)
	}
	recs, err := readRecords(filepath.Join(dir, "out", ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	// fk and unique are proved (join_elim, distinct_key: no obligation), on
	// PostgreSQL's catalog of the db_id database.
	want := map[string]Verdict{"fk": EquivalentProved, "unique": EquivalentProved, "price": Inequivalent, "make": Inequivalent, "missing": Unknown}
	for id, v := range want {
		if recs[id].Verdict != v {
			t.Errorf("%s: %s (%s), want %s", id, recs[id].Verdict, recs[id].Reason, v)
		}
	}
	if w := recs["make"].Witness; w != nil {
		if !strings.Contains(w.SQL, "'Toyota") {
			t.Errorf("the make witness does not use the database's or the query's value:\n%s", w.SQL)
		}
		reverifyPostgres(t, w, "SELECT count(*) FROM cars WHERE make = 'Toyota'", "SELECT count(*) FROM cars WHERE make LIKE 'Toyota%'")
	}
	if after := pgFingerprint(t, conn); after != before {
		t.Fatalf("the db_id database changed:\n%s\n%s", before, after)
	}
}

// TestPostgresDBIDChecks: the CHECKs of a db_id database on PostgreSQL,
// as pg_get_constraintdef prints them (ANY (ARRAY[…]), ::casts, ~~), are
// parsed and enforced in the scratch databases: a pair that is
// equivalent only under them is not refuted.
func TestPostgresDBIDChecks(t *testing.T) {
	server := testserver.Postgres(t)
	ctx := context.Background()
	name := strings.TrimSuffix(testserver.Name("sjt_checks_"), "_")
	conn := testserver.CreatePostgresDB(t, server, name)
	// A table per CHECK, so that a database drawn from the pools often
	// satisfies all three (a table may be empty).
	if _, err := conn.Exec(ctx, `CREATE TABLE t1 (id INT PRIMARY KEY, status VARCHAR(10) NOT NULL CHECK (status IN ('open', 'closed')));
		CREATE TABLE t2 (id INT PRIMARY KEY, code TEXT NOT NULL CHECK (code LIKE 'x%'));
		CREATE TABLE t3 (id INT PRIMARY KEY, n INT NOT NULL CHECK (n BETWEEN 1 AND 5));
		INSERT INTO t1 VALUES (1, 'open'), (2, 'closed');
		INSERT INTO t2 VALUES (1, 'x1'), (2, 'xy'), (3, 'x');
		INSERT INTO t3 VALUES (1, 1), (2, 5), (3, 3)`); err != nil {
		t.Fatal(err)
	}
	sb := readerSandbox(t, server, name)
	sch, err := readServerSchema(ctx, sb, name)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range []string{"t1", "t2", "t3"} {
		if got := len(sch.Table(tb).Checks); got != 1 {
			t.Fatalf("%s: %d CHECKs read, want 1", tb, got)
		}
	}
	for _, c := range []struct{ q1, q2 string }{
		{"SELECT id FROM t1 WHERE status IN ('open', 'closed')", "SELECT id FROM t1"},
		{"SELECT id FROM t2 WHERE code LIKE 'x%'", "SELECT id FROM t2"},
		{"SELECT id FROM t3 WHERE n >= 1 AND n <= 5", "SELECT id FROM t3"},
	} {
		out, err := Decide(ctx, Pair{Q1: c.q1, Q2: c.q2, DBID: name}, Options{NoProof: true, Sandbox: sb, Seed: 1, Budget: time.Minute, MaxDatabases: 100})
		if err != nil {
			t.Fatal(err)
		}
		if out.Verdict != EquivalentBounded {
			t.Errorf("%s / %s: %s (%s) %+v, want equivalent_bounded under the CHECKs", c.q1, c.q2, out.Verdict, out.Reason, out.Witness)
		}
	}
}

// TestPostgresDBIDExoticTypes decides db_id pairs over a PostgreSQL
// database with columns the search's databases cannot declare as they are
// (citext, an array, a column under the C collation): a pair that names a
// table holding one is unknown with the column named — on a TEXT column
// `ct = 'a'` and `lower(ct) = 'a'` part on 'A', on the citext column they
// never do, and the search once reported that witness; PostgreSQL reads a
// whole row by its table's name, so every column of a table named counts —
// however the name is spelled (doubled quotes, U&"…" escapes, TABLE t,
// which a lexical reading of names once missed), while a pair over a table
// of built-in columns only is still searched and refuted.
func TestPostgresDBIDExoticTypes(t *testing.T) {
	server := testserver.Postgres(t)
	ctx := context.Background()
	name := strings.TrimSuffix(testserver.Name("sjt_exotic_"), "_")
	conn := testserver.CreatePostgresDB(t, server, name)
	if _, err := conn.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS citext;
		CREATE TABLE t (id INT PRIMARY KEY, ct citext);
		CREATE TABLE "c""t" (id INT PRIMARY KEY, k citext);
		CREATE TABLE ta (id INT PRIMARY KEY, arr INT[]);
		CREATE TABLE tc (id INT PRIMARY KEY, cs TEXT COLLATE "C");
		CREATE TABLE plain (id INT PRIMARY KEY, name VARCHAR(20), amount NUMERIC(10, 2));
		INSERT INTO t VALUES (1, 'A'); INSERT INTO plain VALUES (1, 'x', 1.50)`); err != nil {
		t.Fatal(err)
	}
	sb := readerSandbox(t, server, name)
	checkVerdicts(t, Pair{DBID: name}, Options{Sandbox: sb, Seed: 1, Budget: time.Minute, MaxDatabases: 100}, []verdictCase{
		{"SELECT id FROM t WHERE ct = 'a'", "SELECT id FROM t WHERE lower(ct) = 'a'", Unknown, "t.ct: its type CITEXT is declared TEXT"},
		{"SELECT id FROM ta WHERE arr = arr", "SELECT id FROM ta WHERE arr IS NOT NULL", Unknown, "ta.arr"},
		{"SELECT id FROM tc WHERE cs < 'b'", "SELECT id FROM tc WHERE cs <= 'b'", Unknown, "tc.cs: its collation C"},
		{"SELECT * FROM t WHERE id > 1", "SELECT * FROM t WHERE id >= 1", Unknown, "t.ct"},
		{"SELECT id FROM t WHERE t = ROW(1, 'a')::t", "SELECT id FROM t WHERE id = 1 AND ct = 'a' COLLATE \"C\"", Unknown, "t.ct"},
		{"TABLE t", "SELECT id, ct FROM t", Unknown, "t.ct"},
		{`SELECT id FROM U&"\0074" WHERE id > 1`, "SELECT id FROM t WHERE id >= 1", Unknown, "t.ct"},
		{`SELECT k FROM "c""t" WHERE k = 'a'`, `SELECT 'a' FROM "c""t" WHERE k = 'a'`, Unknown, "its type CITEXT is declared TEXT"},
		{"SELECT id FROM plain WHERE name = 'x' AND amount > 1", "SELECT id FROM plain WHERE name = 'x'", Inequivalent, ""},
	})
}

// TestPostgresDBIDLocale decides a db_id pair over a database created
// with ICU's en-US locale, whose text orders otherwise than the scratch
// database's (the server's default, C.UTF-8 in CI): under en-US 'B' sorts
// after 'b', so `name < 'b'` never holds for 'B' and the two queries agree;
// under C it does, and the search refuted the pair with a witness the
// database cannot give. The pair is now unknown with both locales named,
// and so is one over a database with a setting of its own, while over a
// database of the server's defaults it is refuted.
func TestPostgresDBIDLocale(t *testing.T) {
	server := testserver.Postgres(t)
	ctx := context.Background()
	for _, c := range []struct {
		options, set string
		want         Verdict
		reason       string
	}{
		{"TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'", "", Unknown, "its locale (encoding, collate, ctype, provider, ICU locale; settings of its own)"},
		// A setting of the database's own: its queries run otherwise
		// (transform_null_equals reads name = NULL as name IS NULL).
		{"", "transform_null_equals = on", Unknown, "settings transform_null_equals=on"},
		{"", "", Inequivalent, ""},
	} {
		name := strings.TrimSuffix(testserver.Name("sjt_locale_"), "_")
		conn := testserver.CreatePostgresDBWith(t, server, name, c.options)
		if _, err := conn.Exec(ctx, `CREATE TABLE t (id INT PRIMARY KEY, name TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'B')`); err != nil {
			t.Fatal(err)
		}
		if c.set != "" {
			if _, err := conn.Exec(ctx, "ALTER DATABASE "+name+" SET "+c.set); err != nil {
				t.Fatal(err)
			}
		}
		sb := readerSandbox(t, server, name)
		out, err := Decide(ctx, Pair{Q1: "SELECT id FROM t WHERE name < 'b'", Q2: "SELECT id FROM t WHERE name < 'b' AND name <> 'B'", DBID: name}, Options{Sandbox: sb, Seed: 1, Budget: time.Minute, MaxDatabases: 100})
		if err != nil {
			t.Fatal(err)
		}
		if out.Verdict != c.want || !strings.Contains(out.Reason, c.reason) {
			t.Errorf("%q: %s (%s), want %s with %q", c.options, out.Verdict, out.Reason, c.want, c.reason)
		}
	}
}

// TestPostgresDBIDUnmodelled reads a PostgreSQL database whose tables hold
// what the model leaves out (catalog.Table.Unmodelled) and refuses the
// pairs that read them. Inheritance made the prover read p's primary key
// for scans that also read pc's rows (`SELECT DISTINCT id FROM p` proved
// equal to `SELECT id FROM p`, with id 1 in both tables); a NOT VALID
// foreign key, or one whose triggers are disabled, bound rows it never
// checked (join_elim). Such foreign keys are not read; a unique index under
// another collation than its column's is no key. A pair over the plain
// table is still refuted, and one over a table that is only referenced by
// a dropped foreign key proved.
func TestPostgresDBIDUnmodelled(t *testing.T) {
	server := testserver.Postgres(t)
	ctx := context.Background()
	name := strings.TrimSuffix(testserver.Name("sjt_unmod_"), "_")
	conn := testserver.CreatePostgresDB(t, server, name)
	if _, err := conn.Exec(ctx, `CREATE TABLE p (id INT PRIMARY KEY, z INT);
		CREATE TABLE pc (extra INT) INHERITS (p);
		CREATE TABLE part (id INT, k INT) PARTITION BY RANGE (k);
		CREATE TABLE part_1 PARTITION OF part FOR VALUES FROM (0) TO (10);
		CREATE TABLE pu (id INT PRIMARY KEY, x INT, y INT);
		CREATE UNIQUE INDEX pu_x ON pu (x) WHERE y = 1;
		CREATE TABLE ex (id INT PRIMARY KEY, x INT, EXCLUDE USING btree (x WITH =));
		CREATE TABLE gen (id INT PRIMARY KEY, x INT, g INT GENERATED ALWAYS AS (x * 2) STORED);
		CREATE TABLE trg (id INT PRIMARY KEY, x INT);
		CREATE FUNCTION trg_small() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.x > 5 THEN RAISE EXCEPTION 'too big'; END IF; RETURN NEW; END $$;
		CREATE TRIGGER trg_small BEFORE INSERT ON trg FOR EACH ROW EXECUTE FUNCTION trg_small();
		CREATE TABLE nnd (id INT PRIMARY KEY, x INT, UNIQUE NULLS NOT DISTINCT (x));
		CREATE TABLE pg_am (amtype TEXT PRIMARY KEY);
		CREATE TABLE cu (id INT PRIMARY KEY, s TEXT COLLATE "C");
		CREATE UNIQUE INDEX cu_s ON cu (s COLLATE "POSIX");
		CREATE TABLE ref (id INT PRIMARY KEY);
		CREATE TABLE q (id INT PRIMARY KEY, pid INT NOT NULL);
		INSERT INTO ref VALUES (1); INSERT INTO q VALUES (1, 1), (2, 2);
		ALTER TABLE q ADD FOREIGN KEY (pid) REFERENCES ref (id) NOT VALID;
		CREATE TABLE r (id INT PRIMARY KEY, pid INT NOT NULL REFERENCES ref (id));
		ALTER TABLE r DISABLE TRIGGER ALL;
		CREATE TABLE plain (id INT PRIMARY KEY, x INT);
		INSERT INTO p VALUES (1, 5); INSERT INTO pc VALUES (1, 6, 0); INSERT INTO plain VALUES (1, 3)`); err != nil {
		t.Fatal(err)
	}
	sb := readerSandbox(t, server, name)
	sch, err := readServerSchema(ctx, sb, name)
	if err != nil {
		t.Fatal(err)
	}
	for tb, want := range map[string]string{
		"p": "inherits or is inherited", "pc": "inherits or is inherited", "part": "partitioned",
		"pu": "a unique index that is partial", "nnd": "NULLS NOT DISTINCT", "ex": "an exclusion constraint",
		"gen": "a generated column", "trg": "a trigger", "pg_am": "pg_catalog", "cu": "under another collation",
		"q": "", "r": "", "plain": "",
	} {
		tab := sch.Table(tb)
		if tab == nil {
			t.Errorf("%s: not read", tb)
			continue
		}
		if got := tab.Unmodelled; (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: Unmodelled %q, want %q", tb, got, want)
		}
	}
	if q, r, cu := sch.Table("q"), sch.Table("r"), sch.Table("cu"); len(q.FKs) != 0 || len(r.FKs) != 0 || len(cu.Uniques) != 0 {
		t.Errorf("foreign keys q %v, r %v (NOT VALID, triggers disabled: none), cu's uniques %v (another collation: none)", q.FKs, r.FKs, cu.Uniques)
	}
	checkVerdicts(t, Pair{DBID: name}, Options{Sandbox: sb, Seed: 1, Budget: time.Minute, MaxDatabases: 100}, []verdictCase{
		{"SELECT DISTINCT id FROM p", "SELECT id FROM p", Unknown, "table p: inherits or is inherited"},
		{"SELECT count(*) FROM trg WHERE x > 5", "SELECT count(*) FROM trg WHERE x > 100", Unknown, "table trg: a trigger"},
		{"SELECT q.id FROM q JOIN ref ON q.pid = ref.id", "SELECT q.id FROM q", Inequivalent, ""},
		{"SELECT r.id FROM r JOIN ref ON r.pid = ref.id", "SELECT r.id FROM r", Inequivalent, ""},
		{"SELECT x FROM plain WHERE x > 1", "SELECT x FROM plain WHERE x > 2", Inequivalent, ""},
	})
	// A pair of DDL that declares inheritance is refused when parsed.
	out, err := Decide(ctx, Pair{Q1: "SELECT DISTINCT id FROM p", Q2: "SELECT id FROM p", Schema: "CREATE TABLE p (id INTEGER PRIMARY KEY, z INTEGER); CREATE TABLE pc (extra INTEGER) INHERITS (p);"}, Options{Sandbox: sb, Seed: 1, Budget: time.Minute, MaxDatabases: 100})
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdict != Unknown || !strings.Contains(out.Reason, "INHERITS: a table whose rows include other tables'") {
		t.Errorf("DDL with INHERITS: %s (%s), want unknown", out.Verdict, out.Reason)
	}
}

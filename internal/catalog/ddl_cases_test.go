package catalog_test

import (
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/catalog"
)

// sqliteGrammarCases are CREATE TABLE statements from the grammar of
// https://sqlite.org/lang_createtable.html, each run on SQLite and read by
// ParseDDL (TestParseDDLAsSQLite): accepted by both with the same tables,
// columns, keys and foreign keys, or refused by both with SQLite's
// message.
var sqliteGrammarCases = []string{
	// Table constraints with and without commas (BIRD's sqlite_master).
	`CREATE TABLE p (a INT PRIMARY KEY); CREATE TABLE q (b INT PRIMARY KEY); CREATE TABLE t (a INT, b INT, FOREIGN KEY (a) REFERENCES p(a) FOREIGN KEY (b) REFERENCES q(b))`,
	`CREATE TABLE t (a INT, b INT, PRIMARY KEY (a) UNIQUE (b) CHECK (a > 0))`,
	`CREATE TABLE t (a INT UNIQUE (a))`,
	`CREATE TABLE t (a INT, CONSTRAINT c UNIQUE (a) CONSTRAINT d CHECK (a > 1))`,
	`CREATE TABLE t (a INT, UNIQUE (a) PRIMARY KEY (a))`,
	// Type names: several words, signed numbers, keywords that fall back to names.
	`CREATE TABLE t (a INT UNSIGNED BIG INT, b VARCHAR(+10), c DECIMAL(-10, 2.5), d "my type", e 'text', f DOUBLE PRECISION(5) NOT NULL)`,
	`CREATE TABLE t (a INT KEY, b TEXT ASC, c INT REPLACE, d INT GENERATED INT)`,
	`CREATE TABLE t (a INT, b TEXT(10), c NUMERIC(10, 5) NOT NULL DEFAULT 0, d varchar (10), e)`,
	`CREATE TABLE t (a INT, b TIMESTAMP WITHOUT TIME ZONE, c DOUBLE PRECISION, d CHARACTER VARYING(20), e INT AUTO_INCREMENT, f INT UNSIGNED ZEROFILL NOT NULL)`,
	`CREATE TABLE t (a INT, b VARCHAR(10, 20, 30))`,
	`CREATE TABLE t (a INT, b VARCHAR(x))`,
	`CREATE TABLE t (a INT, b VARCHAR())`,
	`CREATE TABLE [t] ([a] INT PRIMARY KEY, [b] [text], "c" "int", 'd' 'real', ` + "`e` `blob`" + `)`,
	// Column constraints in any order, each with a CONSTRAINT name.
	`CREATE TABLE p (x INT PRIMARY KEY); CREATE TABLE t (a INT CONSTRAINT c1 NOT NULL CONSTRAINT c2 UNIQUE CONSTRAINT c3 CHECK (a > 0) CONSTRAINT c4 DEFAULT 3 CONSTRAINT c5 COLLATE nocase CONSTRAINT c6 REFERENCES p(x) ON DELETE CASCADE ON UPDATE SET NULL MATCH FULL DEFERRABLE INITIALLY DEFERRED)`,
	`CREATE TABLE t (a INT CHECK (a > 0) DEFAULT 1 UNIQUE NOT NULL, b TEXT COLLATE NOCASE PRIMARY KEY NOT NULL, c NULL)`,
	`CREATE TABLE t (a INT, CONSTRAINT x CONSTRAINT y PRIMARY KEY (a))`,
	`CREATE TABLE t (a INT, CONSTRAINT x)`,
	`CREATE TABLE t (a INT CONSTRAINT x)`,
	`CREATE TABLE t (a INT CONSTRAINT)`,
	// Conflict clauses.
	`CREATE TABLE t (a INT UNIQUE ON CONFLICT ABORT, b INT NOT NULL ON CONFLICT IGNORE, c INT PRIMARY KEY ON CONFLICT REPLACE)`,
	`CREATE TABLE t (a INT, UNIQUE (a) ON CONFLICT REPLACE, CHECK (a > 0) ON CONFLICT IGNORE)`,
	`CREATE TABLE t (a INT, CONSTRAINT pk PRIMARY KEY (a) ON CONFLICT ROLLBACK, CHECK (a > 0) ON CONFLICT FAIL)`,
	`CREATE TABLE t (a INT ON CONFLICT REPLACE)`,
	`CREATE TABLE t (a INT PRIMARY KEY ON CONFLICT FOO)`,
	// GENERATED ALWAYS AS.
	`CREATE TABLE t (a INT GENERATED ALWAYS AS (1) STORED, b INT AS (a + 1) VIRTUAL, c INT AS (a), d)`,
	`CREATE TABLE t (a INT, b GENERATED ALWAYS AS (a), c INT NOT NULL AS (a) UNIQUE)`,
	`CREATE TABLE t (a INT AS (1) FOO, b)`,
	`CREATE TABLE t (a INT DEFAULT 1 GENERATED ALWAYS AS (2), b)`,
	`CREATE TABLE t (a INT, b INT GENERATED ALWAYS AS (a) DEFAULT 3)`,
	`CREATE TABLE t (a INT, b INT GENERATED ALWAYS AS (a) STORED VIRTUAL)`,
	`CREATE TABLE t (a INT GENERATED ALWAYS AS (1) PRIMARY KEY, b)`,
	`CREATE TABLE t (a INT AS (1))`,
	`CREATE TABLE t (a INT, b INT AS (c))`,
	// DEFAULT: literals, signed numbers, names, CURRENT_*, expressions.
	`CREATE TABLE t (a INT DEFAULT abc, b DEFAULT -1, c DEFAULT +1.5, d DEFAULT CURRENT_TIMESTAMP, e DEFAULT (random()), f DEFAULT x'00', g DEFAULT TRUE, h DEFAULT NULL)`,
	`CREATE TABLE t (a INT DEFAULT (1 + 2), b DEFAULT ('x' || 'y'), c DEFAULT (CURRENT_DATE), d DEFAULT (abs(-3)), e DEFAULT (CAST(1 AS TEXT)))`,
	`CREATE TABLE t (a INT DEFAULT - 5, b DEFAULT + 'x', c DEFAULT -'1', d DEFAULT 0x1F, e DEFAULT 1e5, f DEFAULT .5)`,
	`CREATE TABLE t (a INT DEFAULT (a + 1))`,
	`CREATE TABLE t (a INT DEFAULT ("abc"))`,
	`CREATE TABLE t (a INT DEFAULT -x)`,
	`CREATE TABLE t (a INT DEFAULT 1 NOT NULL DEFAULT 2)`,
	// CHECK.
	`CREATE TABLE t (a INT CHECK (a > 0), b TEXT CHECK (length(b) < 10), CHECK (a < 100 OR b IS NULL))`,
	`CREATE TABLE t (a INT, CHECK (t.a > 0), CHECK (main.t.a < 9))`,
	`CREATE TABLE t (a INT, CHECK (b > 0))`,
	`CREATE TABLE t (a INT, CHECK (u.a > 0))`,
	`CREATE TABLE t (a INT CHECK (a > (SELECT 1)))`,
	`CREATE TABLE t (a TEXT CHECK (a <> $$ ), b TEXT)`,
	`CREATE TABLE t (a TEXT CHECK (a <> :x), b TEXT CHECK (b <> ?))`,
	`CREATE TABLE t (a INT CHECK (a > 0) CHECK (a < 10))`,
	`CREATE TABLE t (a INT, b INT CHECK a > 0)`,
	`CREATE TABLE t (a INT, b INT CHECK (a > 0)`,
	// COLLATE.
	`CREATE TABLE t (a TEXT COLLATE BINARY COLLATE NOCASE, b TEXT COLLATE "rtrim", c TEXT COLLATE 'nocase')`,
	// WITHOUT ROWID, STRICT.
	`CREATE TABLE t (a TEXT PRIMARY KEY, b INT) WITHOUT ROWID`,
	`CREATE TABLE t (a TEXT, b INT, PRIMARY KEY (a, b)) WITHOUT ROWID`,
	`CREATE TABLE t (a INTEGER PRIMARY KEY, b) WITHOUT ROWID`,
	`CREATE TABLE t (a INT) WITHOUT ROWID`,
	`CREATE TABLE t (a INT PRIMARY KEY) WITHOUT ROWID, STRICT`,
	`CREATE TABLE t (a INT PRIMARY KEY, b INTEGER, c TEXT, UNIQUE (b, c)) STRICT`,
	`CREATE TABLE t (a INT PRIMARY KEY) STRICT, WITHOUT ROWID`,
	`CREATE TABLE t (a INT, b ANY, c TEXT, d REAL, e BLOB, f INTEGER) STRICT`,
	`CREATE TABLE t (a VARCHAR(10)) STRICT`,
	`CREATE TABLE t (a) STRICT`,
	`CREATE TABLE t (a INT PRIMARY KEY) WITHOUT rowids`,
	`CREATE TABLE t (a INT PRIMARY KEY) FOO`,
	`CREATE TABLE t (a INT PRIMARY KEY), x`,
	// IF NOT EXISTS, schema-qualified names, TEMP.
	`CREATE TABLE IF NOT EXISTS main.t (a INT)`,
	`CREATE TABLE t (a INT); CREATE TABLE IF NOT EXISTS T (b INT)`,
	`CREATE TABLE t (a INT); CREATE TABLE t (b INT)`,
	`CREATE TEMP TABLE t (a INT); CREATE TEMPORARY TABLE u (b INT)`,
	`CREATE TABLE temp.t (a INT)`,
	`CREATE TEMP TABLE main.t (a INT)`,
	// AUTOINCREMENT, DESC in primary keys.
	`CREATE TABLE t (a integer PRIMARY KEY AUTOINCREMENT, b)`,
	`CREATE TABLE t (a "INTEGER" PRIMARY KEY ASC AUTOINCREMENT, b)`,
	`CREATE TABLE t (a INTEGER, PRIMARY KEY (a AUTOINCREMENT))`,
	`CREATE TABLE t (a INTEGER NOT NULL PRIMARY KEY DESC ON CONFLICT REPLACE AUTOINCREMENT)`,
	`CREATE TABLE t (a INT PRIMARY KEY AUTOINCREMENT)`,
	`CREATE TABLE t (a INTEGER(10) PRIMARY KEY AUTOINCREMENT)`,
	`CREATE TABLE t (a INT, PRIMARY KEY (a AUTOINCREMENT))`,
	`CREATE TABLE t (a, b INTEGER PRIMARY KEY DESC)`,
	`CREATE TABLE t (a INTEGER, b, PRIMARY KEY (a COLLATE nocase DESC, b ASC))`,
	`CREATE TABLE t (a INTEGER, b, PRIMARY KEY (b DESC, 'a'))`,
	`CREATE TABLE t (a INTEGER, b, c, PRIMARY KEY ((a) COLLATE nocase, (b COLLATE rtrim) DESC), UNIQUE ((c)))`,
	`CREATE TABLE t (a INTEGER, b, UNIQUE ((a) + (b)))`,
	`CREATE TABLE t (a INTEGER, b, PRIMARY KEY (a, b NULLS FIRST))`,
	`CREATE TABLE t (a INTEGER, b, PRIMARY KEY (a + b))`,
	`CREATE TABLE t (a INTEGER, b, UNIQUE (lower(a)))`,
	`CREATE TABLE t (a INTEGER PRIMARY KEY, b INT, PRIMARY KEY (b))`,
	`CREATE TABLE t (a INTEGER PRIMARY KEY AUTOINCREMENT, b INT PRIMARY KEY)`,
	// Foreign keys: deferrable, ON DELETE/UPDATE, MATCH, implicit columns.
	`CREATE TABLE p (x INT, y INT, PRIMARY KEY (x, y)); CREATE TABLE t (a INT, b INT, FOREIGN KEY (a, b) REFERENCES p ON DELETE SET DEFAULT ON UPDATE NO ACTION ON INSERT RESTRICT MATCH SIMPLE NOT DEFERRABLE INITIALLY IMMEDIATE)`,
	`CREATE TABLE p (x INT PRIMARY KEY); CREATE TABLE t (a INT REFERENCES p ON DELETE CASCADE DEFERRABLE, b INT NOT DEFERRABLE, c INT DEFERRABLE INITIALLY DEFERRED)`,
	`CREATE TABLE t (a INT PRIMARY KEY, b INT REFERENCES t, c INT, FOREIGN KEY (c) REFERENCES t (a))`,
	`CREATE TABLE t (a INT REFERENCES nosuch (x), b INT, FOREIGN KEY (b) REFERENCES t (zz))`,
	`CREATE TABLE t (a INT, FOREIGN KEY (b) REFERENCES p(x))`,
	`CREATE TABLE t (a INT REFERENCES p(x, y))`,
	`CREATE TABLE t (a INT, b INT, FOREIGN KEY (a, b) REFERENCES p(x))`,
	`CREATE TABLE t (a INT, FOREIGN KEY (a COLLATE nocase) REFERENCES p(x))`,
	`CREATE TABLE t (a INT, FOREIGN KEY (a) REFERENCES p(x DESC))`,
	`CREATE TABLE t (a INT, b INT REFERENCES t (a) ON DELETE)`,
	`CREATE TABLE t (a INT, b INT REFERENCES t (a) ON FOO CASCADE)`,
	`CREATE TABLE t (a INT, b INT REFERENCES t (a) MATCH)`,
	`CREATE TABLE t (a INT, b INT REFERENCES)`,
	`CREATE TABLE t (a INT, FOREIGN KEY a REFERENCES t(a))`,
	`CREATE TABLE t (a INT, FOREIGN KEY (a) REFERENCES t(a) DEFERRABLE INITIALLY IMMEDIATE ON DELETE CASCADE)`,
	// Unique indexes.
	`CREATE TABLE t (a INT, b INT); CREATE UNIQUE INDEX i ON t (a, b); CREATE UNIQUE INDEX IF NOT EXISTS main.j ON t (b COLLATE nocase DESC)`,
	`CREATE TABLE t (a INT, b INT); CREATE UNIQUE INDEX i ON t (lower(a), b)`,
	`CREATE TABLE t (a INT, b INT); CREATE UNIQUE INDEX i ON t ('a')`,
	`CREATE TABLE t (a INT); CREATE UNIQUE INDEX i ON t (b)`,
	`CREATE TABLE t (a INT); CREATE UNIQUE INDEX i ON u (a)`,
	`CREATE TABLE t (a INT); CREATE UNIQUE INDEX i ON t (a); CREATE UNIQUE INDEX i ON t (a)`,
	`CREATE TABLE t (a INT); CREATE UNIQUE INDEX i ON t (a); CREATE UNIQUE INDEX IF NOT EXISTS i ON t (a)`,
	// Names and duplicates.
	`CREATE TABLE t (key INT, action TEXT, match INT, replace INT, window INT, over INT, filter INT, do INT, glob INT, left INT, rowid INT, generated INT, always INT, indexed INT, temp INT, "order" INT)`,
	`CREATE TABLE t (order INT)`,
	`CREATE TABLE order (a INT)`,
	`CREATE TABLE t (nothing INT)`,
	`CREATE TABLE t (a INT, a TEXT)`,
	`CREATE TABLE t (a INT, "A" TEXT)`,
	`CREATE TABLE "t x" ([a b] INT, "e""f" INT, 'g' INT)`,
	`CREATE TABLE t ("" INT)`,
	`CREATE TABLE t ($a INT)`,
	`CREATE TABLE t (a$b INT)`,
	`CREATE TABLE t (1a INT)`,
	`CREATE TABLE t (a DECIMAL($$ ), b TEXT)`,
	`CREATE TABLE t (a INT DEFAULT $x)`,
	// Incomplete and malformed statements.
	`CREATE TABLE t (a INT,)`,
	`CREATE TABLE t ()`,
	`CREATE TABLE t`,
	`CREATE TABLE t (a INT`,
	`CREATE TABLE t (a INT;`,
	`CREATE TABLE t (a INT) x`,
	`CREATE TABLE t (a INT) ;`,
}

// TestParseDDLAsSQLite runs every case of sqliteGrammarCases on SQLite and
// through ParseDDL: the same schema, or SQLite's refusal quoted.
func TestParseDDLAsSQLite(t *testing.T) {
	for _, ddl := range sqliteGrammarCases {
		compareWithSQLite(t, ddl)
	}
}

// beyondSQLiteCases are statements SQLite refuses and ParseDDL reads as
// MySQL or PostgreSQL DDL, with the facts ParseDDL gives them.
var beyondSQLiteCases = []struct{ ddl, facts string }{
	{`CREATE TABLE t (a INT NOT NULL AUTO_INCREMENT, b INT(11) UNSIGNED DEFAULT '0' COMMENT 'x', c VARCHAR(20) CHARACTER SET utf8 COLLATE utf8_bin, d TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY (a), UNIQUE KEY k (c), KEY k2 (b)) ENGINE=InnoDB DEFAULT CHARSET=utf8`,
		"t column a INT notnull=1; t column b INT(11) UNSIGNED notnull=0; t column c VARCHAR(20) notnull=0; t column d TIMESTAMP notnull=0; t primary key (a); t unique {a}; t unique {c}"},
	{`CREATE TABLE public.t (a SERIAL PRIMARY KEY, b TIMESTAMP(6) WITH TIME ZONE, c VARCHAR(10) DEFAULT 'x'::character varying, d INT GENERATED BY DEFAULT AS IDENTITY, e INT GENERATED ALWAYS AS IDENTITY, f ENUM('x', 'y'), g INT DEFAULT nextval('s'::regclass))`,
		"t column a SERIAL notnull=1; t column b TIMESTAMP(6) WITH TIME ZONE notnull=0; t column c VARCHAR(10) notnull=0; t column d INT notnull=1; t column e INT notnull=1; t column f ENUM notnull=0; t column g INT notnull=0; t primary key (a); t unique {a}"},
	{`CREATE TABLE t (a INT, PRIMARY KEY (a), b INT, FOREIGN KEY fk (b) REFERENCES t (a)) WITH (fillfactor = 70)`,
		"t column a INT notnull=0; t column b INT notnull=0; t foreign key (b) t (a); t primary key (a); t unique {a}"},
	{`CREATE TABLE t (a INT); CREATE UNIQUE INDEX i ON public.t USING btree (a)`,
		"t column a INT notnull=0; t unique {a}"},
	{`CREATE TABLE t (a INT); CREATE UNIQUE INDEX i ON main.t (a)`,
		"t column a INT notnull=0; t unique {a}"},
	{`CREATE TABLE t (a INT, PRIMARY KEY(a), b INT DEFAULT abc(1))`,
		"t column a INT notnull=0; t column b INT notnull=0; t primary key (a); t unique {a}"},
}

// TestParseDDLBeyondSQLite checks that SQLite refuses each case of
// beyondSQLiteCases and ParseDDL reads it as MySQL or PostgreSQL DDL.
func TestParseDDLBeyondSQLite(t *testing.T) {
	for _, c := range beyondSQLiteCases {
		if _, err := sqliteExec(t, c.ddl); err == nil {
			t.Errorf("%s: SQLite accepts it (move it to sqliteGrammarCases)", c.ddl)
		}
		db, err := catalog.ParseDDL(c.ddl)
		if err != nil {
			t.Errorf("%s: %v", c.ddl, err)
			continue
		}
		// SERIAL is NOT NULL by PostgreSQL's rule; KeyNotNull is not
		// SQLite's notnull, which parsedFacts reports.
		if got := strings.Join(parsedFacts(db), "; "); got != c.facts {
			t.Errorf("%s:\n got %s\nwant %s", c.ddl, got, c.facts)
		}
	}
}

// TestParseDDLRefusesWhatSQLiteAccepts pins the statements SQLite accepts
// and ParseDDL refuses, each with its reason.
func TestParseDDLRefusesWhatSQLiteAccepts(t *testing.T) {
	cases := []struct{ ddl, want string }{
		{"CREATE TABLE t AS SELECT 1 AS x", "CREATE TABLE … AS SELECT"},
		{"CREATE TABLE t (a INT[], b TEXT)", "PostgreSQL as an array"},
	}
	for _, c := range cases {
		if _, err := sqliteExec(t, c.ddl); err != nil {
			t.Errorf("%s: SQLite refuses it: %v", c.ddl, err)
		}
		if _, err := catalog.ParseDDL(c.ddl); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "SQLite accepts it") {
			t.Errorf("ParseDDL(%q) = %v, want an error with %q that says SQLite accepts it", c.ddl, err, c.want)
		}
	}
}

// sqliteKeywords are SQLite's keywords (https://sqlite.org/lang_keywords.html).
const sqliteKeywords = `ABORT ACTION ADD AFTER ALL ALTER ALWAYS ANALYZE AND AS ASC ATTACH
AUTOINCREMENT BEFORE BEGIN BETWEEN BY CASCADE CASE CAST CHECK COLLATE COLUMN COMMIT CONFLICT
CONSTRAINT CREATE CROSS CURRENT CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP DATABASE DEFAULT
DEFERRABLE DEFERRED DELETE DESC DETACH DISTINCT DO DROP EACH ELSE END ESCAPE EXCEPT EXCLUDE
EXCLUSIVE EXISTS EXPLAIN FAIL FILTER FIRST FOLLOWING FOR FOREIGN FROM FULL GENERATED GLOB GROUP
GROUPS HAVING IF IGNORE IMMEDIATE IN INDEX INDEXED INITIALLY INNER INSERT INSTEAD INTERSECT INTO
IS ISNULL JOIN KEY LAST LEFT LIKE LIMIT MATCH MATERIALIZED NATURAL NO NOT NOTHING NOTNULL NULL
NULLS OF OFFSET ON OR ORDER OTHERS OUTER OVER PARTITION PLAN PRAGMA PRECEDING PRIMARY QUERY
RAISE RANGE RECURSIVE REFERENCES REGEXP REINDEX RELEASE RENAME REPLACE RESTRICT RETURNING RIGHT
ROLLBACK ROW ROWS SAVEPOINT SELECT SET TABLE TEMP TEMPORARY THEN TIES TO TRANSACTION TRIGGER
UNBOUNDED UNION UNIQUE UPDATE USING VACUUM VALUES VIEW VIRTUAL WHEN WHERE WINDOW WITH WITHOUT`

// TestSQLiteKeywords runs every SQLite keyword as a table name, as a
// column name and as a type on SQLite and through ParseDDL: which
// keywords SQLite reserves is measured, not assumed.
func TestSQLiteKeywords(t *testing.T) {
	for _, k := range strings.Fields(sqliteKeywords) {
		compareWithSQLite(t, "CREATE TABLE "+k+" (a INT)")
		compareWithSQLite(t, "CREATE TABLE t (a INT, "+k+" INT)")
		compareWithSQLite(t, "CREATE TABLE t (a "+k+", b INT)")
		compareWithSQLite(t, "CREATE TABLE t (a INT "+k+")")
	}
}

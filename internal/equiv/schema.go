package equiv

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	"github.com/sqljudge/sqljudge/internal/testsuite"
)

// sampleValues bounds the values read per column of a pair's database
// (DB, DBID): they join the column's pool.
const sampleValues = 12

// schema is a pair's schema (catalog.Database: tables ordered so that a
// referenced table comes before the tables that reference it, declared
// types upper-cased) with the search's operations on it: Data is by table
// index of its Tables.
type schema struct {
	*catalog.Database
	// dialect is the engine the search runs on, which decides how keys
	// compare text (schema.padded); SQLite's exact comparison when "".
	dialect engine.Dialect
	// minRows are, by table index, the fewest rows a database of the
	// search may give each table: 1 under AssumeObserved for a table the
	// pair's database fills, else 0.
	minRows []int
}

// newSchema returns the search's schema of db: its declared types
// upper-cased (UpperType), the spelling the search reads them in.
func newSchema(db *catalog.Database) *schema {
	for _, t := range db.Tables {
		for i := range t.Columns {
			t.Columns[i].Type = t.Columns[i].UpperType()
		}
	}
	return &schema{Database: db, minRows: make([]int, len(db.Tables))}
}

// nullableKeys lets the PRIMARY KEY columns that SQLite lets hold NULL
// do so in the search's databases: those declared without NOT NULL
// (catalog.Column.KeyNotNull; SQLite enforces it only on an INTEGER
// PRIMARY KEY, a WITHOUT ROWID or a STRICT table,
// https://sqlite.org/lang_createtable.html, "PRIMARY KEY"). The rowid's
// alias (catalog.Table.RowidAlias, which a NULL makes a fresh integer)
// keeps NOT NULL; an INTEGER PRIMARY KEY DESC is none, and the sandbox
// declares it so too (catalog's descKey); so does a table
// whose CREATE statement the catalog could not read. The sandbox's
// tables are rendered from the schema, so they declare no NOT NULL on
// those columns either: the databases searched are those the prover's
// SQLite model covers (prove.SchemaOf), where COUNT(id) need not equal
// COUNT(*) for an id TEXT PRIMARY KEY.
func (s *schema) nullableKeys() {
	for _, t := range s.Tables {
		if t.Undeclared || t.RowidAlias() {
			continue
		}
		for i := range t.Columns {
			if c := &t.Columns[i]; c.KeyNotNull {
				c.NotNull = false
			}
		}
	}
}

// readSQLiteDB reads the schema of the SQLite database at path with its
// CHECKs and sampleValues values a column (catalog.Read), ordered by
// references and validated. A CHECK the grammar refuses is the error as
// is; any other names the file.
func readSQLiteDB(ctx context.Context, path string) (*schema, error) {
	eng := sqlite.New("", sqlite.Options{})
	defer eng.Close()
	db, err := catalog.Read(ctx, eng, path, catalog.Options{Samples: sampleValues, Checks: true})
	var ce *catalog.CheckError
	if err != nil && !errors.As(err, &ce) {
		err = fmt.Errorf("inspect %s: %w", path, err)
	}
	if err != nil {
		return nil, err
	}
	db.OrderByReferences()
	return newSchema(db), db.Validate()
}

// serverReadOptions are what a db_id pair's search reads of a server's
// database: its current schema's tables with their CHECKs and
// sampleValues values a column.
var serverReadOptions = catalog.Options{Samples: sampleValues, Checks: true}

// readServerDB reads the pair's DBID through the sandbox
// (readServerSchema).
func (s *searcher) readServerDB(ctx context.Context) error {
	db, err := readServerSchema(ctx, s.o.Sandbox, s.p.DBID)
	if err != nil {
		return fmt.Errorf("db_id %q: %w", s.p.DBID, err)
	}
	s.schema = newSchema(db)
	return nil
}

// readServerSchema reads database dbID of sb's server, when sb can read
// databases of its server (sandbox.DBReader), with serverReadOptions,
// ordered by references and validated. Nothing is written to it.
func readServerSchema(ctx context.Context, sb sandbox.Sandbox, dbID string) (*catalog.Database, error) {
	r, ok := sb.(sandbox.DBReader)
	if !ok {
		return nil, fmt.Errorf("the %s engine cannot read an existing database (db_id pairs run on SQLite, PostgreSQL or MariaDB/MySQL)", sb.Dialect())
	}
	db, err := r.ReadDB(ctx, dbID, serverReadOptions)
	if errors.Is(err, catalog.ErrNoTables) {
		where := " in its current schema"
		if sb.Dialect() == engine.MySQL {
			where = ""
		}
		return nil, fmt.Errorf("database %s has no tables%s", dbID, where)
	}
	if err != nil {
		return nil, err
	}
	db.OrderByReferences()
	return db, db.Validate()
}

// index returns the index in s.Tables of the table named name
// (case-insensitive), or -1.
func (s *schema) index(name string) int { return s.Index(s.Table(name)) }

// refIndex returns the index in s.Tables of the table fk references, or
// -1.
func (s *schema) refIndex(fk catalog.ForeignKey) int { return s.Index(s.RefTable(fk)) }

// fuzzerSchema returns a copy of s whose columns' Values are pools (by
// table and column index): the schema the test-suite machinery
// (testsuite.Neighbours, testsuite.Fuzzer) works on.
func (s *schema) fuzzerSchema(pools [][][]result.Value) *catalog.Database {
	out := *s.Database
	out.Tables = make([]*catalog.Table, len(s.Tables))
	for ti, t := range s.Tables {
		c := *t
		c.Columns = append([]catalog.Column(nil), t.Columns...)
		for ci := range c.Columns {
			c.Columns[ci].Values = pools[ti][ci]
		}
		out.Tables[ti] = &c
	}
	return &out
}

// fromData converts a fuzzed database of the test-suite machinery (over
// info, fuzzerSchema's copy) into rows by table index, each value coerced
// to its column's family (NULL where it has none).
func (s *schema) fromData(info *catalog.Database, d testsuite.Data) Data {
	out := make(Data, len(s.Tables))
	for ti, t := range s.Tables {
		for _, r := range d[info.Tables[ti]] {
			row := make([]result.Value, len(r))
			for ci, v := range r {
				if cv, ok := coerce(v, t.Columns[ci]); ok {
					row[ci] = cv
				}
			}
			out[ti] = append(out[ti], row)
		}
	}
	return out
}

// tableRows are db's rows by table, in table order, for Scratch.Load.
func (s *schema) tableRows(d engine.Dialect, db Data) []sandbox.TableRows {
	out := make([]sandbox.TableRows, len(s.Tables))
	for ti, t := range s.Tables {
		out[ti] = sandbox.TableRows{Name: catalog.TableIdent(d, t), Cols: len(t.Columns), Rows: db[ti]}
	}
	return out
}

// unfaithfulRead returns why the search cannot stand for the pair's
// database, "" when it can: a column either query may read is one the
// sandbox would declare with another type or collation than the database
// it was read from or its DDL has (catalog.Unfaithful: a citext, point or array
// column of PostgreSQL, a tinyint or a column under a binary collation of
// MariaDB), so that a witness would be one for other columns (a citext's =
// ignores case, a TEXT's does not) and a bounded verdict would speak of
// databases the item cannot hold. A column may be read when its name
// may be named by either query (readNames: its words appear in their
// text), or when a query may read columns it does not name (a * but
// COUNT(*), NATURAL, TABLE t; on PostgreSQL any column of a table named,
// which a whole-row reference reads). A table either query names that holds what the
// model leaves out (catalog.Table.Unmodelled: a trigger, inheritance, a
// partial unique index, a generated column…) refuses the pair too: the
// search would build rows the table refuses, the prover read keys its
// scans do not keep. A pair of DDL is refused where it names a type of
// d's own that the sandbox declares otherwise (TINYINT on MariaDB,
// CITEXT on PostgreSQL) or a COLLATE off SQLite; another engine's
// spelling is declared by family, as documented.
func (s *schema) unfaithfulRead(d engine.Dialect, queries ...string) string {
	if why := unmodelledRead(s.Database, false, queries...); why != "" {
		return why
	}
	r := readNames(queries...)
	for _, t := range s.Tables {
		if !r.mayName(t.Name) {
			continue
		}
		// PostgreSQL reads a whole row by the table's name (SELECT t FROM
		// t, t = ROW(…)::t): every column of a table it names.
		whole := r.star || d == engine.Postgres
		for _, c := range t.Columns {
			if !whole && !r.mayName(c.Name) {
				continue
			}
			if why := catalog.Unfaithful(s.Dialect, d, c); why != "" {
				return fmt.Sprintf("column %s.%s: %s", t.Name, c.Name, why)
			}
		}
	}
	return ""
}

// unmodelledRead returns, for the first table of db that either query
// may read (readNames) and that holds what the model leaves out
// (catalog.Table.Unmodelled, or a generated column of ParseDDL's), what
// that is; "" for none. For a proof (proof), a table whose unmodelled
// parts only restrict its rows (UnmodelledRows: a trigger, a unique
// index the model does not read as a key) is none: the proof holds on
// every database of the model, those rows among them.
func unmodelledRead(db *catalog.Database, proof bool, queries ...string) string {
	r := readNames(queries...)
	for _, t := range db.Tables {
		if !r.mayName(t.Name) || proof && t.UnmodelledRows {
			continue
		}
		why := t.Unmodelled
		if why == "" && len(t.Generated) > 0 {
			why = "generated column " + t.Generated[0] // ParseDDL's
		}
		if why != "" {
			return fmt.Sprintf("table %s: %s, which neither the prover nor the search models", t.Name, why)
		}
	}
	return ""
}

// reads is what readNames finds the queries may read.
type reads struct {
	// words are every run of letters, digits, _, $ and non-ASCII bytes
	// of the queries' text, lower-cased, wherever it stands (in a
	// string, a comment or a quoted identifier too: each engine lexes
	// its own way, E'\'' or $$…$$ on PostgreSQL, '\'' or 1--x on
	// MariaDB, and a name may hide in what another lexer takes for a
	// string).
	words map[string]bool
	// all is true when every name may be read: a query spells a name
	// by escapes (PostgreSQL's U&"\0070").
	all bool
	// star is true when a query may read columns it does not name: a *
	// anywhere but in COUNT(*) (SELECT *, t.*, DISTINCT ON (1) *,
	// DISTINCTROW *, a product), NATURAL, or PostgreSQL's TABLE t.
	star bool
}

// countStar matches COUNT(*), the one * that reads no column.
var countStar = regexp.MustCompile(`(?i)count\s*\(\s*\*\s*\)`)

// nameRun is a word of readNames.
var nameRun = regexp.MustCompile(`[A-Za-z0-9_$\x80-\xff]+`)

// readNames returns what the queries may read, read from their raw text
// and never from one engine's lexing, so that it errs only towards
// reading more (reads).
func readNames(queries ...string) reads {
	r := reads{words: map[string]bool{}}
	for _, q := range queries {
		for _, w := range nameRun.FindAllString(q, -1) {
			r.words[strings.ToLower(w)] = true
		}
		if strings.Contains(strings.ToUpper(q), "U&") {
			r.all = true
		}
		if strings.Contains(countStar.ReplaceAllString(q, ""), "*") {
			r.star = true
		}
	}
	r.star = r.star || r.words["natural"] || r.words["table"]
	return r
}

// mayName reports whether name may be named by the queries: each of its
// words (nameRun) is a word of theirs — a name of other characters alone
// (`"""`) always may.
func (r reads) mayName(name string) bool {
	if r.all {
		return true
	}
	for _, w := range nameRun.FindAllString(name, -1) {
		if !r.words[strings.ToLower(w)] {
			return false
		}
	}
	return true
}

// localeDiffers returns why the scratch database cannot stand for the
// pair's PostgreSQL database, "" when it can or the pair's database is
// not one read from a PostgreSQL server: the two differ in encoding,
// LC_COLLATE, LC_CTYPE, locale provider or ICU locale
// (catalog.PGLocaleQuery), which decide how text of the default
// collation compares, orders and folds case (a database created with
// LOCALE_PROVIDER icu orders 'a' before 'B', the scratch under C.UTF-8
// does not), or in settings of its own (ALTER DATABASE … SET
// transform_null_equals = on makes d = NULL true on NULL). The scratch
// is created by the server's defaults (template1).
func (s *searcher) localeDiffers(ctx context.Context) string {
	if s.schema.Dialect != engine.Postgres || s.schema.Locale == "" {
		return ""
	}
	got, err := s.sc.Query(ctx, catalog.PGLocaleQuery)
	if err != nil {
		return fmt.Sprintf("its locale could not be compared with the scratch database's: %v", err)
	}
	if len(got.Rows) != 1 || len(got.Rows[0]) != 1 || got.Rows[0][0].S != s.schema.Locale {
		scratch := "?"
		if len(got.Rows) == 1 && len(got.Rows[0]) == 1 {
			scratch = got.Rows[0][0].S
		}
		return fmt.Sprintf("its locale (encoding, collate, ctype, provider, ICU locale; settings of its own) is %q, the scratch database's %q", strings.TrimSpace(s.schema.Locale), strings.TrimSpace(scratch))
	}
	return ""
}

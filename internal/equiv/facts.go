package equiv

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
)

// Facts checked against the data. A proof holds on every database that
// satisfies the facts it rests on; a pair's own database (a db_id, the
// item's database of the equiv metric) need not: SQLite stores a REAL in
// an INTEGER column it cannot convert, keeps a foreign key it does not
// enforce, and a file can hold anything. So, before a proof of a pair
// with a database is reported, every fact it rests on (its steps', its
// comparison's and its obligations') is checked on that database's rows,
// and a fact a row breaks means no proof: the record's prover says which
// fact and shows the row (BrokenFact). Spider's soccer_1.Player.height,
// bike_1.weather.precipitation_inches and
// university_basketball.basketball_match.All_Games_Percent are INTEGER
// columns holding REALs, where "height <= 190" and "height < 191" differ.

// factCheck builds, for a fact of one kind on table t of the pair's
// database, the query that returns a row breaking it (at most one; none
// when it holds); skip when the dialect guarantees the fact.
type factCheck func(d engine.Dialect, db *catalog.Database, t *catalog.Table, f check.Fact) (q string, skip bool, err error)

// factChecks maps each kind of fact a certificate lists to its check on
// the rows: one place for a new kind (an affinity, a collation) to get
// one. A proof resting on a kind without a check is refused.
var factChecks = map[string]factCheck{
	check.FactFamily:     familyCheck,
	check.FactNotNull:    notNullCheck,
	check.FactKey:        keyCheck,
	check.FactForeignKey: foreignKeyCheck,
	check.FactSumInRange: sumInRangeCheck,
}

// BrokenFact is a fact a proof rests on that a row of the pair's database
// breaks: the Fact as the certificate lists it, Holds its readable form
// ("family(Player.height = int)") and Row the row that breaks it, by
// column name (the table's primary key and the fact's columns; for a
// family, "typeof" too: the value's storage class; for a key, "count" of
// the rows sharing it).
type BrokenFact struct {
	Fact  check.Fact     `json:"fact"`
	Holds string         `json:"holds"`
	Row   map[string]any `json:"row"`
}

// proofFacts lists every fact c rests on, each once, in the order the
// certificate names them: its steps', its comparison's, its obligations'.
func proofFacts(c *check.Certificate) []check.Fact {
	var out []check.Fact
	seen := map[string]bool{}
	add := func(fs []check.Fact) {
		for _, f := range fs {
			if k := strings.ToLower(f.String()); !seen[k] {
				seen[k] = true
				out = append(out, f)
			}
		}
	}
	for _, st := range append(append([]check.Step(nil), c.Q1Steps...), c.Q2Steps...) {
		add(st.Facts)
	}
	add(c.Facts)
	for _, o := range c.Obligations {
		add(o.Facts)
	}
	return out
}

// factMemo remembers, per database and fact, what the check of the rows
// found (nil when the fact holds), for the equiv metric, whose items share
// a few read-only databases; nil memoises nothing.
type factMemo struct{ m sync.Map }

// memoKey is a fact's key in a factMemo.
func memoKey(db string, f check.Fact) string { return db + "\x00" + strings.ToLower(f.String()) }

// checkProofFacts checks the facts of s.proof against the pair's
// database (DB or DBID; nothing to check for a pair of DDL): the first
// broken fact, nil when every one holds. An error means the check could
// not run (the fact is then not known to hold).
func (s *searcher) checkProofFacts(ctx context.Context) (*BrokenFact, error) {
	q, d, id, done, err := s.pairDB(ctx)
	if err != nil || q == nil {
		return nil, err
	}
	defer done()
	for _, f := range proofFacts(s.proof) {
		if v, ok := s.o.facts.load(id, f); ok {
			if v != nil {
				return v, nil
			}
			continue
		}
		b, err := brokenFact(q, d, s.schema.Database, f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		s.o.facts.store(id, f, b)
		if b != nil {
			return b, nil
		}
	}
	return nil, nil
}

// load returns what m remembers of fact f on database db.
func (m *factMemo) load(db string, f check.Fact) (*BrokenFact, bool) {
	if m == nil {
		return nil, false
	}
	v, ok := m.m.Load(memoKey(db, f))
	if !ok {
		return nil, false
	}
	return v.(*BrokenFact), true
}

// store remembers b (nil: the fact holds) for fact f on database db.
func (m *factMemo) store(db string, f check.Fact, b *BrokenFact) {
	if m != nil {
		m.m.Store(memoKey(db, f), b)
	}
}

// pairDB returns a read-only query function on the pair's database, its
// dialect, its identity (file path or db_id) and the function that
// releases it; q is nil for a pair without a database.
func (s *searcher) pairDB(ctx context.Context) (q func(string) (*result.Set, error), d engine.Dialect, id string, done func(), err error) {
	switch {
	case s.p.DB != "":
		eng := sqlite.New("", sqlite.Options{MaxConns: 1})
		return func(sql string) (*result.Set, error) { return eng.QueryFile(ctx, s.p.DB, sql) }, engine.SQLite, s.p.DB, func() { eng.Close() }, nil
	case s.p.DBID != "":
		r, ok := s.o.Sandbox.(sandbox.DBReader)
		if !ok {
			return nil, "", "", nil, fmt.Errorf("the %s sandbox cannot read database %s", s.o.Sandbox.Dialect(), s.p.DBID)
		}
		return func(sql string) (*result.Set, error) { return r.QueryDB(ctx, s.p.DBID, sql) }, s.o.Sandbox.Dialect(), s.p.DBID, func() {}, nil
	}
	return nil, "", "", nil, nil
}

// brokenFact runs f's check (factChecks) on the database q reads, whose
// schema is db: the row that breaks f, or nil.
func brokenFact(q func(string) (*result.Set, error), d engine.Dialect, db *catalog.Database, f check.Fact) (*BrokenFact, error) {
	fc, ok := factChecks[f.Fact]
	if !ok {
		return nil, fmt.Errorf("no check on the rows for a fact of kind %q", f.Fact)
	}
	t := db.Table(f.Table)
	if t == nil {
		return nil, fmt.Errorf("no table %s", f.Table)
	}
	sql, skip, err := fc(d, db, t, f)
	if err != nil || skip {
		return nil, err
	}
	set, err := q(sql)
	if err != nil {
		return nil, err
	}
	if len(set.Rows) == 0 {
		return nil, nil
	}
	row := map[string]any{}
	for i, c := range set.Columns {
		row[c] = cellJSON(set.Rows[0][i])
	}
	return &BrokenFact{Fact: f, Holds: f.String(), Row: row}, nil
}

// quoted returns the columns of t named names, quoted for d, qualified by
// alias when it is not "".
func quoted(d engine.Dialect, t *catalog.Table, alias string, names []string) ([]string, error) {
	out := make([]string, len(names))
	for i, n := range names {
		ci := t.Col(n)
		if ci < 0 {
			return nil, fmt.Errorf("no column %s in %s", n, t.Name)
		}
		out[i] = catalog.Ident(d, t.Columns[ci].Name, t.Columns[ci].Unquoted)
		if alias != "" {
			out[i] = alias + "." + out[i]
		}
	}
	return out, nil
}

// shown are shownNames quoted for d.
func shown(d engine.Dialect, t *catalog.Table, cols ...string) []string {
	q, _ := quoted(d, t, "", shownNames(t, cols...))
	return q
}

// containsFold reports whether names holds n, ASCII case aside.
func containsFold(names []string, n string) bool {
	for _, x := range names {
		if strings.EqualFold(x, n) {
			return true
		}
	}
	return false
}

// familyCheck finds a value of the column whose storage class its family
// does not admit (check.Family.StorageClasses: a REAL in an int column,
// a number in a text one). PostgreSQL keeps every value of its declared
// type: skipped there.
func familyCheck(d engine.Dialect, _ *catalog.Database, t *catalog.Table, f check.Fact) (string, bool, error) {
	fam, ok := check.FamilyNamed(f.Family)
	if !ok {
		return "", false, fmt.Errorf("unknown family %q", f.Family)
	}
	classes, ok := fam.StorageClasses()
	if !ok || d != engine.SQLite {
		return "", true, nil
	}
	col, err := quoted(d, t, "", []string{f.Column})
	if err != nil {
		return "", false, err
	}
	lits := []string{"'null'"}
	for _, c := range classes {
		lits = append(lits, "'"+c+"'")
	}
	return fmt.Sprintf("SELECT %s, typeof(%s) AS \"typeof\" FROM %s WHERE typeof(%s) NOT IN (%s) LIMIT 1",
		strings.Join(shown(d, t, f.Column), ", "), col[0], catalog.TableIdent(d, t), col[0], strings.Join(lits, ", ")), false, nil
}

// notNullCheck finds a row whose column is NULL.
func notNullCheck(d engine.Dialect, _ *catalog.Database, t *catalog.Table, f check.Fact) (string, bool, error) {
	col, err := quoted(d, t, "", []string{f.Column})
	if err != nil {
		return "", false, err
	}
	return fmt.Sprintf("SELECT %s FROM %s WHERE %s IS NULL LIMIT 1", strings.Join(shown(d, t, f.Column), ", "), catalog.TableIdent(d, t), col[0]), false, nil
}

// keyCheck finds two rows equal on the key's columns, none of them NULL
// (a UNIQUE set lets rows with a NULL repeat).
func keyCheck(d engine.Dialect, _ *catalog.Database, t *catalog.Table, f check.Fact) (string, bool, error) {
	cols, err := quoted(d, t, "", f.Columns)
	if err != nil {
		return "", false, err
	}
	notNull := make([]string, len(cols))
	for i, c := range cols {
		notNull[i] = c + " IS NOT NULL"
	}
	list := strings.Join(cols, ", ")
	return fmt.Sprintf("SELECT %s, count(*) AS count FROM %s WHERE %s GROUP BY %s HAVING count(*) > 1 LIMIT 1",
		list, catalog.TableIdent(d, t), strings.Join(notNull, " AND "), list), false, nil
}

// foreignKeyCheck finds a row whose foreign key columns, none NULL, match
// no row of the table they reference (SQLite does not enforce foreign
// keys unless asked to).
func foreignKeyCheck(d engine.Dialect, db *catalog.Database, t *catalog.Table, f check.Fact) (string, bool, error) {
	child, err := quoted(d, t, "c", f.Columns)
	if err != nil {
		return "", false, err
	}
	ref := db.Table(f.RefTable)
	if ref == nil {
		return "", false, fmt.Errorf("no table %s", f.RefTable)
	}
	parent, err := quoted(d, ref, "p", f.RefColumns)
	if err != nil || len(parent) != len(child) {
		return "", false, fmt.Errorf("foreign key columns: %v", err)
	}
	var on, notNull []string
	for i := range child {
		on = append(on, parent[i]+" = "+child[i])
		notNull = append(notNull, child[i]+" IS NOT NULL")
	}
	cols, _ := quoted(d, t, "c", shownNames(t, f.Columns...))
	return fmt.Sprintf("SELECT %s FROM %s AS c WHERE %s AND NOT EXISTS (SELECT 1 FROM %s AS p WHERE %s) LIMIT 1",
		strings.Join(cols, ", "), catalog.TableIdent(d, t), strings.Join(notNull, " AND "), catalog.TableIdent(d, ref), strings.Join(on, " AND ")), false, nil
}

// shownNames are the columns a broken row shows: t's primary key, then
// cols, without repeats.
func shownNames(t *catalog.Table, cols ...string) []string {
	var names []string
	for _, k := range t.PK {
		names = append(names, t.Columns[k].Name)
	}
	for _, c := range cols {
		if t.Col(c) >= 0 && !containsFold(names, c) {
			names = append(names, c)
		}
	}
	return names
}

// sumLimit is the total of magnitudes sumInRangeCheck calls broken: a
// little under 2^63 (9.223e18), so that total()'s floating point rounding
// can only call a sum that fits broken, never the other way round.
const sumLimit = "9.2e18"

// sumInRangeCheck finds a column whose values' magnitudes sum to 2^63 or
// more (check.FactSumInRange: SQLite's AVG and TOTAL of an integer column
// then leave exact integer arithmetic, and their result depends on the
// order of the rows). abs() of the least integer fails, and so the check:
// the fact is then not known to hold. PostgreSQL sums integers exactly in
// numeric: skipped there.
func sumInRangeCheck(d engine.Dialect, _ *catalog.Database, t *catalog.Table, f check.Fact) (string, bool, error) {
	if d != engine.SQLite {
		return "", true, nil
	}
	col, err := quoted(d, t, "", []string{f.Column})
	if err != nil {
		return "", false, err
	}
	return fmt.Sprintf("SELECT total(abs(%s)) AS \"total_abs\" FROM %s HAVING total(abs(%s)) >= %s",
		col[0], catalog.TableIdent(d, t), col[0], sumLimit), false, nil
}

package testsuite

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3" // also registers the "sqlite3" driver, to write fuzzed databases

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// Fuzzer draws random databases with the schema of an original database.
//
// As in the paper (section 3.1), each column draws its values from a pool:
// a sample of the original column, the literals of the gold queries that
// name the column and their variants (literalVariants), and, with a
// probability chosen per database, fresh random values of the column's
// type. Primary keys and one-column UNIQUE constraints hold; a foreign key
// column draws from the values its parent table received (never NULL);
// NOT NULL columns
// get no NULL, others a per-database NULL rate. Table sizes are small and
// varied: either independent sizes up to 3, 10 or 30 rows, or sizes growing
// with the depth of a table in the foreign-key graph.
type Fuzzer struct {
	info  *catalog.Database
	cols  map[string]*colGen // by "table.column", lower case
	depth map[*catalog.Table]int
}

type colGen struct {
	col      *catalog.Column
	aff      affinity       // affinityOf(col)
	pool     []result.Value // original sample
	literals []result.Value // gold literals and their variants
	numeric  bool           // the pool is numbers (or numeric text)
	isInt    bool
	lo, hi   float64
	minLen   int
	maxLen   int
	dates    bool
}

// NewFuzzer prepares a fuzzer for a database (each column's pool its
// Values; its tables ordered so that a referenced table comes before the
// tables that reference it) and the literals of its gold queries (already
// assigned to columns).
func NewFuzzer(info *catalog.Database, lits []Literal) *Fuzzer {
	f := &Fuzzer{info: info, cols: map[string]*colGen{}, depth: map[*catalog.Table]int{}}
	for _, t := range info.Tables {
		for i := range t.Columns {
			c := &t.Columns[i]
			g := &colGen{col: c, aff: affinityOf(c), pool: c.Values}
			f.cols[key(t.Name, c.Name)] = g
		}
	}
	for _, l := range lits {
		for _, k := range l.Columns {
			if g := f.cols[k]; g != nil {
				g.literals = append(g.literals, literalVariants(l.Value)...)
			}
		}
	}
	for _, g := range f.cols {
		g.describe()
	}
	for _, t := range info.Tables {
		d := 0
		for _, fk := range t.FKs {
			if p := info.RefTable(fk); p != nil && p != t {
				d = max(d, f.depth[p]+1)
			}
		}
		f.depth[t] = d
	}
	return f
}

func key(table, col string) string { return strings.ToLower(table) + "." + strings.ToLower(col) }

// describe computes the shape of a column's values: numeric range, text
// lengths, dates.
func (g *colGen) describe() {
	g.lo, g.hi = math.Inf(1), math.Inf(-1)
	g.minLen, g.maxLen = 1<<30, 0
	nums, ints, texts, dates := 0, 0, 0, 0
	for _, v := range append(slices.Clone(g.pool), g.literals...) {
		var x float64
		isNum := false
		switch v.K {
		case result.Int:
			x, isNum = float64(v.I), true
			ints++
		case result.Float:
			x, isNum = v.F, true
			if v.F == math.Trunc(v.F) {
				ints++
			}
		case result.Text:
			texts++
			g.minLen = min(g.minLen, len(v.S))
			g.maxLen = max(g.maxLen, len(v.S))
			if dateRe.MatchString(v.S) {
				dates++
			}
			if f, err := strconv.ParseFloat(v.S, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				x, isNum = f, true
				if f == math.Trunc(f) {
					ints++
				}
			}
		}
		if isNum {
			nums++
			g.lo, g.hi = math.Min(g.lo, x), math.Max(g.hi, x)
		}
	}
	total := len(g.pool) + len(g.literals)
	switch g.aff {
	case affInteger, affReal, affNumeric, affBool:
		g.numeric = texts == 0 || nums == total
	default:
		g.numeric = total > 0 && nums == total && texts == 0
	}
	g.isInt = nums > 0 && ints == nums && g.aff != affReal
	if g.aff == affInteger || g.aff == affBool {
		g.isInt = true
	}
	g.dates = total > 0 && dates*2 >= total
	if g.minLen > g.maxLen {
		g.minLen, g.maxLen = 1, 12
	}
	if math.IsInf(g.lo, 0) {
		g.lo, g.hi = 0, 100
	}
}

// plan is the random choices that shape one fuzzed database.
type plan struct {
	pRandom  float64 // share of fresh random values
	nullRate float64
	sizes    map[*catalog.Table]int
}

func (f *Fuzzer) newPlan(rng *rand.Rand) plan {
	p := plan{sizes: map[*catalog.Table]int{}}
	p.pRandom = []float64{0, 0.1, 0.3, 0.6}[rng.IntN(4)]
	p.nullRate = []float64{0, 0, 0.05, 0.2}[rng.IntN(4)]
	if rng.IntN(2) == 0 {
		limit := []int{3, 10, 30}[rng.IntN(3)]
		for _, t := range f.info.Tables {
			p.sizes[t] = rng.IntN(limit + 1)
		}
	} else {
		base := 1 + rng.IntN(6)
		for _, t := range f.info.Tables {
			n := base
			for range f.depth[t] {
				n *= 2 + rng.IntN(3)
			}
			p.sizes[t] = min(n, 80)
		}
	}
	return p
}

// Data is the rows of a fuzzed database, by table.
type Data map[*catalog.Table][][]result.Value

// Sample draws one database.
func (f *Fuzzer) Sample(rng *rand.Rand) Data {
	p := f.newPlan(rng)
	data := Data{}
	for _, t := range f.info.Tables {
		data[t] = f.sampleTable(rng, p, t, data)
	}
	return data
}

func (f *Fuzzer) sampleTable(rng *rand.Rand, p plan, t *catalog.Table, data Data) [][]result.Value {
	n := p.sizes[t]
	// A column of a foreign key draws from its referenced column (a
	// column of several foreign keys from the last one's).
	fkOf := map[int]parentColumn{}
	for _, fk := range t.FKs {
		for k, ci := range fk.Cols {
			fkOf[ci] = parentColumn{f.info.RefTable(fk), fk.RefCols[k]}
		}
	}
	var pkCols []int
	for i := range t.Columns {
		if t.InPK(i) {
			pkCols = append(pkCols, i)
		}
	}
	intPK := len(pkCols) == 1 && f.gen(t, pkCols[0]).aff == affInteger
	// An INTEGER PRIMARY KEY is the rowid: it takes integers only.
	rowid := intPK && strings.EqualFold(strings.TrimSpace(t.Columns[pkCols[0]].Type), "INTEGER")
	seenPK := map[string]bool{}
	seenUnique := map[int]map[string]bool{}
	var rows [][]result.Value
	for attempt := 0; len(rows) < n && attempt < 4*n+8; attempt++ {
		row := make([]result.Value, len(t.Columns))
		for i := range t.Columns {
			c := &t.Columns[i]
			if fk, ok := fkOf[i]; ok {
				if v, ok := f.fromParent(rng, p, fk, data); ok {
					row[i] = v
					continue
				}
			}
			if intPK && i == pkCols[0] && rng.IntN(3) > 0 {
				row[i] = result.IntValue(int64(len(rows) + 1 + rng.IntN(3)))
				continue
			}
			row[i] = f.value(rng, p, t, c, t.InPK(i) || t.Unique(i))
			if rowid && i == pkCols[0] && row[i].K != result.Int {
				row[i] = result.IntValue(int64(len(rows) + 1 + rng.IntN(1000)))
			}
		}
		if len(pkCols) > 0 {
			var b []byte
			for _, i := range pkCols {
				if row[i].IsNull() && !intPK {
					b = nil
					break
				}
				b = result.AppendKey(b, row[i])
			}
			if b == nil || seenPK[string(b)] {
				continue
			}
			seenPK[string(b)] = true
		}
		dup := false
		for i := range t.Columns {
			if !t.Unique(i) || row[i].IsNull() {
				continue
			}
			if seenUnique[i] == nil {
				seenUnique[i] = map[string]bool{}
			}
			k := string(result.AppendKey(nil, row[i]))
			if seenUnique[i][k] {
				dup = true
				break
			}
			seenUnique[i][k] = true
		}
		if dup {
			continue
		}
		rows = append(rows, row)
	}
	return rows
}

// parentColumn is the column a foreign key column references.
type parentColumn struct {
	table *catalog.Table
	col   int
}

// gen returns the generator of column ci of t.
func (f *Fuzzer) gen(t *catalog.Table, ci int) *colGen {
	return f.cols[key(t.Name, t.Columns[ci].Name)]
}

// fromParent draws a value the referenced column received (or NULL).
func (f *Fuzzer) fromParent(rng *rand.Rand, p plan, fk parentColumn, data Data) (result.Value, bool) {
	if fk.table == nil {
		return result.Value{}, false
	}
	rows, ok := data[fk.table]
	if !ok {
		return result.Value{}, false
	}
	j := fk.col
	if len(rows) == 0 {
		// No parent row to refer to: the child is orphaned, as an empty
		// parent table leaves it.
		return result.NullValue(), true
	}
	// As TestSuiteEval's random_choices over the parent's values: no
	// NULL is added to a foreign key (a NULL key turns NOT IN (subquery)
	// false everywhere, a difference real data never shows).
	return rows[rng.IntN(len(rows))][j], true
}

// value draws one value for column c.
func (f *Fuzzer) value(rng *rand.Rand, p plan, t *catalog.Table, c *catalog.Column, unique bool) result.Value {
	g := f.cols[key(t.Name, c.Name)]
	if !c.NotNull && p.nullRate > 0 && rng.Float64() < p.nullRate {
		return result.NullValue()
	}
	r := rng.Float64()
	switch {
	case len(g.literals) > 0 && r < 0.3:
		return g.literals[rng.IntN(len(g.literals))]
	case len(g.pool) > 0 && r >= p.pRandom && !(unique && r < 0.5):
		return g.pool[rng.IntN(len(g.pool))]
	}
	return g.random(rng)
}

const charset = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789"

// random draws a fresh value shaped like the column's values.
func (g *colGen) random(rng *rand.Rand) result.Value {
	switch {
	case g.aff == affBool:
		return result.IntValue(int64(rng.IntN(2)))
	case g.dates:
		base := time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)
		d := base.AddDate(0, 0, rng.IntN(365*40))
		if g.maxLen > 10 {
			return result.TextValue(d.Add(time.Duration(rng.IntN(86400)) * time.Second).Format("2006-01-02 15:04:05"))
		}
		return result.TextValue(d.Format("2006-01-02"))
	case g.numeric:
		lo, hi := g.lo, g.hi
		span := hi - lo
		if span < 10 {
			span = 10
		}
		lo, hi = lo-span/4, hi+span/4
		if g.aff == affBlob || g.aff == affText {
			if g.isInt {
				return result.TextValue(strconv.FormatInt(int64(lo+rng.Float64()*(hi-lo)), 10))
			}
			return result.TextValue(strconv.FormatFloat(math.Round((lo+rng.Float64()*(hi-lo))*100)/100, 'f', -1, 64))
		}
		if g.isInt {
			switch rng.IntN(10) {
			case 0:
				return result.IntValue(0)
			case 1:
				return result.IntValue(int64(g.lo))
			case 2:
				return result.IntValue(int64(g.hi))
			}
			return result.IntValue(int64(math.Floor(lo + rng.Float64()*(hi-lo))))
		}
		return result.FloatValue(math.Round((lo+rng.Float64()*(hi-lo))*100) / 100)
	}
	n := g.minLen + rng.IntN(g.maxLen-g.minLen+1)
	if n == 0 && rng.IntN(2) == 0 {
		n = 1 + rng.IntN(8)
	}
	if len(g.pool) > 0 && rng.IntN(3) == 0 {
		// A variation of a real value: cut or padded.
		s := g.pool[rng.IntN(len(g.pool))]
		if s.K == result.Text && len(s.S) > 1 {
			switch rng.IntN(3) {
			case 0:
				return result.TextValue(s.S[:len(s.S)/2])
			case 1:
				return result.TextValue(s.S + string(charset[rng.IntN(26)]))
			default:
				return result.TextValue(strings.ToUpper(s.S))
			}
		}
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = charset[rng.IntN(len(charset))]
	}
	return result.TextValue(string(b))
}

// Write creates a SQLite database at path with the original schema (the
// CREATE statements of info.Objects but triggers and SQLite's own tables,
// as stored) and the data. Rows that violate a constraint the fuzzer does
// not model (a CHECK) are skipped (INSERT OR IGNORE). The same data gives
// the same bytes.
func Write(path string, info *catalog.Database, data Data) error {
	_ = os.Remove(path)
	db, err := sql.Open("sqlite3", path+"?_journal_mode=OFF&_sync=OFF")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, o := range info.Objects {
		if o.Type == "trigger" || catalog.SQLiteInternal(o.Name) {
			continue
		}
		if _, err := db.Exec(o.SQL); err != nil {
			return fmt.Errorf("original schema: %w", err)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	for _, t := range info.Tables {
		rows := data[t]
		if len(rows) == 0 {
			continue
		}
		ph := strings.TrimSuffix(strings.Repeat("?,", len(t.Columns)), ",")
		st, err := tx.Prepare(fmt.Sprintf("INSERT OR IGNORE INTO %s VALUES (%s)", engine.SQLite.QuoteIdent(t.Name), ph))
		if err != nil {
			tx.Rollback()
			return fmt.Errorf("table %s: %w", t.Name, err)
		}
		args := make([]any, len(t.Columns))
		for _, r := range rows {
			for i, v := range r {
				args[i] = driverValue(v)
			}
			if _, err := st.Exec(args...); err != nil {
				var se sqlite3.Error
				if errors.As(err, &se) && (se.Code == sqlite3.ErrConstraint || se.Code == sqlite3.ErrMismatch) {
					continue // a constraint the fuzzer does not model
				}
				st.Close()
				tx.Rollback()
				return fmt.Errorf("table %s: %w", t.Name, err)
			}
		}
		st.Close()
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return db.Close()
}

func driverValue(v result.Value) any {
	switch v.K {
	case result.Null:
		return nil
	case result.Int, result.Bool:
		return v.I
	case result.Float:
		return v.F
	case result.Blob:
		return []byte(v.S)
	}
	return v.S
}

// assignLiterals collects the literals of a database's gold queries and the
// columns each may meet: the columns named in the same query whose type is
// compatible.
func assignLiterals(info *catalog.Database, golds []string) []Literal {
	isColumn := func(name string) bool {
		for _, t := range info.Tables {
			if t.Column(name) != nil {
				return true
			}
		}
		return false
	}
	var out []Literal
	for _, q := range golds {
		var named []string
		var cols []*catalog.Column
		for _, tok := range sqllex.Tokenize(q) {
			if tok.Kind != sqllex.Word && tok.Kind != sqllex.Quoted {
				continue
			}
			name := unquote(tok.Text)
			for _, t := range info.Tables {
				if c := t.Column(name); c != nil {
					k := key(t.Name, c.Name)
					if !slices.Contains(named, k) {
						named = append(named, k)
						cols = append(cols, c)
					}
				}
			}
		}
		for _, v := range queryLiterals(q, isColumn) {
			l := Literal{Value: v}
			for i, k := range named {
				if compatible(v, cols[i]) {
					l.Columns = append(l.Columns, k)
				}
			}
			out = append(out, l)
		}
	}
	return out
}

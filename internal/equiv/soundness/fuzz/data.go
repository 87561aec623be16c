package fuzz

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
)

// database is the rows of each table of a schema, in the order they are
// inserted (the engine may refuse some: a key, NOT NULL or a foreign
// key; load keeps those it took).
type database struct {
	s    *schema
	rows [][][]value // by table of s, then row, then column
}

// sql prints the database as INSERT statements, one a row.
func (db *database) sql() string {
	var b strings.Builder
	for ti, t := range db.s.tables {
		for _, r := range db.rows[ti] {
			b.WriteString(insertSQL(db.s.d, t, r) + ";\n")
		}
	}
	return b.String()
}

// size is the number of rows.
func (db *database) size() int {
	n := 0
	for _, rs := range db.rows {
		n += len(rs)
	}
	return n
}

func insertSQL(d engine.Dialect, t *table, r []value) string {
	vs := make([]string, len(r))
	for i, v := range r {
		vs[i] = v.literal(d)
	}
	return "INSERT INTO " + ident(t.name) + " VALUES (" + strings.Join(vs, ", ") + ")"
}

// colKey names a table column.
type colKey struct {
	t *table
	i int
}

// hints are values the pair's queries make interesting for a column:
// their literals, the values that satisfy their arithmetic (x * 3 =
// 122883 gives 40961), the strings a quoted name spells; every spelling
// of each (5, 5.0, '5', '05'; 'a', 'A', 'a '). The links (the key
// links) are the pairs of columns the queries compare with each other:
// the data copies values across them.
type hints map[colKey][]value

// links are the pairs of columns compared with = (or IN) by the queries.
type links map[colKey][]colKey

// link records that a and b are compared.
func (l links) link(a, b expr) {
	ra, ok1 := a.(*colRef)
	rb, ok2 := b.(*colRef)
	if !ok1 || !ok2 {
		return
	}
	ta, ia, ok1 := baseColumn(ra)
	tb, ib, ok2 := baseColumn(rb)
	if !ok1 || !ok2 || ta == tb && ia == ib {
		return
	}
	ka, kb := colKey{ta, ia}, colKey{tb, ib}
	l[ka] = append(l[ka], kb)
	l[kb] = append(l[kb], ka)
}

// gatherLinks reads the pair's queries for compared columns.
func gatherLinks(qs ...*sel) links {
	l := links{}
	for _, q := range qs {
		walk(q, func(st site) {
			switch t := (*st.slot).(type) {
			case *binary:
				if isCmp(t.op) {
					l.link(t.l, t.r)
				}
			case *inList:
				for _, y := range t.list {
					l.link(t.x, y)
				}
			case *inSub:
				if len(t.sub.items) == 1 && !t.sub.items[0].star {
					l.link(t.x, t.sub.items[0].x)
				}
			}
		})
	}
	return l
}

// hintReader reads a pair's queries into hints: it knows the SELECT of
// each output column, so that a value meant for an alias reaches both
// readings of its name (the engine's and the kernel's, which differ when
// a rewrite or a kernel bug resolves the name otherwise).
type hintReader struct {
	h     hints
	owner map[*item]*sel
}

// add records v (and its spellings) for the column c reads. For an alias
// (ORDER BY a * 3 = 122883 with b AS a) both readings get v: the output
// column's expression, and every column of the alias's SELECT's FROM
// items spelled like the alias (SQLite reads a name inside an ORDER BY
// expression as the input column first, issue 37 R1).
func (hr hintReader) add(c expr, v value) {
	if a, ok := c.(*aliasRef); ok {
		hr.aliasAdd(a, v)
		return
	}
	h := hr.h
	r, ok := c.(*colRef)
	if !ok {
		return
	}
	t, i, ok := baseColumn(r)
	if !ok {
		return
	}
	for _, w := range v.spellings() {
		h.put(colKey{t, i}, w)
	}
}

// put records v for column k, once.
func (h hints) put(k colKey, v value) {
	if !slices.ContainsFunc(h[k], func(x value) bool { return x.key() == v.key() }) {
		h[k] = append(h[k], v)
	}
}

// aliasAdd records v for both readings of alias a (add).
func (hr hintReader) aliasAdd(a *aliasRef, v value) {
	hr.add(a.it.x, v)
	s := hr.owner[a.it]
	if s == nil || a.it.alias == "" {
		return
	}
	for _, f := range s.from {
		for i := range f.ncols() {
			if strings.EqualFold(f.colName(i), a.it.alias) {
				hr.add(&colRef{f: f, col: i}, v)
			}
		}
	}
}

// gatherHints reads the pair's queries for values.
func gatherHints(qs ...*sel) hints {
	h := hintReader{h: hints{}, owner: map[*item]*sel{}}
	for _, q := range qs {
		walk(q, func(st site) {
			for _, it := range st.s.items {
				h.owner[it] = st.s
			}
		})
	}
	for _, q := range qs {
		walk(q, func(st site) {
			switch t := (*st.slot).(type) {
			case *binary:
				if isCmp(t.op) || t.op == "LIKE" {
					h.comparison(t.l, t.r, t.op)
					h.comparison(t.r, t.l, t.op)
				}
				if t.op == "+" || t.op == "-" || t.op == "*" {
					// Integers whose sum, difference or product
					// leaves the 64 bits: SQLite computes it as a
					// real, which two neighbours share.
					for _, x := range []expr{t.l, t.r} {
						for _, v := range extremes {
							h.add(x, v)
						}
					}
				}
			case *inList:
				for _, y := range t.list {
					h.comparison(t.x, y, "=")
					h.comparison(y, t.x, "=")
				}
			case *between:
				h.comparison(t.x, t.lo, ">=")
				h.comparison(t.x, t.hi, "<=")
			case *inSub:
				if l, ok := t.x.(*lit); ok && len(t.sub.items) == 1 && !t.sub.items[0].star {
					h.add(t.sub.items[0].x, l.v)
				}
			case *collate:
				h.collated(t.x, t.name)
			case *colRef:
				if tb, i, ok := baseColumn(t); ok && tb.cols[i].collate != "" {
					h.collated(t, tb.cols[i].collate)
				}
			case *call:
				// A sum whose order of addition shows: values that
				// overflow together, or cancel.
				if (t.name == "sum" || t.name == "total" || t.name == "avg") && len(t.args) == 1 {
					h.add(t.args[0], realVal(1e308))
					h.add(t.args[0], realVal(-1e308))
				}
			}
		})
	}
	return h.h
}

// collated records, for a column read under a collation, strings that
// the collation ties and the binary one does not.
func (h hintReader) collated(e expr, name string) {
	switch strings.ToUpper(name) {
	case "NOCASE":
		h.add(e, textVal("a"))
		h.add(e, textVal("A"))
	case "RTRIM":
		h.add(e, textVal("a"))
		h.add(e, textVal("a "))
	}
}

// comparison records what makes a op b true for the column a reads
// (plainly, or under arithmetic, a function or a collation).
func (h hintReader) comparison(a, b expr, op string) {
	l, ok := b.(*lit)
	if !ok {
		return
	}
	v := l.v
	switch t := a.(type) {
	case *colRef, *aliasRef:
		h.add(t, v)
		if n, ok := v.numeric(); ok && op != "=" {
			h.add(t, intVal(int64(n)+1))
			h.add(t, intVal(int64(n)-1))
		}
		if op == "LIKE" {
			w := strings.NewReplacer("%", "", "_", "a").Replace(v.s)
			h.add(t, textVal(w))
			h.add(t, textVal(w+"bc"))
		}
	case *collate:
		h.comparison(t.x, b, op)
	case *caseExpr:
		for _, w := range t.whens {
			h.comparison(w.then, b, op)
		}
		if t.els != nil {
			h.comparison(t.els, b, op)
		}
	case *binary:
		n, ok := v.numeric()
		k, ok2 := literalNumber(t.r)
		if !ok || !ok2 {
			if t.op == "||" && v.k == kText {
				h.add(t.l, v)
			}
			return
		}
		switch t.op {
		case "*":
			if k != 0 {
				h.add(t.l, numberValue(n/k))
			}
		case "+":
			h.add(t.l, numberValue(n-k))
		case "-":
			h.add(t.l, numberValue(n+k))
		case "/":
			// Integer division truncates toward zero: the values
			// around n * k on both sides (x / 2 >= 0 holds of -1).
			for _, d := range []float64{0, -1, 1, k - 1, 1 - k, -k} {
				h.add(t.l, numberValue(n*k+d))
			}
		}
	case *call:
		if len(t.args) == 0 {
			return
		}
		switch t.name {
		case "length":
			if n, ok := v.numeric(); ok && n >= 0 && n < 20 {
				h.add(t.args[0], textVal(strings.Repeat("a", int(n))))
				h.add(t.args[0], intVal(int64(math.Pow(10, math.Max(0, n-1)))))
			}
		case "abs":
			if n, ok := v.numeric(); ok {
				h.add(t.args[0], numberValue(-n))
				h.add(t.args[0], numberValue(n))
			}
		default:
			h.add(t.args[0], v)
		}
	}
}

// literalNumber is the number a numeric literal spells.
func literalNumber(e expr) (float64, bool) {
	l, ok := e.(*lit)
	if !ok {
		return 0, false
	}
	return l.v.numeric()
}

// numberValue is an integer value when f is whole, else a real.
func numberValue(f float64) value {
	if f == math.Trunc(f) && math.Abs(f) < 1e18 {
		return intVal(int64(f))
	}
	return realVal(f)
}

// The values every column of an affinity draws from: in its family
// (what the kernel's families model) and, rarely, of another storage
// class (which the engine accepts in any column without STRICT).
var (
	intPool = []value{intVal(0), intVal(1), intVal(2), intVal(3), intVal(5), intVal(-1), intVal(40961),
		intVal(math.MaxInt64), intVal(math.MinInt64), intVal(math.MaxInt64 - 1), textVal("5"), textVal("05"),
		realVal(5), realVal(2)}
	realPool = []value{realVal(0), realVal(1), realVal(2.5), realVal(-1.5), realVal(5), realVal(0.1), realVal(1e16),
		realVal(1e308), realVal(-1e308), realVal(1.7976931348623157e308), intVal(5), intVal(2), textVal("5")}
	numericPool = []value{intVal(0), intVal(1), intVal(5), realVal(5), realVal(2.5), textVal("5"), textVal("05"),
		textVal("5.0"), realVal(1e308), realVal(-1e308), realVal(0.1), intVal(40961)}
	textPool = []value{textVal(""), textVal("a"), textVal("A"), textVal("a "), textVal(" a"), textVal("abc"),
		textVal("ABC"), textVal("5"), textVal("05"), textVal("5.0"), textVal("x y"), textVal("z"), intVal(5), realVal(5)}
	untypedPool = []value{intVal(5), textVal("5"), realVal(5), textVal("05"), blobVal("\x05"), textVal("a"),
		textVal("A"), textVal(""), textVal("a "), intVal(1), textVal("1")}
	// extremes are integers whose arithmetic leaves the 64 bits, in
	// neighbouring pairs that double to one real.
	extremes = []value{intVal(math.MaxInt64), intVal(math.MaxInt64 - 1), intVal(math.MinInt64),
		intVal(math.MinInt64 + 1), intVal(1<<62 + 1), intVal(1 << 62)}
	outsidePool = []value{textVal("abc"), realVal(5.5), textVal(""), blobVal("\x05"), intVal(7), textVal("a ")}
)

// basePool is the pool of column c on dialect d.
func basePool(d engine.Dialect, c *column) []value {
	a := c.affinity()
	if d == engine.Postgres {
		switch a {
		case affInteger:
			return []value{intVal(0), intVal(1), intVal(2), intVal(5), intVal(-1), intVal(40961), intVal(math.MaxInt32)}
		case affText:
			return []value{textVal(""), textVal("a"), textVal("A"), textVal("a "), textVal("ab"), textVal("5"), textVal("05"), textVal("z")}
		}
		return []value{intVal(0), intVal(1), intVal(5), realVal(2.5), realVal(5), realVal(0.1), realVal(-1.5)}
	}
	switch a {
	case affInteger:
		return intPool
	case affReal:
		return realPool
	case affNumeric:
		return numericPool
	case affText:
		return textPool
	}
	return untypedPool
}

// dataGen draws databases for a pair: small tables (0 to 6 rows), each
// column's values from a small domain of its pool, the pair's hints and
// values already placed (so that joins meet and groups gather), NULLs
// where the engine may take them, foreign keys mostly matched, repeated
// rows.
type dataGen struct {
	s *schema
	h hints
	l links
}

// newDataGen reads the pair's hints and links.
func newDataGen(s *schema, q1, q2 *sel) *dataGen {
	dg := &dataGen{s: s, h: gatherHints(q1, q2), l: gatherLinks(q1, q2)}
	dg.linkHints()
	return dg
}

// linkHints adds, to two columns compared across affinities, values
// that a conversion between them makes equal (and only one of the two
// comparisons SQL may make, with or without it): a number on the numeric
// side, its spellings as text ('05', '5.0') on the other.
func (dg *dataGen) linkHints() {
	for _, t := range dg.s.tables {
		for i, c := range t.cols {
			for _, o := range dg.l[colKey{t, i}] {
				oc := o.t.cols[o.i]
				if c.affinity() == oc.affinity() {
					continue
				}
				k := colKey{t, i}
				if c.numericish() {
					dg.h.put(k, intVal(5))
				} else {
					dg.h.put(k, textVal("05"))
					dg.h.put(k, textVal("5.0"))
					dg.h.put(k, textVal("5"))
				}
			}
		}
	}
}

// directedDatabases is how many databases of a pair are directed.
const directedDatabases = 16

// database draws database n of the pair. The first directedDatabases
// are directed, each at one column the queries give hints for (in
// turn): that column's values mix its hints with others (so that the
// condition it sits in is true of some rows and false of others), at
// least four rows, and a twin row respelling it; the other columns take
// their hints half of the time.
func (dg *dataGen) database(r *rand.Rand, n int) *database {
	db := &database{s: dg.s, rows: make([][][]value, len(dg.s.tables))}
	var focus *colKey
	if hinted := dg.hinted(); n < directedDatabases && len(hinted) > 0 {
		focus = &hinted[n%len(hinted)]
	}
	var placed []value
	for ti, t := range dg.s.tables {
		nrows := pick(r, []weighted[int]{{0, 1}, {1, 2}, {2, 4}, {3, 4}, {4, 3}, {6, 2}})
		if focus != nil && focus.t == t {
			nrows = max(nrows, 4)
		}
		doms := make([][]value, len(t.cols))
		for i, c := range t.cols {
			k := colKey{t, i}
			mode := hintsSometimes
			switch {
			case focus != nil && *focus == k:
				mode = hintsMixed
			case focus != nil && chance(r, 0.5):
				mode = hintsNone
			}
			doms[i] = dg.domain(r, k, c, mode, placed)
			placed = append(placed, doms[i]...)
		}
		for range nrows {
			if len(db.rows[ti]) > 0 && chance(r, 0.15) {
				db.rows[ti] = append(db.rows[ti], slices.Clone(db.rows[ti][r.IntN(len(db.rows[ti]))]))
				continue
			}
			row := make([]value, len(t.cols))
			for i, c := range t.cols {
				if !c.notNull && chance(r, 0.12) {
					continue // NULL
				}
				row[i] = doms[i][r.IntN(len(doms[i]))]
			}
			dg.matchLinks(r, db, ti, row)
			dg.matchForeignKeys(r, db, t, row)
			db.rows[ti] = append(db.rows[ti], row)
		}
		if len(db.rows[ti]) > 0 && (focus != nil && focus.t == t || chance(r, 0.3)) {
			col := -1
			if focus != nil && focus.t == t && chance(r, 0.7) {
				col = focus.i
			}
			db.rows[ti] = append(db.rows[ti], dg.twin(r, t, db.rows[ti][r.IntN(len(db.rows[ti]))], col))
		}
	}
	return db
}

// hinted lists the columns with hints, in schema order.
func (dg *dataGen) hinted() []colKey {
	var out []colKey
	for _, t := range dg.s.tables {
		for i := range t.cols {
			if len(dg.h[colKey{t, i}]) > 0 {
				out = append(out, colKey{t, i})
			}
		}
	}
	return out
}

// hintMode is how a column's domain draws from its hints.
type hintMode uint8

const (
	hintsSometimes hintMode = iota // each value a hint at times
	hintsMixed                     // half hints, half others, two at least
	hintsNone                      // no hint
)

// matchLinks gives, half of the time, a column the queries compare with
// another the value that column has in this row or in a row already
// drawn: the same literal (the affinities may store it apart), or
// another spelling of it ('05' for 5).
func (dg *dataGen) matchLinks(r *rand.Rand, db *database, ti int, row []value) {
	t := dg.s.tables[ti]
	for i := range t.cols {
		for _, o := range dg.l[colKey{t, i}] {
			if !chance(r, 0.5) {
				continue
			}
			if o.t == t && o.i < i {
				row[i] = respell(r, row[o.i])
				continue
			}
			for oi, ot := range dg.s.tables {
				if ot == o.t && oi < ti && len(db.rows[oi]) > 0 {
					row[i] = respell(r, db.rows[oi][r.IntN(len(db.rows[oi]))][o.i])
				}
			}
		}
	}
}

// twin copies a row of t with one value respelled (of column col; when
// col is -1, of a column the queries give hints for most of the time): 'a' as 'A' or 'a ', 5 as 5.0
// or '5' (rows a collation or an affinity ties, that a proof may claim
// equal), a number negated (rows that cancel in a sum), or an integer
// near the extremes made its neighbour (rows whose arithmetic past 64
// bits gives one real).
func (dg *dataGen) twin(r *rand.Rand, t *table, row []value, col int) []value {
	out := slices.Clone(row)
	var hinted []int
	for i := range t.cols {
		if len(dg.h[colKey{t, i}]) > 0 {
			hinted = append(hinted, i)
		}
	}
	i := r.IntN(len(out))
	switch {
	case col >= 0:
		i = col
	case len(hinted) > 0 && chance(r, 0.7):
		i = hinted[r.IntN(len(hinted))]
	}
	if v := out[i]; nearExtreme(v) && chance(r, 0.7) {
		out[i] = neighbour(v) // one real past 64 bits
		return out
	}
	if n, ok := out[i].numeric(); ok && chance(r, 0.3) {
		out[i] = numberValue(-n) // a value that cancels: sums in another order overflow
		return out
	}
	if alts := out[i].spellings()[1:]; len(alts) > 0 {
		out[i] = alts[r.IntN(len(alts))]
	}
	return out
}

// respell returns v, or (a third of the time) another spelling of it;
// an integer near the extremes, at times its neighbour (the two that
// arithmetic past 64 bits makes one real).
func respell(r *rand.Rand, v value) value {
	if nearExtreme(v) && chance(r, 0.35) {
		return neighbour(v)
	}
	if alts := v.spellings()[1:]; len(alts) > 0 && chance(r, 0.35) {
		return alts[r.IntN(len(alts))]
	}
	return v
}

// nearExtreme reports whether v is an integer past 2^61 in magnitude,
// one whose neighbour arithmetic past 64 bits may make the same real.
func nearExtreme(v value) bool { return v.k == kInt && (v.i > 1<<61 || v.i < -1<<61) }

// neighbour is the integer next to v toward zero.
func neighbour(v value) value {
	if v.i > 0 {
		return intVal(v.i - 1)
	}
	return intVal(v.i + 1)
}

// domain draws the few values column c takes in one database, from its
// hints as mode says.
func (dg *dataGen) domain(r *rand.Rand, k colKey, c *column, mode hintMode, placed []value) []value {
	size := pick(r, []weighted[int]{{1, 2}, {2, 4}, {3, 4}, {5, 2}})
	hs := dg.h[k]
	if mode == hintsNone {
		hs = nil
	}
	base := basePool(dg.s.d, c)
	var out []value
	if mode == hintsMixed {
		size = max(size, 3)
	}
	for j := range size {
		switch x := r.Float64(); {
		case len(hs) > 0 && (mode == hintsMixed && j%3 != 2 || mode == hintsSometimes && x < 0.35):
			out = append(out, hs[r.IntN(len(hs))])
		case len(placed) > 0 && x < 0.5:
			out = append(out, placed[r.IntN(len(placed))])
		case x < 0.57 && dg.s.d == engine.SQLite:
			out = append(out, outsidePool[r.IntN(len(outsidePool))])
		default:
			out = append(out, base[r.IntN(len(base))])
		}
	}
	if dg.s.d == engine.Postgres {
		return fitPostgres(c, out, base)
	}
	return out
}

// fitPostgres keeps the values a PostgreSQL column of c's type reads
// (PostgreSQL refuses 'a' in an integer column): others are replaced by
// the pool's.
func fitPostgres(c *column, vs, base []value) []value {
	out := vs[:0:0]
	for _, v := range vs {
		switch c.affinity() {
		case affInteger:
			if v.k == kInt && v.i >= math.MinInt32 && v.i <= math.MaxInt32 {
				out = append(out, v)
				continue
			}
			if v.k == kText {
				if i, err := strconv.ParseInt(strings.TrimSpace(v.s), 10, 32); err == nil {
					out = append(out, intVal(i))
					continue
				}
			}
		case affText:
			if v.k == kText && len(v.s) <= 3 {
				out = append(out, v)
				continue
			}
			if v.k == kInt && v.i >= 0 && v.i < 1000 {
				out = append(out, textVal(strconv.FormatInt(v.i, 10)))
				continue
			}
		default:
			if (v.k == kInt || v.k == kReal) && math.Abs(mustNumber(v)) < 1e8 {
				out = append(out, v)
				continue
			}
		}
		out = append(out, base[len(out)%len(base)])
	}
	return out
}

func mustNumber(v value) float64 {
	n, _ := v.numeric()
	return n
}

// matchForeignKeys gives a row's foreign key columns, most of the time,
// the values of a row of the table they reference.
func (dg *dataGen) matchForeignKeys(r *rand.Rand, db *database, t *table, row []value) {
	for _, fk := range t.fks {
		pi := -1
		for i, x := range dg.s.tables {
			if x == fk.ref {
				pi = i
			}
		}
		if pi < 0 || len(db.rows[pi]) == 0 || !chance(r, 0.85) {
			continue
		}
		prow := db.rows[pi][r.IntN(len(db.rows[pi]))]
		for j, c := range fk.cols {
			row[c] = prow[fk.refCols[j]]
		}
	}
}

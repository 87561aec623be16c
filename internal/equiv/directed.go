package equiv

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// The directed phase builds databases from the queries' own conditions,
// one or a few per condition to flip (after XData: Chandra, Chawda,
// Kar, Reddy, Shah, Sudarshan, "Data Generation for Testing and Grading
// SQL Queries", VLDB Journal 2015): where random rows rarely meet a
// condition at its boundary, these do. For an aggregate compared with a
// literal (HAVING count(*) > 10, SUM(x) >= 100, AVG(x) = 3, MAX(x) < 75)
// a group of rows that sits exactly on the literal: 10 rows in one group
// (and 10 with a NULL in one row's column a COUNT reads, where it may hold
// one: COUNT(*) on the literal, COUNT(x) one below),
// values summing to exactly 100 while staying under the query's bounds on
// the column (x < 75, MAX(x) < 75), every value equal to the average; and
// for a table a subquery reads, several rows that meet the query's
// equalities on literals, so that a scalar subquery returns more than one
// row. The rows of a group copy one template row: the columns the queries
// compare with a literal take that literal, the GROUP BY columns keep the
// template's values, keys are made distinct (of a composite key, the
// columns neither grouped nor joined on); a missing parent row of a
// foreign key is drawn; the other tables are drawn as in the small phase,
// and the whole is repaired.

// aggTarget is an aggregate of a query compared with a number: fn is
// COUNT, SUM, AVG, MAX or MIN, col its argument ("" for COUNT(*)), n the
// number.
type aggTarget struct {
	fn  string
	col string
	n   float64
}

// conditions are what the directed phase reads of the two queries.
type conditions struct {
	aggs []aggTarget
	// equal maps a column name (lower case) to the literals the queries
	// compare it with by = (in order, without repeats).
	equal map[string][]result.Value
	// below maps a column name (lower case) to the least bound a query
	// keeps it under (col < b, col <= b, MAX(col) < b): the parts of a
	// SUM stay under it.
	below map[string]float64
	// meet maps a column name (lower case) to a value that meets the
	// first inequality the queries put on it (col > 5: 6; col <= 5: 5).
	meet map[string]result.Value
	// links are pairs of column names (lower case) the queries compare by
	// = or IN (a join, x = (SELECT y …), x IN (SELECT y …)).
	links [][2]string
	// groupBy are the GROUP BY column names (lower case).
	groupBy map[string]bool
	// counted are the column names (lower case) a COUNT reads, compared
	// with a number or not (ORDER BY count(x)): a NULL there makes
	// COUNT(x) one less than COUNT(*).
	counted map[string]bool
	// tables are the tables the queries name, in schema order; subquery
	// tables the tables named after a FROM inside parentheses.
	tables, subquery []int
}

// maxDirectedRows bounds the rows of a directed group (a COUNT above it is
// not targeted): Spider's HAVING count(*) < 200 is met.
const maxDirectedRows = 256

var aggFuncs = map[string]bool{"COUNT": true, "SUM": true, "AVG": true, "MAX": true, "MIN": true}

// readConditions reads the conditions of the queries from their tokens
// (no parse is needed, so a query the parser refuses is read too).
func (s *schema) readConditions(queries ...string) conditions {
	c := conditions{equal: map[string][]result.Value{}, below: map[string]float64{}, meet: map[string]result.Value{}, groupBy: map[string]bool{}, counted: map[string]bool{}}
	named, inSub := map[int]bool{}, map[int]bool{}
	for _, q := range queries {
		toks := significant(q)
		s.readQuery(toks, &c, named, inSub)
	}
	for ti := range s.Tables {
		if named[ti] {
			c.tables = append(c.tables, ti)
		}
		if inSub[ti] {
			c.subquery = append(c.subquery, ti)
		}
	}
	return c
}

// significant returns q's tokens without blanks and comments.
func significant(q string) []sqllex.Token {
	var out []sqllex.Token
	for _, t := range sqllex.Tokenize(q) {
		if t.Kind != sqllex.Space && t.Kind != sqllex.Comment {
			out = append(out, t)
		}
	}
	return out
}

// readQuery adds one query's conditions to c.
func (s *schema) readQuery(toks []sqllex.Token, c *conditions, named, inSub map[int]bool) {
	depth := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		up := strings.ToUpper(t.Text)
		switch {
		case t.Text == "(":
			depth++
		case t.Text == ")":
			depth--
		case t.Kind == sqllex.Word && (up == "FROM" || up == "JOIN"):
			for j := i + 1; j < len(toks) && toks[j].Text != "(" && !isClauseWord(toks[j].Text); j++ {
				if ti := s.index(catalog.UnquoteIdent(toks[j].Text)); ti >= 0 && (toks[j].Kind == sqllex.Word || toks[j].Kind == sqllex.Quoted) {
					named[ti] = true
					if depth > 0 {
						inSub[ti] = true
					}
				}
			}
		case t.Kind == sqllex.Word && up == "BY" && i > 0 && strings.EqualFold(toks[i-1].Text, "GROUP"):
			for j := i + 1; j < len(toks) && !isClauseWord(toks[j].Text) && toks[j].Text != ")"; j++ {
				if toks[j].Kind == sqllex.Word || toks[j].Kind == sqllex.Quoted {
					c.groupBy[strings.ToLower(catalog.UnquoteIdent(toks[j].Text))] = true
				}
			}
		case t.Kind == sqllex.Word && aggFuncs[up] && i+1 < len(toks) && toks[i+1].Text == "(":
			s.readAggregate(toks, i, c)
		}
		s.readComparison(toks, i, c)
	}
}

// isClauseWord reports whether w ends a FROM list or a GROUP BY list.
func isClauseWord(w string) bool {
	switch strings.ToUpper(w) {
	case "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "INTERSECT", "EXCEPT", "ON", "JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "NATURAL", "OFFSET", ";":
		return true
	}
	return false
}

// readAggregate reads FUNC ( [DISTINCT] [t.]col | * ) op number, or the
// number before the aggregate (n op FUNC(…)), at toks[i].
func (s *schema) readAggregate(toks []sqllex.Token, i int, c *conditions) {
	j := i + 2
	if j < len(toks) && strings.EqualFold(toks[j].Text, "DISTINCT") {
		j++
	}
	col := ""
	switch {
	case j < len(toks) && toks[j].Text == "*":
		j++
	case j+2 < len(toks) && toks[j+1].Text == ".":
		col = strings.ToLower(catalog.UnquoteIdent(toks[j+2].Text))
		j += 3
	case j < len(toks) && (toks[j].Kind == sqllex.Word || toks[j].Kind == sqllex.Quoted):
		col = strings.ToLower(catalog.UnquoteIdent(toks[j].Text))
		j++
	default:
		return
	}
	if j >= len(toks) || toks[j].Text != ")" {
		return
	}
	fn := strings.ToUpper(toks[i].Text)
	if fn == "COUNT" && col != "" {
		c.counted[col] = true
	}
	n, op, ok := numberAfter(toks, j+1)
	if !ok && i >= 2 {
		n, op, ok = numberBefore(toks, i)
	}
	if !ok {
		return
	}
	c.aggs = append(c.aggs, aggTarget{fn: fn, col: col, n: n})
	if fn == "MAX" && col != "" && (op == "<" || op == "<=") {
		c.addBelow(col, n, op)
	}
}

// readComparison reads [t.]col op literal at toks[i] (col the word at i):
// an equality binds the column to the literal, a < or <= bounds it.
func (s *schema) readComparison(toks []sqllex.Token, i int, c *conditions) {
	t := toks[i]
	if t.Kind != sqllex.Word && t.Kind != sqllex.Quoted || !s.isColumn(catalog.UnquoteIdent(t.Text)) {
		return
	}
	if i+1 < len(toks) && toks[i+1].Text == "." {
		return // the qualifier: the column follows the dot
	}
	col := strings.ToLower(catalog.UnquoteIdent(t.Text))
	op, k := operatorAt(toks, i+1)
	if op == "" && i+1 < len(toks) && strings.EqualFold(toks[i+1].Text, "IN") {
		op, k = "=", i+2
	}
	if op == "" || k >= len(toks) {
		return
	}
	if other := s.columnAt(toks, k); other != "" && op == "=" {
		c.links = append(c.links, [2]string{col, other})
		return
	}
	lit := toks[k]
	var v result.Value
	switch {
	case lit.Kind == sqllex.Number:
		f, err := strconv.ParseFloat(lit.Text, 64)
		if err != nil {
			return
		}
		v = numberValue(f)
		if op == "<" || op == "<=" {
			c.addBelow(col, f, op)
		}
		if _, ok := c.meet[col]; !ok {
			switch op {
			case ">":
				c.meet[col] = numberValue(f + 1)
			case "<":
				c.meet[col] = numberValue(f - 1)
			case ">=", "<=":
				c.meet[col] = v
			}
		}
	case lit.Kind == sqllex.String || lit.Kind == sqllex.Quoted && strings.HasPrefix(lit.Text, `"`) && !s.isColumn(catalog.UnquoteIdent(lit.Text)):
		v = result.TextValue(catalog.UnquoteIdent(lit.Text))
	default:
		return
	}
	if op == "=" {
		for _, x := range c.equal[col] {
			if result.RowKey([]result.Value{x}) == result.RowKey([]result.Value{v}) {
				return
			}
		}
		c.equal[col] = append(c.equal[col], v)
	}
}

// columnAt returns the column named at toks[k] ([t.]col, or ( SELECT
// [DISTINCT] [t.]col …), lower case; "" when there is none.
func (s *schema) columnAt(toks []sqllex.Token, k int) string {
	if k+1 < len(toks) && toks[k].Text == "(" && strings.EqualFold(toks[k+1].Text, "SELECT") {
		k += 2
		if k < len(toks) && strings.EqualFold(toks[k].Text, "DISTINCT") {
			k++
		}
	}
	if k+2 < len(toks) && toks[k+1].Text == "." {
		k += 2
	}
	if k >= len(toks) || toks[k].Kind != sqllex.Word && toks[k].Kind != sqllex.Quoted || toks[k].Kind == sqllex.Quoted && strings.HasPrefix(toks[k].Text, `"`) && !s.isColumn(catalog.UnquoteIdent(toks[k].Text)) {
		return ""
	}
	if n := catalog.UnquoteIdent(toks[k].Text); s.isColumn(n) {
		return strings.ToLower(n)
	}
	return ""
}

func numberValue(f float64) result.Value {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return result.IntValue(int64(f))
	}
	return result.FloatValue(f)
}

// addBelow records that col stays under n (below n+1 for <= on an
// integer bound).
func (c *conditions) addBelow(col string, n float64, op string) {
	b := n
	if op == "<=" {
		b = n + 1
	}
	if old, ok := c.below[col]; !ok || b < old {
		c.below[col] = b
	}
}

// operatorAt reads a comparison operator at toks[i] (one or two
// punctuation tokens) and returns it ("=" for == too) and the index after
// it; "" when there is none.
func operatorAt(toks []sqllex.Token, i int) (string, int) {
	if i >= len(toks) || toks[i].Kind != sqllex.Punct {
		return "", i
	}
	two := ""
	if i+1 < len(toks) && toks[i+1].Kind == sqllex.Punct {
		two = toks[i].Text + toks[i+1].Text
	}
	switch two {
	case "<=", ">=", "<>", "!=":
		return two, i + 2
	case "==":
		return "=", i + 2
	}
	switch toks[i].Text {
	case "=", "<", ">":
		return toks[i].Text, i + 1
	}
	return "", i
}

// numberAfter reads op number at toks[i].
func numberAfter(toks []sqllex.Token, i int) (float64, string, bool) {
	op, k := operatorAt(toks, i)
	if op == "" || k >= len(toks) || toks[k].Kind != sqllex.Number {
		return 0, "", false
	}
	f, err := strconv.ParseFloat(toks[k].Text, 64)
	return f, op, err == nil
}

// numberBefore reads number op just before toks[i] (the aggregate's
// name), flipping the operator to read as aggregate op number.
func numberBefore(toks []sqllex.Token, i int) (float64, string, bool) {
	for _, w := range []int{2, 3} {
		if i-w < 0 || toks[i-w].Kind != sqllex.Number {
			continue
		}
		op, k := operatorAt(toks, i-w+1)
		if op == "" || k != i {
			continue
		}
		f, err := strconv.ParseFloat(toks[i-w].Text, 64)
		if err != nil {
			return 0, "", false
		}
		flip := map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "<>": "<>", "!=": "!="}
		return f, flip[op], true
	}
	return 0, "", false
}

// directedDatabases returns the directed phase's databases, drawn with a
// random stream of their own (so that the phases after it draw what they
// drew without it).
func (s *searcher) directedDatabases() []Data {
	main := s.gen
	defer func() { s.gen = main }()
	g := *main
	g.rng = rand.New(rand.NewPCG(uint64(s.o.Seed)^0x9e3779b97f4a7c15, seedOf(s.p)))
	s.gen = &g
	return s.directed()
}

// directed returns the directed phase's databases, built from the
// queries' conditions (see above), repaired; none when the queries hold
// no condition it targets.
func (s *searcher) directed() []Data {
	c := s.schema.readConditions(s.p.Q1, s.p.Q2)
	var out []Data
	addAs := func(ti int, values []map[int]result.Value, vary bool) {
		if db := s.withGroup(c, ti, values, vary); db != nil {
			out = append(out, db)
		}
	}
	add := func(ti int, values []map[int]result.Value) {
		addAs(ti, values, len(values) > 1 && len(c.groupBy) == 0)
	}
	for _, a := range c.aggs {
		for _, ti := range s.aggTables(c, a) {
			for _, g := range s.groups(c, ti, a) {
				add(ti, g)
			}
		}
	}
	for _, ti := range c.subquery {
		if len(c.equal) > 0 || len(c.aggs) == 0 {
			for _, n := range []int{2, 3} {
				add(ti, make([]map[int]result.Value, n))
			}
		}
	}
	// A column the queries compare with several literals (Continent =
	// 'Asia' … Continent = 'Africa'): two rows for each, their other
	// values apart, so that a comparison across the groups (a population
	// between Africa's least and greatest) can hold.
	for _, ti := range c.tables {
		for ci, col := range s.schema.Tables[ti].Columns {
			lits := c.equal[strings.ToLower(col.Name)]
			if len(lits) < 2 {
				continue
			}
			var g, shared []map[int]result.Value
			for _, v := range lits {
				g = append(g, map[int]result.Value{ci: v}, map[int]result.Value{ci: v})
				shared = append(shared, map[int]result.Value{ci: v})
			}
			add(ti, g)
			// … and one row for each, their other values the same (one
			// stadium with a concert in 2014 and one in 2015, which
			// INTERSECT and IN … AND IN … both need; the twin phase then
			// doubles the stadium).
			addAs(ti, shared, false)
		}
	}
	return out
}

// aggTables are the tables a directed group for a may go in: the
// tables holding its column, or every table the queries name for
// COUNT(*).
func (s *searcher) aggTables(c conditions, a aggTarget) []int {
	if a.col == "" {
		return c.tables
	}
	var out []int
	for _, ti := range c.tables {
		if s.schema.Tables[ti].Col(a.col) >= 0 {
			out = append(out, ti)
		}
	}
	return out
}

// groups returns the groups of table ti that sit on a's literal: for
// each row, the values its columns must take (by column index); nil when
// a cannot be met within maxDirectedRows rows.
func (s *searcher) groups(c conditions, ti int, a aggTarget) [][]map[int]result.Value {
	t := s.schema.Tables[ti]
	ci := t.Col(a.col)
	rows := func(n int, val func(k int) result.Value) []map[int]result.Value {
		g := make([]map[int]result.Value, n)
		for k := range g {
			g[k] = map[int]result.Value{}
			if ci >= 0 && val != nil {
				g[k][ci] = val(k)
			}
		}
		return g
	}
	switch a.fn {
	case "COUNT":
		n := int(a.n)
		if float64(n) != a.n || n < 0 || n > maxDirectedRows {
			return nil
		}
		var out [][]map[int]result.Value
		for _, m := range []int{n, n + 1} {
			if m > 0 && m <= maxDirectedRows {
				out = append(out, rows(m, nil))
			}
		}
		// The same sizes with a NULL in the first row's column that a
		// COUNT reads, where the column may hold one: COUNT(*) on the
		// bound while COUNT(x) is one below it.
		for cj, col := range t.Columns {
			if !c.counted[strings.ToLower(col.Name)] || col.NotNull {
				continue
			}
			for _, m := range []int{n, n + 1} {
				if m > 1 && m <= maxDirectedRows {
					g := rows(m, nil)
					g[0][cj] = result.Value{}
					out = append(out, g)
				}
			}
		}
		return out
	case "SUM":
		if ci < 0 {
			return nil
		}
		parts := sumParts(a.n, c.below[a.col], t.Columns[ci].Family == catalog.Integer)
		if parts == nil {
			return nil
		}
		return [][]map[int]result.Value{rows(len(parts), func(k int) result.Value { return numberValue(parts[k]) })}
	case "AVG", "MAX", "MIN":
		if ci < 0 {
			return nil
		}
		return [][]map[int]result.Value{rows(2, func(int) result.Value { return numberValue(a.n) })}
	}
	return nil
}

// sumParts splits n into parts under bound (no bound when 0), integers
// when ints: as few parts as the bound allows, the last one the rest; nil
// when more than maxDirectedRows parts are needed or n is not positive.
func sumParts(n, bound float64, ints bool) []float64 {
	if n <= 0 || ints && n != math.Trunc(n) {
		return nil
	}
	part := n
	if bound > 0 && bound <= n {
		part = bound - 1
		if !ints {
			part = bound / 2
		}
		if part <= 0 {
			return nil
		}
	}
	k := int(math.Ceil(n / part))
	if k > maxDirectedRows {
		return nil
	}
	out := make([]float64, k)
	rest := n
	for i := range out {
		out[i] = math.Min(part, rest)
		rest -= out[i]
	}
	// Two parts at least, so that a group's sum differs from its maximum.
	if k == 1 && n >= 2 && (!ints || n >= 2) {
		half := math.Floor(n / 2)
		if !ints {
			half = n / 2
		}
		out = []float64{half, n - half}
	}
	return out
}

// withGroup draws a small database and gives table ti the group: one row
// per entry of values, copies of a template row with the columns compared
// to a literal set to it, the GROUP BY columns kept (with vary, the other
// columns drawn apart from row to row instead), the entry's values set,
// and the key columns made distinct; repaired. Nil when the group does
// not survive the repair.
func (s *searcher) withGroup(c conditions, ti int, values []map[int]result.Value, vary bool) Data {
	db := s.gen.small(1)
	t := s.schema.Tables[ti]
	sh := s.gen.newShape()
	sh.nullRate = 0
	p := newPlaced(s.schema)
	p.addAll(db)
	template := s.gen.row(sh, ti, db, p)
	bound := map[int]bool{}
	for ci, col := range t.Columns {
		v, ok := result.Value{}, false
		if lits := c.equal[strings.ToLower(col.Name)]; len(lits) > 0 {
			v, ok = lits[0], true
		} else {
			v, ok = c.meet[strings.ToLower(col.Name)]
		}
		if cv, good := coerce(v, col); ok && good && !cv.IsNull() {
			template[ci], bound[ci] = cv, true
		}
	}
	// The columns made distinct: of each key, those neither grouped nor
	// joined on (a composite key's other column keeps the group whole and
	// joined to one row), else those not grouped, else all of it.
	keys := map[int]bool{}
	for _, k := range t.Keys() {
		var free, ungrouped []int
		for _, ci := range k {
			name := strings.ToLower(t.Columns[ci].Name)
			if !c.groupBy[name] {
				ungrouped = append(ungrouped, ci)
				if !c.linksColumn(name) {
					free = append(free, ci)
				}
			}
		}
		switch {
		case len(free) > 0:
		case len(ungrouped) > 0:
			free = ungrouped
		default:
			free = k
		}
		for _, ci := range free {
			keys[ci] = true
		}
	}
	var group [][]result.Value
	for k, set := range values {
		row := append([]result.Value(nil), template...)
		if vary {
			// No GROUP BY: the other columns differ from row to row (a
			// scalar subquery's rows, say), keeping what the queries
			// compare with literals.
			for ci := range t.Columns {
				if pool := s.gen.pools[ti][ci]; !bound[ci] && len(pool) > 0 {
					row[ci] = pool[k%len(pool)]
				}
			}
		}
		for ci, v := range set {
			if cv, ok := coerce(v, t.Columns[ci]); ok {
				row[ci] = cv
			}
		}
		for ci := range keys {
			if _, ok := set[ci]; !ok { // a value set (a literal, NULL) stays
				row[ci] = distinctKey(t.Columns[ci], k)
			}
		}
		group = append(group, row)
	}
	db[ti] = group
	// The other tables the queries name get a row per row of the group,
	// whose columns the queries compare with a column of the group's
	// table take that row's value, so that joins and comparisons meet
	// each row of the group.
	for _, tj := range c.tables {
		if tj == ti {
			continue
		}
		u := s.schema.Tables[tj]
		for _, g := range group {
			row := s.gen.row(sh, tj, db, p)
			for cj, col := range u.Columns {
				if ci := linked(c, t, strings.ToLower(col.Name)); ci >= 0 {
					if v, ok := coerce(g[ci], col); ok {
						row[cj] = v
					}
				}
			}
			db[tj] = append(db[tj], row)
		}
	}
	// A foreign key whose parent the small draw left out (a table the
	// queries do not name) gets one: the repair would drop the group.
	s.addParents(s.gen, sh, db, p)
	fixed := s.schema.repair(db)
	if len(fixed[ti]) < len(group) {
		return nil
	}
	return fixed
}

// distinctKey is the k-th of a run of distinct values of column c's kind,
// apart from the small values the pools hold.
func distinctKey(c catalog.Column, k int) result.Value {
	switch c.Family {
	case catalog.Integer, catalog.Real, catalog.Decimal:
		return result.IntValue(int64(9000 + k))
	case catalog.Date:
		return result.TextValue("2001-01-" + twoDigits(1+k%28))
	}
	v, ok := coerce(result.TextValue("k"+strconv.Itoa(k)), c)
	if !ok {
		return result.TextValue("k" + strconv.Itoa(k))
	}
	return v
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// linksColumn reports whether the queries compare col (lower case) with
// another column by = or IN (c.links).
func (c conditions) linksColumn(col string) bool {
	for _, l := range c.links {
		if l[0] == col || l[1] == col {
			return true
		}
	}
	return false
}

// linked returns the column of t the queries compare col with (c.links),
// or -1.
func linked(c conditions, t *catalog.Table, col string) int {
	for _, l := range c.links {
		for k := range 2 {
			if l[k] == col {
				if ci := t.Col(l[1-k]); ci >= 0 && !strings.EqualFold(l[1-k], col) {
					return ci
				}
			}
		}
	}
	return -1
}

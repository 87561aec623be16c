package check

import (
	"slices"
	"strconv"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// block is a query (or subquery) of a canonical form, read as the
// normal form the kernel compares: a select-project-join block over base
// tables (its FROM items, the conjuncts of its ON clauses and WHERE),
// with its outputs, DISTINCT, grouping and order; or a compound of such
// blocks.
type block struct {
	stmt *sqlast.SelectStmt
	// A simple block.
	core      *sqlast.SelectQuery
	occs      []*occurrence
	conds     []sqlast.Expr // the conjuncts of every ON and of WHERE
	outputs   []sqlast.Expr // * expanded
	distinct  bool
	groupBy   []sqlast.Expr
	having    sqlast.Expr
	aggregate bool // GROUP BY, or an aggregate in SELECT, HAVING or ORDER BY
	// A compound: its branches and operators.
	branches []*block
	ops      []sqlast.CompoundOp
	// Both.
	orderBy []*sqlast.OrderingTerm
	limit   *sqlast.Limit
	subs    []*subq // the subqueries of this block's expressions
	parent  *block
}

// subKind is how a subquery is used.
type subKind uint8

const (
	subIn     subKind = iota // x [NOT] IN (subquery)
	subExists                // [NOT] EXISTS (subquery)
	subScalar                // (subquery) as a value
)

// String names the use: IN, EXISTS or scalar.
func (k subKind) String() string {
	return [...]string{"IN", "EXISTS", "scalar"}[k]
}

// subq is a subquery of a block's expressions.
type subq struct {
	kind  subKind
	expr  sqlast.Expr // the InExpr, ExistsExpr or SubqueryExpr
	block *block
}

// compiler reads a canonical form into blocks.
type compiler struct {
	c      *Canon
	blocks map[*sqlast.SelectStmt]*block
}

// compile reads the canonical form c as blocks; a construct the normal
// form does not cover is a *Refusal.
func compile(c *Canon) (*block, map[*sqlast.SelectStmt]*block, error) {
	if err := c.outerAggregate(); err != nil {
		return nil, nil, err
	}
	cp := &compiler{c: c, blocks: map[*sqlast.SelectStmt]*block{}}
	b, err := cp.stmt(c.Stmt, nil)
	return b, cp.blocks, err
}

func (cp *compiler) stmt(st *sqlast.SelectStmt, parent *block) (*block, error) {
	b := &block{stmt: st, parent: parent}
	cp.blocks[st] = b
	if len(st.Cores) == 1 {
		sq := st.Cores[0].(*sqlast.SelectQuery)
		b.orderBy, b.limit = sq.OrderBy, sq.Limit
		return b, cp.core(b, sq)
	}
	b.ops = st.Ops
	last := st.Cores[len(st.Cores)-1].(*sqlast.SelectQuery)
	b.orderBy, b.limit = last.OrderBy, last.Limit
	for _, core := range st.Cores {
		br := &block{stmt: st, parent: b}
		if err := cp.core(br, core.(*sqlast.SelectQuery)); err != nil {
			return nil, err
		}
		b.branches = append(b.branches, br)
	}
	return b, nil
}

// core reads a SELECT into b.
func (cp *compiler) core(b *block, sq *sqlast.SelectQuery) error {
	b.core = sq
	b.distinct = sq.Distinct == sqlast.DistinctDistinct
	for _, t := range sq.From {
		o := cp.c.byAlias[lowerASCII(t.Alias.Name)]
		switch {
		case o == nil:
			return refuse("FROM item", "%s", sqlast.Format(t))
		case o.derived != nil && o.table == nil:
			return refuse("derived table", "a subquery in FROM")
		case o.join == joinLeft:
			return refuse("outer join", "LEFT JOIN")
		}
		b.occs = append(b.occs, o)
		if t.On != nil {
			b.conds = append(b.conds, conjuncts(t.On)...)
		}
	}
	if sq.Where != nil {
		b.conds = append(b.conds, conjuncts(sq.Where)...)
	}
	for _, c := range sq.Columns {
		if st, ok := c.Expr.(*sqlast.Star); ok {
			for _, o := range b.occs {
				if st.Table != nil && !equalFold(st.Table.Name, o.alias) {
					continue
				}
				for i := range o.table.Columns {
					b.outputs = append(b.outputs, qualified(o, i))
				}
			}
			continue
		}
		b.outputs = append(b.outputs, c.Expr)
	}
	b.groupBy, b.having = sq.GroupBy, sq.Having
	b.aggregate = len(sq.GroupBy) > 0 || sq.Having != nil
	for _, e := range b.outputs {
		b.aggregate = b.aggregate || containsAggregate(e)
	}
	for _, o := range b.orderBy {
		b.aggregate = b.aggregate || containsAggregate(o.Expr)
	}
	for _, e := range append(append([]sqlast.Expr{}, b.conds...), b.groupBy...) {
		if containsAggregate(e) {
			return refuse("aggregate", "an aggregate in WHERE, ON or GROUP BY")
		}
	}
	var all []sqlast.Expr
	all = append(all, b.outputs...)
	all = append(all, b.conds...)
	all = append(all, b.groupBy...)
	if b.having != nil {
		all = append(all, b.having)
	}
	for _, o := range b.orderBy {
		all = append(all, o.Expr)
	}
	for _, e := range all {
		if err := cp.subqueries(b, e); err != nil {
			return err
		}
	}
	return cp.checkCalls(all)
}

// checkCalls refuses the aggregates the normal form does not compare:
// those whose value depends on the order the engine meets the group's
// rows in (orderFree), which two queries need not share.
func (cp *compiler) checkCalls(es []sqlast.Expr) error {
	for _, e := range es {
		var err error
		walkExpr(e, func(x sqlast.Expr) bool {
			if f, ok := x.(*sqlast.FuncCall); ok && isAggregateCall(f) {
				err = cp.c.orderFree(f)
			}
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// orderFree refuses an aggregate call whose value depends on the order
// of the rows it reads: group_concat (it concatenates in that order);
// SUM, AVG or TOTAL of values that may be floating point (SQLite adds
// them in that order, and 1e308 + 1e308 - 1e308 is not -1e308 + 1e308 +
// 1e308); AVG or TOTAL of integers, which go on in floating point past an
// integer overflow, unless of a column whose sums stay in range
// (sumFacts, facts the comparison lists); MIN or MAX of values the engine
// may take for equal while they differ (5 and 5.0 in an untyped column:
// it returns the first it meets). COUNT is free of the order, and so is
// the SUM of integers on PostgreSQL (bigint or numeric: no overflow); on
// SQLite a SUM of integers fails when a running sum leaves 64 bits, which
// depends on the order once the total stays inside, so SUM there is free
// of the order only with sumFacts too.
func (c *Canon) orderFree(f *sqlast.FuncCall) error {
	name := lowerASCII(f.Name.Name)
	var arg sqlast.Expr
	if len(f.Args) == 1 {
		arg = f.Args[0]
	}
	switch {
	case name == "count":
		return nil
	case name == "group_concat":
		return refuse("group_concat", "its order is the scan order")
	case name == "sum" && arg != nil && c.integerExpr(arg) && (c.d == Postgres || c.sumFacts(arg) != nil):
		return nil
	case (name == "avg" || name == "total") && c.sumFacts(arg) != nil:
		return nil
	case (name == "min" || name == "max") && arg != nil && (c.integerExpr(arg) || c.tieSafe(arg, false)):
		return nil
	}
	return refuse("aggregate order", "%s depends on the order the engine reads the group's rows in (floating point sums, an integer sum that overflows on some orders, ties of different values)", sqlast.Format(f))
}

// sumFacts are the facts SUM, AVG or TOTAL of arg needs to be free of
// the order, nil when none make it so: arg is a column of family Int
// whose values' magnitudes sum below 2^63 (FactSumInRange), so that no
// partial sum overflows and SQLite adds them as integers, exactly, in any
// order. The fact bounds the sum of the table's rows: it covers an
// aggregate that reads each of them at most once, which onceEach shows
// of the SELECT the column's occurrence is in (its facts join the list).
// A join may repeat a row as often as it matches, and the sum of the
// repeats may leave 64 bits: SQLite then fails SUM ("integer overflow")
// or goes on in floating point (AVG, TOTAL) at a point that depends on
// the order the join produces the rows in (the kernel proved `SELECT
// sum(t.x) FROM t, u` equal to `SELECT sum(t.x) FROM u, t`, and SQLite
// fails the first and runs the second on two rows of t and two of u).
func (c *Canon) sumFacts(arg sqlast.Expr) []Fact {
	o, i, ok := c.colOf(arg)
	if !ok || o.derived != nil || c.fam(o, i) != Int {
		return nil
	}
	join, ok := c.onceEach(o)
	if !ok {
		return nil
	}
	return append([]Fact{{Fact: FactSumInRange, Table: o.table.Name, Column: o.table.Columns[i].Name}, c.familyFact(o, i)}, join...)
}

// onceEach reports whether the rows of the SELECT holding occurrence o
// hold each row of o's table at most once, with the facts that show it:
// o is its FROM's only item, or every other item is a table joined by
// inner joins (or commas) whose key is bound, by top-level conjuncts
// p.k = e of the WHERE or an ON, to a literal or a column of an item
// already shown to come at most once per row of o (starting from o),
// each of the key column's family, Int or Text (leftUnique's binding;
// facts key, family). Then each row of o meets at most one row of each
// other item, in whatever order the engine joins them.
func (c *Canon) onceEach(o *occurrence) ([]Fact, bool) {
	core := o.core
	if core == nil {
		return nil, false
	}
	var others []*occurrence
	for _, p := range c.Occs {
		if p.core == core && p != o {
			others = append(others, p)
		}
	}
	if len(others) == 0 {
		return nil, true
	}
	conds := conjuncts(core.Where)
	for _, t := range core.From {
		if t.Join != nil && t.Join.Type&(sqlast.JoinLeft|sqlast.JoinRight) != 0 || t.Name == nil {
			return nil, false
		}
		if t.On != nil {
			conds = append(conds, conjuncts(t.On)...)
		}
	}
	once := map[*occurrence]bool{o: true}
	var facts []Fact
	for progress := true; progress; {
		progress = false
		for _, p := range others {
			if once[p] || p.table == nil {
				continue
			}
			if fs, ok := c.boundKey(p, conds, func(eo *occurrence) bool { return once[eo] }); ok {
				facts = append(facts, fs...)
				once[p], progress = true, true
			}
		}
	}
	for _, p := range others {
		if !once[p] {
			return nil, false
		}
	}
	return facts, true
}

// orderFacts lists the facts that make the aggregates of c free of the
// order of their rows: sumFacts of every AVG and TOTAL (and of SUM on
// SQLite), and the family of
// each Int column an AVG, TOTAL, SUM, MIN or MAX is free of the order by
// (integerExpr, sumFacts): SQLite stores a REAL it cannot convert in an
// INTEGER column, and a sum of reals (1e16 + 1 - 1e16) depends on the
// order however small their magnitudes.
func (c *Canon) orderFacts() []Fact {
	var fs factSet
	sqlast.Walk(c.Stmt, func(n sqlast.Node) bool {
		if f, ok := n.(*sqlast.FuncCall); ok {
			c.aggOrderFacts(f, &fs)
		}
		return true
	})
	return fs.list
}

// aggOrderFacts adds to fs the facts that make aggregate f free of the
// order of its rows (orderFacts' for one aggregate; nothing for another
// call).
func (c *Canon) aggOrderFacts(f *sqlast.FuncCall, fs *factSet) {
	if !isAggregateCall(f) || len(f.Args) != 1 {
		return
	}
	arg := f.Args[0]
	switch name := lowerASCII(f.Name.Name); {
	case name == "avg" || name == "total":
		if facts := c.sumFacts(arg); facts != nil {
			for _, f := range facts {
				fs.add(f)
			}
			c.intFamilies(fs, arg)
		}
	case name == "sum" || name == "min" || name == "max":
		if c.integerExpr(arg) {
			c.intFamilies(fs, arg)
		}
		if name == "sum" && c.d == SQLite {
			for _, f := range c.sumFacts(arg) {
				fs.add(f)
			}
		}
	}
}

// intFamilies adds to fs the family fact of each column of family Int
// that e reads (outside subqueries).
func (c *Canon) intFamilies(fs *factSet, e sqlast.Expr) {
	walkExpr(e, func(x sqlast.Expr) bool {
		if o, i, ok := c.colOf(x); ok && c.fam(o, i) == Int {
			fs.add(c.familyFact(o, i))
		}
		return true
	})
}

// integerExpr reports whether e's values are integers (or NULL): an
// integer literal (signed or not), a column of family Int, and CASE,
// abs, coalesce and ifnull of such. Arithmetic is not: SQLite turns an
// integer overflow of +, -, *, / into a floating point value.
func (c *Canon) integerExpr(e sqlast.Expr) bool {
	switch t := e.(type) {
	case *sqlast.ParenExpr:
		return c.integerExpr(t.X)
	case *sqlast.Literal:
		return t.Kind == sqlast.LitInteger || t.Kind == sqlast.LitNull
	case *sqlast.QualifiedRef:
		o, i, ok := c.colOf(t)
		return ok && c.fam(o, i) == Int
	case *sqlast.UnaryExpr:
		l, ok := stripParens(t.X).(*sqlast.Literal)
		return ok && l.Kind == sqlast.LitInteger && (t.Op == sqlast.OpMinus || t.Op == sqlast.OpPlus)
	case *sqlast.CaseExpr:
		for _, w := range t.Whens {
			if !c.integerExpr(w.Then) {
				return false
			}
		}
		return t.Else == nil || c.integerExpr(t.Else)
	case *sqlast.FuncCall:
		switch lowerASCII(t.Name.Name) {
		case "abs", "coalesce", "ifnull":
			for _, a := range t.Args {
				if !c.integerExpr(a) {
					return false
				}
			}
			return len(t.Args) > 0
		}
	}
	return false
}

// pyType is the Python type of e's non-NULL values as Spider's evaluator
// reads them through its driver: "int" for integerExpr's expressions,
// COUNT, and (on SQLite: PostgreSQL's SUM of a bigint is a numeric, a
// Decimal) SUM of integers; "str" for a string literal and a column of
// family Text; MIN and MAX of one argument are of their argument's type;
// "" when not known to be one (floating point values, a NUMERIC column
// holding 1 and 1.5, any other expression).
func (c *Canon) pyType(e sqlast.Expr) string {
	e = stripParens(e)
	if c.integerExpr(e) {
		return "int"
	}
	switch t := e.(type) {
	case *sqlast.Literal:
		if t.Kind == sqlast.LitString {
			return "str"
		}
	case *sqlast.QualifiedRef:
		if o, i, ok := c.colOf(t); ok && c.fam(o, i) == Text {
			return "str"
		}
	case *sqlast.FuncCall:
		switch name := lowerASCII(t.Name.Name); {
		case name == "count":
			return "int"
		case len(t.Args) != 1:
		case name == "sum" && c.d == SQLite && c.integerExpr(t.Args[0]):
			return "int"
		case name == "min" || name == "max":
			return c.pyType(t.Args[0])
		}
	}
	return ""
}

// subqueries compiles the subqueries of e (not those nested in them) as
// children of b.
func (cp *compiler) subqueries(b *block, e sqlast.Expr) error {
	var err error
	walkExpr(e, func(x sqlast.Expr) bool {
		if err != nil {
			return false
		}
		var st *sqlast.SelectStmt
		var kind subKind
		switch t := x.(type) {
		case *sqlast.InExpr:
			st, kind = t.Select, subIn
		case *sqlast.ExistsExpr:
			st, kind = t.Select, subExists
		case *sqlast.SubqueryExpr:
			st, kind = t.Select, subScalar
		}
		if st == nil {
			return true
		}
		var sb *block
		if sb, err = cp.stmt(st, b); err == nil {
			b.subs = append(b.subs, &subq{kind: kind, expr: x, block: sb})
		}
		return true
	})
	return err
}

// conjuncts splits e at its top-level ANDs (parentheses looked through).
func conjuncts(e sqlast.Expr) []sqlast.Expr {
	e = stripParens(e)
	if b, ok := e.(*sqlast.BinaryExpr); ok && b.Op == sqlast.OpAnd {
		return append(conjuncts(b.X), conjuncts(b.Y)...)
	}
	return []sqlast.Expr{e}
}

// colOf returns the occurrence and column index a canonical column
// reference names.
func (c *Canon) colOf(e sqlast.Expr) (*occurrence, int, bool) {
	r, ok := e.(*sqlast.QualifiedRef)
	if !ok || len(r.Parts) != 2 {
		return nil, 0, false
	}
	o := c.byAlias[lowerASCII(r.Parts[0].Name)]
	if o == nil || o.table == nil {
		return nil, 0, false
	}
	i := o.table.Col(r.Parts[1].Name)
	return o, i, i >= 0
}

// firstOcc returns the first occurrence of a block (of its first branch
// for a compound): the occurrence a bijection pairs blocks by.
func (b *block) firstOcc() *occurrence {
	if len(b.branches) > 0 {
		return b.branches[0].firstOcc()
	}
	if len(b.occs) == 0 {
		return nil
	}
	return b.occs[0]
}

// owns reports whether o is one of the block's own FROM items (of a
// branch, for a compound).
func (b *block) owns(o *occurrence) bool {
	if o == nil {
		return false
	}
	for _, br := range b.branches {
		if br.owns(o) {
			return true
		}
	}
	return slices.Contains(b.occs, o)
}

// simple reports whether the block is one SELECT (no compound).
func (b *block) simple() bool { return len(b.branches) == 0 }

// scalarAggregate reports whether b is an aggregate without GROUP BY: it
// returns exactly one row.
func (b *block) scalarAggregate() bool {
	return b.simple() && b.aggregate && len(b.groupBy) == 0 && b.having == nil
}

// limitText prints the LIMIT (and OFFSET) of a block, "" for none.
func limitText(l *sqlast.Limit) string {
	if l == nil {
		return ""
	}
	s := "LIMIT " + sqlast.Format(l.Count)
	if l.Offset != nil {
		s += " OFFSET " + sqlast.Format(l.Offset)
	}
	return s
}

// itoa is strconv.Itoa.
func itoa(i int) string { return strconv.Itoa(i) }

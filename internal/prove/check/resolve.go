package check

import (
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// resultColumn canonicalizes an output column (its scope's aliases are
// not visible yet: SQLite resolves the result list before it adds them).
func (cz *canonicalizer) resultColumn(c *sqlast.ResultColumn, sc *scope) error {
	if st, ok := c.Expr.(*sqlast.Star); ok {
		if len(sc.occs) == 0 {
			return refuse("SELECT *", "* without a FROM clause")
		}
		if mergedScope(sc) {
			return refuse("SELECT *", "* over a NATURAL or USING join (SQLite leaves merged columns out)")
		}
		if st.Table != nil {
			o, err := lookupRef(sc, st.Table, cz.schema.Dialect())
			if err != nil {
				return err
			}
			if o == nil {
				return refuse("unresolved", "no table %s for %s.*", st.Table.Name, st.Table.Name)
			}
			st.Table = sqlast.Name(o.alias)
		}
		return nil
	}
	e, err := cz.expr(c.Expr, sc)
	if err != nil {
		return err
	}
	c.Expr = stripParens(e)
	return nil
}

// lookupRef finds the occurrence of scope sc (not its parents) that a
// query names id (its alias, or the table's name when it has none); two
// of them is SQLite's "ambiguous column name". On PostgreSQL (d), which
// compares names exactly after folding unquoted ones, a name that
// matches only without regard to case is refused (`"T".a` for a table
// or alias t: "missing FROM-clause entry").
func lookupRef(sc *scope, id *sqlast.Ident, d Dialect) (*occurrence, error) {
	var found *occurrence
	for _, o := range sc.occs {
		if o.ref != "" && equalFold(o.ref, id.Name) {
			if found != nil {
				return nil, refuse("unresolved", "two tables of one FROM are called %s", id.Name)
			}
			if d == Postgres && o.pgRef != pgFold(id) {
				return nil, refuse("name case", "%s names %s only without regard to case (PostgreSQL compares names exactly)", id.Raw, o.pgRef)
			}
			found = o
		}
	}
	return found, nil
}

// qualified returns the canonical reference to column i of o.
func qualified(o *occurrence, i int) *sqlast.QualifiedRef {
	return &sqlast.QualifiedRef{Parts: []*sqlast.Ident{sqlast.Name(o.alias), o.colIdent(i)}}
}

// rowidNames are the names SQLite gives a table's rowid when no column
// has them (https://sqlite.org/lang_createtable.html#rowid).
var rowidNames = map[string]bool{"rowid": true, "oid": true, "_rowid_": true}

// columnIn finds a bare column name among the FROM items of scope sc
// alone: the reference, nil when none has it, or a refusal when two
// have it (SQLite's "ambiguous column name") or when, on PostgreSQL, the
// name matches a column only without regard to case (PostgreSQL folds
// an unquoted name to lower case and compares names exactly).
func (cz *canonicalizer) columnIn(sc *scope, id *sqlast.Ident) (*sqlast.QualifiedRef, error) {
	var found *sqlast.QualifiedRef
	for _, o := range sc.occs {
		i := o.column(id.Name)
		if i >= 0 && found != nil && o.merged[lowerASCII(id.Name)] {
			continue // the right item of a USING join: the left column is the one (using.go)
		}
		if i == -2 || i >= 0 && found != nil {
			return nil, refuse("unresolved", "ambiguous column name %s", id.Name)
		}
		if i >= 0 {
			if err := cz.exactName(o, i, id); err != nil {
				return nil, err
			}
			found = qualified(o, i)
		}
	}
	return found, nil
}

// exactName refuses, on PostgreSQL, a name that matches column i of o
// (a base table's, or a derived table's as its query names it) only
// without regard to case.
func (cz *canonicalizer) exactName(o *occurrence, i int, id *sqlast.Ident) error {
	if cz.schema.Dialect() != Postgres {
		return nil
	}
	if o.table == nil {
		// A derived table's or WITH's column: its query's name for it,
		// as PostgreSQL reads it (expandStars keeps an alias folded).
		if i < len(o.names) && o.names[i] != "" && pgFold(id) != o.names[i] {
			return refuse("name case", "%s names column %s of %s only without regard to case (PostgreSQL compares names exactly)", id.Raw, o.names[i], o.ref)
		}
		return nil
	}
	if pgFold(id) != o.table.Columns[i].Name {
		return refuse("name case", "%s names column %s only without regard to case (PostgreSQL compares names exactly)", id.Raw, o.table.Columns[i].Name)
	}
	return nil
}

// pgFold is the name PostgreSQL reads: an unquoted name in lower case, a
// quoted one as written.
func pgFold(id *sqlast.Ident) string {
	if id.Quote == sqlast.QuoteNone {
		return strings.ToLower(id.Name)
	}
	return id.Name
}

// ident resolves a bare name as SQLite's lookupName does (resolve.c):
// scope by scope from the innermost, a column of the scope's FROM items,
// then (when the scope has reached the clauses that may name them) an
// output alias of the scope's SELECT; after every scope, a double-quoted
// name is the string it spells and TRUE and FALSE are 1 and 0. A rowid
// name (rowid, oid, _rowid_) that no column has is refused: the kernel
// does not model the rowid. On PostgreSQL no scope's aliases are visible
// in an expression, a name that resolves nowhere is an error, and TRUE
// and FALSE, written bare, are the boolean literals.
func (cz *canonicalizer) ident(id *sqlast.Ident, sc *scope) (sqlast.Expr, error) {
	if truthWord(cz.schema.Dialect(), id) != "" && cz.schema.Dialect() == Postgres {
		// PostgreSQL's TRUE and FALSE are reserved words, boolean
		// literals whatever columns exist (a column of the name is
		// only ever named quoted). They stay as they are: the encoding
		// reads them as a condition (encoder.cond, encoder.is) and
		// refuses them as a value.
		return id, nil
	}
	for s := sc; s != nil; s = s.parent {
		col, err := cz.columnIn(s, id)
		if err != nil {
			return nil, err
		}
		if col != nil {
			return col, nil
		}
		if rowidNames[lowerASCII(id.Name)] && len(s.occs) > 0 {
			return nil, refuse("rowid", "%s names a table's rowid, which the kernel does not model", id.Raw)
		}
		if s.aliases {
			e, err := aliasNamed(s.outputs, id)
			if err != nil || e != nil {
				return e, err
			}
		}
	}
	switch {
	case id.Quote == sqlast.QuoteDouble && cz.schema.Dialect() == SQLite:
		// SQLite: a double-quoted token that names no column is a string
		// (PostgreSQL: an error).
		return sqlast.StringLiteral(id.Name), nil
	case id.Quote == sqlast.QuoteNone && cz.schema.Dialect() == SQLite && (equalFold(id.Name, "true") || equalFold(id.Name, "false")):
		// SQLite reads TRUE and FALSE, when no column has the name, as 1
		// and 0.
		if equalFold(id.Name, "true") {
			return sqlast.NumberLiteral("1"), nil
		}
		return sqlast.NumberLiteral("0"), nil
	}
	return nil, refuse("unresolved", "no such column: %s", id.Name)
}

// aliasNamed returns a copy of the expression of the output column
// aliased as id names it (SQLite: case-insensitively), nil when none is.
// Two outputs of the name, or an alias of an expression holding a
// subquery (whose copy would repeat its table occurrences), are refused.
func aliasNamed(outputs []*sqlast.ResultColumn, id *sqlast.Ident) (sqlast.Expr, error) {
	var found sqlast.Expr
	for _, o := range outputs {
		if o.Alias == nil || !equalFold(o.Alias.Name, id.Name) {
			continue
		}
		if found != nil {
			return nil, refuse("unresolved", "two output columns are called %s", id.Name)
		}
		found = o.Expr
	}
	return aliasCopy(found, id)
}

// aliasCopy returns a copy of the expression an alias (named by id)
// stands for, nil for none; one that holds a subquery is refused (its
// copy would repeat the subquery's table occurrences).
func aliasCopy(found sqlast.Expr, id *sqlast.Ident) (sqlast.Expr, error) {
	if found == nil {
		return nil, nil
	}
	if holdsSubquery(found) {
		return nil, refuse("alias", "%s names an output column that holds a subquery", id.Name)
	}
	return cloneExpr(found), nil
}

// holds reports whether e has a node (itself included) for which is
// says true.
func holds(e sqlast.Expr, is func(sqlast.Node) bool) bool {
	found := false
	sqlast.Walk(e, func(n sqlast.Node) bool {
		found = found || is(n)
		return !found
	})
	return found
}

// holdsSubquery reports whether e holds a subquery.
func holdsSubquery(e sqlast.Expr) bool {
	return holds(e, func(n sqlast.Node) bool { _, ok := n.(*sqlast.SelectStmt); return ok })
}

// holdsCollate reports whether e holds a COLLATE.
func holdsCollate(e sqlast.Expr) bool {
	return holds(e, func(n sqlast.Node) bool { _, ok := n.(*sqlast.CollateExpr); return ok })
}

// qualifiedRef resolves q.c: the occurrence named q in the innermost
// scope that has one; a column it lacks is refused (SQLite would look
// further out), as is a rowid name.
func (cz *canonicalizer) qualifiedRef(r *sqlast.QualifiedRef, sc *scope) (sqlast.Expr, error) {
	if len(r.Parts) != 2 {
		return nil, refuse("schema-qualified column", "%s", sqlast.Format(r))
	}
	for s := sc; s != nil; s = s.parent {
		o, err := lookupRef(s, r.Parts[0], cz.schema.Dialect())
		if err != nil {
			return nil, err
		}
		if o == nil {
			continue
		}
		i := o.column(r.Parts[1].Name)
		switch {
		case i < 0 && rowidNames[lowerASCII(r.Parts[1].Name)]:
			return nil, refuse("rowid", "%s names a table's rowid, which the kernel does not model", sqlast.Format(r))
		case i < 0:
			return nil, refuse("unresolved", "no such column: %s", sqlast.Format(r))
		}
		if err := cz.exactName(o, i, r.Parts[1]); err != nil {
			return nil, err
		}
		return qualified(o, i), nil
	}
	return nil, refuse("unresolved", "no such table: %s", r.Parts[0].Name)
}

// expr canonicalizes an expression read in scope sc (whose aliases, and
// its parents', are visible as each scope says).
func (cz *canonicalizer) expr(e sqlast.Expr, sc *scope) (sqlast.Expr, error) {
	sub := func(x sqlast.Expr) (sqlast.Expr, error) {
		if x == nil {
			return nil, nil
		}
		return cz.expr(x, sc)
	}
	list := func(xs []sqlast.Expr) error {
		for i, x := range xs {
			y, err := sub(x)
			if err != nil {
				return err
			}
			xs[i] = y
		}
		return nil
	}
	var err error
	switch t := e.(type) {
	case *sqlast.Ident:
		return cz.ident(t, sc)
	case *sqlast.QualifiedRef:
		return cz.qualifiedRef(t, sc)
	case *sqlast.Literal:
		switch t.Kind {
		case sqlast.LitString:
			return sqlast.StringLiteral(t.Value), nil
		case sqlast.LitInteger, sqlast.LitFloat:
			if strings.HasPrefix(strings.ToLower(t.Raw), "0x") || strings.ContainsAny(t.Raw, "_") {
				return nil, refuse("literal", "%s", t.Raw)
			}
			return t, nil
		case sqlast.LitNull:
			return &sqlast.Literal{Kind: sqlast.LitNull, Value: "NULL", Raw: "NULL"}, nil
		case sqlast.LitBlob:
			return t, nil
		}
		return nil, refuse("current time", "%s: not the same on two runs", t.Raw)
	case *sqlast.BindParam:
		return nil, refuse("parameter", "%s", t.Raw)
	case *sqlast.ParenExpr:
		if t.X, err = sub(t.X); err != nil {
			return nil, err
		}
		if atomic(t.X) {
			return t.X, nil
		}
		return t, nil
	case *sqlast.UnaryExpr:
		t.X, err = sub(t.X)
		return t, err
	case *sqlast.BinaryExpr:
		if t.Op == sqlast.OpPtr || t.Op == sqlast.OpPtr2 {
			return nil, refuse("JSON operator", "")
		}
		if t.X, err = sub(t.X); err != nil {
			return nil, err
		}
		t.Y, err = sub(t.Y)
		return t, err
	case *sqlast.LikeExpr:
		op := strings.ToUpper(t.Op.Name)
		if op != "LIKE" && op != "GLOB" {
			return nil, refuse("REGEXP/MATCH", "%s", op)
		}
		t.Op = &sqlast.Ident{Name: op, Raw: op}
		if t.X, err = sub(t.X); err != nil {
			return nil, err
		}
		if t.Y, err = sub(t.Y); err != nil {
			return nil, err
		}
		t.Escape, err = sub(t.Escape)
		return t, err
	case *sqlast.IsExpr:
		if t.X, err = sub(t.X); err != nil {
			return nil, err
		}
		y, err := sub(t.Y)
		if err != nil {
			return nil, err
		}
		// x IS [NOT] TRUE / FALSE, the keyword naming no column, is
		// SQLite's truth test (resolve.c turns TK_IS into TK_TRUTH),
		// not x IS 1: 2 IS TRUE holds, 2 IS 1 does not. The keyword
		// stays, for the encoding's truthWord.
		if _, lit := y.(*sqlast.Literal); lit && truthWord(cz.schema.Dialect(), t.Y) != "" {
			y = t.Y
		}
		t.Y = y
		return t, nil
	case *sqlast.NullCheckExpr:
		t.X, err = sub(t.X)
		return t, err
	case *sqlast.BetweenExpr:
		if t.X, err = sub(t.X); err != nil {
			return nil, err
		}
		if t.Lo, err = sub(t.Lo); err != nil {
			return nil, err
		}
		t.Hi, err = sub(t.Hi)
		return t, err
	case *sqlast.InExpr:
		if t.Table != nil || t.HasArgs {
			return nil, refuse("IN table", "x IN table-name")
		}
		if t.X, err = sub(t.X); err != nil {
			return nil, err
		}
		if err := list(t.List); err != nil {
			return nil, err
		}
		if t.Select != nil {
			return t, cz.stmt(t.Select, sc, false)
		}
		return t, nil
	case *sqlast.CaseExpr:
		if t.Operand, err = sub(t.Operand); err != nil {
			return nil, err
		}
		for _, w := range t.Whens {
			if w.When, err = sub(w.When); err != nil {
				return nil, err
			}
			if w.Then, err = sub(w.Then); err != nil {
				return nil, err
			}
		}
		t.Else, err = sub(t.Else)
		return t, err
	case *sqlast.CastExpr:
		t.X, err = sub(t.X)
		return t, err
	case *sqlast.CollateExpr:
		if err := knownCollation(t, cz.schema.Dialect()); err != nil {
			return nil, err
		}
		t.Name = collationName(t, cz.schema.Dialect())
		t.X, err = sub(t.X)
		return t, err
	case *sqlast.FuncCall:
		return cz.call(t, sub, list)
	case *sqlast.ExistsExpr:
		return t, cz.stmt(t.Select, sc, false)
	case *sqlast.SubqueryExpr:
		return t, cz.stmt(t.Select, sc, false)
	}
	return nil, refuse("expression", "%T", e)
}

// call canonicalizes a function call: its name in lower case, its
// arguments; a function outside deterministicFuncs, a window, a FILTER or
// an ORDER BY inside the call are refused.
func (cz *canonicalizer) call(f *sqlast.FuncCall, sub func(sqlast.Expr) (sqlast.Expr, error), list func([]sqlast.Expr) error) (sqlast.Expr, error) {
	name := lowerASCII(f.Name.Name)
	switch {
	case f.Over != nil:
		return nil, refuse("window", "%s() OVER", name)
	case f.Filter != nil:
		return nil, refuse("FILTER", "%s() FILTER", name)
	case len(f.OrderBy) > 0:
		return nil, refuse("aggregate ORDER BY", "%s(... ORDER BY ...)", name)
	}
	arity, ok := deterministicFuncs[name]
	if !ok {
		return nil, refuse("function", "%s() is not among the functions the kernel reads", name)
	}
	if n := len(f.Args); !f.Star && (n < arity[0] || arity[1] >= 0 && n > arity[1]) || f.Star && name != "count" {
		return nil, refuse("function", "%s() with %d arguments", name, n)
	}
	if isAggregateCall(f) {
		for _, a := range f.Args {
			if containsAggregate(a) {
				return nil, refuse("aggregate", "%s() of an aggregate (the engines refuse the query)", name)
			}
		}
	}
	f.Name = sqlast.Name(name)
	f.All = false
	if err := list(f.Args); err != nil {
		return nil, err
	}
	// After the arguments are read: a double-quoted "now" is a string.
	if timeFuncs[name] {
		if len(f.Args) <= timeArg(name) {
			// No time value: date() and strftime('%f') read the clock.
			return nil, refuse("current time", "%s() without a time value: the current time", name)
		}
		for i, a := range f.Args {
			if l, ok := a.(*sqlast.Literal); ok && l.Kind == sqlast.LitString && strings.Contains(strings.ToLower(l.Value), "now") {
				return nil, refuse("current time", "%s('now')", name)
			}
			// The time value (strftime's second argument, the others'
			// first) is 'now' when an expression computes it so
			// ('no' || 'w'): only a literal or a column is read. A
			// column that holds 'now' is read as a value (stated in
			// docs/equiv.md).
			if i == timeArg(name) {
				switch stripParens(a).(type) {
				case *sqlast.Literal, *sqlast.Ident, *sqlast.QualifiedRef:
				default:
					return nil, refuse("current time", "%s() of a computed time value, which may be 'now'", name)
				}
			}
		}
	}
	return f, nil
}

// deterministicFuncs are the functions the kernel accepts, with their
// arity (min, max; -1 for any): SQLite's core and date functions whose
// result depends on their arguments only. Aggregates are among them.
var deterministicFuncs = map[string][2]int{
	"count": {0, 1}, "sum": {1, 1}, "avg": {1, 1}, "min": {1, -1}, "max": {1, -1}, "total": {1, 1},
	"group_concat": {1, 2},
	"abs":          {1, 1}, "coalesce": {2, -1}, "ifnull": {2, 2}, "iif": {3, 3}, "instr": {2, 2},
	"length": {1, 1}, "lower": {1, 1}, "upper": {1, 1}, "ltrim": {1, 2}, "rtrim": {1, 2}, "trim": {1, 2},
	"nullif": {2, 2}, "replace": {3, 3}, "round": {1, 2}, "substr": {2, 3}, "substring": {2, 3},
	"typeof": {1, 1}, "hex": {1, 1}, "quote": {1, 1}, "unicode": {1, 1}, "sign": {1, 1},
	"date": {0, -1}, "time": {0, -1}, "datetime": {0, -1}, "julianday": {0, -1}, "strftime": {1, -1},
}

// timeArg is the position of a time function's time value.
func timeArg(name string) int {
	if name == "strftime" {
		return 1
	}
	return 0
}

// timeFuncs read the clock when called without a time or with 'now'.
var timeFuncs = map[string]bool{"date": true, "time": true, "datetime": true, "julianday": true, "strftime": true}

// aggregateFuncs are the aggregate functions (with one argument for min
// and max: with more they are scalar).
func isAggregateCall(f *sqlast.FuncCall) bool {
	switch lowerASCII(f.Name.Name) {
	case "count", "sum", "avg", "total", "group_concat":
		return true
	case "min", "max":
		return len(f.Args) == 1
	}
	return false
}

// groups reports whether the SELECT sq groups its rows: a GROUP BY, a
// HAVING, or an aggregate in an output or an ORDER BY term.
func groups(sq *sqlast.SelectQuery) bool {
	if len(sq.GroupBy) > 0 || sq.Having != nil {
		return true
	}
	for _, c := range sq.Columns {
		if c.Expr != nil && containsAggregate(c.Expr) {
			return true
		}
	}
	for _, o := range sq.OrderBy {
		if containsAggregate(o.Expr) {
			return true
		}
	}
	return false
}

// aggregateTerms returns the expressions of sq that may hold its
// aggregates: its outputs, its HAVING (nil when it has none) and its
// ORDER BY terms, in that order.
func aggregateTerms(sq *sqlast.SelectQuery) []sqlast.Expr {
	var out []sqlast.Expr
	for _, c := range sq.Columns {
		out = append(out, c.Expr)
	}
	out = append(out, sq.Having)
	for _, o := range sq.OrderBy {
		out = append(out, o.Expr)
	}
	return out
}

// containsAggregate reports whether e holds an aggregate call outside
// any subquery.
func containsAggregate(e sqlast.Expr) bool {
	found := false
	walkExpr(e, func(x sqlast.Expr) bool {
		if f, ok := x.(*sqlast.FuncCall); ok && isAggregateCall(f) {
			found = true
		}
		return !found
	})
	return found
}

// walkExpr calls fn for e and its sub-expressions, not entering
// subqueries; fn returns false to skip a node's children.
func walkExpr(e sqlast.Expr, fn func(sqlast.Expr) bool) {
	if e == nil || !fn(e) {
		return
	}
	switch t := e.(type) {
	case *sqlast.ParenExpr:
		walkExpr(t.X, fn)
	case *sqlast.UnaryExpr:
		walkExpr(t.X, fn)
	case *sqlast.BinaryExpr:
		walkExpr(t.X, fn)
		walkExpr(t.Y, fn)
	case *sqlast.LikeExpr:
		walkExpr(t.X, fn)
		walkExpr(t.Y, fn)
		walkExpr(t.Escape, fn)
	case *sqlast.IsExpr:
		walkExpr(t.X, fn)
		walkExpr(t.Y, fn)
	case *sqlast.NullCheckExpr:
		walkExpr(t.X, fn)
	case *sqlast.BetweenExpr:
		walkExpr(t.X, fn)
		walkExpr(t.Lo, fn)
		walkExpr(t.Hi, fn)
	case *sqlast.InExpr:
		walkExpr(t.X, fn)
		for _, x := range t.List {
			walkExpr(x, fn)
		}
	case *sqlast.CaseExpr:
		walkExpr(t.Operand, fn)
		for _, w := range t.Whens {
			walkExpr(w.When, fn)
			walkExpr(w.Then, fn)
		}
		walkExpr(t.Else, fn)
	case *sqlast.CastExpr:
		walkExpr(t.X, fn)
	case *sqlast.CollateExpr:
		walkExpr(t.X, fn)
	case *sqlast.FuncCall:
		for _, x := range t.Args {
			walkExpr(x, fn)
		}
	case *sqlast.VectorExpr:
		for _, x := range t.List {
			walkExpr(x, fn)
		}
	}
}

// atomic reports whether e prints as one token or a bracketed whole, so
// that parentheses around it change nothing.
func atomic(e sqlast.Expr) bool {
	switch e.(type) {
	case *sqlast.Ident, *sqlast.QualifiedRef, *sqlast.Literal, *sqlast.FuncCall, *sqlast.SubqueryExpr, *sqlast.ExistsExpr, *sqlast.ParenExpr, *sqlast.CastExpr, *sqlast.CaseExpr:
		return true
	}
	return false
}

// stripParens removes the parentheses around a whole clause expression.
func stripParens(e sqlast.Expr) sqlast.Expr {
	for {
		p, ok := e.(*sqlast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// cloneExpr copies an expression (printed and parsed again).
func cloneExpr(e sqlast.Expr) sqlast.Expr {
	q, err := sqlast.Parse("SELECT " + sqlast.Format(e))
	if err != nil {
		panic("kernel: an expression does not print back: " + err.Error())
	}
	return q.Select().Cores[0].(*sqlast.SelectQuery).Columns[0].Expr
}

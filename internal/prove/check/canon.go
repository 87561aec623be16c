package check

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// Refusal is a query, or a pair, outside what the kernel models: a
// construct it does not read (WITH, NATURAL JOIN, a window function...),
// a name that does not resolve, a non-deterministic function. It is no
// error of the tool: the pair is then simply not proved, and Construct
// names what stopped the proof (for tallies).
type Refusal struct {
	Construct string
	Detail    string
}

// Error prints the construct and the detail.
func (r *Refusal) Error() string {
	if r.Detail == "" {
		return r.Construct
	}
	return r.Construct + ": " + r.Detail
}

func refuse(construct, format string, args ...any) *Refusal {
	return &Refusal{Construct: construct, Detail: fmt.Sprintf(format, args...)}
}

// joinKind is how a FROM item attaches to the ones before it.
type joinKind uint8

const (
	joinInner joinKind = iota // the first item, a comma, [INNER|CROSS] JOIN
	joinLeft                  // LEFT [OUTER] JOIN
)

// occurrence is a table (or a subquery) in a FROM clause, resolved.
type occurrence struct {
	alias   string              // the alias the canonical form gives it
	table   *Table              // the base table; nil for a derived table
	derived *sqlast.SelectStmt  // FROM (subquery)
	cols    []string            // a derived table's column names (c1, c2, ...)
	names   []string            // the names its query gave them ("" for none)
	join    joinKind            // how it attaches
	core    *sqlast.SelectQuery // the SELECT whose FROM holds it
	ref     string              // the name the query used for it (lower case)
	// pgRef: on PostgreSQL, that name as PostgreSQL reads it (pgFold).
	pgRef string
	// exact: names are case-sensitive (PostgreSQL): the canonical form
	// keeps the table's and its columns' names as declared (schemaName).
	exact bool
	// merged: the names (lower case) a NATURAL or USING join merges
	// into a column of an item to its left (using.go); nil for none.
	// synthOn: its ON clause was written from them, already canonical.
	merged  map[string]bool
	synthOn bool
}

// schemaName is the identifier the canonical form prints for a table's
// or a column's declared name: in lower case where names are compared
// without regard to case (SQLite), else (exact, PostgreSQL) as declared,
// double-quoted when it is not in lower case, since PostgreSQL folds an
// unquoted name to lower case ("Val" is not val there).
func schemaName(name string, exact bool) *sqlast.Ident {
	if !exact {
		return sqlast.Name(lowerASCII(name))
	}
	if id := sqlast.Name(name); id.Quote == sqlast.QuoteDouble || name == lowerASCII(name) {
		return id
	}
	return &sqlast.Ident{Name: name, Raw: `"` + strings.ReplaceAll(name, `"`, `""`) + `"`, Quote: sqlast.QuoteDouble}
}

// colName returns the canonical name of column i of the occurrence.
func (o *occurrence) colName(i int) string {
	if o.table != nil {
		return schemaName(o.table.Columns[i].Name, o.exact).Name
	}
	return o.cols[i]
}

// width is the number of columns of the occurrence.
func (o *occurrence) width() int {
	if o.table != nil {
		return len(o.table.Columns)
	}
	return len(o.cols)
}

// queryName is the name a query reads column i of the occurrence by:
// the table's column, or the name the FROM subquery's query gave it (""
// for none).
func (o *occurrence) queryName(i int) string {
	if o.table != nil {
		return o.colName(i)
	}
	return o.names[i]
}

// colIdent is the identifier of column i of the occurrence in the
// canonical form (colName, quoted when PostgreSQL needs it).
func (o *occurrence) colIdent(i int) *sqlast.Ident {
	if o.table != nil {
		return schemaName(o.table.Columns[i].Name, o.exact)
	}
	return sqlast.Name(o.cols[i])
}

// column finds a column by name: its index, or -1.
func (o *occurrence) column(name string) int {
	if o.table != nil {
		return o.table.Col(name)
	}
	found := -1
	for i, c := range o.names {
		if c != "" && equalFold(c, name) {
			if found >= 0 {
				return -2 // ambiguous
			}
			found = i
		}
	}
	return found
}

// scope is the FROM clause of one SELECT during resolution, with the
// scopes of the queries it is nested in.
type scope struct {
	parent *scope
	occs   []*occurrence
	core   *sqlast.SelectQuery
	// outputs are the SELECT's output columns, resolved; aliases says
	// whether a name read now may name one of them (SQLite: once the
	// result list is resolved, in ON, WHERE, GROUP BY, HAVING and ORDER
	// BY, and in the subqueries there; PostgreSQL: never in an
	// expression).
	outputs []*sqlast.ResultColumn
	aliases bool
}

// Canon is a query in the kernel's canonical form: every table of every
// FROM has an alias made of a prefix and a counter (a1, a2, ... in the
// order the canonicalizer reads them: a SELECT's FROM items, then the
// subqueries of its result list, ON clauses, WHERE, GROUP BY, HAVING and
// ORDER BY), every column is qualified by its table's alias and spelled
// as the schema declares it (in lower case), names and function names are
// in lower case, a double-quoted token that names nothing is the string
// it spells (SQLite's rule), output aliases are gone (a reference to one
// is replaced by the expression it names, and ORDER BY or GROUP BY by
// position by the expression at that position), and ASC is implicit. Two queries whose canonical forms print the same are the
// same query up to renaming: the engine runs them alike.
type Canon struct {
	Stmt *sqlast.SelectStmt
	// d is the dialect whose rules the names were resolved by.
	d Dialect
	// s is the schema the names were resolved in.
	s Schema
	// Occs are the occurrences in the order their aliases number them.
	Occs []*occurrence
	// byAlias finds an occurrence by its canonical alias.
	byAlias map[string]*occurrence
	// outer maps each SELECT to its scope (for correlated references).
	scopes map[*sqlast.SelectQuery]*scope
}

// SQL prints the canonical form.
func (c *Canon) SQL() string { return sqlast.Format(c.Stmt) }

// Canonicalize parses sql (one SELECT) and returns its canonical form
// over schema s, with table aliases prefix1, prefix2, ... The error is a
// *Refusal for a query outside the kernel's reading (or one that does not
// resolve: the engine would refuse it too), or a parse error.
func Canonicalize(sql string, s Schema, prefix string) (*Canon, error) {
	return canonicalizeText(sql, s, prefix, false)
}

// canonicalizeForCover is Canonicalize for ConditionCover alone: it also
// reads a NATURAL or USING join on PostgreSQL, as on SQLite (the merged
// column taken as the left one, not cast to the common type): a goal
// needs no more, and nothing is proved from it.
func canonicalizeForCover(sql string, s Schema) (*Canon, error) {
	return canonicalizeText(sql, s, "t", true)
}

// canonicalizeText parses sql (one SELECT) and canonicalizes it.
func canonicalizeText(sql string, s Schema, prefix string, cover bool) (*Canon, error) {
	q, err := sqlast.Parse(sql)
	if err != nil {
		return nil, refuse("parse", "%v", err)
	}
	st := q.Select()
	if st == nil {
		return nil, refuse("not a SELECT", "%s", firstWord(sql))
	}
	return canonicalizeStmt(st, s, prefix, cover)
}

// Rename is the kernel's renaming step alone: the canonical form of sql
// over s (aliases prefix1, prefix2, ...), every name resolved as
// Canonicalize resolves it, printed. A check that does not trust the
// kernel's reading of SQL (the engine's own name resolution, say) can
// compare what the engine reads of sql and of this text. The error is a
// *Refusal or a parse error.
func Rename(sql string, s Schema, prefix string) (string, error) {
	c, err := Canonicalize(sql, s, prefix)
	if err != nil {
		return "", err
	}
	return c.SQL(), nil
}

func canonicalizeStmt(st *sqlast.SelectStmt, s Schema, prefix string, cover bool) (*Canon, error) {
	cz := &canonicalizer{schema: s, prefix: prefix, cover: cover, c: &Canon{Stmt: st, d: s.Dialect(), s: s, byAlias: map[string]*occurrence{}, scopes: map[*sqlast.SelectQuery]*scope{}}}
	if err := cz.stmt(st, nil, false); err != nil {
		return nil, err
	}
	// Print and parse again: the canonical form is the text, and every
	// later reader (the compiler, a rule) works on the tree of that text.
	text := sqlast.Format(st)
	q, err := sqlast.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("kernel: the canonical form does not parse (%v): %s", err, text)
	}
	return relink(q.Select(), cz.c)
}

// relink maps the occurrences of c onto the re-parsed tree st (same
// shape, same order of FROM items).
func relink(st *sqlast.SelectStmt, c *Canon) (*Canon, error) {
	out := &Canon{Stmt: st, d: c.d, s: c.s, byAlias: map[string]*occurrence{}, scopes: map[*sqlast.SelectQuery]*scope{}}
	var cores []*sqlast.SelectQuery
	var derived []*sqlast.SelectStmt
	sqlast.Walk(st, func(n sqlast.Node) bool {
		switch t := n.(type) {
		case *sqlast.SelectQuery:
			cores = append(cores, t)
		case *sqlast.TableRef:
			if t.Select != nil {
				derived = append(derived, t.Select)
			}
		}
		return true
	})
	// The scopes and FROM subqueries, in the order the walk meets them in
	// both trees (not the order the occurrences were made in: a FROM
	// subquery inside a subquery of the SELECT list is met before those
	// of the FROM).
	var oldCores []*sqlast.SelectQuery
	derivedMap := map[*sqlast.SelectStmt]*sqlast.SelectStmt{}
	sqlast.Walk(c.Stmt, func(n sqlast.Node) bool {
		switch t := n.(type) {
		case *sqlast.SelectQuery:
			oldCores = append(oldCores, t)
		case *sqlast.TableRef:
			if t.Select != nil && len(derivedMap) < len(derived) {
				derivedMap[t.Select] = derived[len(derivedMap)]
			}
		}
		return true
	})
	if len(oldCores) != len(cores) || len(derivedMap) != len(derived) {
		return nil, fmt.Errorf("kernel: the canonical form changed shape when parsed again")
	}
	coreMap := map[*sqlast.SelectQuery]*sqlast.SelectQuery{}
	for i, oc := range oldCores {
		coreMap[oc] = cores[i]
	}
	scopeMap := map[*scope]*scope{}
	var mapScope func(sc *scope) *scope
	mapScope = func(sc *scope) *scope {
		if sc == nil {
			return nil
		}
		if m, ok := scopeMap[sc]; ok {
			return m
		}
		m := &scope{core: coreMap[sc.core]}
		scopeMap[sc] = m
		m.parent = mapScope(sc.parent)
		return m
	}
	for _, o := range c.Occs {
		n := *o
		n.core = coreMap[o.core]
		if o.derived != nil {
			if n.derived = derivedMap[o.derived]; n.derived == nil {
				return nil, fmt.Errorf("kernel: FROM subquery %s not found in the canonical form", o.alias)
			}
		}
		out.Occs = append(out.Occs, &n)
		out.byAlias[n.alias] = &n
	}
	for oc, sc := range c.scopes {
		m := mapScope(sc)
		for _, o := range sc.occs {
			m.occs = append(m.occs, out.byAlias[o.alias])
		}
		out.scopes[coreMap[oc]] = m
	}
	return out, nil
}

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return "(empty)"
	}
	return strings.ToUpper(f[0])
}

type canonicalizer struct {
	schema Schema
	prefix string
	c      *Canon
	// origNames are the output names of each derived table's first
	// SELECT, before they become c1, c2, ...
	origNames map[*sqlast.SelectQuery][]string
	// cover: the reading is for ConditionCover's goals only
	// (canonicalizeForCover).
	cover bool
}

// stmt canonicalizes a SELECT statement in place. derived: it is a FROM
// subquery, whose output columns are named c1, c2, ...
func (cz *canonicalizer) stmt(st *sqlast.SelectStmt, parent *scope, derived bool) error {
	if st.With != nil {
		return refuse("WITH", "a common table expression")
	}
	var first []*sqlast.ResultColumn
	for i, core := range st.Cores {
		sq, ok := core.(*sqlast.SelectQuery)
		if !ok {
			return refuse("VALUES", "a VALUES clause")
		}
		compound := len(st.Cores) > 1
		if compound && i < len(st.Cores)-1 && (len(sq.OrderBy) > 0 || sq.Limit != nil) {
			return refuse("compound", "ORDER BY or LIMIT before the last SELECT of a compound")
		}
		var orderBy []*sqlast.OrderingTerm
		var limit *sqlast.Limit
		if compound && i == len(st.Cores)-1 {
			// The compound's own ORDER BY and LIMIT: about its output.
			orderBy, limit = sq.OrderBy, sq.Limit
			sq.OrderBy, sq.Limit = nil, nil
		}
		if err := cz.core(sq, parent, derived, !compound); err != nil {
			return err
		}
		if i == 0 {
			first = sq.Columns
		}
		if compound && i == len(st.Cores)-1 {
			if err := cz.compoundOrder(orderBy, first, len(sq.Columns)); err != nil {
				return err
			}
			if limit != nil {
				if err := cz.limit(limit); err != nil {
					return err
				}
			}
			sq.OrderBy, sq.Limit = orderBy, limit
		}
	}
	if len(st.Cores) > 1 {
		n := len(st.Cores[0].(*sqlast.SelectQuery).Columns)
		for _, core := range st.Cores[1:] {
			if len(core.(*sqlast.SelectQuery).Columns) != n {
				return refuse("compound", "SELECTs of a compound with different numbers of columns")
			}
		}
	}
	return nil
}

// compoundOrder rewrites the ORDER BY of a compound: each term must name
// an output column by position, by alias or by the name of a plain column
// of the first SELECT (SQLite's rule); it becomes the position.
func (cz *canonicalizer) compoundOrder(terms []*sqlast.OrderingTerm, first []*sqlast.ResultColumn, n int) error {
	for _, t := range terms {
		k := -1
		switch e := stripParens(t.Expr).(type) {
		case *sqlast.Literal:
			if e.Kind == sqlast.LitInteger {
				if v, err := strconv.Atoi(e.Value); err == nil && v >= 1 && v <= n {
					k = v
				}
			}
		case *sqlast.Ident:
			k = outputByName(first, e.Name)
		}
		if k < 1 {
			return refuse("compound", "an ORDER BY term of a compound that names no output column")
		}
		t.Expr = sqlast.NumberLiteral(strconv.Itoa(k))
		if t.Order == sqlast.SortAsc {
			t.Order = sqlast.SortDefault
		}
		if t.Nulls != 0 {
			return refuse("NULLS FIRST/LAST", "")
		}
	}
	return nil
}

// outputByName returns the 1-based position of the output column of cols
// aliased name, or else the only plain column reference named name; 0
// when none.
func outputByName(cols []*sqlast.ResultColumn, name string) int {
	for i, c := range cols {
		if c.Alias != nil && equalFold(c.Alias.Name, name) {
			return i + 1
		}
	}
	found := 0
	for i, c := range cols {
		if r, ok := c.Expr.(*sqlast.QualifiedRef); ok && equalFold(r.Parts[len(r.Parts)-1].Name, name) {
			if found != 0 {
				return 0
			}
			found = i + 1
		}
	}
	return found
}

// core canonicalizes one SELECT. own: its ORDER BY and LIMIT are its own
// (not a compound's). The clauses are read in SQLite's order
// (resolveSelectStep): the FROM items (a subquery there sees the outer
// scopes only), the result list, then, with the output aliases visible,
// the ON clauses (SQLite reads them as part of WHERE), WHERE, GROUP BY,
// HAVING and ORDER BY.
func (cz *canonicalizer) core(sq *sqlast.SelectQuery, parent *scope, derived, own bool) error {
	sc := &scope{parent: parent, core: sq}
	cz.c.scopes[sq] = sc
	if len(sq.Windows) > 0 {
		return refuse("window", "a WINDOW clause")
	}
	if sq.Distinct == sqlast.DistinctAll {
		sq.Distinct = sqlast.DistinctNone
	}
	for _, t := range sq.From {
		if err := cz.fromItem(t, sc); err != nil {
			return err
		}
	}
	outputs := make([]*sqlast.ResultColumn, len(sq.Columns))
	for i, c := range sq.Columns {
		if err := cz.resultColumn(c, sc); err != nil {
			return err
		}
		outputs[i] = c
	}
	sc.outputs, sc.aliases = outputs, cz.schema.Dialect() == SQLite
	if err := cz.clauses(sq, sc, own); err != nil {
		return err
	}
	if derived {
		if cz.origNames == nil {
			cz.origNames = map[*sqlast.SelectQuery][]string{}
		}
		var names []string
		sq.Columns, names = expandStars(sq.Columns, sc)
		cz.origNames[sq] = names
	}
	for i, c := range sq.Columns {
		if derived {
			c.Alias, c.HasAs = sqlast.Name("c"+strconv.Itoa(i+1)), true
		} else {
			c.Alias, c.HasAs = nil, false
		}
	}
	return nil
}

// clauses canonicalizes the ON clauses, WHERE, GROUP BY, HAVING and (own)
// ORDER BY and LIMIT of a SELECT whose FROM and result list are read.
func (cz *canonicalizer) clauses(sq *sqlast.SelectQuery, sc *scope, own bool) error {
	var err error
	for k, t := range sq.From {
		if t.On == nil || sc.occs[k].synthOn {
			continue
		}
		if t.On, err = cz.expr(t.On, sc); err != nil {
			return err
		}
		t.On = stripParens(t.On)
		if err := onReadsLeft(t.On, sc, k); err != nil {
			return err
		}
		if containsAggregate(t.On) {
			return refuse("aggregate", "an aggregate in an ON (the engines refuse the query)")
		}
	}
	if sq.Where != nil {
		if sq.Where, err = cz.expr(sq.Where, sc); err != nil {
			return err
		}
		sq.Where = stripParens(sq.Where)
		if containsAggregate(sq.Where) {
			return refuse("aggregate", "an aggregate in a WHERE (the engines refuse the query)")
		}
	}
	for i, g := range sq.GroupBy {
		if sq.GroupBy[i], err = cz.groupTerm(g, sc); err != nil {
			return err
		}
		if containsAggregate(sq.GroupBy[i]) {
			return refuse("aggregate", "an aggregate in a GROUP BY (the engines refuse the query)")
		}
	}
	if sq.Having != nil {
		if sq.Having, err = cz.expr(sq.Having, sc); err != nil {
			return err
		}
		sq.Having = stripParens(sq.Having)
	}
	if !own {
		return nil
	}
	for _, o := range sq.OrderBy {
		if o.Nulls != 0 {
			return refuse("NULLS FIRST/LAST", "")
		}
		if o.Order == sqlast.SortAsc {
			o.Order = sqlast.SortDefault
		}
		if o.Expr, err = cz.orderTerm(o.Expr, sc); err != nil {
			return err
		}
	}
	if sq.Limit != nil {
		return cz.limit(sq.Limit)
	}
	return nil
}

// onReadsLeft refuses an ON clause of FROM item k that reads a later
// item of its FROM (SQLite: "ON clause references tables to its right").
func onReadsLeft(on sqlast.Expr, sc *scope, k int) error {
	var err error
	sqlast.Walk(on, func(n sqlast.Node) bool {
		if r, ok := n.(*sqlast.QualifiedRef); ok && len(r.Parts) == 2 {
			for j := k + 1; j < len(sc.occs); j++ {
				if equalFold(r.Parts[0].Name, sc.occs[j].alias) {
					err = refuse("ON", "an ON clause reads a table to its right")
				}
			}
		}
		return err == nil
	})
	return err
}

// limit checks that LIMIT and OFFSET are integer literals.
func (cz *canonicalizer) limit(l *sqlast.Limit) error {
	for _, e := range []sqlast.Expr{l.Count, l.Offset} {
		if e == nil {
			continue
		}
		if lit, ok := e.(*sqlast.Literal); !ok || lit.Kind != sqlast.LitInteger {
			return refuse("LIMIT", "a LIMIT or OFFSET that is no integer literal")
		}
	}
	if l.Comma {
		l.Comma = false // LIMIT x, y is LIMIT y OFFSET x: the same node
	}
	return nil
}

// orderTerm resolves an ORDER BY term as SQLite's resolveOrderGroupBy
// does: a bare name (through parentheses and COLLATE) that is an output
// alias is that output column (its COLLATE kept); an integer k is the
// k-th output column; anything else is an expression, whose names are
// input columns first. On PostgreSQL a bare name is an output column's
// name before an input column's (an output's implicit name, such as a
// function's, is refused), and an expression reads input columns only.
func (cz *canonicalizer) orderTerm(e sqlast.Expr, sc *scope) (sqlast.Expr, error) {
	base, coll, err := skipCollate(e)
	if err != nil {
		return nil, err
	}
	if coll != nil {
		if err := knownCollation(coll, cz.schema.Dialect()); err != nil {
			return nil, err
		}
	}
	if id, ok := base.(*sqlast.Ident); ok {
		x, err := cz.outputNamed(sc, id)
		if err != nil {
			return nil, err
		}
		if x != nil {
			return withCollate(x, coll, cz.schema.Dialect()), nil
		}
	}
	return cz.positionalOr(e, sc)
}

// groupTerm resolves a GROUP BY term: an integer k is the k-th output
// column; anything else an expression (SQLite: a name is an input column
// of the scope, then its output alias, then an outer column). On
// PostgreSQL a bare name that no input column of the scope has may name
// an output column.
func (cz *canonicalizer) groupTerm(e sqlast.Expr, sc *scope) (sqlast.Expr, error) {
	if id, ok := stripParens(e).(*sqlast.Ident); ok && cz.schema.Dialect() == Postgres {
		col, err := cz.columnIn(sc, id)
		if err != nil {
			return nil, err
		}
		if col != nil {
			return col, nil
		}
		x, err := cz.outputNamed(sc, id)
		if err != nil || x != nil {
			return x, err
		}
	}
	return cz.positionalOr(e, sc)
}

// outputNamed returns the output column a bare ORDER BY (or, on
// PostgreSQL, GROUP BY) name names: an alias (SQLite's resolveAsName; on
// PostgreSQL the name folded), nil when none. On PostgreSQL a name that
// is the implicit name of an output that is no plain column (count,
// max, ...) is refused, and so is an alias matched only without regard
// to case.
func (cz *canonicalizer) outputNamed(sc *scope, id *sqlast.Ident) (sqlast.Expr, error) {
	if cz.schema.Dialect() == SQLite {
		return aliasNamed(sc.outputs, id)
	}
	var found sqlast.Expr
	for _, o := range sc.outputs {
		switch {
		case o.Alias != nil && pgFold(o.Alias) == pgFold(id):
			if found != nil {
				return nil, refuse("unresolved", "two output columns are called %s", id.Name)
			}
			found = o.Expr
		case o.Alias != nil && equalFold(o.Alias.Name, id.Name):
			return nil, refuse("name case", "%s names output %s only without regard to case", id.Raw, o.Alias.Raw)
		case o.Alias == nil && implicitName(o.Expr) != "" && equalFold(implicitName(o.Expr), id.Name):
			return nil, refuse("unresolved", "%s is the implicit name of an output column on PostgreSQL", id.Name)
		}
	}
	return aliasCopy(found, id)
}

// implicitName is the name PostgreSQL gives an output column that is
// neither aliased nor a plain column (FigureColname): a function's name,
// "case", a cast's argument's; "" for a plain column or none.
func implicitName(e sqlast.Expr) string {
	switch t := e.(type) {
	case *sqlast.ParenExpr:
		return implicitName(t.X)
	case *sqlast.FuncCall:
		return lowerASCII(t.Name.Name)
	case *sqlast.CaseExpr:
		return "case"
	case *sqlast.CastExpr:
		if n := implicitName(t.X); n != "" {
			return n
		}
		if r, ok := t.X.(*sqlast.QualifiedRef); ok {
			return r.Parts[len(r.Parts)-1].Name
		}
		return "?"
	}
	return ""
}

// skipCollate returns e without its parentheses and COLLATE layers, and
// its COLLATE (nil when none; two are refused).
func skipCollate(e sqlast.Expr) (sqlast.Expr, *sqlast.CollateExpr, error) {
	var coll *sqlast.CollateExpr
	for {
		switch t := e.(type) {
		case *sqlast.ParenExpr:
			e = t.X
		case *sqlast.CollateExpr:
			if coll != nil {
				return nil, nil, refuse("COLLATE", "two COLLATE clauses on one term")
			}
			coll, e = t, t.X
		default:
			return e, coll, nil
		}
	}
}

// knownCollation refuses a COLLATE whose collation the dialect d may
// not have. The engines fail on an unknown one on every database, empty
// ones included, so the kernel proved `WHERE a COLLATE nosuch = 'x' AND
// 1 = 0` equal to `WHERE 1 = 0`, which SQLite runs while it fails the
// first ("no such collation sequence"). SQLite has BINARY, NOCASE and
// RTRIM, named without regard to case (sqlite3FindCollSeq; another must
// be registered by the application, which sqljudge does not do);
// PostgreSQL has "C", "POSIX" and "default" in every database, whatever
// its encoding (pg_collation as initdb fills it; ucs_basic exists for
// UTF8 only, the operating system's locales vary by server: both are
// refused), their names folded as identifiers are (`COLLATE C` is "c",
// which does not exist).
func knownCollation(c *sqlast.CollateExpr, d Dialect) error {
	if d == Postgres {
		switch pgFold(c.Name) {
		case "C", "POSIX", "default":
			return nil
		}
		return refuse("COLLATE", "collation %s is not one every PostgreSQL database has (\"C\", \"POSIX\", \"default\")", c.Name.Raw)
	}
	switch lowerASCII(c.Name.Name) {
	case "binary", "nocase", "rtrim":
		return nil
	}
	return refuse("COLLATE", "collation %s is none of SQLite's (BINARY, NOCASE, RTRIM)", c.Name.Raw)
}

// collationName is the canonical name of c's collation on dialect d:
// lower case on SQLite, whose names ignore case; the folded name,
// double-quoted, on PostgreSQL, where "C" and c are two names.
func collationName(c *sqlast.CollateExpr, d Dialect) *sqlast.Ident {
	if d == Postgres {
		n := pgFold(c.Name)
		return &sqlast.Ident{Name: n, Raw: `"` + strings.ReplaceAll(n, `"`, `""`) + `"`, Quote: sqlast.QuoteDouble}
	}
	return sqlast.Name(lowerASCII(c.Name.Name))
}

// withCollate puts x under the collation of coll (nil: x as it is) on
// dialect d.
func withCollate(x sqlast.Expr, coll *sqlast.CollateExpr, d Dialect) sqlast.Expr {
	if coll == nil {
		return x
	}
	if !atomic(x) {
		x = &sqlast.ParenExpr{X: x}
	}
	return &sqlast.CollateExpr{X: x, Name: collationName(coll, d)}
}

// positionalOr resolves an ORDER BY or GROUP BY term that names no output
// by name: an integer literal k is the k-th output column (SQLite's rule);
// a signed integer, or an integer under COLLATE (both positions on
// SQLite), is refused; anything else is an expression.
func (cz *canonicalizer) positionalOr(e sqlast.Expr, sc *scope) (sqlast.Expr, error) {
	base, coll, err := skipCollate(e)
	if err != nil {
		return nil, err
	}
	if u, ok := base.(*sqlast.UnaryExpr); ok && (u.Op == sqlast.OpPlus || u.Op == sqlast.OpMinus) {
		if l, ok := stripParens(u.X).(*sqlast.Literal); ok && l.Kind == sqlast.LitInteger {
			return nil, refuse("positional", "ORDER BY or GROUP BY a signed integer")
		}
	}
	if lit, ok := base.(*sqlast.Literal); ok && lit.Kind == sqlast.LitInteger {
		if coll != nil {
			return nil, refuse("positional", "a position under COLLATE")
		}
		k, err := strconv.Atoi(lit.Value)
		if err != nil || k < 1 || k > len(sc.outputs) {
			return nil, refuse("positional", "GROUP BY or ORDER BY %s: no such output column", lit.Raw)
		}
		if _, star := sc.outputs[k-1].Expr.(*sqlast.Star); star {
			return nil, refuse("positional", "a position that names a *")
		}
		if holdsSubquery(sc.outputs[k-1].Expr) {
			return nil, refuse("positional", "a position that names an output holding a subquery")
		}
		if readsAsPosition(sc.outputs[k-1].Expr) {
			return nil, refuse("positional", "a position that names an integer output")
		}
		return cloneExpr(sc.outputs[k-1].Expr), nil
	}
	out, err := cz.expr(e, sc)
	if err != nil {
		return nil, err
	}
	return stripParens(out), nil
}

// readsAsPosition reports whether e, put in a GROUP BY or ORDER BY, would
// be read as a position again: an integer literal, signed or not, under
// parentheses or COLLATE. A position that names such an output (`SELECT
// a, 1 FROM t GROUP BY 2`, a group by the constant 1) cannot be replaced
// by that output: the canonical form `GROUP BY 1` groups by a instead.
func readsAsPosition(e sqlast.Expr) bool {
	for {
		switch t := e.(type) {
		case *sqlast.ParenExpr:
			e = t.X
		case *sqlast.CollateExpr:
			e = t.X
		case *sqlast.UnaryExpr:
			if t.Op != sqlast.OpPlus && t.Op != sqlast.OpMinus {
				return false
			}
			e = t.X
		case *sqlast.Literal:
			return t.Kind == sqlast.LitInteger
		default:
			return false
		}
	}
}

// fromItem registers a FROM item in sc and canonicalizes it.
func (cz *canonicalizer) fromItem(t *sqlast.TableRef, sc *scope) error {
	kind := joinInner
	natural := t.Join != nil && t.Join.Type&sqlast.JoinNatural != 0
	merging := natural || len(t.Using) > 0
	if t.Join != nil {
		jt := t.Join.Type
		switch {
		case jt&sqlast.JoinRight != 0:
			return refuse("RIGHT/FULL JOIN", "")
		case jt&sqlast.JoinLeft != 0:
			kind = joinLeft
		}
		if merging {
			if err := cz.mergeable(t, sc); err != nil {
				return err
			}
		}
		// The operator prints from its words: make them canonical.
		// CROSS JOIN stays apart: SQLite's planner keeps its order.
		switch {
		case kind == joinLeft:
			t.Join.Type, t.Join.Words = sqlast.JoinLeft|sqlast.JoinOuter, []string{"LEFT", "JOIN"}
		case merging:
			t.Join.Type, t.Join.Words = sqlast.JoinInner, []string{"JOIN"}
		case jt&sqlast.JoinCross != 0:
			t.Join.Type, t.Join.Words = sqlast.JoinInner|sqlast.JoinCross, []string{"CROSS", "JOIN"}
		case t.On == nil:
			t.Join.Type, t.Join.Words = sqlast.JoinInner|sqlast.JoinComma, nil
		default:
			t.Join.Type, t.Join.Words = sqlast.JoinInner, []string{"JOIN"}
		}
	}
	switch {
	case t.Join == nil && len(t.Using) > 0:
		return refuse("USING", "USING on the first FROM item")
	case t.IndexedBy != nil || t.NotIndexed:
		return refuse("INDEXED BY", "")
	case len(t.List) > 0:
		return refuse("parenthesised join", "")
	case t.HasArgs:
		return refuse("table-valued function", "")
	}
	o := &occurrence{join: kind, core: sc.core, exact: cz.schema.Dialect() == Postgres}
	cz.c.Occs = append(cz.c.Occs, o)
	o.alias = cz.prefix + strconv.Itoa(len(cz.c.Occs))
	cz.c.byAlias[o.alias] = o
	if t.Alias != nil {
		o.ref, o.pgRef = lowerASCII(t.Alias.Name), pgFold(t.Alias)
	}
	switch {
	case t.Name != nil:
		if t.Name.Schema != nil {
			return refuse("schema-qualified table", "%s", sqlast.Format(t.Name))
		}
		o.table = cz.schema.Table(t.Name.Name.Name)
		if o.table == nil {
			return refuse("unknown table", "no table %s in the schema", t.Name.Name.Name)
		}
		if cz.schema.Dialect() == Postgres && pgFold(t.Name.Name) != o.table.Name {
			return refuse("name case", "%s names table %s only without regard to case (PostgreSQL compares names exactly)", t.Name.Name.Raw, o.table.Name)
		}
		if o.ref == "" {
			o.ref, o.pgRef = lowerASCII(t.Name.Name.Name), pgFold(t.Name.Name)
		}
		t.Name.Name = schemaName(o.table.Name, o.exact)
	case t.Select != nil:
		if t.Alias == nil {
			if cz.schema.Dialect() == Postgres {
				return refuse("alias", "a subquery in FROM without an alias (PostgreSQL before 16 refuses the query)")
			}
			o.ref = ""
		}
		if err := cz.stmt(t.Select, sc.parent, true); err != nil {
			return err
		}
		core := t.Select.Cores[0].(*sqlast.SelectQuery)
		for i := range core.Columns {
			o.cols = append(o.cols, "c"+strconv.Itoa(i+1))
		}
		o.derived = t.Select
		o.names = cz.origNames[core]
	default:
		return refuse("FROM item", "%s", sqlast.Format(t))
	}
	if cz.schema.Dialect() == Postgres {
		// PostgreSQL refuses two FROM items of one SELECT that are
		// called alike ("table name specified more than once"), on
		// every database; SQLite runs the query.
		for _, p := range sc.occs {
			if p.pgRef == o.pgRef {
				return refuse("alias", "two FROM items called %s in one SELECT (PostgreSQL refuses the query)", o.pgRef)
			}
		}
	}
	t.Alias, t.HasAs = sqlast.Name(o.alias), true
	sc.occs = append(sc.occs, o)
	if merging {
		return cz.mergeJoin(t, o, natural, sc)
	}
	return nil
}

// occurrenceOf is the occurrence of scope sc or of a scope around it
// whose canonical alias qualifies r, nil for none.
func occurrenceOf(sc *scope, r *sqlast.QualifiedRef) *occurrence {
	if len(r.Parts) != 2 {
		return nil
	}
	for s := sc; s != nil; s = s.parent {
		for _, o := range s.occs {
			if equalFold(o.alias, r.Parts[0].Name) {
				return o
			}
		}
	}
	return nil
}

// expandStars returns the output columns of a derived table's SELECT with
// every * spelled out (the columns of its FROM items, in order: what
// SQLite expands it to) and the names the outer query may use for them
// (an alias, or a plain column's name; "" for none).
func expandStars(cols []*sqlast.ResultColumn, sc *scope) ([]*sqlast.ResultColumn, []string) {
	var out []*sqlast.ResultColumn
	var names []string
	for _, c := range cols {
		st, ok := c.Expr.(*sqlast.Star)
		if !ok {
			name := ""
			if c.Alias != nil {
				// As PostgreSQL reads it (SQLite compares names
				// without regard to case).
				name = pgFold(c.Alias)
			} else if r, ok := c.Expr.(*sqlast.QualifiedRef); ok {
				name = r.Parts[len(r.Parts)-1].Name
				// A column of a derived table is named as its query
				// named it (c1, c2, ... are the canonical form's).
				if o := occurrenceOf(sc, r); o != nil && o.table == nil {
					name = ""
					for i, cn := range o.cols {
						if equalFold(cn, r.Parts[1].Name) {
							name = o.names[i]
						}
					}
				}
			}
			out, names = append(out, c), append(names, name)
			continue
		}
		for _, o := range sc.occs {
			if st.Table != nil && !equalFold(st.Table.Name, o.alias) {
				continue
			}
			for i := range o.width() {
				out, names = append(out, &sqlast.ResultColumn{Expr: qualified(o, i)}), append(names, o.queryName(i))
			}
		}
	}
	return out, names
}

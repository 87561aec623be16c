package sqlast

// Rewrite replaces expressions in the tree under n, bottom-up: each
// expression's sub-expressions are rewritten first, then fn is called on
// it and its result takes its place (return the argument to keep it). It
// reaches every expression of SELECT statements: result columns, FROM
// items (ON, subqueries, table-valued arguments), WHERE, GROUP BY, HAVING,
// ORDER BY, LIMIT, VALUES rows, CTEs, and the insides of every expression
// node, subqueries included. Other statements' expressions are left as
// they are. fn must not return nil.
func Rewrite(n Node, fn func(Expr) Expr) {
	r := rewriter{fn}
	r.node(n)
}

type rewriter struct{ fn func(Expr) Expr }

func (r rewriter) expr(e Expr) Expr {
	if e == nil {
		return nil
	}
	switch t := e.(type) {
	case *BinaryExpr:
		t.X, t.Y = r.expr(t.X), r.expr(t.Y)
	case *UnaryExpr:
		t.X = r.expr(t.X)
	case *ParenExpr:
		t.X = r.expr(t.X)
	case *LikeExpr:
		t.X, t.Y, t.Escape = r.expr(t.X), r.expr(t.Y), r.expr(t.Escape)
	case *IsExpr:
		t.X, t.Y = r.expr(t.X), r.expr(t.Y)
	case *NullCheckExpr:
		t.X = r.expr(t.X)
	case *BetweenExpr:
		t.X, t.Lo, t.Hi = r.expr(t.X), r.expr(t.Lo), r.expr(t.Hi)
	case *InExpr:
		t.X = r.expr(t.X)
		r.exprs(t.List)
		r.exprs(t.Args)
		r.node(t.Select)
	case *CaseExpr:
		t.Operand = r.expr(t.Operand)
		for _, w := range t.Whens {
			w.When, w.Then = r.expr(w.When), r.expr(w.Then)
		}
		t.Else = r.expr(t.Else)
	case *CastExpr:
		t.X = r.expr(t.X)
	case *CollateExpr:
		t.X = r.expr(t.X)
	case *FuncCall:
		r.exprs(t.Args)
		r.ordering(t.OrderBy)
		t.Filter = r.expr(t.Filter)
		r.window(t.Over)
	case *ExistsExpr:
		r.node(t.Select)
	case *SubqueryExpr:
		r.node(t.Select)
	case *VectorExpr:
		r.exprs(t.List)
	}
	return r.fn(e)
}

func (r rewriter) exprs(list []Expr) {
	for i := range list {
		list[i] = r.expr(list[i])
	}
}

func (r rewriter) ordering(list []*OrderingTerm) {
	for _, o := range list {
		o.Expr = r.expr(o.Expr)
	}
}

func (r rewriter) window(w *WindowDef) {
	if w == nil {
		return
	}
	r.exprs(w.Partition)
	r.ordering(w.OrderBy)
	if w.StartBound != nil {
		w.StartBound.Expr = r.expr(w.StartBound.Expr)
	}
	if w.EndBound != nil {
		w.EndBound.Expr = r.expr(w.EndBound.Expr)
	}
}

func (r rewriter) tableRefs(list []*TableRef) {
	for _, t := range list {
		r.exprs(t.Args)
		r.node(t.Select)
		r.tableRefs(t.List)
		t.On = r.expr(t.On)
	}
}

// node rewrites the expressions under a non-expression node.
func (r rewriter) node(n Node) {
	switch t := n.(type) {
	case nil:
	case *SelectStmt:
		if t == nil {
			return
		}
		if t.With != nil {
			for _, c := range t.With.CTEs {
				r.node(c.Select)
			}
		}
		for _, c := range t.Cores {
			r.node(c)
		}
	case *SelectQuery:
		for _, c := range t.Columns {
			c.Expr = r.expr(c.Expr)
		}
		r.tableRefs(t.From)
		t.Where = r.expr(t.Where)
		r.exprs(t.GroupBy)
		t.Having = r.expr(t.Having)
		for _, w := range t.Windows {
			r.window(w)
		}
		r.ordering(t.OrderBy)
		if t.Limit != nil {
			t.Limit.Count, t.Limit.Offset = r.expr(t.Limit.Count), r.expr(t.Limit.Offset)
		}
	case *ValuesClause:
		for _, row := range t.Rows {
			r.exprs(row)
		}
	case *TableRef:
		r.tableRefs([]*TableRef{t})
	case Expr:
		r.expr(t)
	}
}

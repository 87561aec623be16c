// Package sqlast parses SQLite-dialect SQL into a syntax tree that can be
// walked, rewritten and printed back as SQL that SQLite runs. It wraps
// github.com/sqlc-dev/meyer (a hand-written parser of SQLite's grammar,
// src/parse.y) behind a small API so that the parser can be replaced: the
// node types are meyer's, re-exported here under aliases, and every entry
// point callers use (Parse, Query, Walk, Rewrite, the readers and the
// mutators) is this package's own.
//
// The tree keeps explicit parentheses (ParenExpr) and the raw spelling of
// identifiers and literals (their quote style), so printing a parsed query
// gives SQL that SQLite reads as the same query.
package sqlast

import (
	"fmt"
	"strings"

	"github.com/sqlc-dev/meyer/ast"
	"github.com/sqlc-dev/meyer/parser"
)

// Node types of the syntax tree (meyer's, re-exported). Each names the
// rule of SQLite's grammar it comes from; see the meyer/ast documentation.
type (
	Node          = ast.Node
	Expr          = ast.Expr
	Stmt          = ast.Stmt
	SelectStmt    = ast.SelectStmt
	SelectCore    = ast.SelectCore
	SelectQuery   = ast.SelectQuery
	ValuesClause  = ast.ValuesClause
	ResultColumn  = ast.ResultColumn
	TableRef      = ast.TableRef
	JoinOperator  = ast.JoinOperator
	OrderingTerm  = ast.OrderingTerm
	Limit         = ast.Limit
	With          = ast.With
	CTE           = ast.CTE
	CompoundOp    = ast.CompoundOp
	Ident         = ast.Ident
	QualifiedName = ast.QualifiedName
	QualifiedRef  = ast.QualifiedRef
	Star          = ast.Star
	Literal       = ast.Literal
	BindParam     = ast.BindParam
	BinaryExpr    = ast.BinaryExpr
	UnaryExpr     = ast.UnaryExpr
	ParenExpr     = ast.ParenExpr
	LikeExpr      = ast.LikeExpr
	IsExpr        = ast.IsExpr
	NullCheckExpr = ast.NullCheckExpr
	BetweenExpr   = ast.BetweenExpr
	InExpr        = ast.InExpr
	CaseExpr      = ast.CaseExpr
	CaseWhen      = ast.CaseWhen
	CastExpr      = ast.CastExpr
	CollateExpr   = ast.CollateExpr
	FuncCall      = ast.FuncCall
	ExistsExpr    = ast.ExistsExpr
	SubqueryExpr  = ast.SubqueryExpr
	VectorExpr    = ast.VectorExpr
	WindowDef     = ast.WindowDef
	Operator      = ast.Operator
	LiteralKind   = ast.LiteralKind
	SortOrder     = ast.SortOrder
	Distinct      = ast.Distinct
	JoinType      = ast.JoinType
	NullTest      = ast.NullTest
	QuoteStyle    = ast.QuoteStyle
)

// Operators, literal kinds, sort orders, DISTINCT states, join types,
// null tests and identifier quote styles (meyer's).
const (
	OpOr     = ast.OpOr
	OpAnd    = ast.OpAnd
	OpEq     = ast.OpEq
	OpNe     = ast.OpNe
	OpLt     = ast.OpLt
	OpLe     = ast.OpLe
	OpGt     = ast.OpGt
	OpGe     = ast.OpGe
	OpAdd    = ast.OpAdd
	OpSub    = ast.OpSub
	OpMul    = ast.OpMul
	OpDiv    = ast.OpDiv
	OpMod    = ast.OpMod
	OpConcat = ast.OpConcat
	OpNot    = ast.OpNot
	OpMinus  = ast.OpMinus
	OpPlus   = ast.OpPlus
	OpPtr    = ast.OpPtr  // ->
	OpPtr2   = ast.OpPtr2 // ->>
	OpBitAnd = ast.OpBitAnd
	OpBitOr  = ast.OpBitOr
	OpLShift = ast.OpLShift
	OpRShift = ast.OpRShift
	OpBitNot = ast.OpBitNot

	LitNull    = ast.LitNull
	LitInteger = ast.LitInteger
	LitFloat   = ast.LitFloat
	LitString  = ast.LitString
	LitBlob    = ast.LitBlob

	SortDefault = ast.SortDefault
	SortAsc     = ast.SortAsc
	SortDesc    = ast.SortDesc

	DistinctNone     = ast.DistinctNone
	DistinctDistinct = ast.DistinctDistinct
	DistinctAll      = ast.DistinctAll

	JoinInner   = ast.JoinInner
	JoinCross   = ast.JoinCross
	JoinNatural = ast.JoinNatural
	JoinLeft    = ast.JoinLeft
	JoinRight   = ast.JoinRight
	JoinOuter   = ast.JoinOuter
	JoinComma   = ast.JoinComma

	TestIsNull       = ast.TestIsNull
	TestNotNull      = ast.TestNotNull
	TestNotNullWords = ast.TestNotNullWords

	QuoteNone   = ast.QuoteNone
	QuoteDouble = ast.QuoteDouble
)

// Error is a query the parser rejects: SQLite's own message ("near
// \"FROM\": syntax error") and where, as a byte offset (-1 when it is about
// the whole input) and a 1-based line and column.
type Error struct {
	Msg       string
	Offset    int
	Line, Col int
}

// Error renders "line:col: message" (or the message alone).
func (e *Error) Error() string {
	if e.Offset < 0 {
		return e.Msg
	}
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
}

// Query is one parsed statement.
type Query struct {
	// Stmt is the statement's tree. It may be changed in place (see
	// Rewrite); String prints its current state.
	Stmt Stmt
}

// Parse parses exactly one SQL statement (a trailing ";", whitespace and
// comments are allowed). It returns an *Error for text SQLite's grammar
// rejects, for an empty input and for more than one statement; it never
// panics.
func Parse(sql string) (q *Query, err error) {
	defer func() {
		if r := recover(); r != nil { // a parser bug must not take the caller down
			q, err = nil, &Error{Msg: fmt.Sprintf("parser failure: %v", r), Offset: -1}
		}
	}()
	stmts, err := parser.ParseString(sql)
	if err != nil {
		if pe, ok := err.(*parser.Error); ok {
			e := &Error{Msg: pe.Message, Offset: pe.Offset}
			if pe.Offset >= 0 {
				e.Line, e.Col = parser.LineCol(sql, pe.Offset)
			}
			return nil, e
		}
		return nil, &Error{Msg: err.Error(), Offset: -1}
	}
	switch len(stmts) {
	case 0:
		return nil, &Error{Msg: "no statement", Offset: -1}
	case 1:
		return &Query{Stmt: stmts[0]}, nil
	}
	return nil, &Error{Msg: fmt.Sprintf("%d statements; expected one", len(stmts)), Offset: stmts[1].Pos()}
}

// MustParse is Parse for SQL known to be valid (tests, constants); it
// panics on an error.
func MustParse(sql string) *Query {
	q, err := Parse(sql)
	if err != nil {
		panic(err)
	}
	return q
}

// String prints the statement as SQLite SQL, without a trailing ";".
// Whitespace and comments are not kept; identifiers and literals keep
// their spelling.
func (q *Query) String() string {
	if q == nil || q.Stmt == nil {
		return ""
	}
	return strings.Trim(ast.String(q.Stmt), asciiSpace)
}

// Clone returns an independent copy of q (printed and parsed again: the
// printer's output always parses back to the same tree).
func (q *Query) Clone() *Query {
	c, err := Parse(q.String())
	if err != nil {
		// The printer and parser disagree: a bug, not bad input.
		panic(fmt.Sprintf("sqlast: printed query does not parse back: %v", err))
	}
	return c
}

// Select returns the statement as a SELECT, or nil if it is another
// kind of statement.
func (q *Query) Select() *SelectStmt {
	if q == nil {
		return nil
	}
	s, _ := q.Stmt.(*SelectStmt)
	return s
}

// Walk calls fn for n and, unless fn returns false, for each of its
// descendants, in source order. Nil nodes are skipped.
func Walk(n Node, fn func(Node) bool) { ast.Walk(n, fn) }

// Format prints any node (a statement, an expression, a FROM item) as SQL.
func Format(n Node) string { return strings.Trim(ast.String(n), asciiSpace) }

// asciiSpace is what printing trims: SQLite reads any other character
// at or above U+0080 (a no-break space, say) as part of a name.
const asciiSpace = " \t\n\r\f\v"

package spider

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrUnparsed is wrapped by every error of ParseOfficial: the official
// parser would raise on the query (an assertion, a KeyError for an unknown
// table, alias or column, an IndexError past the last token, ...), so the
// official evaluator scores the prediction as an empty query.
var ErrUnparsed = errors.New("the official Spider parser rejects the query")

// ParseError says why and where process_sql would fail on a query.
type ParseError struct {
	// Token is the index of the token the failure is about, -1 for the
	// tokenizer's quote check.
	Token int
	// Msg names the Python exception the official code would raise and its
	// cause ("KeyError: 't3'", "AssertionError: Error col: name", ...).
	Msg string
}

// Error renders the failure.
func (e *ParseError) Error() string {
	if e.Token < 0 {
		return e.Msg
	}
	return fmt.Sprintf("token %d: %s", e.Token, e.Msg)
}

// Unwrap returns ErrUnparsed.
func (e *ParseError) Unwrap() error { return ErrUnparsed }

// The keyword sets of process_sql.
var (
	clauseKeywords = []string{"select", "from", "where", "group", "order", "limit", "intersect", "union", "except"}
	joinKeywords   = []string{"join", "on", "as"}
	condOps        = []string{"and", "or"}
	sqlOps         = []string{"intersect", "union", "except"}
	orderOps       = []string{"desc", "asc"}
)

func in(tok string, set []string) bool { return slices.Contains(set, tok) }

// official is one run of the official parser over a token list.
type official struct {
	s     *Schema
	alias map[string]string // get_tables_with_alias
}

// bail stops the parse with a ParseError; ParseOfficial recovers it. It
// plays the part of the Python exceptions that the official evaluator
// catches around get_sql.
type bail struct{ err *ParseError }

func fail(tok int, format string, args ...any) {
	panic(bail{&ParseError{Token: tok, Msg: fmt.Sprintf(format, args...)}})
}

// at is Python's toks[i]: negative indexes count from the end, anything
// out of range raises IndexError.
func at(toks []string, i int) string {
	j := i
	if j < 0 {
		j += len(toks)
	}
	if j < 0 || j >= len(toks) {
		fail(i, "IndexError: list index out of range")
	}
	return toks[j]
}

// ParseOfficial builds the structure of q as process_sql.get_sql does on
// schema s, failing (with an error wrapping ErrUnparsed) exactly where the
// official parser raises. Text after a complete query is ignored, as the
// official parser ignores it.
func ParseOfficial(s *Schema, q string) (sql *SQL, err error) {
	if s == nil {
		return nil, fmt.Errorf("spider: no schema")
	}
	toks, err := Tokenize(q)
	if err != nil {
		return nil, &ParseError{Token: -1, Msg: "AssertionError: " + err.Error()}
	}
	return parseTokens(s, toks)
}

func parseTokens(s *Schema, toks []string) (sql *SQL, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bail)
			if !ok {
				panic(r)
			}
			sql, err = nil, b.err
		}
	}()
	p := &official{s: s, alias: scanAlias(toks)}
	// get_tables_with_alias: an alias equal to a table name is an error,
	// then every table name maps to itself.
	for _, t := range s.tables {
		if _, dup := p.alias[t]; dup {
			fail(-1, "AssertionError: Alias %s has the same name in table", t)
		}
		p.alias[t] = t
	}
	_, sql = p.parseSQL(toks, 0)
	return sql, nil
}

// scanAlias is process_sql.scan_alias: every "as" maps the token after it
// to the token before it, whatever they are.
func scanAlias(toks []string) map[string]string {
	alias := map[string]string{}
	for i, t := range toks {
		if t == "as" {
			alias[at(toks, i+1)] = at(toks, i-1)
		}
	}
	return alias
}

// parseCol is process_sql.parse_col.
func (p *official) parseCol(toks []string, i int, defaults []string) (int, string) {
	tok := at(toks, i)
	if tok == "*" {
		return i + 1, p.s.idMap["*"]
	}
	if strings.Contains(tok, ".") {
		parts := strings.Split(tok, ".")
		if len(parts) != 2 {
			fail(i, "ValueError: %q does not split into alias.column", tok)
		}
		t, ok := p.alias[parts[0]]
		if !ok {
			fail(i, "KeyError: %q", parts[0])
		}
		id, ok := p.s.idMap[t+"."+parts[1]]
		if !ok {
			fail(i, "KeyError: %q", t+"."+parts[1])
		}
		return i + 1, id
	}
	if len(defaults) == 0 {
		fail(i, "AssertionError: Default tables should not be None or empty")
	}
	for _, a := range defaults {
		t, ok := p.alias[a]
		if !ok {
			fail(i, "KeyError: %q", a)
		}
		cols, ok := p.s.columns[t]
		if !ok {
			fail(i, "KeyError: %q", t)
		}
		if slices.Contains(cols, tok) {
			return i + 1, p.s.idMap[t+"."+tok]
		}
	}
	fail(i, "AssertionError: Error col: %s", tok)
	return 0, ""
}

// parseColUnit is process_sql.parse_col_unit. An aggregate inside a
// parenthesised block returns before the block's ")" is consumed, as the
// official code does.
func (p *official) parseColUnit(toks []string, start int, defaults []string) (int, ColUnit) {
	i := start
	n := len(toks)
	block, distinct := false, false
	if at(toks, i) == "(" {
		block = true
		i++
	}
	if a := slices.Index(aggOps, at(toks, i)); a >= 0 {
		i++
		if !(i < n && toks[i] == "(") {
			fail(i, "AssertionError: expected ( after %s", aggOps[a])
		}
		i++
		if at(toks, i) == "distinct" {
			i++
			distinct = true
		}
		var col string
		i, col = p.parseCol(toks, i, defaults)
		if !(i < n && toks[i] == ")") {
			fail(i, "AssertionError: expected ) after aggregate")
		}
		i++
		return i, ColUnit{Agg: Agg(a), Col: col, Distinct: flagOf(distinct)}
	}
	if at(toks, i) == "distinct" {
		i++
		distinct = true
	}
	var col string
	i, col = p.parseCol(toks, i, defaults)
	if block {
		if at(toks, i) != ")" {
			fail(i, "AssertionError: expected )")
		}
		i++
	}
	return i, ColUnit{Agg: AggNone, Col: col, Distinct: flagOf(distinct)}
}

// parseValUnit is process_sql.parse_val_unit.
func (p *official) parseValUnit(toks []string, start int, defaults []string) (int, ValUnit) {
	i := start
	n := len(toks)
	block := false
	if at(toks, i) == "(" {
		block = true
		i++
	}
	var v ValUnit
	i, v.Col1 = p.parseColUnit(toks, i, defaults)
	if i < n {
		if op := slices.Index(unitOps, toks[i]); op >= 0 {
			v.Op = UnitOp(op)
			i++
			var c2 ColUnit
			i, c2 = p.parseColUnit(toks, i, defaults)
			v.Col2 = &c2
		}
	}
	if block {
		if at(toks, i) != ")" {
			fail(i, "AssertionError: expected )")
		}
		i++
	}
	return i, v
}

// parseTableUnit is process_sql.parse_table_unit: the token must be a
// table name or an alias made with AS.
func (p *official) parseTableUnit(toks []string, start int) (int, string, string) {
	i := start
	key, ok := p.alias[at(toks, i)]
	if !ok {
		fail(i, "KeyError: %q", toks[i])
	}
	if i+1 < len(toks) && toks[i+1] == "as" {
		i += 3
	} else {
		i++
	}
	id, ok := p.s.idMap[key]
	if !ok {
		fail(start, "KeyError: %q", key)
	}
	return i, id, key
}

// parseValue is process_sql.parse_value: a subquery, a quoted string, a
// number, or else a column read from the tokens up to the next ",", ")",
// "and", clause or join keyword (the column is parsed from the value's
// first token, a "(" included).
func (p *official) parseValue(toks []string, start int, defaults []string) (int, Value) {
	i := start
	n := len(toks)
	block := false
	if at(toks, i) == "(" {
		block = true
		i++
	}
	var v Value
	tok := at(toks, i)
	switch f, isNum := pyFloat(tok); {
	case tok == "select":
		var sub *SQL
		i, sub = p.parseSQL(toks, i)
		v = Value{Kind: ValSQL, SQL: sub}
	case strings.Contains(tok, `"`):
		v = Value{Kind: ValString, Str: tok}
		i++
	case isNum:
		v = Value{Kind: ValNumber, Num: f}
		i++
	default:
		end := i
		for end < n && toks[end] != "," && toks[end] != ")" && toks[end] != "and" && !in(toks[end], clauseKeywords) && !in(toks[end], joinKeywords) {
			end++
		}
		_, cu := p.parseColUnit(toks[start:end], 0, defaults)
		v = Value{Kind: ValCol, Col: cu}
		i = end
	}
	if block {
		if at(toks, i) != ")" {
			fail(i, "AssertionError: expected )")
		}
		i++
	}
	return i, v
}

// parseCondition is process_sql.parse_condition.
func (p *official) parseCondition(toks []string, start int, defaults []string) (int, Condition) {
	i := start
	n := len(toks)
	var conds Condition
	for i < n {
		var c CondUnit
		i, c.Val = p.parseValUnit(toks, i, defaults)
		if at(toks, i) == "not" {
			c.Not = true
			i++
		}
		op := -1
		if i < n {
			op = slices.Index(whereOps, toks[i])
		}
		if op < 0 {
			fail(i, "AssertionError: Error condition")
		}
		c.Op = WhereOp(op)
		i++
		if c.Op == OpBetween {
			i, c.Val1 = p.parseValue(toks, i, defaults)
			if at(toks, i) != "and" {
				fail(i, "AssertionError: expected and in between")
			}
			i++
			i, c.Val2 = p.parseValue(toks, i, defaults)
		} else {
			i, c.Val1 = p.parseValue(toks, i, defaults)
		}
		conds = append(conds, CondItem{Unit: &c})
		if i < n && (in(toks[i], clauseKeywords) || toks[i] == ")" || toks[i] == ";" || in(toks[i], joinKeywords)) {
			break
		}
		if i < n && in(toks[i], condOps) {
			conds = append(conds, CondItem{Conj: toks[i]})
			i++
		}
	}
	return i, conds
}

// parseSelect is process_sql.parse_select.
func (p *official) parseSelect(toks []string, start int, defaults []string) (int, Select) {
	i := start
	n := len(toks)
	if at(toks, i) != "select" {
		fail(i, "AssertionError: 'select' not found")
	}
	i++
	var sel Select
	if i < n && toks[i] == "distinct" {
		i++
		sel.Distinct = True
	}
	for i < n && !in(toks[i], clauseKeywords) {
		it := SelectItem{}
		if a := slices.Index(aggOps, toks[i]); a >= 0 {
			it.Agg = Agg(a)
			i++
		}
		i, it.Val = p.parseValUnit(toks, i, defaults)
		sel.Items = append(sel.Items, it)
		if i < n && toks[i] == "," {
			i++
		}
	}
	return i, sel
}

// parseFrom is process_sql.parse_from: from the first "from" at or after
// start, table units joined by JOIN (a comma or a join word other than
// JOIN is read as a table name), with their ON conditions joined by "and".
func (p *official) parseFrom(toks []string, start int) (int, From, []string) {
	n := len(toks)
	j := -1
	if start >= 0 && start <= n {
		j = slices.Index(toks[start:], "from")
	}
	if j < 0 {
		fail(start, "AssertionError: 'from' not found")
	}
	i := start + j + 1
	var from From
	var defaults []string
	for i < n {
		block := false
		if at(toks, i) == "(" {
			block = true
			i++
		}
		if at(toks, i) == "select" {
			var sub *SQL
			i, sub = p.parseSQL(toks, i)
			from.TableUnits = append(from.TableUnits, TableUnit{SQL: sub})
		} else {
			if i < n && toks[i] == "join" {
				i++
			}
			var id, name string
			i, id, name = p.parseTableUnit(toks, i)
			from.TableUnits = append(from.TableUnits, TableUnit{Table: id})
			defaults = append(defaults, name)
		}
		if i < n && toks[i] == "on" {
			i++
			var conds Condition
			i, conds = p.parseCondition(toks, i, defaults)
			if len(from.Conds) > 0 {
				from.Conds = append(from.Conds, CondItem{Conj: "and"})
			}
			from.Conds = append(from.Conds, conds...)
		}
		if block {
			if at(toks, i) != ")" {
				fail(i, "AssertionError: expected )")
			}
			i++
		}
		if i < n && (in(toks[i], clauseKeywords) || toks[i] == ")" || toks[i] == ";") {
			break
		}
	}
	return i, from, defaults
}

// parseWhere is process_sql.parse_where.
func (p *official) parseWhere(toks []string, i int, defaults []string) (int, Condition) {
	if i >= len(toks) || toks[i] != "where" {
		return i, nil
	}
	return p.parseCondition(toks, i+1, defaults)
}

// parseGroupBy is process_sql.parse_group_by.
func (p *official) parseGroupBy(toks []string, i int, defaults []string) (int, []ColUnit) {
	n := len(toks)
	if i >= n || toks[i] != "group" {
		return i, nil
	}
	i++
	if at(toks, i) != "by" {
		fail(i, "AssertionError: expected by after group")
	}
	i++
	var cols []ColUnit
	for i < n && !(in(toks[i], clauseKeywords) || toks[i] == ")" || toks[i] == ";") {
		var c ColUnit
		i, c = p.parseColUnit(toks, i, defaults)
		cols = append(cols, c)
		if i < n && toks[i] == "," {
			i++
		} else {
			break
		}
	}
	return i, cols
}

// parseOrderBy is process_sql.parse_order_by: one direction for the
// clause, the last one written, "asc" if none.
func (p *official) parseOrderBy(toks []string, i int, defaults []string) (int, *OrderBy) {
	n := len(toks)
	if i >= n || toks[i] != "order" {
		return i, nil
	}
	i++
	if at(toks, i) != "by" {
		fail(i, "AssertionError: expected by after order")
	}
	i++
	ob := &OrderBy{Dir: "asc"}
	for i < n && !(in(toks[i], clauseKeywords) || toks[i] == ")" || toks[i] == ";") {
		var v ValUnit
		i, v = p.parseValUnit(toks, i, defaults)
		ob.Items = append(ob.Items, v)
		if i < n && in(toks[i], orderOps) {
			ob.Dir = toks[i]
			i++
		}
		if i < n && toks[i] == "," {
			i++
		} else {
			break
		}
	}
	return i, ob
}

// parseHaving is process_sql.parse_having.
func (p *official) parseHaving(toks []string, i int, defaults []string) (int, Condition) {
	if i >= len(toks) || toks[i] != "having" {
		return i, nil
	}
	return p.parseCondition(toks, i+1, defaults)
}

// parseLimit is process_sql.parse_limit: "limit" and the token after it,
// whatever it is, recorded as limit 1 (the official check for an int
// token never succeeds on a string token).
func (p *official) parseLimit(toks []string, i int) (int, bool) {
	if i < len(toks) && toks[i] == "limit" {
		i += 2
		at(toks, i-1)
		return i, true
	}
	return i, false
}

func skipSemicolons(toks []string, i int) int {
	for i < len(toks) && toks[i] == ";" {
		i++
	}
	return i
}

// parseSQL is process_sql.parse_sql: the FROM clause first (for the
// default tables), then SELECT from the start, then the clauses after
// FROM, then at most one INTERSECT/UNION/EXCEPT whose right side is parsed
// recursively.
func (p *official) parseSQL(toks []string, start int) (int, *SQL) {
	i := start
	n := len(toks)
	block := false
	if at(toks, i) == "(" {
		block = true
		i++
	}
	sql := &SQL{}
	fromEnd, from, defaults := p.parseFrom(toks, start)
	sql.From = from
	_, sql.Select = p.parseSelect(toks, i, defaults)
	i = fromEnd
	i, sql.Where = p.parseWhere(toks, i, defaults)
	i, sql.GroupBy = p.parseGroupBy(toks, i, defaults)
	i, sql.Having = p.parseHaving(toks, i, defaults)
	i, sql.OrderBy = p.parseOrderBy(toks, i, defaults)
	i, sql.HasLimit = p.parseLimit(toks, i)
	i = skipSemicolons(toks, i)
	if block {
		if at(toks, i) != ")" {
			fail(i, "AssertionError: expected )")
		}
		i++
	}
	i = skipSemicolons(toks, i)
	if i < n && in(toks[i], sqlOps) {
		op := toks[i]
		i++
		var sub *SQL
		i, sub = p.parseSQL(toks, i)
		switch op {
		case "intersect":
			sql.Intersect = sub
		case "union":
			sql.Union = sub
		case "except":
			sql.Except = sub
		}
	}
	return i, sql
}

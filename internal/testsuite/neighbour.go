package testsuite

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/sqlast"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// Neighbour is a near-miss mutation of a gold query.
type Neighbour struct {
	// SQL is the mutated query.
	SQL string `json:"sql"`
	// Kind names the mutation ("drop span", "aggregate", "comparison", ...).
	Kind string `json:"kind"`
}

// token is a lexical token with multi-character operators merged.
type token struct {
	kind sqllex.Kind
	text string
}

func tokens(q string) []token {
	var out []token
	for _, t := range sqllex.Tokenize(q) {
		if t.Kind == sqllex.Punct && len(out) > 0 && out[len(out)-1].kind == sqllex.Punct {
			if op := out[len(out)-1].text + t.Text; op == ">=" || op == "<=" || op == "!=" || op == "<>" || op == "==" || op == "||" {
				out[len(out)-1].text = op
				continue
			}
		}
		out = append(out, token{t.Kind, t.Text})
	}
	return out
}

func join(ts []token) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.text)
	}
	return b.String()
}

var (
	aggOps     = []string{"count", "min", "max", "avg", "sum"}
	cmpOps     = []string{"=", "!=", "<", ">", "<=", ">="}
	arithOps   = []string{"+", "-", "*", "/"}
	logicalOps = []string{"AND", "OR"}
	orderDirs  = []string{"ASC", "DESC"}
)

// matchCase writes repl in the letter case of orig (upper, lower).
func matchCase(orig, repl string) string {
	if strings.ToLower(orig) == orig {
		return strings.ToLower(repl)
	}
	return strings.ToUpper(repl)
}

// Neighbours returns the neighbour queries of a gold query: first the
// mutations over its AST (sqlast.Mutants: drop a WHERE, GROUP BY, HAVING,
// ORDER BY, LIMIT, DISTINCT, a predicate or a select item; swap an
// aggregate, a comparison, ASC/DESC, AND/OR, LIKE/NOT LIKE, IN/NOT IN, a set
// operator, a column for another of the same type from the query's tables;
// perturb a literal), when the query parses; then every mutation of
// TestSuiteEval's generate_neighbor_queries_path (fuzz/neighbor.py) —
// dropping a span of tokens (up to maxSpan non-blank tokens), replacing a
// token by another of its family (aggregates, comparison and arithmetic
// operators, AND/OR, ASC/DESC, a column by another column of the same
// tables and type) or a literal by a near value — plus LIKE/NOT LIKE and
// IN/NOT IN, dropping or adding DISTINCT, dropping LIMIT, adding DESC to an
// ORDER BY. Neighbours equal to the gold, or differing from it only inside
// COUNT(...) (the official equivalent_count), are left out. The list is
// deterministic and may hold queries that do not run; the caller keeps
// those that do.
func Neighbours(gold string, info *catalog.Database) []Neighbour {
	g := &neighbourGen{gold: gold, info: info, ts: tokens(gold), seen: map[string]bool{normalize(gold): true}}
	g.tables = queryColumns(g.ts, info)
	g.astMutants()
	for i := range g.ts {
		if !g.swapOperator(i) {
			g.swapKeywordOrLiteral(i)
		}
		g.swapColumn(i)
	}
	g.addOrderDesc()
	g.dropSpans()
	return g.out
}

// neighbourGen collects the neighbours of one gold query, in order,
// without duplicates.
type neighbourGen struct {
	gold   string
	info   *catalog.Database
	ts     []token          // the gold's tokens
	tables []*catalog.Table // the tables the query names (queryColumns)
	seen   map[string]bool
	out    []Neighbour
}

// add keeps q as a neighbour of kind unless it normalises to the gold or
// to an earlier neighbour, or differs from the gold only inside COUNT(...).
func (g *neighbourGen) add(kind string, q []token) {
	s := strings.TrimSpace(join(q))
	n := normalize(s)
	if g.seen[n] || equivalentCount(s, g.gold) {
		return
	}
	g.seen[n] = true
	g.out = append(g.out, Neighbour{SQL: s, Kind: kind})
}

// replace adds the gold with token i replaced by with (deleted when with
// is empty).
func (g *neighbourGen) replace(kind string, i int, with ...token) {
	q := make([]token, 0, len(g.ts)+len(with))
	q = append(q, g.ts[:i]...)
	q = append(q, with...)
	q = append(q, g.ts[i+1:]...)
	g.add(kind, q)
}

// astMutants adds sqlast's mutations of the gold, when it parses; a column
// is swapped only for another of the same type in the query's tables.
func (g *neighbourGen) astMutants() {
	q, err := sqlast.Parse(g.gold)
	if err != nil {
		return
	}
	opts := sqlast.MutateOptions{Columns: func(c sqlast.ColumnRef) []string {
		if c.MaybeString && !isColumnName(c.Name, g.info) {
			return nil
		}
		return sameTypeColumns(c.Name, g.tables, g.info)
	}}
	for _, m := range q.Mutants(opts) {
		g.add(string(m.Kind), []token{{sqllex.Word, m.SQL}})
	}
}

// swapOperator replaces token i, when it is an aggregate function name,
// a comparison or arithmetic operator, AND/OR or ASC/DESC, by every other
// member of its family, and reports whether it was one.
func (g *neighbourGen) swapOperator(i int) bool {
	t := g.ts[i]
	up := strings.ToUpper(t.text)
	switch {
	case t.kind == sqllex.Word && slices.Contains(aggOps, strings.ToLower(t.text)) && nextNonSpace(g.ts, i) == "(":
		for _, op := range aggOps {
			if op != strings.ToLower(t.text) {
				g.replace("aggregate", i, token{t.kind, matchCase(t.text, op)})
			}
		}
	case t.kind == sqllex.Punct && (slices.Contains(cmpOps, t.text) || t.text == "<>" || t.text == "=="):
		for _, op := range cmpOps {
			if op != t.text && !(t.text == "<>" && op == "!=") && !(t.text == "==" && op == "=") {
				g.replace("comparison", i, token{t.kind, op})
			}
		}
	case t.kind == sqllex.Punct && slices.Contains(arithOps, t.text):
		for _, op := range arithOps {
			if op != t.text {
				g.replace("arithmetic", i, token{t.kind, op})
			}
		}
	case t.kind == sqllex.Word && slices.Contains(logicalOps, up):
		for _, op := range logicalOps {
			if op != up {
				g.replace("and/or", i, token{t.kind, matchCase(t.text, op)})
			}
		}
	case t.kind == sqllex.Word && slices.Contains(orderDirs, up):
		for _, op := range orderDirs {
			if op != up {
				g.replace("asc/desc", i, token{t.kind, matchCase(t.text, op)})
			}
		}
	default:
		return false
	}
	return true
}

// swapKeywordOrLiteral mutates token i when it is LIKE or IN (negated or
// un-negated), DISTINCT (dropped), LIMIT n (dropped, or n+1), SELECT
// (DISTINCT added), a number or a string literal (near values).
func (g *neighbourGen) swapKeywordOrLiteral(i int) {
	ts, t := g.ts, g.ts[i]
	up := strings.ToUpper(t.text)
	switch {
	case t.kind == sqllex.Word && (up == "LIKE" || up == "IN"):
		if j := prevNonSpaceIndex(ts, i); j >= 0 && strings.EqualFold(ts[j].text, "NOT") {
			g.add("not "+strings.ToLower(up), slices.Concat(ts[:j], ts[j+1:]))
		} else {
			g.replace("not "+strings.ToLower(up), i, token{sqllex.Word, matchCase(t.text, "NOT")}, token{sqllex.Space, " "}, t)
		}
	case t.kind == sqllex.Word && up == "DISTINCT":
		g.replace("distinct", i)
	case t.kind == sqllex.Word && up == "LIMIT":
		if j := nextNonSpaceIndex(ts, i); j > 0 && ts[j].kind == sqllex.Number {
			g.add("limit", slices.Concat(ts[:i], ts[j+1:]))
			if n, err := strconv.Atoi(ts[j].text); err == nil {
				q := slices.Clone(ts)
				q[j].text = strconv.Itoa(n + 1)
				g.add("limit", q)
			}
		}
	case t.kind == sqllex.Word && up == "SELECT":
		if j := nextNonSpaceIndex(ts, i); j > 0 && !strings.EqualFold(ts[j].text, "DISTINCT") {
			g.replace("distinct", i, t, token{sqllex.Space, " "}, token{sqllex.Word, matchCase(t.text, "DISTINCT")})
		}
	case t.kind == sqllex.Number:
		for _, v := range numberVariants(t.text) {
			g.replace("literal", i, token{t.kind, v})
		}
	case t.kind == sqllex.String || t.kind == sqllex.Quoted && strings.HasPrefix(t.text, `"`) && !isColumnName(unquote(t.text), g.info):
		for _, v := range stringVariants(unquote(t.text)) {
			q := string(t.text[0])
			g.replace("literal", i, token{t.kind, q + strings.ReplaceAll(v, q, q+q) + q})
		}
	}
}

// swapColumn replaces token i, when it names a column (not a table, not
// an alias after AS), by every other column of the same type in the
// query's tables.
func (g *neighbourGen) swapColumn(i int) {
	t := g.ts[i]
	if (t.kind != sqllex.Word && t.kind != sqllex.Quoted) || !isColumnName(unquote(t.text), g.info) || isTableName(unquote(t.text), g.info) {
		return
	}
	if prev := prevNonSpaceIndex(g.ts, i); prev >= 0 && strings.EqualFold(g.ts[prev].text, "AS") {
		return
	}
	for _, c := range sameTypeColumns(unquote(t.text), g.tables, g.info) {
		g.replace("column", i, token{sqllex.Word, quoteIfNeeded(c)})
	}
}

// addOrderDesc adds DESC after an ORDER BY item that has no direction.
func (g *neighbourGen) addOrderDesc() {
	ts := g.ts
	for i, t := range ts {
		if t.kind == sqllex.Word && strings.EqualFold(t.text, "BY") {
			if j := prevNonSpaceIndex(ts, i); j >= 0 && strings.EqualFold(ts[j].text, "ORDER") {
				end := orderItemEnd(ts, i)
				if end > i {
					q := slices.Concat(ts[:end+1], []token{{sqllex.Space, " "}, {sqllex.Word, matchCase(t.text, "DESC")}}, ts[end+1:])
					g.add("asc/desc", q)
				}
			}
		}
	}
}

// dropSpans drops every droppable span of up to maxSpan non-blank tokens,
// as the official drop_any_span.
func (g *neighbourGen) dropSpans() {
	ts := g.ts
	for start := range ts {
		nonBlank := 0
		for end := start; end < len(ts); end++ {
			if ts[end].kind != sqllex.Space && ts[end].kind != sqllex.Comment {
				nonBlank++
			}
			if nonBlank > maxSpan {
				break
			}
			if droppable(ts[start : end+1]) {
				g.add("drop span", slices.Concat(ts[:start], ts[end+1:]))
			}
		}
	}
}

// maxSpan bounds the dropped spans; longer spans rarely leave a query
// that runs.
const maxSpan = 8

// droppable is the official span_droppable: not blank, not a lone '*',
// AS, ';' or ASC, not a "table ." pair.
func droppable(span []token) bool {
	var s []token
	for _, t := range span {
		if t.kind != sqllex.Space && t.kind != sqllex.Comment {
			s = append(s, t)
		}
	}
	if len(s) == 0 || span[0].kind == sqllex.Space || span[len(span)-1].kind == sqllex.Space {
		return false
	}
	if len(s) == 1 {
		switch strings.ToUpper(s[0].text) {
		case "*", "AS", ";", "ASC":
			return false
		}
	}
	if len(s) == 2 && s[1].text == "." {
		return false
	}
	return true
}

var countArg = regexp.MustCompile(`(?i)COUNT\s?\((.*?)\)`)

// equivalentCount is the official equivalent_count: queries that differ
// only inside COUNT(...) are taken as equivalent.
func equivalentCount(a, b string) bool {
	return countArg.ReplaceAllString(strings.TrimSpace(a), "COUNT()") == countArg.ReplaceAllString(strings.TrimSpace(b), "COUNT()")
}

func normalize(q string) string {
	return strings.Join(strings.Fields(strings.TrimRight(strings.TrimSpace(q), ";")), " ")
}

func nextNonSpaceIndex(ts []token, i int) int {
	for j := i + 1; j < len(ts); j++ {
		if ts[j].kind != sqllex.Space && ts[j].kind != sqllex.Comment {
			return j
		}
	}
	return -1
}

func nextNonSpace(ts []token, i int) string {
	if j := nextNonSpaceIndex(ts, i); j >= 0 {
		return ts[j].text
	}
	return ""
}

func prevNonSpaceIndex(ts []token, i int) int {
	for j := i - 1; j >= 0; j-- {
		if ts[j].kind != sqllex.Space && ts[j].kind != sqllex.Comment {
			return j
		}
	}
	return -1
}

// orderItemEnd returns the index of the last token of the first ORDER BY
// item after position by, when it has no direction; -1 otherwise.
func orderItemEnd(ts []token, by int) int {
	depth := 0
	last := -1
	for j := by + 1; j < len(ts); j++ {
		t := ts[j]
		if t.kind == sqllex.Space || t.kind == sqllex.Comment {
			continue
		}
		switch {
		case t.text == "(":
			depth++
		case t.text == ")":
			if depth == 0 {
				return last
			}
			depth--
		case depth == 0 && (t.text == "," || t.text == ";"):
			return last
		case depth == 0 && t.kind == sqllex.Word:
			switch strings.ToUpper(t.text) {
			case "ASC", "DESC":
				return -1
			case "LIMIT", "UNION", "INTERSECT", "EXCEPT", "NULLS":
				return last
			}
		}
		last = j
	}
	return last
}

func numberVariants(s string) []string {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return []string{strconv.FormatInt(i+1, 10), strconv.FormatInt(i-1, 10)}
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return []string{strconv.FormatFloat(f+0.1, 'f', -1, 64), strconv.FormatFloat(f-0.1, 'f', -1, 64)}
	}
	return nil
}

// stringVariants are the official _get_string_replacement, bounded: the
// empty string, the string without its first or last character, its halves,
// and '%' added or removed at either end.
func stringVariants(s string) []string {
	out := []string{""}
	if len(s) > 1 {
		out = append(out, s[1:], s[:len(s)-1], s[:len(s)/2], s[len(s)/2:])
	}
	core := strings.ReplaceAll(s, "%", "")
	for _, v := range []string{core, "%" + core, core + "%", "%" + core + "%"} {
		if v != s {
			out = append(out, v)
		}
	}
	return out
}

// queryColumns returns the tables named in the query's tokens.
func queryColumns(ts []token, info *catalog.Database) []*catalog.Table {
	var out []*catalog.Table
	for _, t := range ts {
		if t.kind != sqllex.Word && t.kind != sqllex.Quoted {
			continue
		}
		if tb := info.Table(unquote(t.text)); tb != nil && !slices.Contains(out, tb) {
			out = append(out, tb)
		}
	}
	return out
}

func isColumnName(name string, info *catalog.Database) bool {
	for _, t := range info.Tables {
		if t.Column(name) != nil {
			return true
		}
	}
	return false
}

func isTableName(name string, info *catalog.Database) bool { return info.Table(name) != nil }

// sameTypeColumns lists the other columns, of the tables the query names,
// with the affinity of the column called name.
func sameTypeColumns(name string, tables []*catalog.Table, info *catalog.Database) []string {
	var aff []affinity
	for _, t := range tables {
		if c := t.Column(name); c != nil {
			aff = append(aff, affinityOf(c))
		}
	}
	if len(aff) == 0 {
		return nil
	}
	var out []string
	for _, t := range tables {
		for i := range t.Columns {
			c := &t.Columns[i]
			if !strings.EqualFold(c.Name, name) && slices.Contains(aff, affinityOf(c)) && !slices.Contains(out, c.Name) {
				out = append(out, c.Name)
			}
		}
	}
	return out
}

var plainIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func quoteIfNeeded(name string) string {
	if plainIdent.MatchString(name) {
		return name
	}
	return engine.SQLite.QuoteIdent(name)
}

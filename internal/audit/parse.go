package audit

import (
	"sort"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/sqlast"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// parsed is a gold query read by sqljudge's SQL parser (package sqlast,
// SQLite's grammar). For the server dialects the parser reads a masked
// copy of the text (see mask) of the same length, so every node's byte
// span is also a span of the original text: the auxiliary queries are
// spliced from the original, and run as the gold does.
type parsed struct {
	// sql is the gold query as written.
	sql string
	// stmt is its tree.
	stmt *sqlast.SelectStmt
	// masks are the byte ranges blanked in the parsed copy, in order.
	masks []span
}

// span is a byte range [from, to) of the query text; trailing says it
// ends the node before it (a cast, an interval's unit).
type span struct {
	from, to int
	trailing bool
}

// node is what a tree node offers: its byte span.
type node interface {
	Pos() int
	End() int
}

// parse reads sql as a SELECT; ok is false when the parser rejects it (or
// it is another statement): only the checks that need no tree run then.
func parse(sql string, d engine.Dialect) (*parsed, bool) {
	text, masks := sql, []span(nil)
	if d != engine.SQLite {
		text, masks = mask(sql)
	}
	q, err := sqlast.Parse(text)
	if err != nil || q.Select() == nil {
		return nil, false
	}
	return &parsed{sql: sql, stmt: q.Select(), masks: masks}, true
}

// end returns n's end offset, extended over the masked casts and
// interval units that follow it with only spaces between (so that
// "x::float" is taken whole where the parser read "x").
func (p *parsed) end(n node) int {
	e := n.End()
	for _, m := range p.masks {
		if m.trailing && m.from >= e && strings.TrimSpace(p.sql[e:m.from]) == "" {
			e = m.to
		}
	}
	return e
}

// text returns n's text as written in the original query.
func (p *parsed) text(n node) string { return p.sql[n.Pos():p.end(n)] }

// edit replaces the bytes [from, to) of the query with text (an insertion
// when from == to).
type edit struct {
	from, to int
	text     string
}

// splice returns the query's bytes [from, to) with edits applied; edits
// must lie within the range and not overlap.
func (p *parsed) splice(from, to int, edits []edit) string {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].from < edits[j].from })
	var b strings.Builder
	at := from
	for _, e := range edits {
		b.WriteString(p.sql[at:e.from])
		b.WriteString(e.text)
		at = e.to
	}
	b.WriteString(p.sql[at:to])
	return b.String()
}

// typeWords are the words that continue a PostgreSQL type name after its
// first word ("double precision", "timestamp with time zone").
var typeWords = map[string]bool{"precision": true, "varying": true, "with": true, "without": true, "time": true, "zone": true}

// intervalUnits are the unit words that may follow an INTERVAL's string
// ("INTERVAL '70' DAY").
var intervalUnits = map[string]bool{
	"year": true, "years": true, "month": true, "months": true, "week": true, "weeks": true, "day": true, "days": true,
	"hour": true, "hours": true, "minute": true, "minutes": true, "second": true, "seconds": true,
}

// mask returns sql with the PostgreSQL spellings SQLite's grammar lacks
// blanked or respelled in place, byte for byte the same length, and the
// ranges it changed: "::type" casts become spaces, ILIKE becomes " LIKE",
// the INTERVAL keyword (and a unit word after its string) becomes spaces,
// and EXTRACT(field FROM x) becomes EXTRACT(field,    x). The copy is only
// parsed, never run.
func mask(sql string) (string, []span) {
	toks := sqllex.Tokenize(sql)
	pos := make([]int, len(toks)+1)
	for i, t := range toks {
		pos[i+1] = pos[i] + len(t.Text)
	}
	b := []byte(sql)
	var masks []span
	blank := func(from, to int, trailing bool) {
		for k := from; k < to; k++ {
			b[k] = ' '
		}
		masks = append(masks, span{from, to, trailing})
	}
	next := func(i int) int { // the next token after i that is not a space or comment
		for i++; i < len(toks) && (toks[i].Kind == sqllex.Space || toks[i].Kind == sqllex.Comment); i++ {
		}
		return i
	}
	word := func(i int) string {
		if i < len(toks) && toks[i].Kind == sqllex.Word {
			return strings.ToLower(toks[i].Text)
		}
		return ""
	}
	punct := func(i int, s string) bool { return i < len(toks) && toks[i].Kind == sqllex.Punct && toks[i].Text == s }
	for i := 0; i < len(toks); i++ {
		switch {
		case punct(i, ":") && punct(i+1, ":"):
			j := castEnd(toks, i+2, next, word, punct)
			blank(pos[i], pos[j], true)
			i = j - 1
		case word(i) == "ilike":
			copy(b[pos[i]:], " LIKE")
			masks = append(masks, span{pos[i], pos[i+1], false})
		case word(i) == "interval" && next(i) < len(toks) && toks[next(i)].Kind == sqllex.String:
			blank(pos[i], pos[i+1], false)
			if u := next(next(i)); intervalUnits[word(u)] {
				blank(pos[u], pos[u+1], true)
			}
		case word(i) == "extract" && punct(next(i), "(") && word(next(next(i))) != "" && word(next(next(next(i)))) == "from":
			f := next(next(next(i)))
			copy(b[pos[f]:], ",   ")
			masks = append(masks, span{pos[f], pos[f+1], false})
		}
	}
	return string(b), masks
}

// castEnd returns the index of the token after the type name of a cast
// whose name starts at token i (after "::"): its words, an argument list
// in parentheses and array brackets.
func castEnd(toks []sqllex.Token, i int, next func(int) int, word func(int) string, punct func(int, string) bool) int {
	j := i
	for j < len(toks) && toks[j].Kind == sqllex.Space {
		j++
	}
	if j >= len(toks) || (toks[j].Kind != sqllex.Word && toks[j].Kind != sqllex.Quoted) {
		return j
	}
	j++
	for k := next(j - 1); typeWords[word(k)]; k = next(j - 1) {
		j = k + 1
	}
	if k := next(j - 1); punct(k, "(") {
		for k < len(toks) && !punct(k, ")") {
			k++
		}
		j = min(k+1, len(toks))
	}
	for k := next(j - 1); punct(k, "[") && punct(next(k), "]"); k = next(j - 1) {
		j = next(k) + 1
	}
	return j
}

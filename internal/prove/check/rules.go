package check

import (
	"fmt"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// The rules of the kernel. Each rewrites a query into one that returns
// the same result on every database satisfying the schema; Apply
// performs a rule at a place and returns the query after it and the
// schema facts the rewrite relies on. Check validates a step by applying
// its rule again to the step's Before at the step's place: the result
// must be the step's After and the facts the step's Facts.
const (
	// RuleRename: the same query up to renaming (aliases, qualification,
	// the case and quoting of names, a double-quoted string, ASC, AS,
	// output aliases, ORDER BY and GROUP BY by position). At is -1; After
	// is any query whose canonical form is Before's.
	RuleRename = "rename"
)

// prefixOf returns the alias prefix of a canonical form ("a" for a1,
// a2, ...), "" when it has no table.
func prefixOf(c *Canon) string {
	if len(c.Occs) == 0 {
		return ""
	}
	return strings.TrimRight(c.Occs[0].alias, "0123456789")
}

// textPrefix returns the alias prefix a query in canonical form uses:
// its first FROM item's alias without the digits ("a" when none).
func textPrefix(sql string) string {
	q, err := sqlast.Parse(sql)
	if err != nil {
		return "a"
	}
	p := ""
	sqlast.Walk(q.Stmt, func(n sqlast.Node) bool {
		if t, ok := n.(*sqlast.TableRef); ok && t.Alias != nil && p == "" {
			p = strings.TrimRight(t.Alias.Name, "0123456789")
		}
		return p == ""
	})
	if p == "" {
		return "a"
	}
	return p
}

// canonicalInput canonicalizes a step's Before, which must already be in
// canonical form (rules other than rename work on canonical queries, so
// that places and aliases mean one thing).
func canonicalInput(sql string, s Schema) (*Canon, error) {
	c, err := Canonicalize(sql, s, textPrefix(sql))
	if err != nil {
		return nil, err
	}
	if c.SQL() != sql {
		return nil, fmt.Errorf("the query before the step is not in canonical form (expected %s)", c.SQL())
	}
	return c, nil
}

// NodeText is the SQL of the node of sql that starts at byte offset at
// (the node a step rewrites, in its certificate's "node"), cut to 200
// characters with "…"; "" when there is none (a SELECT statement's start
// names no node: its first SELECT does).
func NodeText(sql string, at int) string {
	q, err := sqlast.Parse(sql)
	if err != nil {
		return ""
	}
	text := ""
	sqlast.Walk(q.Stmt, func(n sqlast.Node) bool {
		if text == "" && n.Pos() == at {
			if _, isStmt := n.(*sqlast.SelectStmt); !isStmt {
				text = sqlast.Format(n)
			}
		}
		return text == ""
	})
	if r := []rune(text); len(r) > 200 {
		text = string(r[:200]) + "…"
	}
	return text
}

// nodeAt returns the node of the tree of c of type T that starts at byte
// offset at.
func nodeAt[T sqlast.Node](c *Canon, at int) (T, bool) {
	var found T
	ok := false
	sqlast.Walk(c.Stmt, func(n sqlast.Node) bool {
		if t, is := n.(T); is && n.Pos() == at && !ok {
			found, ok = t, true
		}
		return !ok
	})
	return found, ok
}

// Apply performs rule at byte offset at of before (in canonical form for
// every rule but rename) and returns the query after it, in canonical
// form, and the facts it relies on. The error says why the rule does not
// apply there.
func Apply(rule, before string, at int, s Schema) (string, []Fact, error) {
	switch rule {
	case RuleRename:
		c, err := Canonicalize(before, s, "a")
		if err != nil {
			return "", nil, err
		}
		return c.SQL(), nil, nil
	case RuleInlineCTE:
		if at != -1 {
			return "", nil, refuse("rule", "WITH is inlined at -1, not %d", at)
		}
		after, err := inlineCTE(before, s, false)
		return after, nil, err
	case RuleRightToLeft, RuleFullToOuter:
		if at != -1 {
			return "", nil, refuse("rule", "%s applies at -1, not %d", rule, at)
		}
		f := rightToLeft
		if rule == RuleFullToOuter {
			f = fullToOuter
		}
		after, err := f(before, s)
		return after, nil, err
	}
	r, ok := rules[rule]
	if !ok {
		return "", nil, fmt.Errorf("unknown rule %q", rule)
	}
	c, err := canonicalInput(before, s)
	if err != nil {
		return "", nil, err
	}
	if err := c.outerAggregate(); err != nil {
		return "", nil, err
	}
	var facts factSet
	if err := r(c, at, &facts); err != nil {
		return "", nil, err
	}
	after, err := Canonicalize(sqlast.Format(c.Stmt), s, prefixOf(c))
	if err != nil {
		return "", nil, fmt.Errorf("the rewritten query does not resolve: %w", err)
	}
	return after.SQL(), sortedFacts(facts.list), nil
}

// rules are the rewriting rules beside rename: each changes c.Stmt in
// place at offset at, recording the facts it relies on, or says why it
// does not apply.
var rules = map[string]func(c *Canon, at int, facts *factSet) error{}

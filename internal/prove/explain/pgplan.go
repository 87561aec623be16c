package explain

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/sqlast"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// MaxPlanBytes bounds the JSON of one plan PlanMismatch reads (4 MiB): a
// longer plan is a mismatch, never read.
const MaxPlanBytes = 4 << 20

// PlanFunc returns PostgreSQL's plan of one query, as EXPLAIN (VERBOSE,
// COSTS OFF, FORMAT JSON) prints it, on a scratch holding the pair's
// tables, never run (package sandbox/postgres, Explain). Its error is the
// server's when it refuses the query (a name that does not resolve).
type PlanFunc func(ctx context.Context, q string) ([]byte, error)

// PlanMismatch is a renaming PostgreSQL reads otherwise than the kernel:
// the two texts plan to trees that differ once the names of their range
// table entries are numbered (Path is the first field that differs, Want
// and Got its value in Before's and After's plan), or PostgreSQL refuses
// one of them (Err).
type PlanMismatch struct {
	// Where names the step ("q1 step 1 (rename)").
	Where         string
	Before, After string
	Path          string
	Want, Got     string
	// Err is PostgreSQL's error (or the plan's, unreadable) on Failed,
	// "the query" (Before: the engine never reads it, and no proof
	// rests on it) or "its renaming" (After).
	Err    error
	Failed string
}

// Error says which step PostgreSQL reads otherwise, and how.
func (m *PlanMismatch) Error() string {
	if m.Err != nil {
		return fmt.Sprintf("%s: PostgreSQL does not plan %s: %v (%s / %s)", m.Where, m.Failed, m.Err, m.Before, m.After)
	}
	return fmt.Sprintf("%s: PostgreSQL reads the query and its renaming otherwise: %s is %s before, %s after (%s / %s)",
		m.Where, m.Path, m.Want, m.Got, m.Before, m.After)
}

// SamePlan compares PostgreSQL's plans of before and after (plan): nil
// when their normal forms (NormalPlan) are equal, else a *PlanMismatch
// (Where left empty) or the context's error.
func SamePlan(ctx context.Context, plan PlanFunc, before, after string) error {
	var trees [2]any
	for i, q := range []string{before, after} {
		b, err := plan(ctx, q)
		if err == nil {
			trees[i], err = normalPlan(b, subqueryColumns(q))
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &PlanMismatch{Before: before, After: after, Err: err, Failed: [2]string{"the query", "its renaming"}[i]}
		}
	}
	if path, want, got, same := firstDiff(trees[0], trees[1], "plan"); !same {
		return &PlanMismatch{Before: before, After: after, Path: path, Want: want, Got: got}
	}
	return nil
}

// ValidatePlans checks every renaming step of c (rule check.RuleRename,
// in Q1Steps and Q2Steps) on PostgreSQL: its Before and After must plan
// alike (SamePlan). The error is a *PlanMismatch naming the step, or the
// context's error.
func ValidatePlans(ctx context.Context, plan PlanFunc, c *check.Certificate) error {
	for qi, steps := range [2][]check.Step{c.Q1Steps, c.Q2Steps} {
		for i, st := range steps {
			if st.Rule != check.RuleRename {
				continue
			}
			if err := SamePlan(ctx, plan, st.Before, st.After); err != nil {
				if m, ok := err.(*PlanMismatch); ok {
					m.Where = fmt.Sprintf("q%d step %d (%s)", qi+1, i+1, st.Rule)
				}
				return err
			}
		}
	}
	return nil
}

// NormalPlan reads a plan of EXPLAIN (VERBOSE, COSTS OFF, FORMAT JSON)
// and returns it with the names a renaming may change numbered: each
// plan node's Alias (the name EXPLAIN gives a range table entry, unique
// in the plan) becomes «n», n its rank in a depth-first walk of the
// nodes, and so does every qualifier naming it in the node's expressions
// (Output, Filter, Sort Key, Hash Cond, ...: "t.a" is "«1».a"); the
// scratch's schema name is dropped. Nothing else changes: a column name,
// a constant, a string literal or a qualifier naming no node stays as
// printed, so two plans are equal only when they read the same columns
// of the same relations (or of the same subqueries, by the same names)
// into the same expressions. The error is for text that is not such a
// plan, or longer than MaxPlanBytes.
func NormalPlan(b []byte) (any, error) { return normalPlan(b, nil) }

// normalPlan is NormalPlan that also numbers the columns of the FROM
// subqueries cols names (alias → output names in order, as PostgreSQL
// folds them): a column qualified by such a subquery's alias is #k, its
// position, so that a renaming of a subquery's outputs (the canonical
// form's c1, c2, …) plans alike when it reads the same positions.
// PostgreSQL prints a subquery it cannot pull up (one that groups, a
// Subquery Scan) with its columns' names.
func normalPlan(b []byte, cols map[string][]string) (any, error) {
	if len(b) > MaxPlanBytes {
		return nil, fmt.Errorf("a plan of %d bytes, over the %d read", len(b), MaxPlanBytes)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("not a plan of EXPLAIN (FORMAT JSON): %w", err)
	}
	if d.More() {
		return nil, fmt.Errorf("not a plan of EXPLAIN (FORMAT JSON): text after the plan")
	}
	names := map[string]string{}
	collectAliases(v, names)
	all := map[string][]string{}
	for a, c := range cols {
		all[a] = c
	}
	setOpBranches(v, all)
	return renameTree(v, &renaming{names: names, cols: all}, ""), nil
}

// setOpBranches records, for each Subquery Scan PostgreSQL names for a
// branch of a set operation ("*SELECT* 1", …, which the SQL text does not
// name), its columns in the order of its own Output: such a scan returns
// every column of its branch, in order, to the Append or SetOp above it.
func setOpBranches(v any, cols map[string][]string) {
	switch x := v.(type) {
	case map[string]any:
		if a, ok := x["Alias"].(string); ok && strings.HasPrefix(a, "*SELECT* ") && x["Node Type"] == "Subquery Scan" {
			if _, seen := cols[a]; !seen {
				var names []string
				outs, _ := x["Output"].([]any)
				prefix := `"` + strings.ReplaceAll(a, `"`, `""`) + `".`
				for _, o := range outs {
					e, _ := o.(string)
					name, ok := strings.CutPrefix(e, prefix)
					if !ok || name == "" {
						names = nil
						break
					}
					if len(name) >= 2 && name[0] == '"' && name[len(name)-1] == '"' {
						name = strings.ReplaceAll(name[1:len(name)-1], `""`, `"`)
					}
					names = append(names, name)
				}
				cols[a] = names
			}
		}
		for _, k := range sortedKeys(x) {
			setOpBranches(x[k], cols)
		}
	case []any:
		for _, e := range x {
			setOpBranches(e, cols)
		}
	}
}

// renaming is what NormalPlan renames: node aliases (names) and the
// columns of FROM subqueries by position (cols).
type renaming struct {
	names map[string]string
	cols  map[string][]string
}

// subqueryColumns returns, for each FROM subquery of q with an alias, the
// names of its outputs in order as PostgreSQL folds them (an unquoted
// name in lower case): an output's alias, else the column it reads (of
// a compound: its first SELECT's, which name the compound's columns). A
// subquery with an output of neither kind or with * is left out (its
// columns keep their printed names), and so is every subquery of a query
// that does not parse.
func subqueryColumns(q string) map[string][]string {
	parsed, err := sqlast.Parse(q)
	if err != nil {
		return nil
	}
	out := map[string][]string{}
	sqlast.Walk(parsed.Stmt, func(n sqlast.Node) bool {
		t, ok := n.(*sqlast.TableRef)
		if !ok || t.Select == nil || t.Alias == nil {
			return true
		}
		names, ok := outputNames(t.Select)
		if !ok {
			return true
		}
		alias := foldIdent(t.Alias)
		if _, twice := out[alias]; twice {
			out[alias] = nil // two subqueries of one alias: neither numbered
			return true
		}
		out[alias] = names
		return true
	})
	return out
}

// foldIdent is a name as PostgreSQL reads it: unquoted in lower case.
func foldIdent(id *sqlast.Ident) string {
	if id.Quote == sqlast.QuoteNone {
		return strings.ToLower(id.Name)
	}
	return id.Name
}

// outputNames returns the names of st's outputs as subqueryColumns reads
// them; a * of a SELECT whose FROM is one subquery is that subquery's.
func outputNames(st *sqlast.SelectStmt) ([]string, bool) {
	sq, ok := st.Cores[0].(*sqlast.SelectQuery)
	if !ok {
		return nil, false
	}
	var names []string
	for _, c := range sq.Columns {
		switch x := c.Expr.(type) {
		case *sqlast.Star:
			if x.Table != nil || len(sq.From) != 1 || sq.From[0].Select == nil || len(sq.Columns) != 1 {
				return nil, false
			}
			return outputNames(sq.From[0].Select)
		case *sqlast.QualifiedRef:
			if c.Alias == nil {
				names = append(names, foldIdent(x.Parts[len(x.Parts)-1]))
				continue
			}
		case *sqlast.Ident:
			if c.Alias == nil {
				names = append(names, foldIdent(x))
				continue
			}
		}
		if c.Alias == nil {
			return nil, false
		}
		names = append(names, foldIdent(c.Alias))
	}
	return names, true
}

// collectAliases numbers the Alias of every plan node of v, depth first.
func collectAliases(v any, names map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		if a, ok := x["Alias"].(string); ok {
			if _, seen := names[a]; !seen {
				names[a] = fmt.Sprintf("«%d»", len(names)+1)
			}
		}
		for _, k := range sortedKeys(x) {
			collectAliases(x[k], names)
		}
	case []any:
		for _, e := range x {
			collectAliases(e, names)
		}
	}
}

// renameTree returns v with its aliases and the qualifiers naming them
// renamed (names), under key (the field v is the value of).
func renameTree(v any, names *renaming, key string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k == "Schema" {
				continue // the scratch's own, the same for both texts
			}
			out[k] = renameTree(e, names, k)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = renameTree(e, names, key)
		}
		return out
	case string:
		switch key {
		case "Alias":
			return names.names[x]
		case "Relation Name", "Node Type", "Parent Relationship", "Subplan Name", "CTE Name", "Function Name":
			return x
		}
		return renameQualifiers(x, names)
	}
	return v
}

// renameQualifiers rewrites the qualifiers of expression e (a name
// followed by '.') that names holds; string literals ('…', ”-escaped)
// and the rest stay as printed. A qualifier may be double-quoted, as
// PostgreSQL quotes a name that is not lower case or is a keyword.
func renameQualifiers(e string, rn *renaming) string {
	names := rn.names
	var b strings.Builder
	for i := 0; i < len(e); {
		c := e[i]
		switch {
		case c == '\'':
			j := sqllex.QuotedEnd(e, i, '\'')
			b.WriteString(e[i:j])
			i = j
		case c == '"' || isIdentStart(c):
			var j int
			var name string
			if c == '"' {
				j = sqllex.QuotedEnd(e, i, '"')
				name = strings.ReplaceAll(strings.TrimSuffix(e[i+1:j], `"`), `""`, `"`)
			} else {
				j = i + 1
				for j < len(e) && isIdentPart(e[j]) {
					j++
				}
				name = e[i:j]
			}
			if n, ok := names[name]; ok && j < len(e) && e[j] == '.' && (i == 0 || e[i-1] != '.') {
				b.WriteString(n)
				if k, end := columnAt(e, j+1, rn.cols[name]); k >= 0 {
					fmt.Fprintf(&b, ".#%d", k+1)
					j = end
				}
			} else {
				b.WriteString(e[i:j])
			}
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// columnAt reads the column name at e[i:] (double-quoted or plain) and
// returns its position in cols (-1 when it is not there once) and the
// offset after it.
func columnAt(e string, i int, cols []string) (int, int) {
	if i >= len(e) || len(cols) == 0 {
		return -1, i
	}
	var j int
	var name string
	switch {
	case e[i] == '"':
		j = sqllex.QuotedEnd(e, i, '"')
		name = strings.ReplaceAll(strings.TrimSuffix(e[i+1:j], `"`), `""`, `"`)
	case isIdentStart(e[i]):
		j = i + 1
		for j < len(e) && isIdentPart(e[j]) {
			j++
		}
		name = e[i:j]
	default:
		return -1, i
	}
	k := -1
	for n, c := range cols {
		if c == name {
			if k >= 0 {
				return -1, i // two outputs of one name: not numbered
			}
			k = n
		}
	}
	if k < 0 {
		return -1, i
	}
	return k, j
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c == '$' || c >= '0' && c <= '9' }

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// firstDiff walks a and b together: the path of the first value that
// differs, and both values printed; same when none does.
func firstDiff(a, b any, path string) (p, want, got string, same bool) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := sortedKeys(x)
		for _, k := range sortedKeys(y) {
			if _, in := x[k]; !in {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			if p, want, got, same := firstDiff(x[k], y[k], path+"."+k); !same {
				return p, want, got, false
			}
		}
		return "", "", "", true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			break
		}
		for i := range x {
			if p, want, got, same := firstDiff(x[i], y[i], fmt.Sprintf("%s[%d]", path, i)); !same {
				return p, want, got, false
			}
		}
		return "", "", "", true
	default:
		if fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b) {
			return "", "", "", true
		}
	}
	return path, show(a), show(b), false
}

// show prints a plan value for a mismatch, «absent» for none.
func show(v any) string {
	if v == nil {
		return "«absent»"
	}
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false) // "a > 1", not "a \u003e 1"
	_ = e.Encode(v)
	b := bytes.TrimSpace(buf.Bytes())
	if len(b) > 200 {
		b = append(b[:200], "…"...)
	}
	return string(b)
}

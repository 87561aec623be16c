package equiv

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/result"
)

// The solver phase (PhaseSolver, issue 38): databases made from models of
// the queries' conditions. For each query, check.ConditionCover encodes
// its ON and WHERE conditions with the prover's own encoding (three-valued
// logic, SQLite's affinities) over a few symbolic copies of its FROM row,
// and asks Z3 for a model of each goal: every condition TRUE, one FALSE
// or NULL with the others TRUE, two copies meeting every condition that
// share one table's row (duplicates through a join), LIMIT n + 1 copies
// that meet them. Each model becomes a database: its rows, the columns
// the conditions read and the key and foreign key columns from the model,
// the others drawn as the small phase draws them, a parent row added for
// each foreign key the rows point at, repaired. Random rows almost never
// meet several literal conditions at once (a COUNT against a COUNT
// DISTINCT behind three filters over a join); a model does by
// construction. The phase is bounded by work, never by time: at most
// maxSolverScripts scripts a pair, each check-sat under coverRLimit of
// Z3's deterministic resource unit and all together under
// coverBatchRLimit; a script Z3 cannot answer within it, or that the
// batch's limit leaves unasked, gives no database. A model is only a candidate: what the encoding
// leaves uninterpreted the engine decides, and every witness is
// re-verified as any other.

// coverRLimit is Z3's resource limit per goal of the solver phase: a
// goal over a few rows needs well under a tenth of it.
const coverRLimit = 2_000_000

// coverBatchRLimit bounds the work of a pair's goals together (Z3Pool's
// BatchRLimit): three goals at coverRLimit. Goals over text ordering
// (BETWEEN '08:00:00' AND '09:00:00') cost Z3 a good part of the limit
// each, and without it such a pair's 24 goals took 20 s.
const coverBatchRLimit = 3 * coverRLimit

// maxSolverScripts bounds the goals the solver phase asks Z3 per pair
// (both queries together), and so its databases.
const maxSolverScripts = 24

// defaultModeler is a pool of Z3 processes (Z3's executable on PATH,
// coverRLimit), shared by every search of the process: nil when there is
// none (the phase is then skipped). Its processes end with the program.
var defaultModeler = sync.OnceValue(func() check.Modeler {
	z, err := check.FindZ3()
	if err != nil {
		return nil
	}
	z.RLimit = coverRLimit
	p := check.NewZ3Pool(z, modelerProcs)
	p.BatchRLimit = coverBatchRLimit
	return p
})

// modelerProcs bounds the Z3 processes of defaultModeler: searches that
// run at once beyond it wait for one.
const modelerProcs = 4

// modeler is the solver of the phase: Options.Modeler, else Z3 on PATH;
// nil under Options.NoSolve.
func (s *searcher) modeler() check.Modeler {
	switch {
	case s.o.NoSolve:
		return nil
	case s.o.Modeler != nil:
		return s.o.Modeler
	}
	return defaultModeler()
}

// solverDatabases returns the solver phase's databases, in the order of
// the goals (q1's, then q2's); none when there is no solver, the engine
// is one the encoding does not model, or no goal has a model.
func (s *searcher) solverDatabases(ctx context.Context) []Data {
	m := s.modeler()
	ps := proveSchema(s.schema.Database, s.o.Sandbox.Dialect())
	if m == nil || ps == nil {
		return nil
	}
	var covers []*check.Cover
	var scripts []string
	var owner []int
	for _, q := range []string{s.p.Q1, s.p.Q2} {
		cv, err := check.ConditionCover(q, ps, check.CoverOptions{})
		if err != nil {
			continue
		}
		covers = append(covers, cv)
		for _, g := range cv.Goals {
			if len(scripts) < maxSolverScripts {
				scripts = append(scripts, g.SMT)
				owner = append(owner, len(covers)-1)
			}
		}
	}
	if len(scripts) == 0 {
		return nil
	}
	models, err := m.Models(ctx, scripts)
	s.out.Search.SolverCalls += len(scripts)
	if err != nil {
		return nil
	}
	g := *s.gen
	g.rng = rand.New(rand.NewPCG(uint64(s.o.Seed)^0x5851f42d4c957f2d, seedOf(s.p)))
	var out []Data
	k := 0
	for ci, cv := range covers {
		for _, goal := range cv.Goals {
			if k >= len(scripts) {
				break
			}
			if owner[k] == ci && models[k] != nil {
				if db := s.fromModel(&g, cv, goal, models[k]); db != nil {
					out = append(out, db)
				}
			}
			k++
		}
	}
	return out
}

// fromModel makes the database of one goal's model: a row per symbolic
// row of the goal (one for copies of a table with a key that the model
// makes the same row; a table without one may hold a row twice; a copy
// whose Present flag the model makes false is left out), parents for its foreign keys,
// repaired; nil when the repair leaves no row.
func (s *searcher) fromModel(g *generator, cv *check.Cover, goal check.CoverGoal, m check.Model) Data {
	db := make(Data, len(s.schema.Tables))
	sh := g.newShape()
	sh.nullRate, sh.dupRate, sh.usedRate = 0, 0, 0
	p := newPlaced(s.schema)
	seen := map[string]bool{}
	for _, ri := range goal.Rows {
		r := cv.Rows[ri]
		ti := s.schema.index(r.Table)
		if ti < 0 {
			continue
		}
		if in, ok := check.ModelBool(m[r.Present]); r.Present != "" && (!ok || !in) {
			continue // a group goal's copy the model leaves out
		}
		k := r.Table + "\x00" + modelRowKey(r, m)
		if seen[k] && len(s.schema.Tables[ti].Keys()) > 0 {
			continue // the model's same row, met again in another copy
		}
		seen[k] = true
		row := g.row(sh, ti, db, p)
		s.setModelValues(s.schema.Tables[ti], row, r, m)
		db[ti] = append(db[ti], row)
		p.add(ti, row)
	}
	s.addParents(g, sh, db, p)
	db = s.schema.repair(db)
	if db.Rows() == 0 {
		return nil
	}
	return db
}

// modelRowKey is the text of a symbolic row's values in the model: two
// copies with the same text are one row of the table.
func modelRowKey(r check.CoverRow, m check.Model) string {
	var b strings.Builder
	for _, c := range r.Columns {
		if c.Value == "" {
			continue
		}
		if isNull, _ := check.ModelBool(m[c.Null]); isNull {
			b.WriteString("NULL\x00")
			continue
		}
		b.WriteString(m[c.Value] + "\x00")
	}
	return b.String()
}

// setModelValues sets the columns of row that the model decides: those a
// condition reads and those of a key or a foreign key, each to its value
// in the model (NULL where the model says so and the column allows it;
// a column only an aggregate reads keeps its drawn value when not NULL),
// coerced to the column; a value of the uninterpreted sort or one the
// column cannot hold keeps the drawn value.
func (s *searcher) setModelValues(t *catalog.Table, row []result.Value, r check.CoverRow, m check.Model) {
	decides := map[int]bool{}
	for _, k := range t.Keys() {
		for _, c := range k {
			decides[c] = true
		}
	}
	for _, fk := range t.FKs {
		for _, c := range fk.Cols {
			decides[c] = true
		}
	}
	for ci, c := range r.Columns {
		if ci >= len(row) || c.Value == "" || !c.Read && !c.NullRead && !decides[ci] {
			continue
		}
		if isNull, ok := check.ModelBool(m[c.Null]); ok && isNull {
			if !t.Columns[ci].NotNull {
				row[ci] = result.NullValue()
			}
			continue
		}
		if !c.Read && !decides[ci] {
			continue // NullRead: the drawn value stays
		}
		v, ok := modelValue(c.Sort, m[c.Value])
		if !ok {
			continue
		}
		if cv, ok := coerce(v, t.Columns[ci]); ok {
			row[ci] = cv
		}
	}
}

// modelValue reads a model's value of sort srt (check.CoverColumn.Sort).
func modelValue(srt, text string) (result.Value, bool) {
	switch srt {
	case "Int":
		n, ok := check.ModelInt(text)
		return result.IntValue(n), ok
	case "Real":
		f, ok := check.ModelReal(text)
		return result.FloatValue(f), ok
	case "String":
		str, ok := check.ModelString(text)
		return result.TextValue(str), ok
	case "Date", "Timestamp": // YYYYMMDD (check.CoverColumn)
		n, ok := check.ModelInt(text)
		if !ok || n < 0 || n > 99991231 {
			return result.Value{}, false
		}
		d := fmt.Sprintf("%04d-%02d-%02d", n/10000, n/100%100, n%100)
		if srt == "Timestamp" {
			d += " 00:00:00"
		}
		return result.TextValue(d), true
	}
	return result.Value{}, false
}

// addParents adds, for each row whose foreign key points at no row of
// the referenced table, a parent row (drawn, with the referenced columns
// set), children first so that a parent added gets its own parents.
func (s *searcher) addParents(g *generator, sh shape, db Data, p *placed) {
	for ti := len(s.schema.Tables) - 1; ti >= 0; ti-- {
		t := s.schema.Tables[ti]
		for _, fk := range t.FKs {
			pi := s.schema.refIndex(fk)
			if pi < 0 || pi == ti {
				continue
			}
			have := map[string]bool{}
			for _, r := range db[pi] {
				if k, ok := s.schema.keyOf(s.schema.Tables[pi], r, fk.RefCols); ok {
					have[k] = true
				}
			}
			for _, r := range db[ti] {
				k, ok := s.schema.keyOf(t, r, fk.Cols)
				if !ok || have[k] {
					continue
				}
				parent := g.row(sh, pi, db, p)
				for i, c := range fk.Cols {
					parent[fk.RefCols[i]] = r[c]
				}
				db[pi] = append(db[pi], parent)
				p.add(pi, parent)
				have[k] = true
			}
		}
	}
}

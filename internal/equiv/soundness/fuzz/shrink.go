package fuzz

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/result"
)

// shrinkLoads bounds the databases the shrinking of a counterexample
// loads.
const shrinkLoads = 200

// shrink removes rows of d's database one at a time while the pair still
// differs the same way on it (on one database, or on the database and
// the same rows in reverse order) and the database keeps the proof's
// facts; it returns the smallest difference found.
func (t *trial) shrink(d *diff) *diff {
	same := d.db1 == d.db2
	best := d
	loads := 0
	for changed := true; changed && loads < shrinkLoads; {
		changed = false
		for ti := range best.db1.rows {
			for ri := 0; ri < len(best.db1.rows[ti]) && loads < shrinkLoads; ri++ {
				cand := &database{s: best.db1.s, rows: slices.Clone(best.db1.rows)}
				cand.rows[ti] = slices.Delete(slices.Clone(cand.rows[ti]), ri, ri+1)
				loads += 2
				if nd := t.again(cand, same); nd != nil {
					best, changed = nd, true
					ri--
				}
			}
		}
	}
	return best
}

// again runs the pair on db the way d separated it: nil when it no
// longer does (or the database breaks the proof's facts).
func (t *trial) again(db *database, same bool) *diff {
	kept, r1, r2, failed, err := t.run(db)
	if err != nil || kept == nil || kept.size() != db.size() {
		return nil
	}
	if failed != "" {
		if !same || !t.inModel() {
			return nil
		}
		return &diff{db1: kept, db2: kept, r1: r1, r2: r2, failed: failed, inModel: true}
	}
	if r1 == nil || r2 == nil {
		return nil
	}
	if same {
		if t.cmp.equal(t.ctx, r1, r2) || !t.inModel() {
			return nil
		}
		return &diff{db1: kept, db2: kept, r1: r1, r2: r2, inModel: true}
	}
	st, err := t.sess.stored(t.ctx, kept)
	if err != nil {
		return nil
	}
	keptRev, _, r2b, _, err := t.run(reversed(st))
	if err != nil || r2b == nil || keptRev.size() != kept.size() || t.cmp.equal(t.ctx, r1, r2b) || !t.inModel() {
		return nil
	}
	return &diff{db1: st, db2: keptRev, r1: r1, r2: r2b, inModel: true}
}

// counterexample writes d up for a report.
func (t *trial) counterexample(cfg Config, i int, s *schema, d *diff) *Counterexample {
	c := &Counterexample{Seed: cfg.Seed, Pair: i, Dialect: cfg.Dialect, Schema: s.script(), Q1: t.p.sql1, Q2: t.p.sql2,
		Rule: t.p.rule, Method: t.cert.Method, Rewrites: t.p.rewrites, Database: d.db1.sql(), R1: setText(d.r1), R2: setText(d.r2), Failed: d.failed}
	if t.p.swapped {
		c.Rewrites = append([]string{"(q1 is the rewritten one)"}, c.Rewrites...)
	}
	if t.cert.Ties {
		c.Method += " up to ties (the results are those of the tiebroken queries: " + t.q1 + "; " + t.q2 + ")"
	}
	if d.db1 != d.db2 {
		c.Database2 = d.db2.sql()
	}
	for _, st := range append(slices.Clone(t.cert.Q1Steps), t.cert.Q2Steps...) {
		if !slices.Contains(c.Steps, st.Rule) {
			c.Steps = append(c.Steps, st.Rule)
		}
	}
	if len(t.cert.Obligations) > 0 {
		c.Steps = append(c.Steps, fmt.Sprintf("%d obligations", len(t.cert.Obligations)))
	}
	c.Cause = suspect(c, t.p, s, d.db1)
	return c
}

// setText prints a result: its rows, each cell as an SQL literal (so
// that 5, 5.0, '5' and X'35' read apart), at most 20 rows.
func setText(s *result.Set) string {
	if s == nil {
		return "an error (the query fails)"
	}
	var rows []string
	for i, r := range s.Rows {
		if i == 20 {
			rows = append(rows, fmt.Sprintf("… %d rows in all", len(s.Rows)))
			break
		}
		cells := make([]string, len(r))
		for j, v := range r {
			cells[j] = cellText(v)
		}
		rows = append(rows, "("+strings.Join(cells, ", ")+")")
	}
	if len(rows) == 0 {
		return "no rows"
	}
	return strings.Join(rows, " ")
}

func cellText(v result.Value) string {
	switch v.K {
	case result.Null:
		return "NULL"
	case result.Int:
		return fmt.Sprint(v.I)
	case result.Float:
		return result.PyFloatRepr(v.F)
	case result.Blob:
		return "X'" + strings.ToUpper(hex.EncodeToString([]byte(v.S))) + "'"
	}
	return quoteString(v.S)
}

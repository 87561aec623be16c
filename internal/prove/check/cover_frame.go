package check

// frameBuild returns, for a core with a subquery conjunct, the builder of
// the scripts ConditionCover's goals after the duplicates are written on
// (same output, LIMIT n + 1, null aggregate, output condition, boundary):
// for n copies, a fresh script in which each copy holds the conjunct
// TRUE over rows of the subquery's own, and the rows a goal over those n
// copies reads back. The first positive plain IN / EXISTS conjunct's
// (subqueryFrame), or else the first scalar comparison's (scalarFrame);
// nil when cc has neither. Before, these goals left the conjunct to the
// draws, which with two filters in the subquery, or an average the row
// must beat, rarely meet it.
func (cv *Cover) frameBuild(c *Canon, cc coverCore) func(n int) frameScript {
	if f := cv.subqueryFrame(c, cc); f != nil {
		return func(n int) frameScript {
			cs := f(n)
			return frameScript{cs, cs.rows}
		}
	}
	for i, x := range cc.conds {
		b, st, sq := scalarComparison(c, x, cc.occs)
		if sq == nil {
			continue
		}
		merged := scalarMerged(c, cc, i, sq, true)
		// The frame must encode: tried on a scratch Cover.
		if (&Cover{}).scalarFrame(c, merged, b, st, sq, "", 1) == nil {
			continue
		}
		return func(n int) frameScript {
			fr := cv.scalarFrame(c, merged, b, st, sq, "scalar "+itoa(i+1), n)
			if fr == nil { // not expected: copy 1's encoded
				cs := cv.encode(c, cc, n)
				return frameScript{cs, cs.rows}
			}
			cs := fr.cs
			for _, f := range fr.base[1:] {
				cs.s.assert(f)
			}
			for k := range cs.preds {
				t := "true"
				if k < n {
					t = fr.cmp[k]
				}
				cs.preds[k] = append(cs.preds[k], pred{t: t, f: "false"})
			}
			cs.src = append(cs.src, x)
			return frameScript{cs, fr.rows}
		}
	}
	return nil
}

// subqueryFrame is the encoding the goals after the duplicates are written on
// when cc has a positive plain IN / EXISTS conjunct (nil when it has
// none: goals then writes them on cc's own, cv.encode): the first such
// conjunct's, withSubquery's: every copy
// holds its own subquery rows, meeting the subquery's conditions, and
// (IN) its output equal to the left operand — the conjunct TRUE in each
// copy, as one more condition of the copy (its FALSE formula "false": it
// is never flipped). Without it, the null aggregate, LIMIT, boundary and
// output-condition goals left the conjunct to the draws, and with two
// filters in the subquery the draws rarely meet it (COUNT(r.stars) vs
// COUNT(*) beside `r.critic IN (SELECT director … WHERE genre = 'Wuxia'
// AND movie_id > 7)`). Its goals read back the subquery's rows too.
func (cv *Cover) subqueryFrame(c *Canon, cc coverCore) func(n int) *coverScript {
	for i, x := range cc.conds {
		if !positive(x) {
			continue
		}
		e, st := subqueryOf(x)
		sq := plainSubquery(c, st, e != nil)
		if sq == nil {
			continue
		}
		merged := withSubquery(c, cc, i, sq)
		if e != nil {
			// The IN's match must encode: tried on a scratch Cover.
			if _, ok := inMatch((&Cover{}).encode(c, merged, 1), c, e, sq, 0); !ok {
				continue
			}
		}
		return func(n int) *coverScript {
			cs := cv.encode(c, merged, n)
			for k := range n {
				m := "true"
				if e != nil {
					f, _ := inMatch(cs, c, e, sq, k)
					m = f.match
				}
				cs.preds[k] = append(cs.preds[k], pred{t: m, f: "false"})
			}
			cs.src = append(cs.src, x)
			if e != nil {
				cv.markReads(cs, c, n, e, sq.Columns[0].Expr)
			}
			return cs
		}
	}
	return nil
}

package spider

// AllLevels is the name of the all-levels column of the official table.
const AllLevels = "all"

// LevelScores are the exact-match and partial-match sums of one hardness
// level (one column of the official table).
type LevelScores struct {
	// Count is the number of items; ExactSum the number exactly matched.
	Count, ExactSum    int
	acc, rec           [NumComponents]int
	accCount, recCount [NumComponents]int
}

// Table accumulates grades into the official per-level table of
// evaluation.evaluate (exact match and the partial-match accuracy, recall
// and F1 of each component, for easy, medium, hard, extra and all). The
// zero value is ready to use; it is not safe for concurrent use.
type Table struct {
	levels map[string]*LevelScores
}

// Add records one item of the given hardness level (also under "all").
func (t *Table) Add(hardness string, exact bool, p Partial) {
	if t.levels == nil {
		t.levels = map[string]*LevelScores{}
	}
	for _, l := range []string{hardness, AllLevels} {
		s := t.levels[l]
		if s == nil {
			s = &LevelScores{}
			t.levels[l] = s
		}
		s.Count++
		if exact {
			s.ExactSum++
		}
		for c, sc := range p {
			if sc.PredTotal > 0 {
				s.acc[c] += sc.Match
				s.accCount[c]++
			}
			if sc.LabelTotal > 0 {
				s.rec[c] += sc.Match
				s.recCount[c]++
			}
		}
	}
}

// Level returns the sums of a level ("easy" ... "extra", or "all"); the
// zero LevelScores if nothing was added there.
func (t *Table) Level(level string) LevelScores {
	if s := t.levels[level]; s != nil {
		return *s
	}
	return LevelScores{}
}

// Exact is the level's exact-match accuracy (0 for an empty level).
func (s LevelScores) Exact() float64 {
	if s.Count == 0 {
		return 0
	}
	return float64(s.ExactSum) / float64(s.Count)
}

// Partial returns a component's accuracy (mean over items whose
// prediction has the component), recall (mean over items whose gold has
// it) and F1 of the two, as evaluation.evaluate computes them: 0 for an
// empty mean, and F1 1 where both are 0.
func (s LevelScores) Partial(c Component) (acc, rec, f1 float64) {
	if s.accCount[c] > 0 {
		acc = float64(s.acc[c]) / float64(s.accCount[c])
	}
	if s.recCount[c] > 0 {
		rec = float64(s.rec[c]) / float64(s.recCount[c])
	}
	if acc == 0 && rec == 0 {
		return acc, rec, 1
	}
	return acc, rec, 2 * acc * rec / (acc + rec)
}

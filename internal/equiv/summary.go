package equiv

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine"
)

// Summary is OUT/summary.json: the run's settings, the pairs per verdict,
// the pairs both proved and refuted (Disagreements: Unknown with
// ReasonDisagree, a bug to report), the prover's SMT solver (its version
// line, "none" when Z3 was not found, "off" with --no-proof), the pairs
// whose search or shrinking the time budget ended before its
// cap (BudgetExhausted: their records may differ from run to run; the
// others are the same bytes on every machine), the witness sizes (rows)
// and the time per pair decided in this run (resumed pairs have no time).
//
//	{"pairs": 397, "resumed": 0, "engine": "postgres", "seed": 1, "budget": "1m0s",
//	 "max_databases": 600, "max_shrink_steps": 500,
//	 "verdicts": {"inequivalent": 120, "equivalent_proved": 200, "equivalent_bounded": 70, "unknown": 7},
//	 "disagreements": 0, "proved_up_to_ties": 4, "solver": "Z3 version 4.8.12 - 64 bit",
//	 "budget_exhausted": 0,
//	 "witness_rows": {"median": 2, "max": 6},
//	 "rests_on": {"null": 60, "empty_table": 12, "duplicates": 5, "value": 40, "arity": 3},
//	 "witness_phases": {"empty": 12, "small": 90, "solver": 10, "random": 8},
//	 "time_ms": {"median": 310, "p95": 4200, "total": 91000}}
//
// RestsOn counts the witnesses by what they rest on (Witness.RestsOn; a
// witness resting on two kinds counts under both), WitnessPhases by the
// phase of the search that found them (Witness.Phase). ProvedUpToTies
// counts the equivalent_proved pairs whose proof holds up to ties
// (Certificate.Ties: the same results allowed, each query's choice among
// rows that tie on its ORDER BY keys its engine's). Assume is the
// assumption mode (AssumeDeclared unless --assume observed).
type Summary struct {
	Pairs           int             `json:"pairs"`
	Resumed         int             `json:"resumed"`
	Engine          string          `json:"engine"`
	Seed            int64           `json:"seed"`
	Budget          string          `json:"budget"`
	MaxDatabases    int             `json:"max_databases"`
	MaxShrinkSteps  int             `json:"max_shrink_steps"`
	Verdicts        map[Verdict]int `json:"verdicts"`
	Disagreements   int             `json:"disagreements"`
	ProvedUpToTies  int             `json:"proved_up_to_ties"`
	Solver          string          `json:"solver"`
	BudgetExhausted int             `json:"budget_exhausted"`
	WitnessRows     Spread          `json:"witness_rows"`
	RestsOn         map[RestsOn]int `json:"rests_on"`
	WitnessPhases   map[string]int  `json:"witness_phases"`
	Assume          Assume          `json:"assume"`
	TimeMS          Spread          `json:"time_ms"`
}

// Spread is the median, 95th percentile, maximum and total of a list of
// numbers (0 for an empty list).
type Spread struct {
	Median float64 `json:"median"`
	P95    float64 `json:"p95"`
	Max    float64 `json:"max"`
	Total  float64 `json:"total"`
}

// spread computes a Spread; percentiles by the nearest-rank method.
func spread(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := func(p float64) float64 {
		k := int(p*float64(len(s))+0.999999) - 1
		return s[max(0, min(k, len(s)-1))]
	}
	total := 0.0
	for _, x := range s {
		total += x
	}
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Spread{Median: med, P95: rank(0.95), Max: s[len(s)-1], Total: total}
}

func summarize(o CommandOptions, d engine.Dialect, recs []Record, times []time.Duration, resumed int, _ time.Duration) Summary {
	sum := Summary{Pairs: len(recs), Resumed: resumed, Engine: string(d), Seed: o.Seed, Budget: o.Budget.String(),
		MaxDatabases: o.MaxDatabases, MaxShrinkSteps: o.MaxShrinkSteps, Verdicts: map[Verdict]int{},
		RestsOn: map[RestsOn]int{}, WitnessPhases: map[string]int{}, Assume: o.Assume}
	for _, v := range Verdicts {
		sum.Verdicts[v] = 0
	}
	var rows []float64
	for _, r := range recs {
		sum.Verdicts[r.Verdict]++
		if r.Reason == ReasonDisagree {
			sum.Disagreements++
		}
		if r.Verdict == EquivalentProved && r.Proof != nil && r.Proof.Ties {
			sum.ProvedUpToTies++
		}
		if r.Search.BudgetExhausted {
			sum.BudgetExhausted++
		}
		if r.Witness != nil {
			rows = append(rows, float64(r.Witness.Rows))
			for _, k := range r.Witness.RestsOn {
				sum.RestsOn[k]++
			}
			if r.Witness.Phase != "" {
				sum.WitnessPhases[r.Witness.Phase]++
			}
		}
	}
	sum.WitnessRows = spread(rows)
	var ms []float64
	for _, t := range times {
		ms = append(ms, float64(t.Milliseconds()))
	}
	sum.TimeMS = spread(ms)
	return sum
}

// print writes the console table.
func (s Summary) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "verdict\tpairs\t\n")
	for _, v := range Verdicts {
		fmt.Fprintf(tw, "%s\t%d\t\n", v, s.Verdicts[v])
	}
	fmt.Fprintf(tw, "total\t%d\t\n", s.Pairs)
	tw.Flush()
	if n := s.Verdicts[Inequivalent]; n > 0 {
		fmt.Fprintf(w, "witness rows: median %g, max %g (of %d witnesses)\n", s.WitnessRows.Median, s.WitnessRows.Max, n)
	} else {
		// "median 0, max 0" would read as witnesses of no rows.
		fmt.Fprintln(w, "witness rows: no witness (no pair inequivalent)")
	}
	if s.Verdicts[Inequivalent] > 0 {
		fmt.Fprintf(w, "witnesses rest on (assume %s): %s\n", s.Assume, restsOnLine(s.RestsOn))
		fmt.Fprintf(w, "witnesses found by phase: %s\n", phasesLine(s.WitnessPhases))
	}
	if s.Disagreements > 0 {
		fmt.Fprintf(w, "INTERNAL ERROR: %d pairs both proved and refuted (unknown, reason %q): please report them\n", s.Disagreements, ReasonDisagree)
	}
	if s.Verdicts[EquivalentProved] > 0 || s.Solver == "none" {
		fmt.Fprintf(w, "proofs: %d pairs proved equivalent on every database (solver: %s); their search ran to %d databases only\n", s.Verdicts[EquivalentProved], s.Solver, min(TripwireDatabases, s.MaxDatabases))
		if s.ProvedUpToTies > 0 {
			fmt.Fprintf(w, "proofs up to ties: %d of them (proof.ties): the same results allowed, but which rows that tie on the ORDER BY keys each query returns is the engine's choice\n", s.ProvedUpToTies)
		}
	}
	if s.BudgetExhausted > 0 {
		fmt.Fprintf(w, "budget ended the search of %d pairs before its cap of %d databases (or their shrinking): their records may differ from run to run (search.budget_exhausted)\n", s.BudgetExhausted, s.MaxDatabases)
	}
	fmt.Fprintf(w, "time per pair: median %gms, p95 %gms (%d pairs decided now, %d resumed; engine %s, seed %d, budget %s)\n",
		s.TimeMS.Median, s.TimeMS.P95, s.Pairs-s.Resumed, s.Resumed, s.Engine, s.Seed, s.Budget)
}

// phasesLine writes witness counts by phase, in the search's order
// (PhaseNames), leaving out phases with none: "small 40, solver 3".
func phasesLine(counts map[string]int) string {
	var parts []string
	for _, k := range PhaseNames {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
		}
	}
	if len(parts) == 0 {
		return "none recorded"
	}
	return strings.Join(parts, ", ")
}

// restsOnLine writes counts by kind, in RestsOnKinds order, leaving out
// kinds with none: "null 60, empty_table 12, value 40".
func restsOnLine(counts map[RestsOn]int) string {
	var parts []string
	for _, k := range RestsOnKinds {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
		}
	}
	if len(parts) == 0 {
		return "none recorded"
	}
	return strings.Join(parts, ", ")
}

package equiv

import "slices"

// Verdict is the answer for a pair of queries, a closed set (like
// status.Status): Inequivalent, EquivalentBounded or Unknown.
type Verdict string

// The verdicts of Decide.
const (
	// Inequivalent: a database satisfying the schema's constraints tells
	// the two queries apart; the Outcome carries it as a Witness.
	Inequivalent Verdict = "inequivalent"
	// EquivalentBounded: no database the search tried told them apart;
	// the Outcome's Search says what was tried. It is no proof.
	EquivalentBounded Verdict = "equivalent_bounded"
	// Unknown: the pair could not be searched; the Outcome's Reason says
	// why (a schema that does not parse, a query that fails everywhere).
	Unknown Verdict = "unknown"
)

// Verdicts lists every verdict, in the order summaries show them.
var Verdicts = []Verdict{Inequivalent, EquivalentBounded, Unknown}

// Valid reports whether v is one of Verdicts.
func (v Verdict) Valid() bool { return slices.Contains(Verdicts, v) }

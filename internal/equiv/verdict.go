package equiv

import "slices"

// Verdict is the answer for a pair of queries, a closed set (like
// status.Status): Inequivalent, EquivalentProved, EquivalentBounded or
// Unknown.
type Verdict string

// The verdicts of Decide.
const (
	// Inequivalent: a database satisfying the schema's constraints tells
	// the two queries apart; the Outcome carries it as a Witness.
	Inequivalent Verdict = "inequivalent"
	// EquivalentProved: the two queries return the same result on every
	// database satisfying the schema, under the pair's rule; the Outcome
	// carries the Proof (a certificate package check re-checks), and the
	// search still ran, at a reduced cap (TripwireDatabases), and found no
	// witness.
	EquivalentProved Verdict = "equivalent_proved"
	// EquivalentBounded: no database the search tried told them apart;
	// the Outcome's Search says what was tried. It is no proof.
	EquivalentBounded Verdict = "equivalent_bounded"
	// Unknown: the pair could not be searched; the Outcome's Reason says
	// why (a schema that does not parse, a query that fails everywhere).
	Unknown Verdict = "unknown"
)

// Verdicts lists every verdict, in the order summaries show them.
var Verdicts = []Verdict{Inequivalent, EquivalentProved, EquivalentBounded, Unknown}

// ReasonDisagree is the reason of an Unknown verdict for a pair both
// proved and refuted: a bug of the prover, the kernel or the search, never
// reported as either verdict.
const ReasonDisagree = "internal: proof and witness disagree"

// Valid reports whether v is one of Verdicts.
func (v Verdict) Valid() bool { return slices.Contains(Verdicts, v) }

package spider

import (
	"errors"
	"fmt"
	"strings"
)

// Grade is the official evaluator's judgement of one prediction against
// one gold query (the exact-match part of evaluation.evaluate).
type Grade struct {
	// Exact is the exact set match verdict.
	Exact bool
	// Hardness is the gold query's level: easy, medium, hard or extra.
	Hardness string
	// Partial are the ten component scores.
	Partial Partial
	// PredParsed is false where the prediction was scored as the empty
	// query: the official parser rejects it, or (in the official run) the
	// evaluator would raise on it after parsing (PredErr wraps
	// ErrOfficialCrash then).
	PredParsed bool
	// PredErr says why the prediction was not parsed; nil if it was.
	PredErr error
}

// PrepareOfficial returns the prediction as evaluation.evaluate hands it
// to the parser: every "value" replaced with "1" (for systems that predict
// value placeholders; the official code also rewrites identifiers holding
// the lower-case word).
func PrepareOfficial(pred string) string { return strings.ReplaceAll(pred, "value", "1") }

// GradeOfficial grades pred against gold on schema s as the official
// evaluator does with its defaults (values ignored, DISTINCT disabled):
// the gold is parsed (an error if the official parser cannot read it: the
// official run would stop) and its hardness taken; the prediction, after
// PrepareOfficial, is parsed or else replaced by the empty query; both are
// rebuilt (Rebuild) and compared (ExactMatch).
func GradeOfficial(s *Schema, gold, pred string) (Grade, error) {
	g, err := ParseOfficial(s, gold)
	if err != nil {
		return Grade{}, fmt.Errorf("gold: %w", err)
	}
	p, perr := ParseOfficial(s, PrepareOfficial(pred))
	return grade(s, g, p, perr)
}

// GradeParsed grades two structures built by any reader (ParseOfficial or
// FromAST) as GradeOfficial does: hardness from gold, then Rebuild and
// ExactMatch. A nil pred with a non-nil predErr is graded as the empty
// query.
func GradeParsed(s *Schema, gold, pred *SQL, predErr error) (Grade, error) {
	if gold == nil {
		return Grade{}, fmt.Errorf("gold: no query")
	}
	return grade(s, gold, pred, predErr)
}

func grade(s *Schema, g, p *SQL, perr error) (Grade, error) {
	var out Grade
	h, err := HardnessOf(g)
	if err != nil {
		return Grade{}, fmt.Errorf("gold hardness: %w", err)
	}
	out.Hardness = h
	rg, err := Rebuild(s, g)
	if err != nil {
		return Grade{}, fmt.Errorf("gold: %w", err)
	}
	if p == nil && perr == nil {
		perr = errors.New("no prediction")
	}
	var rp *SQL
	if perr == nil {
		rp, perr = Rebuild(s, p)
	}
	if perr == nil {
		out.Exact, out.Partial, perr = ExactMatch(rp, rg)
	}
	if perr != nil {
		out.PredErr = perr
		rp, _ = Rebuild(s, &SQL{})
		out.Exact, out.Partial, err = ExactMatch(rp, rg)
		if err != nil {
			return Grade{}, fmt.Errorf("gold: %w", err)
		}
		return out, nil
	}
	out.PredParsed = true
	return out, nil
}

// Package stats measures how well a metric agrees with human labels:
// the confusion matrix, Cohen's kappa, accuracy, Matthews correlation and
// F1, each with a seeded percentile-bootstrap 95% interval.
//
// It follows ROSE's analyze.py (CedricPei/ROSE, analyze_results_for_dir),
// which reports these four numbers and the confusion matrix against expert
// labels, computing kappa with scikit-learn's cohen_kappa_score. "Positive"
// is correct = true; the human label is the truth and the metric's verdict
// the prediction. Undefined values follow scikit-learn: kappa is NaN when
// chance agreement is 1 (both raters give one and the same class to every
// item: 0/0), MCC is 0 when a marginal is empty, F1 is 0 when there is no
// positive on either side.
package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
)

// Confusion is a 2x2 confusion matrix of counts.
type Confusion struct {
	// TP: label true, verdict true. FP: label false, verdict true.
	// FN: label true, verdict false. TN: label false, verdict false.
	TP int `json:"tp"`
	FP int `json:"fp"`
	FN int `json:"fn"`
	TN int `json:"tn"`
}

// Count tallies pairs of (label, verdict); the slices have equal length.
func Count(labels, verdicts []bool) Confusion {
	var c Confusion
	for i, l := range labels {
		c.add(l, verdicts[i])
	}
	return c
}

func (c *Confusion) add(label, verdict bool) {
	switch {
	case label && verdict:
		c.TP++
	case !label && verdict:
		c.FP++
	case label && !verdict:
		c.FN++
	default:
		c.TN++
	}
}

// N is the number of items.
func (c Confusion) N() int { return c.TP + c.FP + c.FN + c.TN }

// Accuracy is (TP+TN)/N; NaN when N is 0.
func (c Confusion) Accuracy() float64 {
	if c.N() == 0 {
		return math.NaN()
	}
	return float64(c.TP+c.TN) / float64(c.N())
}

// Kappa is Cohen's kappa, (po - pe) / (1 - pe), with po the observed
// agreement and pe the agreement expected by chance from the two raters'
// marginals (scikit-learn cohen_kappa_score, unweighted). It is NaN when
// N is 0 or pe is 1.
func (c Confusion) Kappa() float64 {
	n := float64(c.N())
	if n == 0 {
		return math.NaN()
	}
	po := float64(c.TP+c.TN) / n
	pe := (float64(c.TP+c.FP)*float64(c.TP+c.FN) + float64(c.FN+c.TN)*float64(c.FP+c.TN)) / (n * n)
	if pe == 1 {
		return math.NaN()
	}
	return (po - pe) / (1 - pe)
}

// MCC is Matthews' correlation coefficient,
// (TP*TN - FP*FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN)); 0 when the
// denominator is 0 (scikit-learn matthews_corrcoef; ROSE analyze.py).
func (c Confusion) MCC() float64 {
	den := float64(c.TP+c.FP) * float64(c.TP+c.FN) * float64(c.TN+c.FP) * float64(c.TN+c.FN)
	if den == 0 {
		return 0
	}
	return (float64(c.TP)*float64(c.TN) - float64(c.FP)*float64(c.FN)) / math.Sqrt(den)
}

// F1 is the harmonic mean of precision and recall of the positive class,
// 2TP / (2TP + FP + FN); 0 when TP is 0 (ROSE analyze.py; scikit-learn's
// f1_score with zero_division=0).
func (c Confusion) F1() float64 {
	if c.TP == 0 {
		return 0
	}
	return 2 * float64(c.TP) / float64(2*c.TP+c.FP+c.FN)
}

// Interval is a two-sided confidence interval; both ends are NaN when no
// resample had a defined value.
type Interval struct {
	Lo, Hi float64
}

// MarshalJSON writes [lo, hi], with null for NaN.
func (iv Interval) MarshalJSON() ([]byte, error) {
	return json.Marshal([2]*float64{num(iv.Lo), num(iv.Hi)})
}

// Estimate is a value with its bootstrap interval.
type Estimate struct {
	Value float64
	CI    Interval
}

// MarshalJSON writes {"value": v, "ci95": [lo, hi]}, with null for NaN.
func (e Estimate) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Value *float64 `json:"value"`
		CI    Interval `json:"ci95"`
	}{num(e.Value), e.CI})
}

func num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// Agreement is a metric's agreement with human labels over N items.
type Agreement struct {
	N         int       `json:"n"`
	Confusion Confusion `json:"confusion"`
	// ConfusionCI holds the 95% interval of each cell count, by
	// "tp", "fp", "fn", "tn".
	ConfusionCI map[string]Interval `json:"confusion_ci95"`
	Kappa       Estimate            `json:"kappa"`
	Accuracy    Estimate            `json:"accuracy"`
	MCC         Estimate            `json:"mcc"`
	F1          Estimate            `json:"f1"`
}

// Agree computes the agreement of verdicts with labels (equal lengths),
// with 95% percentile-bootstrap intervals from resamples draws of the items
// with replacement. The draws come from a PCG generator seeded with seed,
// so equal inputs and seed give equal output. A resample where a
// statistic is undefined (kappa's 0/0) is left out of that statistic's
// interval.
func Agree(labels, verdicts []bool, resamples int, seed uint64) Agreement {
	c := Count(labels, verdicts)
	a := Agreement{N: c.N(), Confusion: c}
	cs := Resample(labels, verdicts, resamples, seed)
	a.Kappa = Estimate{c.Kappa(), CI95(cs, Confusion.Kappa)}
	a.Accuracy = Estimate{c.Accuracy(), CI95(cs, Confusion.Accuracy)}
	a.MCC = Estimate{c.MCC(), CI95(cs, Confusion.MCC)}
	a.F1 = Estimate{c.F1(), CI95(cs, Confusion.F1)}
	a.ConfusionCI = map[string]Interval{
		"tp": CI95(cs, func(c Confusion) float64 { return float64(c.TP) }),
		"fp": CI95(cs, func(c Confusion) float64 { return float64(c.FP) }),
		"fn": CI95(cs, func(c Confusion) float64 { return float64(c.FN) }),
		"tn": CI95(cs, func(c Confusion) float64 { return float64(c.TN) }),
	}
	return a
}

// Resample draws n bootstrap resamples of the pairs (each as many items as
// the input, drawn with replacement by a PCG generator seeded with seed)
// and returns their confusion matrices. It returns nil for no items.
func Resample(labels, verdicts []bool, n int, seed uint64) []Confusion {
	if len(labels) == 0 || n <= 0 {
		return nil
	}
	rng := newRand(seed)
	out := make([]Confusion, n)
	m := len(labels)
	for b := range out {
		var c Confusion
		for range m {
			i := rng.IntN(m)
			c.add(labels[i], verdicts[i])
		}
		out[b] = c
	}
	return out
}

// newRand is the PCG generator of the bootstrap draws, seeded with seed.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed_5c0de)) }

// interval95 sorts vs in place and returns its 2.5th and 97.5th
// percentiles.
func interval95(vs []float64) Interval {
	slices.Sort(vs)
	return Interval{Percentile(vs, 2.5), Percentile(vs, 97.5)}
}

// CI95 is the 2.5th and 97.5th percentiles of stat over the resamples
// (linear interpolation between order statistics, numpy's default),
// skipping NaN values.
func CI95(cs []Confusion, stat func(Confusion) float64) Interval {
	vs := make([]float64, 0, len(cs))
	for _, c := range cs {
		if v := stat(c); !math.IsNaN(v) {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return Interval{math.NaN(), math.NaN()}
	}
	return interval95(vs)
}

// Percentile returns the p-th percentile (0..100) of sorted values with
// linear interpolation: position (n-1)*p/100 (numpy.percentile's
// "linear" method). It returns NaN for no values.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	pos := float64(n-1) * p / 100
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	if lo == hi {
		return sorted[lo]
	}
	return sorted[lo] + (pos-float64(lo))*(sorted[hi]-sorted[lo])
}

// BootstrapMeanCI95 is the 95% percentile-bootstrap interval of the mean
// of xs: resamples draws of len(xs) values with replacement from a PCG
// generator seeded with seed (equal inputs and seed give equal output),
// the 2.5th and 97.5th percentiles of their means (see Percentile). Both
// ends are NaN for no values or no resamples.
func BootstrapMeanCI95(xs []float64, resamples int, seed uint64) Interval {
	if len(xs) == 0 || resamples <= 0 {
		return Interval{math.NaN(), math.NaN()}
	}
	rng := newRand(seed)
	means := make([]float64, resamples)
	m := len(xs)
	for b := range means {
		s := 0.0
		for range m {
			s += xs[rng.IntN(m)]
		}
		means[b] = s / float64(m)
	}
	return interval95(means)
}

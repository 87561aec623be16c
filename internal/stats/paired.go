package stats

import "math"

// Paired compares two systems graded on the same items: a[i] and b[i]
// are whether system A and system B got item i right.
type Paired struct {
	// N is the number of paired items.
	N int `json:"n"`
	// BothRight, OnlyA, OnlyB and BothWrong count the items by outcome;
	// OnlyA and OnlyB are McNemar's discordant pairs.
	BothRight int `json:"both_right"`
	OnlyA     int `json:"only_a"`
	OnlyB     int `json:"only_b"`
	BothWrong int `json:"both_wrong"`
	// AccuracyA and AccuracyB are the shares right (NaN for no items).
	AccuracyA float64 `json:"accuracy_a"`
	AccuracyB float64 `json:"accuracy_b"`
	// Diff is AccuracyA - AccuracyB with its paired percentile-bootstrap
	// 95% interval (see PairedBootstrapCI95).
	Diff Estimate `json:"diff"`
	// McNemarP is the two-sided p-value of McNemar's exact test
	// (McNemarExact); 1 when no pair is discordant.
	McNemarP float64 `json:"mcnemar_p"`
}

// ComparePaired tallies a and b (equal lengths) and computes the
// difference of accuracies with its paired bootstrap interval
// (resamples draws, PCG seeded with seed) and McNemar's exact p-value.
func ComparePaired(a, b []bool, resamples int, seed uint64) Paired {
	p := Paired{N: len(a)}
	for i := range a {
		switch {
		case a[i] && b[i]:
			p.BothRight++
		case a[i]:
			p.OnlyA++
		case b[i]:
			p.OnlyB++
		default:
			p.BothWrong++
		}
	}
	p.AccuracyA, p.AccuracyB = math.NaN(), math.NaN()
	if p.N > 0 {
		p.AccuracyA = float64(p.BothRight+p.OnlyA) / float64(p.N)
		p.AccuracyB = float64(p.BothRight+p.OnlyB) / float64(p.N)
	}
	p.Diff = Estimate{p.AccuracyA - p.AccuracyB, PairedBootstrapCI95(a, b, resamples, seed)}
	p.McNemarP = McNemarExact(p.OnlyA, p.OnlyB)
	return p
}

// PairedBootstrapCI95 is the 95% percentile-bootstrap interval of
// accuracy(a) - accuracy(b) over paired items: each resample draws
// len(a) item indices with replacement and takes both systems' verdicts
// of the same items (Koehn 2004, "Statistical significance tests for
// machine translation evaluation", paired bootstrap resampling). The
// difference of two shares over the same draw is the mean of the per-item
// differences (1, 0 or -1), so this is BootstrapMeanCI95 of those, with
// the same PCG generator: equal inputs and seed give equal output. Both
// ends are NaN for no items or no resamples.
func PairedBootstrapCI95(a, b []bool, resamples int, seed uint64) Interval {
	d := make([]float64, len(a))
	for i := range a {
		d[i] = b2f(a[i]) - b2f(b[i])
	}
	return BootstrapMeanCI95(d, resamples, seed)
}

func b2f(x bool) float64 {
	if x {
		return 1
	}
	return 0
}

// McNemarExact is the two-sided p-value of McNemar's exact test on the
// discordant pairs: onlyA items only A gets right and onlyB items only B
// gets right. Under the null hypothesis each discordant pair is A's with
// probability 1/2, so the p-value is the two-sided binomial test of
// min(onlyA, onlyB) successes in n = onlyA + onlyB trials at p = 1/2:
// min(1, 2 * P[X <= min(onlyA, onlyB)]) (statsmodels
// mcnemar(exact=True); equal to scipy.stats.binomtest(k, n, 0.5)
// .pvalue, as the distribution is symmetric). It is 1 when n is 0. The
// largest term comes from math.Lgamma and the tail from the ratio of
// successive terms, so it holds for any n without overflow.
func McNemarExact(onlyA, onlyB int) float64 {
	n := onlyA + onlyB
	k := min(onlyA, onlyB)
	if n == 0 || 2*k == n {
		return 1
	}
	lgN1, _ := math.Lgamma(float64(n + 1))
	lgK1, _ := math.Lgamma(float64(k + 1))
	lgNK1, _ := math.Lgamma(float64(n - k + 1))
	// P[X = k], then down the tail by P[X = i-1] = P[X = i] * i / (n-i+1),
	// from the largest term, so the small ones add to it exactly.
	t := math.Exp(lgN1 - lgK1 - lgNK1 - float64(n)*math.Ln2)
	sum := 0.0
	for i := k; i >= 0 && t >= sum*1e-17; i-- {
		sum += t
		t *= float64(i) / float64(n-i+1)
	}
	return min(1, 2*sum)
}

package stats_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/sqljudge/sqljudge/internal/stats"
)

// pairs expands a confusion matrix into label and verdict slices.
func pairs(c stats.Confusion) (labels, verdicts []bool) {
	add := func(n int, l, v bool) {
		for range n {
			labels = append(labels, l)
			verdicts = append(verdicts, v)
		}
	}
	add(c.TP, true, true)
	add(c.FP, false, true)
	add(c.FN, true, false)
	add(c.TN, false, false)
	return
}

func near(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) < 1e-9
}

// Expected values are worked by hand in the comments.
func TestHandComputed(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		c                     stats.Confusion
		kappa, mcc, f1, accur float64
	}{
		// n=50, po=35/50=0.7, pe=(25*30+25*20)/2500=0.5, kappa=0.2/0.5;
		// MCC=(300-50)/sqrt(25*30*20*25)=250/sqrt(375000); F1=40/55.
		{"mixed", stats.Confusion{TP: 20, FP: 5, FN: 10, TN: 15}, 0.4, 250 / math.Sqrt(375000), 40.0 / 55, 0.7},
		// Perfect agreement on both classes.
		{"perfect", stats.Confusion{TP: 3, TN: 2}, 1, 1, 1, 1},
		// Total disagreement: po=0, pe=(2*3+3*2)/25=0.48, kappa=-0.48/0.52;
		// MCC=(0-6)/sqrt(2*3*2*3)=-1; no TP so F1=0.
		{"total disagreement", stats.Confusion{FP: 2, FN: 3}, -0.48 / 0.52, -1, 0, 0},
		{"total disagreement, balanced", stats.Confusion{FP: 5, FN: 5}, -1, -1, 0, 0},
		// All one class on both sides: pe=1, kappa is 0/0 (NaN, as
		// scikit-learn); MCC's denominator is 0 so 0; F1 = 2*4/(2*4) = 1.
		{"all correct, all agree", stats.Confusion{TP: 4}, math.NaN(), 0, 1, 1},
		{"all wrong, all agree", stats.Confusion{TN: 4}, math.NaN(), 0, 0, 1},
		// Labels all true, verdicts mixed: po=0.6, pe=(3*5+2*0)/25=0.6,
		// kappa 0; MCC 0 (an empty marginal); F1=6/8.
		{"labels one class", stats.Confusion{TP: 3, FN: 2}, 0, 0, 0.75, 0.6},
		// Verdicts all true (a metric that accepts everything): TP=6, FP=4:
		// po=0.6, pe=(10*6+0*4)/100=0.6, kappa 0; F1=12/16.
		{"verdicts one class", stats.Confusion{TP: 6, FP: 4}, 0, 0, 0.75, 0.6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, v := pairs(tc.c)
			c := stats.Count(l, v)
			if c != tc.c {
				t.Fatalf("Count = %+v, want %+v", c, tc.c)
			}
			if !near(c.Kappa(), tc.kappa) {
				t.Errorf("kappa %v, want %v", c.Kappa(), tc.kappa)
			}
			if !near(c.MCC(), tc.mcc) {
				t.Errorf("MCC %v, want %v", c.MCC(), tc.mcc)
			}
			if !near(c.F1(), tc.f1) {
				t.Errorf("F1 %v, want %v", c.F1(), tc.f1)
			}
			if !near(c.Accuracy(), tc.accur) {
				t.Errorf("accuracy %v, want %v", c.Accuracy(), tc.accur)
			}
		})
	}
	var empty stats.Confusion
	if !math.IsNaN(empty.Kappa()) || !math.IsNaN(empty.Accuracy()) || empty.MCC() != 0 || empty.F1() != 0 {
		t.Error("no items: kappa and accuracy must be NaN, MCC and F1 0")
	}
}

func TestPercentile(t *testing.T) {
	if p := stats.Percentile([]float64{1, 2, 3, 4}, 50); p != 2.5 {
		t.Errorf("median of 1..4 = %v, want 2.5", p)
	}
	vs := make([]float64, 101)
	for i := range vs {
		vs[i] = float64(i)
	}
	if lo, hi := stats.Percentile(vs, 2.5), stats.Percentile(vs, 97.5); lo != 2.5 || hi != 97.5 {
		t.Errorf("0..100: %v, %v", lo, hi)
	}
	if !math.IsNaN(stats.Percentile(nil, 50)) {
		t.Error("no values must give NaN")
	}
}

func TestBootstrapSeededAndSensible(t *testing.T) {
	l, v := pairs(stats.Confusion{TP: 40, FP: 10, FN: 12, TN: 38})
	a := stats.Agree(l, v, 500, 42)
	b := stats.Agree(l, v, 500, 42)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Fatal("same seed, different output")
	}
	c := stats.Agree(l, v, 500, 43)
	jc, _ := json.Marshal(c)
	if string(jc) == string(ja) {
		t.Fatal("another seed gave identical intervals")
	}
	for name, e := range map[string]stats.Estimate{"kappa": a.Kappa, "mcc": a.MCC, "f1": a.F1, "accuracy": a.Accuracy} {
		if !(e.CI.Lo < e.Value && e.Value < e.CI.Hi) {
			t.Errorf("%s %v outside its interval [%v, %v]", name, e.Value, e.CI.Lo, e.CI.Hi)
		}
		if e.CI.Hi-e.CI.Lo > 0.5 {
			t.Errorf("%s interval [%v, %v] is implausibly wide for 100 items", name, e.CI.Lo, e.CI.Hi)
		}
	}
	tp := a.ConfusionCI["tp"]
	if !(tp.Lo < 40 && 40 < tp.Hi) {
		t.Errorf("TP interval %v", tp)
	}
	// Perfect agreement: every resample with both classes has kappa 1;
	// resamples of one class (0/0) are left out.
	l, v = pairs(stats.Confusion{TP: 5, TN: 5})
	p := stats.Agree(l, v, 200, 1)
	if p.Kappa.CI.Lo != 1 || p.Kappa.CI.Hi != 1 {
		t.Errorf("perfect agreement kappa interval %v", p.Kappa.CI)
	}
	// All one class: kappa has no defined resample, so null in JSON.
	l, v = pairs(stats.Confusion{TP: 6})
	one := stats.Agree(l, v, 50, 1)
	j, _ := json.Marshal(one.Kappa)
	if string(j) != `{"value":null,"ci95":[null,null]}` {
		t.Errorf("undefined kappa encodes as %s", j)
	}
}

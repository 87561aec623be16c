package stats

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestMcNemarExactScipy checks McNemarExact against p-values computed
// independently with scipy.stats.binomtest (testdata/mcnemar_scipy.py).
func TestMcNemarExactScipy(t *testing.T) {
	f, err := os.Open("testdata/mcnemar_scipy.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	n := 0
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		a, _ := strconv.Atoi(fs[0])
		b, _ := strconv.Atoi(fs[1])
		want, err := strconv.ParseFloat(fs[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		got := McNemarExact(a, b)
		if math.Abs(got-want) > 1e-10*want { // math.Lgamma of n+1 rounds at ~1e-16 * n log n
			t.Errorf("McNemarExact(%d, %d) = %.17g, scipy %.17g", a, b, got, want)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("read %d cases", n)
	}
}

// TestComparePaired checks the tallies, accuracies, difference and the
// paired bootstrap interval on constructed verdicts.
func TestComparePaired(t *testing.T) {
	// 120 items: 58 both right, 12 only A, 30 only B (scipy's p for
	// 12 of 42 discordant pairs: 0.007915897334896727), 20 both wrong.
	var a, b []bool
	add := func(n int, x, y bool) {
		for range n {
			a, b = append(a, x), append(b, y)
		}
	}
	add(58, true, true)
	add(12, true, false)
	add(30, false, true)
	add(20, false, false)
	p := ComparePaired(a, b, 1000, 1)
	if p.N != 120 || p.BothRight != 58 || p.OnlyA != 12 || p.OnlyB != 30 || p.BothWrong != 20 {
		t.Fatalf("tally %+v", p)
	}
	if p.AccuracyA != 70.0/120 || p.AccuracyB != 88.0/120 || math.Abs(p.Diff.Value-(-18.0/120)) > 1e-15 {
		t.Errorf("accuracies %v %v diff %v", p.AccuracyA, p.AccuracyB, p.Diff.Value)
	}
	if math.Abs(p.McNemarP-0.007915897334896727) > 1e-15 {
		t.Errorf("McNemar p %v", p.McNemarP)
	}
	// The interval holds the difference and is about the normal
	// approximation's width, 2 * 1.96 * sd(d) / sqrt(n).
	lo, hi := p.Diff.CI.Lo, p.Diff.CI.Hi
	if !(lo < p.Diff.Value && p.Diff.Value < hi) || hi >= 0 {
		t.Errorf("interval [%v, %v] around %v", lo, hi, p.Diff.Value)
	}
	mean := -18.0 / 120
	sd := math.Sqrt(42.0/120 - mean*mean)
	if w, want := hi-lo, 2*1.96*sd/math.Sqrt(120); math.Abs(w-want) > 0.15*want {
		t.Errorf("interval width %v, normal approximation %v", w, want)
	}
	if q := ComparePaired(a, b, 1000, 1); q.Diff != p.Diff {
		t.Errorf("same seed, different interval: %v %v", q.Diff, p.Diff)
	}
	// Two identical runs differ by exactly 0 in every resample.
	if s := ComparePaired(a, a, 1000, 1); s.Diff.CI != (Interval{0, 0}) || s.McNemarP != 1 {
		t.Errorf("identical runs: %+v", s)
	}
	if e := ComparePaired(nil, nil, 1000, 1); e.N != 0 || !math.IsNaN(e.AccuracyA) || !math.IsNaN(e.Diff.CI.Lo) || e.McNemarP != 1 {
		t.Errorf("no items: %+v", e)
	}
}

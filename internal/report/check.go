package report

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/run"
)

// ErrStale is wrapped by CheckSummary's error: the summary.json of an
// output folder does not describe its results.jsonl (a run cut short after
// it replaced the records, a folder edited by hand).
var ErrStale = errors.New("summary.json does not match results.jsonl")

// CheckSummary checks that sum summarizes recs (an output folder's
// records, as read) and, when fp (the folder's fingerprint.json) is not
// nil, that it was written under fp's settings. It recounts the latest
// records and compares the item count and, per metric of
// sum, the graded and correct counts; then it compares the settings sum's
// run block records (version, --format, --db, --keep-distinct, --em-fixed,
// --max-rows, --max-bytes, --timeout, --suite, --plug-value) with fp's.
// An error wraps ErrStale and says what differs.
func CheckSummary(sum *Summary, recs []run.Record, fp *outdir.Fingerprint) error {
	latest := run.LatestInOrder(recs)
	if sum.Items != len(latest) {
		return fmt.Errorf("%w: it counts %d items, results.jsonl holds %d (a run cut short, or files from different runs); grade again with eval --resume or --overwrite", ErrStale, sum.Items, len(latest))
	}
	for _, m := range sum.Metrics {
		b := &Score{}
		for _, r := range latest {
			if v, ok := r.Verdicts[m]; ok {
				b.Count++
				if v.Correct {
					b.Correct++
				}
			}
		}
		if a := sum.Overall[m]; a == nil || a.Count != b.Count || a.Correct != b.Correct {
			return fmt.Errorf("%w: %s counts %s, results.jsonl gives %s; grade again with eval --resume or --overwrite", ErrStale, m, counts(a), counts(b))
		}
	}
	if fp == nil || sum.Run == nil {
		return nil
	}
	if d := runDiff(sum.Run, fp); len(d) > 0 {
		return fmt.Errorf("%w: the summary was written under other settings than fingerprint.json names:\n  %s\ngrade again with eval --resume or --overwrite", ErrStale, strings.Join(d, "\n  "))
	}
	return nil
}

// counts renders a score's "correct/count", "none" for no score.
func counts(s *Score) string {
	if s == nil {
		return "none"
	}
	return fmt.Sprintf("%d/%d correct", s.Correct, s.Count)
}

// runDiff lists the settings where run block ri and fingerprint fp
// disagree, "name: summary -> fingerprint"; fingerprints lacking a
// setting (older versions) are not held against the summary.
func runDiff(ri *RunInfo, fp *outdir.Fingerprint) []string {
	var out []string
	if fp.Version != ri.Version {
		out = append(out, fmt.Sprintf("sqljudge version: %s -> %s", ri.Version, fp.Version))
	}
	timeout := time.Duration(ri.TimeoutSeconds * float64(time.Second)).String()
	pairs := [][2]string{
		{"format", ri.Format}, {"db", ri.DB},
		{"max_rows", strconv.Itoa(ri.MaxRows)}, {"max_bytes", strconv.FormatInt(ri.MaxBytes, 10)},
		{"timeout", timeout}, {"suite", ri.Suite},
	}
	// The metrics' settings both blocks always hold under one key
	// (keep_distinct, em_fixed, plug_value), as each declares.
	for _, s := range metric.Settings() {
		if s.RunInfo != "" && s.RunInfo == s.Fingerprint && s.Record == metric.Always && s.RunInfoRecord == metric.Always && s.RunInfoValue == nil {
			if v, ok := ri.Setting(s.RunInfo); ok {
				pairs = append(pairs, [2]string{s.RunInfo, fmt.Sprint(v)})
			}
		}
	}
	for _, s := range pairs {
		if v, ok := fp.Settings[s[0]]; ok && v != s[1] {
			out = append(out, fmt.Sprintf("%s: %s -> %s", s[0], s[1], v))
		}
	}
	return out
}

// CheckFolder is CheckSummary for output folder dir: sum and recs as read
// from it, with dir/fingerprint.json when there is one (older folders
// have none: only the counts are checked).
func CheckFolder(dir string, sum *Summary, recs []run.Record) error {
	fp, err := outdir.ReadFingerprint(dir)
	if errors.Is(err, os.ErrNotExist) {
		fp, err = nil, nil
	}
	if err != nil {
		return err
	}
	if err := CheckSummary(sum, recs, fp); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	return nil
}

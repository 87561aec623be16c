package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/run"
)

// TestAuditMarksRecordsOnly grades the first 30 Spider dev items with ex,
// with and without --audit: the audited records of items 26 and 27 (2014
// and 2015 tie for the most concerts) carry a limit_ties gold hazard and
// items 14 and 15 (no stadium of that capacity) an empty one; every record is
// otherwise byte-identical to the run without --audit, and so are the
// summary's figures; the summary counts the marked items and says the run
// audited.
func TestAuditMarksRecordsOnly(t *testing.T) {
	plain := spiderOptions(t, 30)
	audited := plain
	audited.Out, audited.Audit = filepath.Join(t.TempDir(), "out"), true
	var sums [2]*report.Summary
	var recs [2][]run.Record
	for k, o := range []Options{plain, audited} {
		var err error
		if sums[k], err = Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		if recs[k], _, err = run.ReadRecords(filepath.Join(o.Out, run.ResultsFile)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range recs[1] {
		r := recs[1][i]
		want := map[int]string{14: "empty", 15: "empty", 26: "limit_ties", 27: "limit_ties"}[r.Index]
		if want == "" && len(r.GoldHazards) > 0 || want != "" && (len(r.GoldHazards) != 1 || r.GoldHazards[0].Kind != want) {
			t.Errorf("item %d: gold_hazards %+v, want %q", r.Index, r.GoldHazards, want)
		}
		r.GoldHazards = nil
		a, _ := json.Marshal(r)
		b, _ := json.Marshal(recs[0][i])
		if !bytes.Equal(a, b) {
			t.Errorf("item %d: the audited record differs beyond gold_hazards:\n%s\n%s", r.Index, a, b)
		}
	}
	if sums[0].Overall["ex"].Correct != sums[1].Overall["ex"].Correct || sums[0].GoldHazards != nil || sums[0].Run.Audit {
		t.Errorf("plain run: %+v %+v", sums[0].Overall["ex"], sums[0].GoldHazards)
	}
	if h := sums[1].GoldHazards; h == nil || h.Items != 4 || h.ByKind["limit_ties"] != 2 || !sums[1].Run.Audit {
		t.Errorf("audited summary: %+v", h)
	}
	fp, err := os.ReadFile(filepath.Join(audited.Out, "fingerprint.json"))
	if err != nil || !bytes.Contains(fp, []byte(`"audit": "true"`)) {
		t.Errorf("fingerprint: %s %v", fp, err)
	}
}

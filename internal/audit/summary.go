package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"

	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// Files an audit writes in its output folder.
const (
	FindingsFile = "findings.jsonl"
	SummaryFile  = "summary.json"
)

// SummarySchema names the layout of summary.json.
const SummarySchema = "sqljudge.audit/1"

// Summary is an audit's summary.json: the counts by kind, what could not
// be checked, the inputs and the settings. It holds nothing measured
// (no wall time), so that the same inputs and settings give the same bytes.
type Summary struct {
	Schema string `json:"schema"`
	// Items and Queries count the items and gold queries audited;
	// ItemsWithFindings the items with at least one finding.
	Items             int `json:"items"`
	Queries           int `json:"queries"`
	ItemsWithFindings int `json:"items_with_findings"`
	Findings          int `json:"findings"`
	// ByKind counts, for every kind, its findings and the items that have
	// one.
	ByKind map[Kind]KindCount `json:"by_kind"`
	// Unchecked counts the checks that did not run, by check and reason,
	// with the first items concerned.
	Unchecked []UncheckedCount `json:"unchecked"`
	Inputs    Inputs           `json:"inputs"`
	Settings  Settings         `json:"settings"`
}

// KindCount is the findings of one kind and the items they are on.
type KindCount struct {
	Findings int `json:"findings"`
	Items    int `json:"items"`
}

// UncheckedCount is how many gold queries a check did not run on for one
// reason, with the indexes of the first maxExamples items.
type UncheckedCount struct {
	Unchecked
	Queries int   `json:"queries"`
	Items   []int `json:"first_items"`
}

// maxExamples bounds the item indexes an UncheckedCount lists.
const maxExamples = 10

// Inputs are the files and databases audited.
type Inputs struct {
	Gold   string `json:"gold"`
	SHA256 string `json:"gold_sha256"`
	Format string `json:"format"`
	DB     string `json:"db"`
	Tables string `json:"tables,omitempty"`
	Engine string `json:"engine"`
}

// Settings are the audit's settings.
type Settings struct {
	Version        string  `json:"version"`
	TimeoutSeconds float64 `json:"timeout_seconds"`
	SlowRatio      float64 `json:"slow_ratio"`
	MaxEvidence    int     `json:"max_evidence"`
	TieWindow      int     `json:"tie_window"`
	MaxRows        int     `json:"max_rows"`
	MaxBytes       int64   `json:"max_bytes"`
	Workers        int     `json:"workers"`
	// Compare is the rule rows are compared by: "spider" (in order when
	// the gold says ORDER BY) or "unordered".
	Compare string `json:"compare"`
	// Expand says SQL-Eval's {a,b} column choices were expanded.
	Expand bool `json:"expand_column_choices"`
}

// Summarize counts reps (one per item, in item order).
func Summarize(reps []ItemReport, in Inputs, set Settings) *Summary {
	s := &Summary{Schema: SummarySchema, Items: len(reps), ByKind: map[Kind]KindCount{}, Inputs: in, Settings: set}
	for _, k := range Kinds {
		s.ByKind[k] = KindCount{}
	}
	unchecked := map[Unchecked]*UncheckedCount{}
	var order []Unchecked
	for _, r := range reps {
		s.Queries += r.Queries
		s.Findings += len(r.Findings)
		seen := map[Kind]bool{}
		for _, f := range r.Findings {
			c := s.ByKind[f.Kind]
			c.Findings++
			if !seen[f.Kind] {
				c.Items++
				seen[f.Kind] = true
			}
			s.ByKind[f.Kind] = c
		}
		if len(r.Findings) > 0 {
			s.ItemsWithFindings++
		}
		for _, u := range r.Unchecked {
			c := unchecked[u]
			if c == nil {
				c = &UncheckedCount{Unchecked: u}
				unchecked[u] = c
				order = append(order, u)
			}
			c.Queries++
			if len(c.Items) < maxExamples && !slices.Contains(c.Items, r.Index) {
				c.Items = append(c.Items, r.Index)
			}
		}
	}
	s.Unchecked = []UncheckedCount{}
	for _, u := range order {
		s.Unchecked = append(s.Unchecked, *unchecked[u])
	}
	return s
}

// CheckOut checks, before an audit, that dir can take its files: a
// folder (created if missing) without an earlier audit's findings.jsonl
// or summary.json unless overwrite. Errors are the user's input.
func CheckOut(dir string, overwrite bool) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return usage.Errorf("--out %s: not a folder (it is a file); name a folder for %s and %s", dir, FindingsFile, SummaryFile)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usage.Errorf("--out %s: cannot create the folder: %v", dir, errors.Unwrap(err))
	}
	for _, name := range []string{FindingsFile, SummaryFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil && !overwrite {
			return usage.Errorf("%w: %s holds an earlier audit; use --overwrite to replace it", outdir.ErrOutputExists, filepath.Join(dir, name))
		}
	}
	return nil
}

// Write writes dir/findings.jsonl (every finding of reps, one JSON object
// a line, in item order) and dir/summary.json, each atomically (a
// temporary file renamed over it), under the folder's lock.
func Write(dir string, reps []ItemReport, sum *Summary) error {
	unlock, err := outdir.Lock(dir)
	if err != nil {
		return usage.Error{Err: err}
	}
	defer unlock()
	err = outdir.WriteFile(filepath.Join(dir, FindingsFile), func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		for _, r := range reps {
			for _, f := range r.Findings {
				if err := enc.Encode(f); err != nil {
					return err
				}
			}
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", FindingsFile, err)
	}
	err = outdir.WriteFile(filepath.Join(dir, SummaryFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	})
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", SummaryFile, err)
	}
	return nil
}

// Print writes the console report: a table of findings and items by kind,
// then up to examples findings of each kind found (item, database, what),
// then the checks that did not run.
func Print(w io.Writer, sum *Summary, reps []ItemReport, examples int) {
	t := report.NewConsoleTable(w)
	t.AppendHeader(table.Row{"kind", "findings", "items", "what"})
	for _, k := range Kinds {
		c := sum.ByKind[k]
		t.AppendRow(table.Row{string(k), c.Findings, c.Items, k.Describe()})
	}
	t.AppendSeparator()
	t.AppendRow(table.Row{"any", sum.Findings, sum.ItemsWithFindings, fmt.Sprintf("of %d items (%d gold queries)", sum.Items, sum.Queries)})
	t.Render()
	for _, k := range Kinds {
		shown := 0
		for _, r := range reps {
			for _, f := range r.Findings {
				if f.Kind != k || shown == examples {
					continue
				}
				if shown == 0 {
					fmt.Fprintf(w, "%s:\n", k)
				}
				shown++
				fmt.Fprintf(w, "  item %d (id %s, %s): %s\n", f.Index, f.ID, f.DBID, oneLine(f.Detail, 240))
			}
		}
	}
	for _, u := range sum.Unchecked {
		fmt.Fprintf(w, "not checked (%s) on %d gold queries: %s\n", u.Check, u.Queries, u.Reason)
	}
}

// oneLine puts s on one line of at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return cutUTF8(s, n) + "…"
	}
	return s
}

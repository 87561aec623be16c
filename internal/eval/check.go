package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/schema"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// CheckMetrics asks every metric that needs something per database (a
// test suite, metric.Checker) whether each db_id has it, and every metric
// that needs something per item (a judge: the question,
// metric.ItemChecker) whether each item has it. The first failure is an
// InputError naming the item's gold position and the metric.
func CheckMetrics(ctx context.Context, items []bench.Item, metrics []metric.Metric) error {
	for _, m := range metrics {
		if c, ok := m.(metric.ItemChecker); ok {
			var first error
			firstAt, bad := "", 0
			for i := range items {
				if err := c.CheckItem(&items[i]); err != nil {
					if bad == 0 {
						first, firstAt = err, items[i].GoldPos.String()
					}
					bad++
				}
			}
			if bad > 0 {
				return usage.Errorf("%s: %s %v (%d of %d items)", firstAt, m.Name(), first, bad, len(items))
			}
		}
		c, ok := m.(metric.Checker)
		if !ok {
			continue
		}
		err := eachDB(items, func(it *bench.Item) error {
			if err := c.Check(ctx, it.DBID); err != nil {
				return usage.Errorf("%s: %s: %v", it.GoldPos, m.Name(), err)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// eachDB calls f with the first item of each db_id, in item order, and
// returns f's first error.
func eachDB(items []bench.Item, f func(it *bench.Item) error) error {
	seen := map[string]bool{}
	for i := range items {
		it := &items[i]
		if seen[it.DBID] {
			continue
		}
		seen[it.DBID] = true
		if err := f(it); err != nil {
			return err
		}
	}
	return nil
}

// checkGoldKind fails when the metrics do not fit the gold: Spider 2.0
// items (--format spider2) have gold result CSVs and no gold SQL, so only
// spider2 grades them, and spider2 grades nothing else.
func checkGoldKind(items []bench.Item, metrics []string) error {
	csvGold := len(items) > 0 && len(items[0].GoldResults) > 0
	for _, m := range metrics {
		m = strings.TrimSpace(m)
		switch {
		case csvGold && m != "spider2" && m != "":
			return usage.Errorf("%s: the gold is Spider 2.0 result CSVs, which only the spider2 metric grades; drop %s from --metrics", items[0].GoldPos, m)
		case !csvGold && m == "spider2":
			return usage.Errorf("spider2 compares with gold result CSVs: give a Spider 2.0 gold file (--format spider2)")
		}
	}
	return nil
}

// CheckDatabases fails on the first item whose db_id is unknown to
// tables.json or has no database, naming the gold file and line (an InputError).
// tablesPath names tables.json in the message; schemas may be nil.
func CheckDatabases(ctx context.Context, items []bench.Item, eng engine.Engine, schemas schema.Schemas, tablesPath string) error {
	return eachDB(items, func(it *bench.Item) error {
		if schemas != nil {
			if _, ok := schemas[it.DBID]; !ok {
				return usage.Errorf("%s: unknown db_id %q: it is not in %s", it.GoldPos, it.DBID, tablesPath)
			}
		}
		if err := eng.Check(ctx, it.DBID); err != nil {
			return usage.Errorf("%s: db_id %q: %v", it.GoldPos, it.DBID, err)
		}
		return nil
	})
}

// HardnessLabels returns the runner's difficulty labeller and what the
// labels are ("benchmark", "spider_hardness", or "" for none). An item
// keeps its benchmark's difficulty; when no item has one and schemas
// (tables.json) are given, every item is labelled with its gold's Spider
// hardness, computed here once per item (metric.SpiderHardness). Items
// whose gold the official parser cannot read are left unlabelled, and
// said so on stderr (io.Discard for silence).
func HardnessLabels(stderr io.Writer, items []bench.Item, schemas schema.Schemas) (func(*bench.Item) string, string) {
	for i := range items {
		if items[i].Difficulty != "" {
			return nil, "benchmark"
		}
	}
	if schemas == nil {
		return nil, ""
	}
	labels, errs := metric.SpiderHardness(schemas, items)
	byIndex := make(map[int]string, len(items))
	unlabelled := 0
	for i := range items {
		byIndex[items[i].Index] = labels[i]
		if errs[i] != nil {
			if unlabelled == 0 {
				fmt.Fprintf(stderr, "hardness: %s: no label: %v\n", items[i].GoldPos, errs[i])
			}
			unlabelled++
		}
	}
	if unlabelled > 1 {
		fmt.Fprintf(stderr, "hardness: %d of %d gold queries have no label; they count only under \"all\"\n", unlabelled, len(items))
	}
	return func(it *bench.Item) string { return byIndex[it.Index] }, "spider_hardness"
}

// Timed reports whether o.Metrics name a metric that times queries (ves,
// rves): Run then grades one item at a time, whatever o.Workers.
func (o *Options) Timed() bool {
	return hasMetric(o.Metrics, "ves") || hasMetric(o.Metrics, "rves")
}

// hasMetric reports whether the --metrics list names metric.
func hasMetric(names []string, metric string) bool {
	for _, n := range names {
		if strings.TrimSpace(n) == metric {
			return true
		}
	}
	return false
}

// prepareOut creates the output folder if needed and checks that a file
// can be written in it: a path that is a file, or a folder that cannot be
// created or written, is the user's input (exit 2), found before grading.
func prepareOut(out string) error {
	if st, err := os.Stat(out); err == nil && !st.IsDir() {
		return usage.Errorf("--out %s: not a folder (it is a file); name a folder for results.jsonl and summary.json", out)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return usage.Errorf("--out %s: cannot create the folder: %v", out, errors.Unwrap(err))
	}
	probe, err := os.CreateTemp(out, ".sqljudge-write-test-*")
	if err != nil {
		return usage.Errorf("--out %s: cannot write in the folder: %v", out, errors.Unwrap(err))
	}
	probe.Close()
	return os.Remove(probe.Name())
}

package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sqljudge/sqljudge/internal/agree"
)

type agreeFlags struct {
	labels, results, out string
	metrics              []string
	seed                 uint64
	resamples            int
}

func newAgreeCmd() *cobra.Command {
	f := &agreeFlags{}
	cmd := &cobra.Command{
		Use:   "agree",
		Short: "Measure each metric's agreement with human labels",
		Long: `agree reads the records of a run (OUT/results.jsonl) and human labels, pairs
them by item id, and reports for every metric of the run: Cohen's kappa,
accuracy, Matthews correlation (MCC), F1 of "correct", and the confusion
matrix, each with a 95% percentile-bootstrap interval (seeded), over all
labelled items and per difficulty. The label is the truth, the metric's
verdict (correct) the prediction; a verdict that is not ok (judge_error,
pred_error, ...) counts as it was recorded, correct = false.

Label files: ROSE-VEC JSON (an array of {question_id, ..., label}, the
file eval can also grade) or JSONL {"id", "label"} lines. Ids match the
records' ids: question_id for BIRD and ROSE-VEC, the id of JSONL, else the
0-based index.

It prints a table and writes OUT/agreement.json (or --out). Same inputs and
--seed give the same bytes.`,
		Example: `  sqljudge eval --gold rose-vec-spider.json --db database/ --metrics ex,rose --out out/rv
  sqljudge agree --labels rose-vec-spider.json --results out/rv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAgree(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.labels, "labels", "", "human labels: ROSE-VEC JSON or JSONL {id, label}")
	fl.StringVar(&f.results, "results", "", "the run's output folder (or its results.jsonl)")
	fl.StringVar(&f.out, "out", "", "where to write the agreement JSON (default RESULTS/agreement.json)")
	fl.StringSliceVar(&f.metrics, "metrics", nil, "metrics to measure (default: every metric in the records)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the bootstrap resampling")
	fl.IntVar(&f.resamples, "resamples", 1000, "bootstrap resamples")
	return cmd
}

func runAgree(cmd *cobra.Command, f *agreeFlags) error {
	doc, err := agree.Compute(agree.Options{Labels: f.labels, Results: f.results, Metrics: f.metrics, Seed: f.seed, Resamples: f.resamples})
	if err != nil {
		return err
	}
	out := f.out
	if out == "" {
		out = doc.DefaultPath()
	}
	if err := doc.Write(out); err != nil {
		return err
	}
	agree.PrintTable(cmd.OutOrStdout(), doc)
	fmt.Fprintf(cmd.OutOrStdout(), "%d labelled items (%d records without a label, %d labels without a record); %d bootstrap resamples, seed %d\nagreement: %s\n",
		doc.Matched, doc.Unlabeled, doc.LabelsWithoutRecord, doc.Resamples, doc.Seed, out)
	return nil
}

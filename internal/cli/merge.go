package cli

import (
	"errors"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/sqljudge/sqljudge/internal/eval"
	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/report/htmlreport"
	"github.com/sqljudge/sqljudge/internal/shard"
	"github.com/sqljudge/sqljudge/internal/usage"
)

func newMergeCmd() *cobra.Command {
	var opts shard.MergeOptions
	var html bool
	cmd := &cobra.Command{
		Use:   "merge SHARD_OUT... --out OUT",
		Short: "Join the output folders of a sharded eval (--shard i/n) into one",
		Long: `merge joins the output folders written by "sqljudge eval --shard i/n"
(any number, in any order) into OUT: one results.jsonl in index order,
record for record as a single run writes it, and a summary.json computed
from those records, whose counts and accuracies equal a single run's
(wall_seconds is the longest shard's), OUT/fingerprint.json (so that
eval --resume works on OUT) and OUT/report.html.

Every folder must hold a finished run (its summary.json, records and
fingerprint.json), and every shard must have been graded from the same
gold, predictions and tables under the same options (--keep-distinct,
--em-fixed, --max-rows, --timeout...): otherwise merge lists what differs,
as eval --resume does, and exits 2. A missing shard, an item in two
folders, folders graded with different metrics, or an OUT that is one of
the shard folders is an error too (exit 2).`,
		Example: `  for i in 0 1 2 3; do
    sqljudge eval --gold dev_gold.sql --pred pred.sql --db database/ \
        --shard $i/4 --out out/shard$i &
  done; wait
  sqljudge merge out/shard0 out/shard1 out/shard2 out/shard3 --out out/all`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error {
			if opts.Out == "" {
				return usage.Errorf("--out is required: the folder for the merged results.jsonl and summary.json")
			}
			sum, err := shard.Merge(dirs, opts)
			if errors.Is(err, shard.ErrMerge) || errors.Is(err, outdir.ErrOutputExists) || errors.Is(err, outdir.ErrLocked) {
				return usage.Error{Err: err}
			}
			if err != nil {
				return err
			}
			if html {
				r, err := htmlreport.Load(opts.Out)
				if err != nil {
					return err
				}
				if err := eval.WriteHTML(filepath.Join(opts.Out, htmlreport.File), r, htmlreport.Options{}); err != nil {
					return err
				}
			}
			stdout := cmd.OutOrStdout()
			report.PrintTable(stdout, sum)
			printOutputs(stdout, opts.Out, html)
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.Out, "out", "", "output folder for the merged results.jsonl and summary.json")
	cmd.Flags().BoolVar(&opts.Overwrite, "overwrite", false, "replace the results already in --out")
	cmd.Flags().BoolVar(&html, "html", true, "write OUT/report.html (without result diffs; sqljudge report --db adds them)")
	return cmd
}

package audit

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/run"
)

// Run audits items with cfg on workers goroutines (at least 1) and
// returns one report per item, in item order whatever the order they
// finish in, so that the same inputs give the same reports. progress (nil
// for none) is told of each item. It returns ctx's error when ctx ends
// before every item is audited.
func Run(ctx context.Context, cfg *Config, items []bench.Item, workers int, progress run.Progress) ([]ItemReport, error) {
	reps := make([]ItemReport, len(items))
	if progress != nil {
		progress.Start(len(items))
		defer progress.Finish()
	}
	var mu sync.Mutex // progress bars need not be safe for concurrent use
	feed := make(chan int)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(feed)
		for i := range items {
			select {
			case feed <- i:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	for range max(workers, 1) {
		g.Go(func() error {
			for i := range feed {
				rep, err := cfg.Item(gctx, &items[i])
				if err != nil {
					return err
				}
				reps[i] = rep
				if progress != nil {
					mu.Lock()
					progress.Done()
					mu.Unlock()
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return reps, ctx.Err()
}

package sqlitefloor

import (
	"errors"
	"sync"
	"sync/atomic"
)

// Query is one query a run executed: the database file it ran on and its
// SQL.
type Query struct {
	Path, SQL string
}

// Tally is what Replay stepped through: rows over all queries, and the
// queries SQLite refused (a syntax error, a missing column: a query's
// outcome in a run too).
type Tally struct {
	Rows, Failed int64
}

// Replay runs queries with workers goroutines (at least 1), each taking
// the next query in order and running it (Conn.Run) on a connection of its
// own to the query's file, opened on first use and closed at the end, as a
// run's workers use pooled connections. It fails only when a file does not
// open.
func Replay(queries []Query, workers int) (Tally, error) {
	var (
		next  atomic.Int64
		rows  atomic.Int64
		fails atomic.Int64
		wg    sync.WaitGroup
		errs  = make([]error, max(workers, 1))
	)
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conns := map[string]*Conn{}
			defer closeAll(conns)
			for {
				i := int(next.Add(1)) - 1
				if i >= len(queries) {
					return
				}
				q := queries[i]
				c, ok := conns[q.Path]
				if !ok {
					var err error
					if c, err = Open(q.Path); err != nil {
						errs[w] = err
						return
					}
					conns[q.Path] = c
				}
				n, err := c.Run(q.SQL)
				rows.Add(n)
				if err != nil {
					fails.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return Tally{Rows: rows.Load(), Failed: fails.Load()}, errors.Join(errs...)
}

func closeAll(conns map[string]*Conn) {
	for _, c := range conns {
		_ = c.Close()
	}
}

package fuzz

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/engine"
)

func TestZZTraps(t *testing.T) {
	cfg := config(t, engine.SQLite, 8000)
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Certificates {
		for _, rw := range p.Rewrites {
			if strings.Contains(rw, "div") || strings.Contains(rw, "neg") || strings.Contains(rw, "not_cond") || strings.Contains(rw, "always_null") {
				fmt.Printf("%d %v\n  %s\n  %s\n", p.Pair, p.Rewrites, p.Q1, p.Q2)
			}
		}
	}
}

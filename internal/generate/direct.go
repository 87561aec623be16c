package generate

import (
	"context"
	"strings"

	"github.com/sqljudge/sqljudge/internal/bench"
)

// direct is --method direct: one call per question with a Defog-style
// prompt (templates/direct.txt) holding the question, its instructions or
// evidence, the engine's dialect and the CREATE statements of its database
// (schemaDDL: as stored on SQLite, rebuilt from the catalog on the
// server engines); the SQL is the reply's fenced block, or the reply.
func (g *generator) direct(ctx context.Context, it *bench.Item, rec *Record) error {
	s := Step{Name: StepDirect}
	defer func() { rec.Steps = append(rec.Steps, s) }()
	ddl, err := schemaDDL(ctx, g.opts.Engine, it.DBID)
	if err != nil {
		return err
	}
	instr := hintOf(it)
	if instr == "" {
		instr = "Answer with one SQL query."
	}
	calls, reply, err := g.pool.ask(ctx, request{step: StepDirect, item: it.ID, tmpl: tmplDirect, vars: map[string]string{
		"QUESTION": it.Question, "INSTRUCTIONS": instr, "DIALECT": string(g.opts.Engine.Dialect()),
		"DATABASE_SCHEMA": strings.Join(ddl, "\n\n"),
	}, temp: g.opts.LLM.Temperature}, 1, nil)
	s.Calls = calls
	if err != nil {
		return err
	}
	rec.Pred = ParseDirect(reply)
	c := Candidate{SQL: rec.Pred, Template: "direct"}
	g.exec(ctx, it.DBID, rec.Pred).describe(&c)
	s.Candidates = []Candidate{c}
	return nil
}

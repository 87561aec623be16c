package generate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/result"
)

// Entities is what retrieve_entity finds (the official
// RetrieveEntity._run): SimilarColumns, column names similar to the
// keywords (table -> columns), and SimilarValues, database values similar to
// them after the LSH, edit-distance and embedding filters (table -> column
// -> values: CHESS's schema_with_examples).
type Entities struct {
	SimilarColumns map[string][]string
	SimilarValues  map[string]map[string][]string
}

// Retriever is what the IR steps need from a database's value and
// description index (internal/generate/index): retrieve_entity and
// retrieve_context of the official information retriever.
type Retriever interface {
	// RetrieveEntities returns the columns and values similar to the
	// keywords.
	RetrieveEntities(ctx context.Context, keywords []string) (Entities, error)
	// RetrieveContext returns the topK column descriptions most similar to
	// each keyword with the question and with the hint (table -> column ->
	// description).
	RetrieveContext(ctx context.Context, keywords []string, question, hint string, topK int) (map[string]map[string]Description, error)
}

// hardCodedUnitTest is the official HARD_CODES_TEST_CASES
// (generate_unit_test.py), appended to the generated tests.
const hardCodedUnitTest = "Only the best answer from the set of candidates that most accurately answers the question, given the database schema and hint should pass this test."

// chessRun is one question's state (the official SystemState).
type chessRun struct {
	g   *generator
	it  *bench.Item
	cat *chessSchema
	rec *Record

	hint      string
	results   map[string]execResult // executions by SQL
	keywords  []string
	entities  Entities
	view      schemaView
	tentative *selection
}

type execResult struct {
	set *result.Set
	err error
}

func (e execResult) status() string {
	switch {
	case e.err != nil:
		return "error"
	case e.set.Len() == 0:
		return "empty"
	}
	return "ok"
}

// describe records the execution on c: its status, rows and error.
func (e execResult) describe(c *Candidate) {
	c.Status, c.Rows = e.status(), e.set.Len()
	if e.err != nil {
		c.Error = e.err.Error()
	}
}

// exec runs sql once per question: candidates, clusters and evaluation
// share the result.
func (r *chessRun) exec(ctx context.Context, sql string) execResult {
	if e, ok := r.results[sql]; ok {
		return e
	}
	e := r.g.exec(ctx, r.it.DBID, sql)
	if r.results == nil {
		r.results = map[string]execResult{}
	}
	r.results[sql] = e
	return e
}

// rng returns the random source of one prompt's shuffles: seeded by the run
// seed, the question, the step, the template and the sample, so the same
// seed gives the same prompts.
func (r *chessRun) rng(step, tmpl string, sample int) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%d", r.it.ID, step, tmpl, sample)
	return rand.New(rand.NewPCG(uint64(r.g.opts.Seed), h.Sum64()))
}

func (r *chessRun) req(step string, t *Template, vars map[string]string, temp float64, sample int) request {
	return request{step: step, item: r.it.ID, tmpl: t, vars: vars, temp: temp, sample: sample}
}

func (r *chessRun) schema(step, tmpl string, sample int) string {
	return r.cat.schemaString(r.cat.complete(), r.view, r.rng(step, tmpl, sample))
}

// run is the fixed sequence of the configuration's steps (the official
// team of agents, each tool called once in its order).
func (r *chessRun) run(ctx context.Context) error {
	cfg := r.g.opts.Config
	r.tentative = r.cat.complete()
	for _, f := range []func(context.Context) error{r.extractKeywords, r.retrieveEntity, r.retrieveContext} {
		if err := f(ctx); err != nil {
			return err
		}
	}
	if cfg.SchemaSelector {
		for _, f := range []func(context.Context) error{r.filterColumn, r.selectTables, r.selectColumns} {
			if err := f(ctx); err != nil {
				return err
			}
		}
	}
	cands, err := r.generateCandidates(ctx)
	if err != nil {
		return err
	}
	revised, err := r.revise(ctx, cands)
	if err != nil {
		return err
	}
	if !cfg.UnitTester {
		r.rec.Pred = pickFinal(revised)
		return nil
	}
	tests, err := r.generateUnitTests(ctx, revised)
	if err != nil {
		return err
	}
	win, err := r.evaluate(ctx, revised, tests)
	if err != nil {
		return err
	}
	r.rec.Pred = win
	return nil
}

// stepErr records a step's own failure (an unparseable reply after every
// attempt, an index that cannot be read) and lets the pipeline go on, as
// the official Tool.__call__ does; an unreachable LLM or embedding endpoint
// stops the question.
func stepErr(s *Step, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, errLLM) || errors.Is(err, llm.ErrRequest) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	s.Error = err.Error()
	return nil
}

func (r *chessRun) addStep(s Step) { r.rec.Steps = append(r.rec.Steps, s) }

func (r *chessRun) extractKeywords(ctx context.Context) error {
	s := Step{Name: StepExtractKeywords}
	defer func() { r.addStep(s) }()
	var kw []string
	calls, _, err := r.g.pool.ask(ctx, r.req(s.Name, tmplKeywords, map[string]string{
		"QUESTION": r.it.Question, "HINT": r.hint,
	}, r.g.opts.Config.KeywordsTemperature, 0), r.g.opts.ParseAttempts, func(reply string) error {
		var err error
		kw, err = ParseKeywords(reply)
		return err
	})
	s.Calls = calls
	r.keywords, s.Keywords = kw, kw
	return stepErr(&s, err)
}

// headers marks the embedding requests of a retrieval step with the step
// and question headers.
func (r *chessRun) headers(ctx context.Context, step string) context.Context {
	return llm.WithHeaders(ctx, map[string]string{HeaderStep: step, HeaderItem: r.it.ID})
}

func (r *chessRun) retrieveEntity(ctx context.Context) error {
	s := Step{Name: StepRetrieveEntity}
	defer func() { r.addStep(s) }()
	if r.g.opts.Retriever == nil {
		s.Note = "no value index (give --index): no similar columns or values"
		return nil
	}
	ret, err := r.g.opts.Retriever(ctx, r.it.DBID)
	if err != nil {
		return stepErr(&s, err)
	}
	ent, err := ret.RetrieveEntities(r.headers(ctx, s.Name), r.keywords)
	if err != nil {
		return stepErr(&s, err)
	}
	r.entities = ent
	r.view.Examples = ent.SimilarValues
	s.SimilarColumns, s.SimilarValues = ent.SimilarColumns, ent.SimilarValues
	return nil
}

func (r *chessRun) retrieveContext(ctx context.Context) error {
	s := Step{Name: StepRetrieveContext}
	defer func() { r.addStep(s) }()
	if r.g.opts.Retriever == nil {
		s.Note = "no description index (give --index): no column descriptions"
		return nil
	}
	ret, err := r.g.opts.Retriever(ctx, r.it.DBID)
	if err != nil {
		return stepErr(&s, err)
	}
	d, err := ret.RetrieveContext(r.headers(ctx, s.Name), r.keywords, r.it.Question, r.hint, r.g.opts.Config.ContextTopK)
	if err != nil {
		return stepErr(&s, err)
	}
	r.view.Descriptions = d
	s.Descriptions = d
	return nil
}

// addSimilarColumns is the official add_columns_to_tentative_schema.
func (r *chessRun) addSimilarColumns() {
	for t, cols := range r.entities.SimilarColumns {
		if actual, ok := r.tentative.actual(t); ok {
			r.tentative.add(actual, cols...)
		} else if r.cat.table(t) != nil {
			r.tentative.add(t, cols...)
		}
	}
}

// filterColumn asks, for every column of the tentative schema, whether it
// is relevant (one call per column, template filter_column); the relevant
// ones and retrieve_entity's similar columns are kept (adoptTentative).
func (r *chessRun) filterColumn(ctx context.Context) error {
	s := Step{Name: StepFilterColumn}
	defer func() { r.addStep(s) }()
	view := r.view
	if r.g.opts.Retriever != nil {
		// the official profiles show every description of the database
		if ret, err := r.g.opts.Retriever(ctx, r.it.DBID); err == nil {
			if d, ok := ret.(interface {
				AllDescriptions() map[string]map[string]Description
			}); ok {
				view.Descriptions = d.AllDescriptions()
			}
		}
	}
	profiles := r.cat.columnProfiles(r.tentative, view)
	chosen := make([]bool, len(profiles))
	calls := make([][]Call, len(profiles))
	errs := make([]error, len(profiles))
	g, gctx := errgroup.WithContext(ctx)
	for i, p := range profiles {
		g.Go(func() error {
			var ok bool
			c, _, err := r.g.pool.ask(gctx, r.req(s.Name, tmplFilterColumn, map[string]string{
				"QUESTION": r.it.Question, "HINT": r.hint, "COLUMN_PROFILE": p.Text,
			}, r.g.opts.Config.FilterColumnTemperature, 0), r.g.opts.ParseAttempts, func(reply string) error {
				m, err := ParseJSONObject(reply)
				if err != nil {
					return err
				}
				// officially a missing or non-string verdict raises inside
				// filter_column's try: the column is not chosen, no retry
				var v string
				_ = json.Unmarshal(m["is_column_information_relevant"], &v)
				ok = strings.ToLower(v) == "yes"
				return nil
			})
			calls[i], chosen[i], errs[i] = c, ok, err
			if errors.Is(err, errLLM) {
				return err
			}
			return nil
		})
	}
	err := waitCalls(g, &s, calls)
	if err != nil {
		return err
	}
	sel := newSelection()
	for _, t := range r.tentative.order {
		sel.add(t)
	}
	for i, p := range profiles {
		if chosen[i] {
			sel.add(p.Table, p.Column)
		} else if errs[i] != nil && s.Error == "" {
			s.Error = fmt.Sprintf("%s.%s: %v", p.Table, p.Column, errs[i])
		}
	}
	r.adoptTentative(&s, sel)
	return nil
}

// waitCalls waits for g and appends to s the calls of its goroutines in
// their order (each goroutine k fills calls[k]), whatever g returns; it
// returns g's error.
func waitCalls(g *errgroup.Group, s *Step, calls [][]Call) error {
	err := g.Wait()
	for _, c := range calls {
		s.Calls = append(s.Calls, c...)
	}
	return err
}

// adoptTentative makes sel the tentative schema, widened with
// retrieve_entity's similar columns (addSimilarColumns), and records it as
// step s's schema. The official filter_column and select_tables then call
// add_connections_to_tentative_schema, which changes nothing
// (DatabaseManager's version assigns get_schema_with_connections' result
// to a local and returns None); with Options.AddConnections the
// connecting columns are added as its docstring says
// (catalog.addConnections).
func (r *chessRun) adoptTentative(s *Step, sel *selection) {
	r.tentative = sel
	r.addSimilarColumns()
	if r.g.opts.AddConnections {
		r.cat.addConnections(r.tentative)
	}
	s.Schema = r.tentative.asMap()
}

// selectTables asks for the tables the query needs (template
// select_tables) over the tentative schema.
func (r *chessRun) selectTables(ctx context.Context) error {
	s := Step{Name: StepSelectTables}
	defer func() { r.addStep(s) }()
	var tables []string
	calls, _, err := r.g.pool.ask(ctx, r.req(s.Name, tmplSelectTables, map[string]string{
		"DATABASE_SCHEMA": r.cat.schemaString(r.tentative, r.view, r.rng(s.Name, "select_tables", 0)),
		"QUESTION":        r.it.Question, "HINT": r.hint,
	}, r.g.opts.Config.SelectTablesTemperature, 0), r.g.opts.ParseAttempts, func(reply string) error {
		m, err := ParseJSONObject(reply)
		if err != nil {
			return err
		}
		var names []string
		if raw, ok := m["table_names"]; ok {
			if err := json.Unmarshal(raw, &names); err != nil {
				return parseErrorf("table_names: %v", err)
			}
		}
		tables = nil
		for _, n := range names {
			if !containsFold(tables, n) {
				tables = append(tables, n)
			}
		}
		return nil
	})
	s.Calls = calls
	if err != nil {
		return stepErr(&s, err)
	}
	sel := newSelection()
	for _, t := range tables {
		if actual, ok := r.tentative.actual(t); ok {
			sel.add(actual, r.tentative.cols[actual]...)
		} else {
			sel.add(t)
		}
	}
	r.adoptTentative(&s, sel)
	return nil
}

// selectColumns asks for the columns the query needs (template
// select_columns) and keeps those of the selected tables.
func (r *chessRun) selectColumns(ctx context.Context) error {
	s := Step{Name: StepSelectColumns}
	defer func() { r.addStep(s) }()
	var picked *selection
	calls, _, err := r.g.pool.ask(ctx, r.req(s.Name, tmplSelectColumns, map[string]string{
		"DATABASE_SCHEMA": r.cat.schemaString(r.tentative, r.view, r.rng(s.Name, "select_columns", 0)),
		"QUESTION":        r.it.Question, "HINT": r.hint,
	}, r.g.opts.Config.SelectColumnsTemperature, 0), r.g.opts.ParseAttempts, func(reply string) error {
		m, err := ParseJSONObject(reply)
		if err != nil {
			return err
		}
		picked = newSelection()
		for _, t := range r.tentative.order {
			for key, raw := range m {
				name := strings.Trim(key, "`")
				if key == "chain_of_thought_reasoning" || !strings.EqualFold(name, t) {
					continue
				}
				var cols []string
				if json.Unmarshal(raw, &cols) != nil {
					continue
				}
				for _, c := range cols {
					picked.add(name, strings.Trim(c, "`"))
				}
			}
		}
		return nil
	})
	s.Calls = calls
	if err != nil {
		return stepErr(&s, err)
	}
	r.tentative = picked
	s.Schema = r.tentative.asMap()
	return nil
}

// generateCandidates samples every generator (the official GenerateCandidate
// over the complete schema, each sample with its own shuffle of tables and
// columns) and executes each candidate.
func (r *chessRun) generateCandidates(ctx context.Context) ([]Candidate, error) {
	s := Step{Name: StepGenerateCandidate}
	defer func() { r.addStep(s) }()
	type job struct {
		gen    GeneratorConfig
		tmpl   *Template
		sample int
	}
	var jobs []job
	for _, gc := range r.g.opts.Config.Generators {
		t, err := LoadTemplate(gc.Template)
		if err != nil {
			return nil, err
		}
		for i := 0; i < gc.Samples; i++ {
			jobs = append(jobs, job{gc, t, i})
		}
	}
	sqls := make([]string, len(jobs))
	calls := make([][]Call, len(jobs))
	g, gctx := errgroup.WithContext(ctx)
	for i, j := range jobs {
		g.Go(func() error {
			c, reply, err := r.g.pool.ask(gctx, r.req(s.Name, j.tmpl, map[string]string{
				"DATABASE_SCHEMA": r.schema(s.Name, j.tmpl.Name, j.sample),
				"QUESTION":        r.it.Question, "HINT": r.hint,
			}, j.gen.Temperature, j.sample), 1, nil)
			calls[i] = c
			if err != nil {
				return err
			}
			sqls[i], _ = ParseCandidate(reply)
			return nil
		})
	}
	err := waitCalls(g, &s, calls)
	if err != nil {
		return nil, err
	}
	var cands []Candidate
	for i, q := range sqls {
		if q == "" {
			continue
		}
		cands = append(cands, Candidate{SQL: q, Template: jobs[i].tmpl.Name})
	}
	r.execute(ctx, cands)
	s.Candidates = cands
	return cands, nil
}

// execute runs every candidate on the question's database, read-only, with
// eval's timeout and row cap, and records each execution on its candidate.
func (r *chessRun) execute(ctx context.Context, cands []Candidate) {
	for i := range cands {
		r.exec(ctx, cands[i].SQL).describe(&cands[i])
	}
}

// revise asks, for every candidate that failed or returned no rows, for a
// corrected query with the error or the empty result (template revise_one);
// a reply without "SELECT" keeps the original, as the official Revise does.
func (r *chessRun) revise(ctx context.Context, cands []Candidate) ([]Candidate, error) {
	s := Step{Name: StepRevise}
	defer func() { r.addStep(s) }()
	out := make([]Candidate, len(cands))
	copy(out, cands)
	calls := make([][]Call, len(cands))
	g, gctx := errgroup.WithContext(ctx)
	for i, c := range cands {
		if c.Status == "ok" {
			continue
		}
		g.Go(func() error {
			res := "{'execution_result': []}"
			if c.Status == "error" {
				res = "{'execution_result': " + pyRepr(result.TextValue(c.Error)) + "}"
			}
			cl, reply, err := r.g.pool.ask(gctx, r.req(s.Name, tmplRevise, map[string]string{
				"DATABASE_SCHEMA": r.schema(s.Name, "revise_one", i),
				"QUESTION":        r.it.Question, "HINT": r.hint, "QUERY": c.SQL, "RESULT": res,
			}, r.g.opts.Config.ReviseTemperature, 0), 1, nil)
			calls[i] = cl
			if err != nil {
				return err
			}
			if q := ParseRevision(reply); strings.Contains(q, "SELECT") {
				out[i] = Candidate{SQL: q, Template: c.Template, Revised: true}
			}
			return nil
		})
	}
	err := waitCalls(g, &s, calls)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Revised {
			r.exec(ctx, out[i].SQL).describe(&out[i])
		}
	}
	if len(s.Calls) == 0 {
		s.Note = "every candidate ran and returned rows: nothing to revise"
	}
	s.Candidates = out
	return out, nil
}

// pickFinal is the prediction of a run without a unit tester: the first
// candidate after revision. The official run writes final_SQL of its
// ExecutionAccuracy tool, the first SQL of the last SQL_meta_infos entry
// (revise_1); its test that would skip failing queries compares exec_res,
// a number, with strings, so it never skips one.
func pickFinal(revised []Candidate) string {
	if len(revised) > 0 {
		return revised[0].SQL
	}
	return ""
}

// clusters groups candidates by equal execution results (Python repr of
// the rows, as the official execution_based_clustering), in first-seen
// order; failing candidates belong to none.
func (r *chessRun) clusters(ctx context.Context, cands []Candidate) ([][]int, []execResult) {
	res := make([]execResult, len(cands))
	byKey := map[string]int{}
	var out [][]int
	for i := range cands {
		res[i] = r.exec(ctx, cands[i].SQL)
		if res[i].err != nil {
			continue
		}
		k := pyRows(res[i].set.Rows)
		j, ok := byKey[k]
		if !ok {
			j = len(out)
			byKey[k] = j
			out = append(out, nil)
		}
		out[j] = append(out[j], i)
	}
	return out, res
}

// formatResult is the official _format_sql_query_result.
func formatResult(e execResult) string {
	if e.err != nil {
		return "Error: " + e.err.Error()
	}
	rows := e.set.Rows
	n, cols := len(rows), 0
	if n > 0 {
		cols = len(rows[0])
	}
	if n > 20 {
		rows = rows[:20]
	}
	return fmt.Sprintf("Rows: %d, Columns: %d, Results: %s", n, cols, pyRows(rows))
}

// generateUnitTests asks for UnitTestCount natural-language unit tests that
// tell the candidates' result clusters apart (template
// generate_unit_tests), when there are two clusters or more.
func (r *chessRun) generateUnitTests(ctx context.Context, cands []Candidate) ([]string, error) {
	s := Step{Name: StepGenerateUnitTest}
	defer func() { r.addStep(s) }()
	if len(cands) <= 1 {
		s.Note = "one candidate or none: no unit tests"
		return nil, nil
	}
	cl, res := r.clusters(ctx, cands)
	if len(cl) == 0 {
		all := make([]int, len(cands))
		for i := range all {
			all[i] = i
		}
		cl = [][]int{all}
	}
	s.Clusters = cl
	if len(cl) == 1 {
		s.Note = "every candidate returns the same result: no unit tests"
		return nil, nil
	}
	var b strings.Builder
	for k, members := range cl {
		fmt.Fprintf(&b, "Cluster #%d: \n", k+1)
		for _, i := range members {
			fmt.Fprintf(&b, "Query: %s\n########\n", cands[i].SQL)
		}
		fmt.Fprintf(&b, "Execution result: %s\n=====================\n", formatResult(res[members[len(members)-1]]))
	}
	sqls := make([]string, len(cands))
	for i := range cands {
		sqls[i] = cands[i].SQL
	}
	vars := map[string]string{
		"HINT": r.hint, "QUESTION": r.it.Question,
		"DATABASE_SCHEMA":   r.cat.schemaString(r.cat.forQueries(sqls), r.view, r.rng(s.Name, "generate_unit_tests", 0)),
		"CANDIDATE_QUERIES": b.String(), "UNIT_TEST_CAP": strconv.Itoa(r.g.opts.Config.UnitTestCount),
	}
	var tests []string
	for sample := 0; sample < r.g.opts.Config.UnitTestSamples; sample++ {
		var got []string
		calls, _, err := r.g.pool.ask(ctx, r.req(s.Name, tmplUnitTests, vars, r.g.opts.Config.UnitTestTemperature, sample),
			r.g.opts.ParseAttempts, func(reply string) error {
				var err error
				got, err = ParseUnitTests(reply)
				return err
			})
		s.Calls = append(s.Calls, calls...)
		if err != nil {
			return nil, stepErr(&s, err)
		}
		tests = append(tests, got...)
	}
	tests = append(tests, hardCodedUnitTest)
	s.UnitTests = tests
	return tests, nil
}

// evaluate judges every candidate against each unit test (one call per
// test, template evaluate) and picks the candidate that passes the most; a
// tie goes to a candidate of the largest result cluster (the official
// Evaluate.pick_the_best_candidate).
func (r *chessRun) evaluate(ctx context.Context, cands []Candidate, tests []string) (string, error) {
	s := Step{Name: StepEvaluate}
	defer func() { r.addStep(s) }()
	win := func(i int, why string) string {
		s.Winner, s.Reason = &i, why
		return cands[i].SQL
	}
	switch {
	case len(cands) == 0:
		s.Reason = "no candidate"
		return "", nil
	case len(cands) == 1:
		return win(0, "the only candidate"), nil
	case len(tests) == 0:
		return win(0, "no unit tests (one result cluster): the first candidate"), nil
	}
	cl, res := r.clusters(ctx, cands)
	s.Clusters = cl
	matrix, errs, err := r.askUnitTests(ctx, &s, cands, res, tests)
	if err != nil {
		return "", err
	}
	s.Recovery = evaluateRecovery(matrix, errs, len(cands))
	scores := tallyUnitTests(&s, matrix, errs, len(cands))
	s.Scores, s.Matrix = scores, matrix
	best, why := pickByUnitTests(scores, cl, len(tests))
	return win(best, why), nil
}

// askUnitTests asks, for each unit test at once (template evaluate), which
// candidates pass it, and appends the calls to s in test order. It returns
// per test the reply's 0/1 row over candidates and the test's parse error;
// err is an LLM failure, which stops the step.
func (r *chessRun) askUnitTests(ctx context.Context, s *Step, cands []Candidate, res []execResult, tests []string) (matrix [][]int, errs []error, err error) {
	var b strings.Builder
	sqls := make([]string, len(cands))
	for i, c := range cands {
		fmt.Fprintf(&b, "Candidate Response #%d: Query: %s\n, Execution Result: %s\n", i+1, c.SQL, formatResult(res[i]))
		sqls[i] = c.SQL
	}
	schema := r.cat.schemaString(r.cat.forQueries(sqls), r.view, r.rng(s.Name, "evaluate", 0))
	matrix = make([][]int, len(tests))
	calls := make([][]Call, len(tests))
	errs = make([]error, len(tests))
	g, gctx := errgroup.WithContext(ctx)
	for k, test := range tests {
		g.Go(func() error {
			c, _, err := r.g.pool.ask(gctx, r.req(s.Name, tmplEvaluate, map[string]string{
				"DATABASE_SCHEMA": schema, "QUESTION": r.it.Question, "HINT": r.hint,
				"CANDIDATE_RESPONSES": b.String(), "UNIT_TEST": test,
			}, r.g.opts.Config.EvaluateTemperature, 0), r.g.opts.ParseAttempts, func(reply string) error {
				sc, err := ParseEvaluation(reply)
				matrix[k] = sc
				return err
			})
			calls[k], errs[k] = c, err
			if errors.Is(err, errLLM) {
				return err
			}
			return nil
		})
	}
	err = waitCalls(g, s, calls)
	return matrix, errs, err
}

// evaluateRecovery says where the official evaluate would fail or score
// otherwise on these replies ("" where it scores as here): a test whose
// reply was never read makes it fail (None["scores"]); it scores only as
// many candidates as the first test's reply has verdicts, and a later
// reply with fewer verdicts than that makes it fail (IndexError); with no
// verdict at all pick_the_best_candidate has nothing to pick. sqljudge
// counts a missing verdict as failed and scores every candidate.
func evaluateRecovery(matrix [][]int, errs []error, n int) string {
	for k, err := range errs {
		if err != nil {
			return fmt.Sprintf("unit test %d: reply not read; the official evaluate fails (None[\"scores\"]); sqljudge counts the test as passed by none", k+1)
		}
	}
	if len(matrix) == 0 || len(matrix[0]) == 0 {
		return "no verdict in the first unit test's reply: the official evaluate fails; sqljudge scores the candidates on the other tests"
	}
	for k, row := range matrix {
		if len(row) < len(matrix[0]) {
			return fmt.Sprintf("unit test %d: %d verdicts, the first test %d: the official evaluate fails (IndexError); sqljudge counts the missing ones as failed", k+1, len(row), len(matrix[0]))
		}
	}
	if len(matrix[0]) < n {
		return fmt.Sprintf("the first unit test has %d verdicts for %d candidates: the official evaluate scores only the first %d; sqljudge scores all, a missing verdict as failed", len(matrix[0]), n, len(matrix[0]))
	}
	return ""
}

// tallyUnitTests counts the unit tests each of n candidates passes; a test
// whose reply did not parse counts for none, its matrix row is cleared, and
// the first such error is recorded in s.Error.
func tallyUnitTests(s *Step, matrix [][]int, errs []error, n int) []int {
	scores := make([]int, n)
	for k, row := range matrix {
		if errs[k] != nil {
			matrix[k] = nil
			if s.Error == "" {
				s.Error = fmt.Sprintf("unit test %d: %v", k+1, errs[k])
			}
			continue
		}
		for i := 0; i < len(row) && i < n; i++ {
			scores[i] += row[i]
		}
	}
	return scores
}

// pickByUnitTests picks the candidate passing the most of nTests unit
// tests; a tie goes to the first tied candidate in the largest result
// cluster of cl, else to the first tied candidate. It returns the index
// and the reason.
func pickByUnitTests(scores []int, cl [][]int, nTests int) (int, string) {
	best := 0
	for i, sc := range scores {
		if sc > scores[best] {
			best = i
		}
	}
	var tied []int
	for i, sc := range scores {
		if sc == scores[best] {
			tied = append(tied, i)
		}
	}
	if len(tied) == 1 {
		return best, fmt.Sprintf("passed the most unit tests: %d of %d", scores[best], nTests)
	}
	largest := -1
	for k, members := range cl {
		if largest < 0 || len(members) > len(cl[largest]) {
			largest = k
		}
	}
	if largest >= 0 {
		for _, i := range tied {
			for _, m := range cl[largest] {
				if m == i {
					return i, fmt.Sprintf("tied at %d of %d passed unit tests with %d others; in the largest result cluster (%d candidates)",
						scores[i], nTests, len(tied)-1, len(cl[largest]))
				}
			}
		}
	}
	return tied[0], fmt.Sprintf("tied at %d of %d passed unit tests; none in the largest result cluster: the first", scores[tied[0]], nTests)
}

var (
	tmplKeywords      = mustTemplate("extract_keywords")
	tmplFilterColumn  = mustTemplate("filter_column")
	tmplSelectTables  = mustTemplate("select_tables")
	tmplSelectColumns = mustTemplate("select_columns")
	tmplRevise        = mustTemplate("revise_one")
	tmplUnitTests     = mustTemplate("generate_unit_tests")
	tmplEvaluate      = mustTemplate("evaluate")
	tmplDirect        = mustTemplate("direct")
)

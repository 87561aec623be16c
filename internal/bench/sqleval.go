package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// readSQLEvalCSV reads Defog SQL-Eval's questions CSV (columns db_name,
// query_category, query, question, instructions; db_type and others are
// allowed) as the official runners read it, with pandas.read_csv
// (utils/questions.py, prepare_questions_df): see ReadPandasCSV. A cell
// pandas reads as NaN is read as "" (the runners fillna("") the
// instructions). The query field may hold several acceptable gold queries
// separated by ';' (Item.Gold splits them outside string literals and
// quoted identifiers; Item.GoldText keeps the field for the official
// split). Items have no id in the file: the id is the 0-based row index.
func readSQLEvalCSV(path string) ([]Item, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open benchmark: %w", err)
	}
	t, err := ReadPandasCSV(path, data)
	if err != nil {
		return nil, err
	}
	for _, need := range []string{"db_name", "query", "question"} {
		if t.Column(need) < 0 {
			return nil, errAt(Pos{File: path, Line: 1}, "CSV header has no %q column (have %s)", need, strings.Join(t.Header, ", "))
		}
	}
	get := func(row []CSVCell, name string) string {
		if i := t.Column(name); i >= 0 && !row[i].NaN {
			return row[i].Text
		}
		return ""
	}
	var items []Item
	for r, row := range t.Rows {
		pos := Pos{File: path, Line: t.Lines[r]}
		q := get(row, "query")
		gold := sqllex.SplitStatements(q)
		if len(gold) == 0 {
			return nil, errAt(pos, "empty \"query\"")
		}
		db := strings.TrimSpace(get(row, "db_name"))
		if db == "" {
			return nil, errAt(pos, "empty \"db_name\"")
		}
		idx := len(items)
		it := Item{
			Index: idx, ID: strconv.Itoa(idx), DBID: db, Question: get(row, "question"),
			Gold: gold, GoldText: q, Category: get(row, "query_category"),
			Instructions: get(row, "instructions"), GoldPos: pos,
		}
		if t.Column(generatedQuery) >= 0 {
			it.Pred, it.PredPos = get(row, generatedQuery), pos
		}
		items = append(items, it)
	}
	return items, nil
}

// generatedQuery is the column of sql-eval's results CSV that holds the
// model's query: its runners (eval/api_runner.py and the others) write
// the questions' columns plus generated_query, exact_match, correct and
// error_msg per row, sorted by db_name, query_category and question.
const generatedQuery = "generated_query"

// readSQLEvalPreds reads the generated_query column of a sql-eval results
// CSV as predictions paired by row; each keeps its row's question (when
// the file has one) so that pair can check the rows line up.
func readSQLEvalPreds(path string) ([]prediction, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open predictions: %w", err)
	}
	t, err := ReadPandasCSV(path, data)
	if err != nil {
		return nil, err
	}
	col := t.Column(generatedQuery)
	if col < 0 {
		return nil, errAt(Pos{File: path, Line: 1}, "CSV header has no %q column (have %s): a CSV of predictions is sql-eval's results CSV", generatedQuery, strings.Join(t.Header, ", "))
	}
	q := t.Column("question")
	out := make([]prediction, len(t.Rows))
	for r, row := range t.Rows {
		p := prediction{pos: Pos{File: path, Line: t.Lines[r]}}
		if !row[col].NaN {
			p.sql = row[col].Text
		}
		if q >= 0 && !row[q].NaN {
			p.question, p.hasQuestion = row[q].Text, true
		}
		out[r] = p
	}
	return out, nil
}

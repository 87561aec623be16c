package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/strictjson"
)

// Format names a gold file format.
type Format string

// Gold formats. FormatAuto picks one from the file's name and content.
const (
	FormatAuto       Format = ""
	FormatSpider     Format = "spider"      // SQL<TAB>db_id lines (dev_gold.sql); blank lines separate SParC/CoSQL interactions
	FormatSpiderJSON Format = "spider-json" // Spider dev.json: [{question, query, db_id}, ...]
	FormatBird       Format = "bird"        // BIRD dev.json: [{question_id, db_id, question, evidence, SQL, difficulty}, ...]
	FormatSQLEval    Format = "sqleval"     // Defog SQL-Eval CSV: db_name, query_category, query, question, instructions
	FormatJSONL      Format = "jsonl"       // {"id", "db_id", "question", "gold", "pred", ...} per line
)

// Formats lists the gold formats by name, for help texts.
var Formats = []Format{FormatSpider, FormatSpiderJSON, FormatBird, FormatSQLEval, FormatJSONL}

// Options say what to load.
type Options struct {
	// Gold is the gold file.
	Gold string
	// Pred is the prediction file; "" when the gold file carries the
	// predictions (JSONL with a "pred" field, sql-eval's results CSV with
	// its generated_query column). A .csv prediction file is sql-eval's
	// results CSV, its generated_query paired with the gold by row.
	Pred string
	// Format is the gold format; FormatAuto detects it.
	Format Format
}

// Load reads the gold file and the prediction file and pairs them: by id
// where both sides have ids (BIRD, JSONL), by position otherwise (Spider
// text files, where a prediction line may end in <TAB>db_id, which is
// ignored). It returns the items in gold order.
func Load(o Options) ([]Item, error) {
	if o.Pred != "" {
		// A folder of <id>.sql files (Spider 2.0's --result_dir) is read by
		// readSQLDir; anything else must be a readable file.
		if st, err := os.Stat(o.Pred); err != nil || !st.IsDir() {
			if err := checkFile(o.Pred, "prediction file"); err != nil {
				return nil, err
			}
		}
	}
	items, err := LoadGold(o.Gold, o.Format)
	if err != nil {
		return nil, swapHint(err, o)
	}
	if o.Pred == "" {
		for i := range items {
			if items[i].PredPos.File == "" {
				return nil, errAt(items[i].GoldPos, "item %q has no prediction: give --pred, or a \"pred\" field", items[i].ID)
			}
		}
		return items, nil
	}
	preds, err := readPredictions(o.Pred)
	if err != nil {
		return nil, err
	}
	if err := pair(items, preds, o.Gold, o.Pred); err != nil {
		return nil, err
	}
	return items, nil
}

// LoadGold reads a gold file alone (no predictions), in the given format
// or a detected one.
func LoadGold(path string, f Format) ([]Item, error) {
	if err := checkFile(path, "gold file"); err != nil {
		return nil, err
	}
	if f == FormatAuto {
		var err error
		if f, err = Detect(path); err != nil {
			return nil, err
		}
	}
	var items []Item
	var err error
	switch f {
	case FormatSpider:
		items, err = readSpiderGold(path)
	case FormatSpiderJSON, FormatBird:
		items, err = readJSONGold(path, f)
	case FormatSQLEval:
		items, err = readSQLEvalCSV(path)
	case FormatJSONL:
		items, err = readJSONL(path)
	case FormatRoseVec:
		items, err = readRoseVec(path)
	case FormatSpider2:
		items, err = readSpider2(path)
	default:
		return nil, fmt.Errorf("%w: unknown format %q (want one of %v)", ErrFormat, f, Formats)
	}
	if err == nil && len(items) == 0 {
		err = errAt(Pos{File: path}, "no items")
	}
	return items, err
}

// checkFile returns an *InputError naming path when it is not a readable
// regular file (missing, a folder, unreadable): the user's input, exit 2.
func checkFile(path, what string) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return errAt(Pos{File: path}, "cannot read the %s: %v", what, errors.Unwrap(err))
	case st.IsDir():
		return errAt(Pos{File: path}, "is a folder; want the %s", what)
	}
	f, err := os.Open(path)
	if err != nil {
		return errAt(Pos{File: path}, "cannot read the %s: %v", what, errors.Unwrap(err))
	}
	return f.Close()
}

// Detect guesses the gold format from the file name and its first bytes.
func Detect(path string) (Format, error) {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".csv":
		return FormatSQLEval, nil
	case ".jsonl", ".ndjson":
		head, err := readHead(path, 64<<10)
		if err != nil {
			return "", err
		}
		first, _, _ := bytes.Cut(head, []byte("\n"))
		if filepath.Base(path) == "spider2lite_eval.jsonl" || bytes.Contains(first, []byte(`"gold_result"`)) ||
			bytes.Contains(first, []byte(`"instance_id"`)) && bytes.Contains(first, []byte(`"condition_cols"`)) {
			return FormatSpider2, nil
		}
		return FormatJSONL, nil
	case ".sql", ".txt", ".tsv":
		return FormatSpider, nil
	}
	head, err := readHead(path, 64<<10)
	if err != nil {
		return "", err
	}
	trim := bytes.TrimLeft(head, " \t\r\n\ufeff")
	switch {
	case len(trim) > 0 && trim[0] == '[':
		if bytes.Contains(head, []byte(`"predicted_sql"`)) && bytes.Contains(head, []byte(`"gold_sql"`)) {
			return FormatRoseVec, nil
		}
		if bytes.Contains(head, []byte(`"question_id"`)) || bytes.Contains(head, []byte(`"SQL"`)) {
			return FormatBird, nil
		}
		return FormatSpiderJSON, nil
	case len(trim) > 0 && trim[0] == '{':
		return FormatJSONL, nil
	}
	return "", errAt(Pos{File: path}, "cannot tell the format; name it with --format (one of %v)", Formats)
}

func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open benchmark: %w", err)
	}
	defer f.Close()
	buf := make([]byte, n)
	k, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	return buf[:k], nil
}

// lines reads a text file as lines without their line endings (\n or
// \r\n). A UTF-8 byte order mark is dropped.
func lines(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	s := string(data)
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil, nil
	}
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	return ls, nil
}

// readSpiderGold reads the official evaluator's gold format: one
// "SQL<TAB>db_id" per line, blank lines between interactions (SParC,
// CoSQL). Like evaluation.py it strips each line and splits on tabs.
func readSpiderGold(path string) ([]Item, error) {
	ls, err := lines(path)
	if err != nil {
		return nil, err
	}
	var items []Item
	inter, turn := 0, 0
	for i, l := range ls {
		pos := Pos{File: path, Line: i + 1}
		l = strings.TrimSpace(l)
		if l == "" {
			if turn > 0 {
				inter++
				turn = 0
			}
			continue
		}
		parts := strings.Split(l, "\t")
		if len(parts) < 2 || strings.TrimSpace(parts[len(parts)-1]) == "" {
			return nil, errAt(pos, "expected \"SQL<TAB>db_id\", found no db_id after a tab")
		}
		sql := strings.Join(parts[:len(parts)-1], "\t")
		db := strings.TrimSpace(parts[len(parts)-1])
		idx := len(items)
		items = append(items, Item{
			Index: idx, ID: strconv.Itoa(idx), DBID: db,
			Gold: []string{sql}, GoldText: sql,
			Interaction: inter, Turn: turn, GoldPos: pos,
		})
		turn++
	}
	return items, nil
}

// jsonField is one object of a Spider or BIRD JSON array; fields absent
// from one benchmark are left zero. Keys are matched exactly: Spider's
// dev.json also has a "sql" (the parsed query) beside "query", and BIRD's
// query is "SQL".
type jsonField struct {
	QuestionID json.RawMessage
	DBID       string
	Question   string
	Evidence   string
	Query      *string
	SQL        *string
	Difficulty string
}

// UnmarshalJSON reads the keys named above, exactly, and ignores others.
func (f *jsonField) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	str := func(key string, dst *string) error {
		raw, ok := m[key]
		if !ok || string(raw) == "null" {
			return nil
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return fmt.Errorf("%q: want a string", key)
		}
		return nil
	}
	ptr := func(key string) (*string, error) {
		if _, ok := m[key]; !ok {
			return nil, nil
		}
		var s string
		return &s, str(key, &s)
	}
	f.QuestionID = m["question_id"]
	var err error
	for _, e := range []error{str("db_id", &f.DBID), str("question", &f.Question), str("evidence", &f.Evidence), str("difficulty", &f.Difficulty)} {
		if e != nil {
			return e
		}
	}
	if f.Query, err = ptr("query"); err != nil {
		return err
	}
	f.SQL, err = ptr("SQL")
	return err
}

// readJSONGold reads Spider's dev.json or BIRD's dev.json.
func readJSONGold(path string, f Format) ([]Item, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	data = strictjson.TrimBOM(data)
	var recs []json.RawMessage
	if err := strictjson.Unmarshal(data, &recs); err != nil {
		return nil, errAt(Pos{File: path, Line: strictjson.Line(data, err)}, "expected a JSON array of objects: %v", err)
	}
	lineOf := objectLines(data)
	items := make([]Item, 0, len(recs))
	seen := map[string]int{}
	for i, raw := range recs {
		pos := Pos{File: path, Line: lineOf(i)}
		var r jsonField
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, errAt(pos, "item %d: %v", i, err)
		}
		var sql string
		switch {
		case r.SQL != nil:
			sql = *r.SQL
		case r.Query != nil:
			sql = *r.Query
		default:
			return nil, errAt(pos, "item %d has neither \"query\" (Spider) nor \"SQL\" (BIRD)", i)
		}
		if r.DBID == "" {
			return nil, errAt(pos, "item %d has no \"db_id\"", i)
		}
		id := strconv.Itoa(i)
		if len(r.QuestionID) > 0 {
			id = rawID(r.QuestionID)
		} else if f == FormatBird {
			return nil, errAt(pos, "item %d has no \"question_id\"", i)
		}
		if len(r.QuestionID) > 0 {
			// Items are paired with predictions by question_id: a second
			// item with the same id would take the first one's prediction.
			if l, dup := seen[id]; dup {
				return nil, errAt(pos, "duplicate question_id %s (first at line %d)", id, l)
			}
			seen[id] = pos.Line
		}
		items = append(items, Item{
			Index: i, ID: id, DBID: r.DBID, Question: r.Question, Evidence: r.Evidence,
			Gold: []string{sql}, GoldText: sql, Difficulty: r.Difficulty, GoldPos: pos,
		})
	}
	return items, nil
}

// rawID renders a JSON id (number or string) as text.
func rawID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

// objectLines returns a function giving the 1-based line where the i-th
// top-level element of a JSON array starts.
func objectLines(data []byte) func(int) int {
	var starts []int
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err == nil && t == json.Delim('[') {
		for dec.More() {
			off := int(dec.InputOffset())
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				break
			}
			// InputOffset is before any separating comma and spaces.
			for off < len(data) && (data[off] == ',' || data[off] == ' ' || data[off] == '\n' || data[off] == '\r' || data[off] == '\t') {
				off++
			}
			starts = append(starts, off)
		}
	}
	return func(i int) int {
		if i < len(starts) {
			return 1 + bytes.Count(data[:starts[i]], []byte("\n"))
		}
		return 0
	}
}

// jsonlRecord is one line of the JSONL format.
type jsonlRecord struct {
	ID           json.RawMessage `json:"id"`
	DBID         string          `json:"db_id"`
	Question     string          `json:"question"`
	Evidence     string          `json:"evidence"`
	Gold         json.RawMessage `json:"gold"`
	Pred         *string         `json:"pred"`
	Difficulty   string          `json:"difficulty"`
	Category     string          `json:"category"`
	Instructions string          `json:"instructions"`
}

// readJSONL reads {"id", "db_id", "question", "gold", "pred", ...} lines;
// "gold" is a string or an array of acceptable strings; "pred" is optional
// (predictions may come from another file); "id" defaults to the index.
func readJSONL(path string) ([]Item, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open benchmark: %w", err)
	}
	defer f.Close()
	var items []Item
	seen := map[string]Pos{}
	err = jsonLines(path, f, func(pos Pos, line []byte) error {
		var r jsonlRecord
		if err := strictjson.Unmarshal(line, &r); err != nil {
			return errAt(pos, "expected a JSON object {\"id\", \"db_id\", \"gold\", ...}: %v", err)
		}
		idx := len(items)
		id := strconv.Itoa(idx)
		if len(r.ID) > 0 {
			id = rawID(r.ID)
		}
		if p, dup := seen[id]; dup {
			return errAt(pos, "duplicate id %q (first at line %d)", id, p.Line)
		}
		seen[id] = pos
		if r.DBID == "" {
			return errAt(pos, "missing \"db_id\"")
		}
		gold, err := goldField(r.Gold)
		if err != nil {
			return errAt(pos, "%v", err)
		}
		it := Item{
			Index: idx, ID: id, DBID: r.DBID, Question: r.Question, Evidence: r.Evidence,
			Gold: gold, GoldText: strings.Join(gold, ";\n"), Difficulty: r.Difficulty,
			Category: r.Category, Instructions: r.Instructions, GoldPos: pos,
		}
		if r.Pred != nil {
			it.Pred = *r.Pred
			it.PredPos = pos
		}
		items = append(items, it)
		return nil
	})
	return items, err
}

// jsonLines calls fn with each non-blank line of a JSON Lines file
// (strictjson.Lines: a BOM at the start skipped) and its position; a line
// over strictjson.MaxLine is an *InputError at its line.
func jsonLines(path string, r io.Reader, fn func(pos Pos, line []byte) error) error {
	err := strictjson.Lines(path, r, func(ln int, line []byte) error {
		return fn(Pos{File: path, Line: ln}, line)
	})
	var le *strictjson.LineError
	if errors.As(err, &le) {
		return errAt(Pos{File: path, Line: le.Line}, "%s", le.Msg)
	}
	return err
}

func goldField(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("missing \"gold\"")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}, nil
	}
	var ss []string
	if json.Unmarshal(raw, &ss) == nil && len(ss) > 0 {
		return ss, nil
	}
	return nil, fmt.Errorf("\"gold\" must be a string or a non-empty array of strings")
}

// prediction is one predicted query as read from a prediction file.
type prediction struct {
	id  string // "" when the file has no ids (paired by position)
	sql string
	pos Pos
	sep bool // a blank separator line (text files): an interaction boundary
	// question is the row's question in a sql-eval results CSV
	// (hasQuestion), checked against the gold item it is paired with.
	question    string
	hasQuestion bool
}

// readPredictions reads a prediction file: BIRD's predict_dev.json
// ({"id": "SQL\t----- bird -----\tdb_id"}), JSONL ({"id", "pred"}), text
// with one query per line, or a folder of <id>.sql files.
func readPredictions(path string) ([]prediction, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return readSQLDir(path)
	}
	head, err := readHead(path, 4096)
	if err != nil {
		return nil, fmt.Errorf("cannot open predictions: %w", err)
	}
	trim := bytes.TrimLeft(head, " \t\r\n\ufeff")
	ext := strings.ToLower(filepath.Ext(path))
	switch {
	case ext == ".csv":
		return readSQLEvalPreds(path)
	case ext == ".jsonl" || ext == ".ndjson":
		return readJSONLPreds(path)
	case ext == ".json" || len(trim) > 0 && trim[0] == '{' && !bytes.Contains(bytes.SplitN(trim, []byte("\n"), 2)[0], []byte(`"pred"`)):
		return readBirdPreds(path)
	case len(trim) > 0 && trim[0] == '{':
		return readJSONLPreds(path)
	}
	return readTextPreds(path)
}

// readSQLDir reads a folder of <id>.sql files, one prediction each (the
// layout Spider 2.0's evaluate.py reads with --result_dir), paired by id.
func readSQLDir(dir string) ([]prediction, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot read predictions: %w", err)
	}
	var out []prediction
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".sql") {
			continue
		}
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("cannot read predictions: %w", err)
		}
		out = append(out, prediction{id: strings.TrimSuffix(name, ".sql"), sql: string(b), pos: Pos{File: p}})
	}
	if len(out) == 0 {
		return nil, errAt(Pos{File: dir}, "no <id>.sql prediction files in the folder")
	}
	return out, nil
}

// birdSep separates SQL and db_id in BIRD's prediction values.
const birdSep = "\t----- bird -----\t"

func readBirdPreds(path string) ([]prediction, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	data = strictjson.TrimBOM(data)
	lineAt := func(off int64) int { return 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n")) }
	dec := strictjson.NewDecoder(bytes.NewReader(data))
	if t, err := dec.ReadToken(); err != nil || t.Kind() != '{' {
		return nil, errAt(Pos{File: path, Line: 1}, "expected a JSON object {\"question_id\": \"SQL\\t----- bird -----\\tdb_id\", ...}")
	}
	var out []prediction
	for dec.PeekKind() != '}' {
		t, err := dec.ReadToken()
		if err == nil && t.Kind() != '"' {
			err = fmt.Errorf("expected a string key")
		}
		if err != nil {
			return nil, birdPredsError(path, data, dec, err)
		}
		key := t.String()
		pos := Pos{File: path, Line: lineAt(dec.InputOffset())}
		var v any
		if err := strictjson.Decode(dec, &v); err != nil {
			return nil, errAt(pos, "value of %q: %v", key, err)
		}
		sql := ""
		if s, ok := v.(string); ok {
			// The official package_sqls splits on the separator; a value
			// without it is the SQL alone.
			sql, _, _ = strings.Cut(s, birdSep)
		}
		out = append(out, prediction{id: key, sql: sql, pos: pos})
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, birdPredsError(path, data, dec, err)
	}
	return out, nil
}

// birdPredsError places a decoding error of predict_dev.json at its line
// (a key given twice is an id given twice).
func birdPredsError(path string, data []byte, dec interface{ InputOffset() int64 }, err error) error {
	err = strictjson.Describe(err)
	var e *strictjson.Error
	off := dec.InputOffset()
	if errors.As(err, &e) && e.Offset > 0 {
		off = e.Offset
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.New("the JSON object ends too early")
	}
	return errAt(Pos{File: path, Line: 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n"))}, "%v", err)
}

func readJSONLPreds(path string) ([]prediction, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open predictions: %w", err)
	}
	defer f.Close()
	var out []prediction
	seen := map[string]int{}
	err = jsonLines(path, f, func(pos Pos, line []byte) error {
		var r struct {
			ID   json.RawMessage `json:"id"`
			Pred *string         `json:"pred"`
		}
		if err := strictjson.Unmarshal(line, &r); err != nil {
			return errAt(pos, "expected a JSON object {\"id\", \"pred\"}: %v", err)
		}
		if r.Pred == nil {
			return errAt(pos, "missing \"pred\"")
		}
		id := ""
		if len(r.ID) > 0 {
			id = rawID(r.ID)
			if l, dup := seen[id]; dup {
				return errAt(pos, "duplicate id %q (first at line %d)", id, l)
			}
			seen[id] = pos.Line
		}
		out = append(out, prediction{id: id, sql: *r.Pred, pos: pos})
		return nil
	})
	return out, err
}

// readTextPreds reads one prediction per line. As in the official
// evaluator, a line is stripped and only the text before its first tab is
// the query (a "<TAB>db_id" suffix is allowed); BIRD's separator is also
// cut. Blank lines are kept as separators.
func readTextPreds(path string) ([]prediction, error) {
	ls, err := lines(path)
	if err != nil {
		return nil, err
	}
	out := make([]prediction, 0, len(ls))
	for i, l := range ls {
		pos := Pos{File: path, Line: i + 1}
		l = strings.TrimSpace(l)
		if l == "" {
			out = append(out, prediction{pos: pos, sep: true})
			continue
		}
		sql, _, _ := strings.Cut(l, birdSep)
		sql, _, _ = strings.Cut(sql, "\t")
		out = append(out, prediction{sql: sql, pos: pos})
	}
	return out, nil
}

// swapHint adds to err, the error of reading the gold file, that --gold
// and --pred look swapped when the prediction file reads as a gold file
// of the same format (Spider's dev_gold.sql given as --pred, say).
func swapHint(err error, o Options) error {
	var ie *InputError
	if o.Pred == "" || !errors.As(err, &ie) {
		return err
	}
	if st, serr := os.Stat(o.Pred); serr != nil || st.IsDir() {
		return err
	}
	if _, perr := LoadGold(o.Pred, o.Format); perr != nil {
		return err
	}
	return errAt(ie.Pos, "%s; --gold and --pred look swapped: %s reads as a gold file, so give it to --gold and %s to --pred", ie.Msg, o.Pred, o.Gold)
}

// multiLineHint explains more prediction lines than gold items when a
// prediction line does not start a query (SELECT, WITH, VALUES or "("): a
// query written over several lines. It returns "" otherwise.
func multiLineHint(ps []prediction) string {
	for _, p := range ps {
		f := strings.Fields(p.sql)
		if len(f) == 0 {
			continue
		}
		w := strings.ToUpper(f[0])
		if w == "SELECT" || w == "WITH" || w == "VALUES" || strings.HasPrefix(w, "(") {
			continue
		}
		return fmt.Sprintf("; line %d (%q) does not start a query, so a query seems to span several lines: put each prediction on one line, or write JSONL, one {\"pred\": \"...\"} object per line in gold order (docs/inputs.md)", p.pos.Line, f[0])
	}
	return ""
}

// pair attaches predictions to items: by id when the predictions carry
// ids (pairByID), else by position (positional).
func pair(items []Item, preds []prediction, goldPath, predPath string) error {
	if len(preds) > 0 && preds[0].id != "" {
		return pairByID(items, preds, goldPath, predPath)
	}
	ps, err := positional(items, preds)
	if err != nil {
		return err
	}
	if len(ps) != len(items) {
		at := Pos{File: predPath}
		if len(ps) > len(items) {
			at = ps[len(items)].pos
		} else if len(ps) > 0 {
			at = ps[len(ps)-1].pos
		}
		hint := ""
		if len(ps) > len(items) {
			hint = multiLineHint(ps)
		}
		return errAt(at, "%d predictions for %d gold items in %s: the files must have one line per item%s", len(ps), len(items), goldPath, hint)
	}
	for i := range items {
		if ps[i].hasQuestion && ps[i].question != items[i].Question {
			return errAt(ps[i].pos, "this row's question %q is not the question of gold item %d (%s): sql-eval's results CSV is sorted by db_name, query_category and question; give it as --gold alone (it holds the gold and the generated_query of each row)",
				ps[i].question, i, items[i].GoldPos)
		}
		items[i].Pred = ps[i].sql
		items[i].PredPos = ps[i].pos
	}
	return nil
}

// pairByID attaches to each item the prediction with its id; an item
// without one, or a prediction without an item, is an error at its line.
func pairByID(items []Item, preds []prediction, goldPath, predPath string) error {
	idx := make(map[string]int, len(preds))
	for i, p := range preds {
		if p.id == "" {
			return errAt(p.pos, "prediction without an id in a file paired by id")
		}
		idx[p.id] = i
	}
	used := 0
	for i := range items {
		j, ok := idx[items[i].ID]
		if !ok {
			return errAt(items[i].GoldPos, "no prediction for id %q in %s", items[i].ID, predPath)
		}
		items[i].Pred = preds[j].sql
		items[i].PredPos = preds[j].pos
		used++
	}
	if used != len(preds) {
		gold := map[string]bool{}
		for _, it := range items {
			gold[it.ID] = true
		}
		var extra []prediction
		for _, p := range preds {
			if !gold[p.id] {
				extra = append(extra, p)
			}
		}
		if len(extra) == 0 {
			return errAt(Pos{File: goldPath}, "%d gold items took %d predictions: gold ids are not unique", used, len(preds))
		}
		sort.Slice(extra, func(a, b int) bool { return extra[a].pos.Line < extra[b].pos.Line })
		return errAt(extra[0].pos, "prediction for id %q has no gold item in %s (%d such ids)", extra[0].id, goldPath, len(extra))
	}
	return nil
}

// positional returns the predictions to pair with items by position: in
// a multi-turn benchmark, blank lines separate interactions on both sides
// and must agree; in a single-turn one every line is a prediction, a blank
// one an empty prediction, and trailing blank lines are ignored.
func positional(items []Item, preds []prediction) ([]prediction, error) {
	multiTurn := false
	for _, it := range items {
		if it.Interaction > 0 {
			multiTurn = true
			break
		}
	}
	var ps []prediction
	if multiTurn {
		// Blank lines separate interactions on both sides and must agree.
		inter, turn := 0, 0
		for _, p := range preds {
			if p.sep {
				if turn > 0 {
					inter++
					turn = 0
				}
				continue
			}
			k := len(ps)
			if k < len(items) && (items[k].Interaction != inter || items[k].Turn != turn) {
				return nil, errAt(p.pos, "prediction is turn %d of interaction %d, but gold item %d (%s) is turn %d of interaction %d: blank lines must separate the same interactions in both files",
					turn+1, inter+1, k, items[k].GoldPos, items[k].Turn+1, items[k].Interaction+1)
			}
			ps = append(ps, p)
			turn++
		}
	} else {
		// A single-turn benchmark: every line is a prediction, a blank one
		// an empty prediction; trailing blank lines are ignored.
		end := len(preds)
		for end > 0 && preds[end-1].sep {
			end--
		}
		ps = preds[:end]
	}
	return ps, nil
}

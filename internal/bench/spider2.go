package bench

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/strictjson"
)

// FormatSpider2 is Spider 2.0's gold: result CSVs instead of gold SQL.
// Two layouts are read:
//
//   - sqljudge's JSONL, one instance per line: {"id", "db_id",
//     "gold_result": "gold/x.csv" or ["gold/x_a.csv", "gold/x_b.csv"],
//     "condition_cols": [0, 2] or [[0], [0, 1]], "ignore_order": true},
//     paths relative to the gold file. One gold file (a string, or a list
//     of one) is compared as compare_pandas_table does, with
//     condition_cols as given; several are compared as
//     compare_multi_pandas_table does. The official evaluate.py decides
//     the same way by the gold files it finds: one file <id>.csv is a
//     single gold (resolve_gold_paths; len(csv_files) == 1 in the older
//     evaluate_spider2sql), several are a list.
//   - the official spider2lite_eval.jsonl ({"instance_id",
//     "condition_cols", "ignore_order"}) with its exec_result/ folder beside
//     it. Gold files are found as resolve_gold_paths finds them
//     (exec_result/<id>.csv alone, else <id>_a.csv, <id>_b.csv... as a
//     multi-gold list); the database of each instance is its "db_id" or
//     "db", or the "db" of spider2-lite.jsonl (looked for beside the file
//     and two folders up, the official layout). Only "local" instances
//     (SQLite) are read, as the official evaluator runs only those on
//     SQLite.
//
// Predictions are JSONL {"id", "pred"} or a folder of <id>.sql files (the
// official --result_dir), paired by id.
const FormatSpider2 Format = "spider2"

func init() { Formats = append(Formats, FormatSpider2) }

// spider2Record is one line of either layout.
type spider2Record struct {
	ID            json.RawMessage `json:"id"`
	InstanceID    string          `json:"instance_id"`
	DBID          string          `json:"db_id"`
	DB            string          `json:"db"`
	Question      string          `json:"question"`
	Difficulty    string          `json:"difficulty"`
	GoldResult    json.RawMessage `json:"gold_result"`
	ConditionCols json.RawMessage `json:"condition_cols"`
	IgnoreOrder   *bool           `json:"ignore_order"`
}

// readSpider2 reads either layout of FormatSpider2.
func readSpider2(path string) ([]Item, error) {
	ls, err := lines(path)
	if err != nil {
		return nil, err
	}
	sr := &spider2Reader{dir: filepath.Dir(path)}
	var items []Item
	seen := map[string]int{}
	for i, l := range ls {
		pos := Pos{File: path, Line: i + 1}
		if strings.TrimSpace(l) == "" {
			continue
		}
		var r spider2Record
		if err := strictjson.Unmarshal([]byte(l), &r); err != nil {
			return nil, errAt(pos, "expected a JSON object {\"id\", \"db_id\", \"gold_result\", \"condition_cols\", \"ignore_order\"}: %v", err)
		}
		it := Item{Index: len(items), GoldPos: pos, Question: r.Question, Difficulty: r.Difficulty}
		official := len(r.GoldResult) == 0
		if it.ID, err = spider2ID(&r, official, pos); err != nil {
			return nil, err
		}
		if official && !strings.HasPrefix(it.ID, "local") {
			continue // BigQuery or Snowflake instance
		}
		if l, dup := seen[it.ID]; dup {
			return nil, errAt(pos, "duplicate id %q (first at line %d)", it.ID, l)
		}
		seen[it.ID] = pos.Line
		if err := sr.resolve(&it, &r, official, pos); err != nil {
			return nil, err
		}
		if err := spider2Options(&it, &r, pos); err != nil {
			return nil, err
		}
		it.GoldText = relGoldText(sr.dir, it.GoldResults)
		items = append(items, it)
	}
	return items, nil
}

// spider2ID is record r's id: "id" in sqljudge's layout, "instance_id" in
// the official spider2lite_eval.jsonl (official). It errs (pos) when the
// layout's id is missing.
func spider2ID(r *spider2Record, official bool, pos Pos) (string, error) {
	switch {
	case !official && len(r.ID) > 0:
		return rawID(r.ID), nil
	case official && r.InstanceID != "":
		return r.InstanceID, nil
	case official:
		return "", errAt(pos, "expected \"gold_result\" (sqljudge's layout) or \"instance_id\" (spider2lite_eval.jsonl)")
	default:
		return "", errAt(pos, "missing \"id\"")
	}
}

// spider2Reader holds what readSpider2 shares across records: the gold
// file's folder and, read at the first official record without a "db",
// the instances of spider2-lite.jsonl.
type spider2Reader struct {
	dir  string
	meta map[string]spider2Instance // from spider2-lite.jsonl
}

// resolve sets it's db_id and gold result CSVs from record r: in the
// official layout, a missing db_id and question from spider2-lite.jsonl
// and the CSVs found under exec_result/; otherwise r's "gold_result"
// relative to the folder. It errs (pos) on an unreadable spider2-lite.jsonl,
// a missing CSV or db_id.
func (sr *spider2Reader) resolve(it *Item, r *spider2Record, official bool, pos Pos) error {
	var err error
	it.DBID = cmp.Or(r.DBID, r.DB)
	if official {
		if it.DBID == "" {
			if sr.meta == nil {
				if sr.meta, err = spider2Meta(sr.dir); err != nil {
					return errAt(pos, "instance %q has no \"db\": %v", it.ID, err)
				}
			}
			it.DBID = sr.meta[it.ID].DB
		}
		if it.Question == "" && sr.meta != nil {
			it.Question = sr.meta[it.ID].Question
		}
		it.GoldResults, it.GoldResultsMulti, err = resolveGoldPaths(it.ID, filepath.Join(sr.dir, "exec_result"))
		if err != nil {
			return errAt(pos, "%v", err)
		}
	} else {
		it.GoldResults, it.GoldResultsMulti, err = goldResultField(r.GoldResult, sr.dir)
		if err != nil {
			return errAt(pos, "%v", err)
		}
	}
	if it.DBID == "" {
		return errAt(pos, "missing \"db_id\"")
	}
	return nil
}

// spider2Options sets it's condition_cols and ignore_order from record r;
// it errs (pos) on condition_cols that do not decode.
func spider2Options(it *Item, r *spider2Record, pos Pos) error {
	if len(r.ConditionCols) > 0 {
		if err := json.Unmarshal(r.ConditionCols, &it.ConditionCols); err != nil {
			return errAt(pos, "\"condition_cols\": %v", err)
		}
	}
	if r.IgnoreOrder != nil {
		it.IgnoreOrder = *r.IgnoreOrder
	}
	return nil
}

// relGoldText is the gold result paths relative to dir (as given when not
// relative to it), joined by ";": the item's GoldText.
func relGoldText(dir string, paths []string) string {
	rel := make([]string, len(paths))
	for k, p := range paths {
		rel[k] = p
		if rp, err := filepath.Rel(dir, p); err == nil {
			rel[k] = rp
		}
	}
	return strings.Join(rel, ";")
}

// goldResultField reads "gold_result": a path or a non-empty list of
// paths, relative to the gold file's folder; every file must exist.
func goldResultField(raw json.RawMessage, dir string) ([]string, bool, error) {
	var one string
	var many []string
	if json.Unmarshal(raw, &one) == nil {
		many = []string{one}
	} else if json.Unmarshal(raw, &many) != nil || len(many) == 0 {
		return nil, false, fmt.Errorf("\"gold_result\" must be a path or a non-empty list of paths to result CSVs")
	}
	out := make([]string, len(many))
	for k, p := range many {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if _, err := os.Stat(p); err != nil {
			return nil, false, fmt.Errorf("gold result: %v", err)
		}
		out[k] = p
	}
	// One gold file is the single-gold rule however it is written: a list
	// of one read by the multi-gold rule would take condition_cols [0] as
	// its first gold's entry 0, which is falsy, and compare every column.
	return out, len(out) > 1, nil
}

// resolveGoldPaths is the official resolve_gold_paths: <id>.csv alone
// (compared as one gold), else every <id>.csv or <id>_<letter>.csv in
// name order (compared as several golds).
func resolveGoldPaths(id, dir string) ([]string, bool, error) {
	base := filepath.Join(dir, id+".csv")
	if _, err := os.Stat(base); err == nil {
		return []string{base}, false, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, fmt.Errorf("gold results of %q: %v", id, err)
	}
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(id) + `(_[a-z])?\.csv$`)
	var out []string
	for _, e := range ents {
		if re.MatchString(e.Name()) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	if len(out) == 0 {
		return nil, false, fmt.Errorf("no gold result for %q in %s (want %s.csv or %s_a.csv...)", id, dir, id, id)
	}
	slices.Sort(out)
	return out, true, nil
}

// spider2Instance is what spider2-lite.jsonl tells of an instance.
type spider2Instance struct {
	InstanceID string `json:"instance_id"`
	DB         string `json:"db"`
	Question   string `json:"question"`
}

// spider2Meta reads instance_id -> instance from spider2-lite.jsonl beside dir
// or up to two folders above it (the official layout keeps it at
// spider2-lite/spider2-lite.jsonl and the gold at
// spider2-lite/evaluation_suite/gold/).
func spider2Meta(dir string) (map[string]spider2Instance, error) {
	var tried []string
	for _, d := range []string{dir, filepath.Dir(dir), filepath.Dir(filepath.Dir(dir))} {
		p := filepath.Join(d, "spider2-lite.jsonl")
		tried = append(tried, p)
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		defer f.Close()
		m := map[string]spider2Instance{}
		err = strictjson.Lines(p, f, func(ln int, line []byte) error {
			var r spider2Instance
			if err := strictjson.Unmarshal(line, &r); err != nil {
				return fmt.Errorf("%s:%d: %v", p, ln, err)
			}
			m[r.InstanceID] = r
			return nil
		})
		return m, err
	}
	return nil, fmt.Errorf("give \"db_id\" on the line, or put spider2-lite.jsonl beside it (looked for %s)", strings.Join(tried, ", "))
}

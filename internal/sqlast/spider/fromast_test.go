package spider_test

import (
	"errors"
	"testing"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/sqlast"

	"github.com/sqljudge/sqljudge/internal/sqlast/spider"
)

// TestFromASTAgreesWithOfficial asserts that wherever the official parser
// reads a dev gold query or a prediction, FromAST builds the same
// structure from sqlast's tree, and reports the reach of both readers per
// prediction file: on the subset, and on the full dev set when it is
// available.
func TestFromASTAgreesWithOfficial(t *testing.T) {
	for _, set := range shareddata.Sets(t) {
		t.Run(set.Name, func(t *testing.T) { fromASTParity(t, set) })
	}
}

func fromASTParity(t *testing.T, set shareddata.Set) {
	for _, sys := range append([]string{""}, systems...) {
		name := sys
		if name == "" {
			name = "dev_gold"
		}
		t.Run(name, func(t *testing.T) {
			schemas, items := loadSpider(t, set, sys)
			official, ours, both, same := 0, 0, 0, 0
			for i, it := range items {
				s := schemas[it.DBID]
				q := spider.PrepareOfficial(it.Pred)
				o, oerr := spider.ParseOfficial(s, q)
				f, ferr := spider.ParseAST(s, q)
				if oerr == nil {
					official++
				}
				if ferr == nil {
					ours++
				}
				if oerr == nil && ferr != nil && !sqliteRejects(ferr) {
					t.Errorf("item %d: the official parser reads it, FromAST does not: %v\n  %s", i, ferr, it.Pred)
				}
				if oerr != nil || ferr != nil {
					continue
				}
				both++
				if o.Equal(f) {
					same++
					continue
				}
				ob, _ := o.MarshalJSON()
				fb, _ := f.MarshalJSON()
				t.Errorf("item %d: structures differ\n  %s\n  official %s\n  fromast  %s", i, it.Pred, ob, fb)
			}
			t.Logf("%s: official parser reads %d/%d (%.1f%%), sqlast+FromAST reads %d/%d (%.1f%%); same structure on %d/%d read by both",
				name, official, len(items), 100*float64(official)/float64(len(items)), ours, len(items), 100*float64(ours)/float64(len(items)), same, both)
		})
	}
}

// sqliteRejects reports a syntax error of sqlast's parser: SQLite's
// grammar rejects the query (the official parser reads a few such, like a
// parenthesised UNION operand; ParseFixed falls back to it there).
func sqliteRejects(err error) bool {
	var e *sqlast.Error
	return errors.As(err, &e)
}

// TestFromASTAgreesOnTrainGold asserts that on the 8659 Spider training
// gold queries, wherever the official parser reads one, FromAST builds
// the same structure, and reports how many each reads.
func TestFromASTAgreesOnTrainGold(t *testing.T) {
	schemas, _ := loadSpider(t, shareddata.FullSet(t), "")
	items, err := bench.Load(bench.Options{Gold: shareddata.Path(t, "spider", "train_gold.sql"), Pred: shareddata.Path(t, "spider", "train_gold.sql")})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 8659 {
		t.Fatalf("%d train gold queries; want 8659", len(items))
	}
	official, ours, same := 0, 0, 0
	for i, it := range items {
		s := schemas[it.DBID]
		if s == nil {
			t.Fatalf("line %d: no schema for %s", i+1, it.DBID)
		}
		o, oerr := spider.ParseOfficial(s, it.Gold[0])
		f, ferr := spider.ParseAST(s, it.Gold[0])
		if oerr == nil {
			official++
		}
		if ferr == nil {
			ours++
		}
		if oerr != nil || ferr != nil {
			continue
		}
		if o.Equal(f) {
			same++
			continue
		}
		ob, _ := o.MarshalJSON()
		fb, _ := f.MarshalJSON()
		t.Errorf("line %d: structures differ\n  %s\n  official %s\n  fromast  %s", i+1, it.Gold[0], ob, fb)
	}
	t.Logf("train gold: official parser reads %d/%d, sqlast+FromAST %d/%d; same structure on %d read by both", official, len(items), ours, len(items), same)
}

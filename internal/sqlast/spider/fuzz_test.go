package spider_test

import (
	"errors"
	"testing"

	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/sqlast/spider"
)

// FuzzSpider checks that no input makes the Spider readers or the
// evaluator panic: the official parser (ParseOfficial), sqljudge's reader
// (ParseAST), and grading of what they read against a dev gold query, on
// the car_1 schema. Errors must be the documented ones. The seed corpus is
// testdata/fuzz/FuzzSpider.
func FuzzSpider(f *testing.F) {
	schemas, items := loadSpider(f, shareddata.SubsetSet(f), "")
	s := schemas["car_1"]
	var gold string
	for _, it := range items {
		if it.DBID == "car_1" {
			gold = it.Gold[0]
			break
		}
	}
	f.Add("SELECT count(*) FROM cars_data WHERE cylinders > 4")
	f.Fuzz(func(t *testing.T, q string) {
		o, oerr := spider.ParseOfficial(s, spider.PrepareOfficial(q))
		if oerr != nil && !errors.Is(oerr, spider.ErrUnparsed) {
			t.Fatalf("ParseOfficial error does not wrap ErrUnparsed: %v", oerr)
		}
		if oerr == nil {
			if _, err := spider.HardnessOf(o); err != nil && !errors.Is(err, spider.ErrOfficialCrash) {
				t.Fatalf("HardnessOf: %v", err)
			}
			if _, err := o.MarshalJSON(); err != nil {
				t.Fatal(err)
			}
		}
		a, aerr := spider.ParseAST(s, q)
		if aerr == nil {
			if _, err := spider.HardnessOf(a); err != nil {
				t.Fatalf("HardnessOf of a FromAST structure: %v", err)
			}
		}
		g, err := spider.GradeOfficial(s, gold, q)
		if err != nil {
			t.Fatalf("GradeOfficial with a readable gold: %v", err)
		}
		if g.PredParsed != (oerr == nil) && !errors.Is(g.PredErr, spider.ErrOfficialCrash) {
			t.Fatalf("PredParsed %v but ParseOfficial error %v", g.PredParsed, oerr)
		}
		gs, _ := spider.ParseOfficial(s, gold)
		if _, err := spider.GradeParsed(s, gs, a, aerr); err != nil {
			t.Fatalf("GradeParsed: %v", err)
		}
	})
}

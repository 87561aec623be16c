package spider_test

import (
	"errors"
	"testing"

	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/sqlast"
	"github.com/sqljudge/sqljudge/internal/sqlast/spider"
)

// TestForeignKeyMap checks build_foreign_key_map on car_1 of tables.json:
// each foreign-key column maps to the smallest column index of its pair.
func TestForeignKeyMap(t *testing.T) {
	schemas, _ := loadSpider(t, shareddata.SubsetSet(t), "")
	s := schemas["car_1"]
	for col, want := range map[string]string{
		"__countries.continent__": "__continents.contid__",
		"__continents.contid__":   "__continents.contid__",
		"__car_makers.country__":  "__countries.countryid__",
		"__model_list.maker__":    "__car_makers.id__",
		"__car_names.model__":     "__model_list.model__",
		"__cars_data.id__":        "__car_names.makeid__",
	} {
		if got, ok := s.ForeignKey(col); !ok || got != want {
			t.Errorf("ForeignKey(%s) = %q, %v; want %q", col, got, ok, want)
		}
	}
	if got, ok := s.ForeignKey("__cars_data.mpg__"); ok {
		t.Errorf("mpg is in no foreign key; got %q", got)
	}
}

// TestWhatTheOfficialParserRejects checks queries on car_1 that
// process_sql rejects (and that ParseFixed reads) and ones it reads.
func TestWhatTheOfficialParserRejects(t *testing.T) {
	schemas, _ := loadSpider(t, shareddata.SubsetSet(t), "")
	s := schemas["car_1"]
	for _, c := range []struct {
		q              string
		official, ours bool
	}{
		{"SELECT Maker FROM car_makers WHERE FullName = 'Ford'", true, true},
		{"SELECT Maker FROM car_makers WHERE FullName = 'Ford''s'", false, true}, // the two quoted parts glue into one unknown token
		{"SELECT Maker FROM car_makers WHERE FullName = 'Ford", false, false},
		{"SELECT Maker FROM car_makers WHERE FullName = \"Ford's\"", false, true}, // odd number of quotes
		{"SELECT T1.Maker FROM car_makers T1", false, true},                       // alias without AS
		{"SELECT Maker FROM car_makers, countries WHERE Country = CountryId", false, true},
		{"SELECT Maker FROM car_makers WHERE Id <> 3", false, true},
		{"SELECT Maker FROM car_makers WHERE Country IS NOT NULL", false, true},
		{"SELECT T1.Maker FROM car_makers AS T1 LEFT JOIN countries AS T2 ON T1.Country = T2.CountryId", false, true},
		{"SELECT Maker FROM car_makers WHERE (Id = 1 OR Id = 2)", false, true},
		{"SELECT Nope FROM car_makers", false, false},
		{"SELECT Maker FROM car_makers AS car_names", false, true}, // alias equal to a table name
	} {
		_, oerr := spider.ParseOfficial(s, c.q)
		if (oerr == nil) != c.official {
			t.Errorf("ParseOfficial(%q): %v; want read=%v", c.q, oerr, c.official)
		}
		if oerr != nil && !errors.Is(oerr, spider.ErrUnparsed) {
			t.Errorf("ParseOfficial(%q): %v does not wrap ErrUnparsed", c.q, oerr)
		}
		_, ferr := spider.ParseFixed(s, c.q)
		if (ferr == nil) != c.ours {
			t.Errorf("ParseFixed(%q): %v; want read=%v", c.q, ferr, c.ours)
		}
	}
}

// TestExactMatchRules checks the official comparison rules on car_1:
// values ignored, DISTINCT ignored, foreign keys canonicalised, select
// items compared as a set, and real differences caught.
func TestExactMatchRules(t *testing.T) {
	schemas, _ := loadSpider(t, shareddata.SubsetSet(t), "")
	s := schemas["car_1"]
	gold := "SELECT T2.Model FROM model_list AS T1 JOIN car_names AS T2 ON T1.Model = T2.Model WHERE T1.Maker = 3"
	for _, c := range []struct {
		pred  string
		exact bool
	}{
		{gold, true},
		{"SELECT T2.Model FROM model_list AS T1 JOIN car_names AS T2 ON T1.Model = T2.Model WHERE T1.Maker = 7", true},
		{"SELECT DISTINCT T2.Model FROM model_list AS T1 JOIN car_names AS T2 ON T1.Model = T2.Model WHERE T1.Maker = 3", true},
		{"SELECT T1.Model FROM model_list AS T1 JOIN car_names AS T2 ON T1.Model = T2.Model WHERE T1.Maker = 3", true}, // car_names.model is a foreign key to model_list.model
		{"SELECT T2.Model FROM model_list AS T1 JOIN car_names AS T2 ON T1.Model = T2.Model WHERE T1.Maker > 3", false},
		{"SELECT T2.Make FROM model_list AS T1 JOIN car_names AS T2 ON T1.Model = T2.Model WHERE T1.Maker = 3", false},
		{"SELECT T2.Model FROM model_list AS T1 JOIN car_names AS T2 ON T1.Model = T2.Model", false},
	} {
		g, err := spider.GradeOfficial(s, gold, c.pred)
		if err != nil {
			t.Fatal(err)
		}
		if g.Exact != c.exact || !g.PredParsed {
			t.Errorf("%s: exact %v parsed %v; want %v", c.pred, g.Exact, g.PredParsed, c.exact)
		}
	}
	g, err := spider.GradeOfficial(s, "SELECT Maker, FullName FROM car_makers", "SELECT FullName, Maker FROM car_makers")
	if err != nil || !g.Exact || g.Hardness != spider.Medium {
		t.Errorf("select order: %+v, %v", g, err)
	}
}

// TestBadInput checks that readers return errors, not panics, on bad
// input.
func TestBadInput(t *testing.T) {
	if _, err := spider.NewSchema(nil); err == nil {
		t.Error("NewSchema(nil) succeeded")
	}
	if _, err := spider.ParseOfficial(nil, "SELECT 1"); err == nil {
		t.Error("ParseOfficial without schema succeeded")
	}
	schemas, _ := loadSpider(t, shareddata.SubsetSet(t), "")
	s := schemas["car_1"]
	var me *spider.MapError
	if _, err := spider.FromAST(s, sqlast.MustParse("DELETE FROM cars_data")); !errors.As(err, &me) {
		t.Errorf("FromAST(DELETE) = %v; want *MapError", err)
	}
	if _, err := spider.FromAST(s, sqlast.MustParse("WITH x AS (SELECT 1) SELECT * FROM x")); !errors.As(err, &me) {
		t.Errorf("FromAST(WITH) = %v; want *MapError", err)
	}
	if _, err := spider.Hardness(dbOf(t, "car_1"), "SELECT nope FROM cars_data"); !errors.Is(err, spider.ErrUnparsed) {
		t.Errorf("Hardness of an unreadable gold: %v", err)
	}
	if _, err := spider.GradeOfficial(s, "SELECT nope FROM cars_data", "SELECT 1"); err == nil {
		t.Error("GradeOfficial with an unreadable gold succeeded")
	}
	for _, q := range []string{"", ")", "select", "select a from cars_data where", "= select >", "limit", "select count( from cars_data", "select * from cars_data as"} {
		if _, err := spider.ParseOfficial(s, q); !errors.Is(err, spider.ErrUnparsed) {
			t.Errorf("ParseOfficial(%q) = %v", q, err)
		}
	}
}

package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/llm/llmtest"
)

// birdLike copies Spider's concert_singer into a temporary folder laid
// out as BIRD's (DB/DB.sqlite beside DB/database_description/*.csv) and
// writes description files in BIRD's format: singer.csv in UTF-8 with a
// byte-order mark, stadium.csv in Windows-1252.
func birdLike(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "concert_singer")
	if err := os.MkdirAll(filepath.Join(dir, "database_description"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(spiderDB(t, "concert_singer"))
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "concert_singer.sqlite")
	if err := os.WriteFile(db, b, 0o644); err != nil {
		t.Fatal(err)
	}
	singer := "\xef\xbb\xbforiginal_column_name,column_name,column_description,data_format,value_description\n" +
		"Singer_ID,singer id,the unique id of the singer,integer,\n" +
		"Name,,name of the singer,text,\n" +
		"Country,country,\"the country the singer\ncomes from\",text,\"commonsense evidence: Netherlands means the singer is Dutch\"\n" +
		"Age ,,age of the singer in years,integer,not useful because it changes\n" +
		"Is_male,is male,gender,text,\"T: male, F: female\"\n"
	// "Capacity" described in Windows-1252: 0xE9 is e-acute.
	stadium := "original_column_name,column_name,column_description,data_format,value_description\r\n" +
		"Capacity,capacity,number of seats of the stadium (d\xe9compte),integer,\r\n" +
		"Location,location,the city of the stadium,text,\r\n"
	for name, text := range map[string]string{"singer.csv": singer, "stadium.csv": stadium} {
		if err := os.WriteFile(filepath.Join(dir, "database_description", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func TestLoadDescriptions(t *testing.T) {
	db := birdLike(t)
	ds, err := LoadDescriptions(filepath.Dir(db), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 7 {
		t.Fatalf("%d descriptions: %+v", len(ds), ds)
	}
	byCol := map[string]Description{}
	for _, d := range ds {
		byCol[d.Table+"."+d.Column] = d
	}
	c := byCol["singer.country"]
	if c.ColumnDescription.ColumnDescription != "the country the singer comes from" ||
		c.ValueDescription != "Netherlands means the singer is Dutch" || c.ColumnName != "country" {
		t.Errorf("country: %+v", c)
	}
	if a := byCol["singer.age"]; a.ValueDescription != "because it changes" || a.OriginalColumnName != "Age " {
		t.Errorf("age: %+v", a)
	}
	if s := byCol["stadium.capacity"]; !strings.Contains(s.ColumnDescription.ColumnDescription, "décompte") {
		t.Errorf("Windows-1252 file misread: %+v", s)
	}
	docs := descriptionDocs(ds)
	// singer: id 3 texts, name 1, country 3, age 2, is_male 3; stadium 2+2
	if len(docs) != 15 {
		t.Errorf("%d docs", len(docs))
	}
	ds, _ = LoadDescriptions(filepath.Dir(db), false)
	for _, d := range ds {
		if d.ValueDescription != "" {
			t.Errorf("value description kept: %+v", d)
		}
	}
	// A file without the key column is an error naming it.
	bad := filepath.Join(filepath.Dir(db), "database_description", "zzz.csv")
	os.WriteFile(bad, []byte("a,b\n1,2\n"), 0o644)
	if _, err := LoadDescriptions(filepath.Dir(db), true); err == nil || !strings.Contains(err.Error(), "zzz.csv:1") {
		t.Errorf("bad file: %v", err)
	}
	// Spider: no folder, no descriptions, no error.
	if ds, err := LoadDescriptions(filepath.Dir(spiderDB(t, "concert_singer")), true); err != nil || len(ds) != 0 {
		t.Errorf("spider: %d descriptions, %v", len(ds), err)
	}
}

func embedClient(t *testing.T, srv *llmtest.Server, model string) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), EmbedModel: model})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRetrieveContextThroughScriptedServer(t *testing.T) {
	ctx := context.Background()
	srv := llmtest.New(t, func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Status: 500} })
	db := birdLike(t)
	cache := t.TempDir()
	c := embedClient(t, srv, "embed-a")
	ix, err := Open(ctx, cache, db, Options{Embedder: c, EmbedModel: "embed-a"})
	if err != nil {
		t.Fatal(err)
	}
	if st := ix.Stats(); st.Descriptions != 15 || !st.DescriptionsEmbedded || len(srv.EmbedLog()) != 1 {
		t.Fatalf("stats %+v after %d embedding requests", st, len(srv.EmbedLog()))
	}
	got, err := ix.RetrieveContext(ctx, []string{"country", "capacity"}, "Which singers come from the Netherlands?", "", c, DefaultTopK)
	if err != nil {
		t.Fatal(err)
	}
	log := srv.EmbedLog()
	if len(log) != 2 || len(log[1].Input) != 4 || log[1].Input[0] != "Which singers come from the Netherlands? country" || log[1].Input[1] != " country" {
		t.Fatalf("query request %+v", log[len(log)-1])
	}
	if d, ok := got["singer"]["country"]; !ok || d.ValueDescription != "Netherlands means the singer is Dutch" {
		t.Errorf("context lacks singer.country: %+v", got)
	}
	if _, ok := got["stadium"]["capacity"]; !ok {
		t.Errorf("context lacks stadium.capacity: %+v", got)
	}
	n := 0
	for _, cols := range got {
		n += len(cols)
	}
	if n > 4*DefaultTopK {
		t.Errorf("%d columns from 4 queries of top %d", n, DefaultTopK)
	}
	// Same bytes on a second run.
	again, _ := ix.RetrieveContext(ctx, []string{"country", "capacity"}, "Which singers come from the Netherlands?", "", c, DefaultTopK)
	j1, _ := json.Marshal(got)
	j2, _ := json.Marshal(again)
	if string(j1) != string(j2) {
		t.Error("two retrievals differ")
	}

	// Reopened with the same model: the description embeddings come from
	// the index's cache, not the server.
	before := len(srv.EmbedLog())
	c2 := embedClient(t, srv, "embed-a")
	ix2, err := Open(ctx, cache, db, Options{Embedder: c2, EmbedModel: "embed-a"})
	if err != nil {
		t.Fatal(err)
	}
	if ix2.Built() || len(srv.EmbedLog()) != before {
		t.Errorf("reopen built=%v with %d embedding requests", ix2.Built(), len(srv.EmbedLog())-before)
	}
	// Another model embeds them again.
	c3 := embedClient(t, srv, "embed-b")
	if _, err := Open(ctx, cache, db, Options{Embedder: c3, EmbedModel: "embed-b"}); err != nil {
		t.Fatal(err)
	}
	if l := srv.EmbedLog(); len(l) != before+1 || l[len(l)-1].Model != "embed-b" {
		t.Errorf("new model: %d requests", len(l)-before)
	}

	// Spider: empty context, no request.
	before = len(srv.EmbedLog())
	sp, err := Open(ctx, t.TempDir(), spiderDB(t, "concert_singer"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := sp.RetrieveContext(ctx, []string{"country"}, "q", "", c, 5); err != nil || len(got) != 0 || len(srv.EmbedLog()) != before {
		t.Errorf("spider context %v, %v", got, err)
	}
}

// TestRebuiltWhenDatabaseChanges checks that the cache follows the
// database's content: an unchanged file is read from the cache, a changed
// one is indexed again.
func TestRebuiltWhenDatabaseChanges(t *testing.T) {
	ctx := context.Background()
	db := birdLike(t)
	cache := t.TempDir()
	emb := &localEmbedder{}
	ix, err := Open(ctx, cache, db, Options{})
	if err != nil || !ix.Built() {
		t.Fatal(err)
	}
	// touching without a change keeps the cache
	os.Chtimes(db, ix.openedAt(), ix.openedAt())
	if ix, _ = Open(ctx, cache, db, Options{}); ix.Built() {
		t.Fatal("unchanged database rebuilt")
	}
	w, err := sql.Open("sqlite3", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`UPDATE singer SET Country = 'Luxembourg' WHERE Country = 'France'`); err != nil {
		t.Fatal(err)
	}
	w.Close()
	ix, err = Open(ctx, cache, db, Options{})
	if err != nil || !ix.Built() {
		t.Fatalf("changed database not rebuilt: %v", err)
	}
	ents, err := ix.RetrieveEntities(ctx, []string{"Luxemburg"}, emb)
	if err != nil || !slices.Contains(ents.SimilarValues["singer"]["Country"], "Luxembourg") {
		t.Fatalf("new value not found: %+v %v", ents, err)
	}
	// Options that change the build are part of the cache's identity.
	if ix, _ = Open(ctx, cache, db, Options{TextAffinity: true}); !ix.Built() {
		t.Error("TextAffinity reused a cache built without it")
	}
}

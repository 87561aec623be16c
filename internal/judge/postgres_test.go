package judge_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/engine/postgres"
	"github.com/sqljudge/sqljudge/internal/judge"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// TestSchemaOnPostgres: the judges read a PostgreSQL database's schema
// from its catalog, as they read SQLite's from sqlite_master: SchemaDDL
// renders its CREATE TABLE statements for PostgreSQL (keys and foreign
// keys included, a table of another schema qualified), and ROSE's
// database information lists the tables a query names with their
// columns, types, key and foreign keys.
func TestSchemaOnPostgres(t *testing.T) {
	server := testserver.Postgres(t)
	ctx := context.Background()
	name := strings.TrimSuffix(testserver.Name("sjt_judge_"), "_")
	conn := testserver.CreatePostgresDB(t, server, name)
	if _, err := conn.Exec(ctx, `CREATE TABLE singer (singer_id INT PRIMARY KEY, name TEXT NOT NULL);
		CREATE TABLE concert (id INT PRIMARY KEY, singer_id INT REFERENCES singer (singer_id), year VARCHAR(4));
		CREATE SCHEMA archive; CREATE TABLE archive.old (id INT)`); err != nil {
		t.Fatal(err)
	}
	eng, err := postgres.New(server, postgres.Options{AllowSuperuser: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ddl, err := judge.SchemaDDL(ctx, eng, name)
	if err != nil {
		t.Fatal(err)
	}
	want := `CREATE TABLE "singer" ("singer_id" INTEGER NOT NULL, "name" TEXT NOT NULL, PRIMARY KEY ("singer_id"));

CREATE TABLE "concert" ("id" INTEGER NOT NULL, "singer_id" INTEGER, "year" VARCHAR(4), PRIMARY KEY ("id"), FOREIGN KEY ("singer_id") REFERENCES "singer" ("singer_id"));

CREATE TABLE "archive"."old" ("id" INTEGER);`
	if ddl != want {
		t.Errorf("SchemaDDL:\n%s\nwant:\n%s", ddl, want)
	}
	info, err := judge.LoadDBInfo(ctx, eng, name)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := info.For("SELECT year FROM concert"), "Database: "+name+"\nSchema:\nconcert (id integer PRIMARY KEY, singer_id integer foreign key(singer.singer_id), year character varying(4))\n\n\n"; got != want {
		t.Errorf("ROSE's information:\n%q\nwant\n%q", got, want)
	}
}

module github.com/sqljudge/sqljudge

go 1.26.0

require (
	github.com/mattn/go-sqlite3 v1.14.53
	golang.org/x/sync v0.24.0
)

require github.com/sqlc-dev/meyer v0.1.2

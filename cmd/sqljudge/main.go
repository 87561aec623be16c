// Command sqljudge grades text-to-SQL predictions; see `sqljudge --help`.
package main

import (
	"os"

	"github.com/sqljudge/sqljudge/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

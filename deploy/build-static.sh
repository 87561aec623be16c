#!/usr/bin/env bash
# Builds a statically linked Linux sqljudge: cgo (mattn/go-sqlite3) linked
# against the static C library, the pure-Go DNS resolver and user lookup
# (netgo, osusergo: glibc's NSS cannot be linked statically), and SQLite's
# extension loading left out (it needs dlopen). The result needs no shared
# library, so it runs in an empty container (see Dockerfile).
#
#   deploy/build-static.sh [OUTPUT]     default OUTPUT: ./sqljudge
#
# OUTPUT is relative to the folder the script is called from. The build
# compiles SQLite's C source and every dependency with its own flags, so
# the Go build cache rarely helps: several minutes of CPU time (see
# docs/deploy.md). It says what it does on stderr and how long it took.
#
# Needs a C compiler and the static C library (Debian: libc6-dev, which
# ships libc.a). The version comes from the checkout (see docs/development.md).
set -euo pipefail
out="${1:-sqljudge}"
case "$out" in
/*) ;;
*) out="$PWD/$out" ;;
esac
cd "$(dirname "$0")/.."
echo "build-static: building $out from $PWD with cgo against the static C library" >&2
echo "build-static: (SQLite's C source and every dependency: minutes of CPU time, silent meanwhile)" >&2
TIMEFORMAT="build-static: built $out (static): %0R s of wall time, %0U s user and %0S s system CPU time"
time CGO_ENABLED=1 go build -trimpath \
  -tags 'osusergo netgo sqlite_omit_load_extension' \
  -ldflags '-s -w -linkmode external -extldflags "-static"' \
  -o "$out" ./cmd/sqljudge
echo "built $out (static)"

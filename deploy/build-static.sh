#!/usr/bin/env bash
# Builds a statically linked Linux sqljudge: cgo (mattn/go-sqlite3) linked
# against the static C library, the pure-Go DNS resolver and user lookup
# (netgo, osusergo: glibc's NSS cannot be linked statically), and SQLite's
# extension loading left out (it needs dlopen). The result needs no shared
# library, so it runs in an empty container (see Dockerfile).
#
#   deploy/build-static.sh [OUTPUT]     default OUTPUT: ./sqljudge
#
# Needs a C compiler and the static C library (Debian: libc6-dev, which
# ships libc.a). The version comes from the checkout (see docs/development.md).
set -euo pipefail
out="${1:-sqljudge}"
cd "$(dirname "$0")/.."
CGO_ENABLED=1 go build -trimpath \
  -tags 'osusergo netgo sqlite_omit_load_extension' \
  -ldflags '-s -w -linkmode external -extldflags "-static"' \
  -o "$out" ./cmd/sqljudge
echo "built $out (static)"

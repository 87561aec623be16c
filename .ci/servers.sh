# Database servers for the tests: PostgreSQL and MariaDB from Debian
# packages, each started on a loopback port with a temporary data directory.
# Source this file, then:
#
#   install_servers      apt-get install the packages (skipped when present),
#                        z3 (the equiv prover's SMT solver) among them
#   start_postgres DIR   initdb + start in DIR; exports SQLJUDGE_TEST_POSTGRES
#   start_mariadb DIR    install-db + start in DIR; exports SQLJUDGE_TEST_MYSQL
#   stop_servers         stop whatever was started (idempotent; use in a trap)
#
# Both servers run as their packages' system users (postgres, mysql) when
# this runs as root, since initdb refuses root; as the current user
# otherwise. They listen on 127.0.0.1 only, trust loopback logins (postgres)
# or use a throw-away password (mariadb), and keep everything in DIR.

SJ_PG_DIR=""
SJ_MY_DIR=""

sj_as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

install_servers() {
  local need=()
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
  command -v mariadbd >/dev/null 2>&1 || need+=(mariadb-server)
  # z3: the SMT solver the equiv prover runs (internal/prove/check).
  command -v z3 >/dev/null 2>&1 || need+=(z3)
  if [ ${#need[@]} -eq 0 ]; then
    echo "servers: postgresql, mariadb-server and z3 already installed"
    return 0
  fi
  echo "servers: apt-get install ${need[*]}"
  # policy-rc.d 101 keeps the packages from starting their own services.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | sj_as_root tee /usr/sbin/policy-rc.d >/dev/null
    sj_as_root chmod +x /usr/sbin/policy-rc.d
    SJ_POLICY_ADDED=1
  fi
  # The tests start their own clusters: skip the package's default one.
  sj_as_root mkdir -p /etc/postgresql-common
  if [ ! -e /etc/postgresql-common/createcluster.conf ]; then
    echo "create_main_cluster = false" | sj_as_root tee /etc/postgresql-common/createcluster.conf >/dev/null
  fi
  sj_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  sj_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${need[@]}" >/dev/null
  if [ "${SJ_POLICY_ADDED:-}" = 1 ]; then sj_as_root rm -f /usr/sbin/policy-rc.d; fi
}

# sj_free_port START: the first port from START up that nothing listens on.
sj_free_port() {
  local p=$1
  while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((p + 1)); done
  echo "$p"
}

# sj_run_as USER CMD...: run CMD as USER when root, else as ourselves.
sj_run_as() {
  local user=$1
  shift
  if [ "$(id -u)" -eq 0 ]; then runuser -u "$user" -- "$@"; else "$@"; fi
}

start_postgres() {
  local dir=$1 bin port
  bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  port=$(sj_free_port 54329)
  mkdir -p "$dir"
  if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; fi
  SJ_PG_DIR=$dir
  sj_run_as postgres "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log"; return 1; }
  sj_run_as postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=200" \
    start >/dev/null || { cat "$dir/server.log"; return 1; }
  # As docs/equiv.md prescribes for a server that runs equiv: new databases
  # (copies of template1) do not let PUBLIC signal other backends, so a
  # pair's query cannot end other sessions of its role.
  "$bin/psql" -X -q -h 127.0.0.1 -p "$port" -U postgres -d template1 -v ON_ERROR_STOP=1 \
    -c "REVOKE EXECUTE ON FUNCTION pg_terminate_backend(integer, bigint), pg_cancel_backend(integer) FROM PUBLIC" ||
    { cat "$dir/server.log"; return 1; }
  export SQLJUDGE_TEST_POSTGRES="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
  echo "servers: postgres $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (data in $dir)"
}

start_mariadb() {
  local dir=$1 port sock i
  port=$(sj_free_port 33069)
  sock=$dir/mysqld.sock
  mkdir -p "$dir/data"
  if [ "$(id -u)" -eq 0 ]; then chown -R mysql: "$dir"; fi
  SJ_MY_DIR=$dir
  sj_run_as mysql mariadb-install-db --no-defaults --datadir="$dir/data" --auth-root-authentication-method=normal \
    --skip-test-db >"$dir/install.log" 2>&1 || { cat "$dir/install.log"; return 1; }
  sj_run_as mysql mariadbd --no-defaults --datadir="$dir/data" --socket="$sock" --port="$port" \
    --bind-address=127.0.0.1 --pid-file="$dir/mysqld.pid" --log-error="$dir/error.log" \
    --skip-log-bin --innodb-flush-log-at-trx-commit=0 --max-connections=300 >/dev/null 2>&1 &
  for i in $(seq 1 120); do
    if mariadb --no-defaults -S "$sock" -u root -e 'SELECT 1' >/dev/null 2>&1; then break; fi
    if [ "$i" -eq 120 ]; then cat "$dir/error.log"; return 1; fi
    sleep 0.5
  done
  mariadb --no-defaults -S "$sock" -u root -e "
    CREATE USER 'sqljudge'@'127.0.0.1' IDENTIFIED BY 'sqljudge';
    GRANT ALL PRIVILEGES ON *.* TO 'sqljudge'@'127.0.0.1';"
  export SQLJUDGE_TEST_MYSQL="mysql://sqljudge:sqljudge@127.0.0.1:$port/"
  echo "servers: mariadb $(mariadbd --version | awk '{print $3}') on 127.0.0.1:$port (data in $dir)"
}

stop_servers() {
  local bin
  if [ -n "$SJ_PG_DIR" ] && [ -f "$SJ_PG_DIR/data/postmaster.pid" ]; then
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    sj_run_as postgres "$bin/pg_ctl" -D "$SJ_PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  if [ -n "$SJ_MY_DIR" ] && [ -f "$SJ_MY_DIR/mysqld.pid" ]; then
    local pid
    pid=$(cat "$SJ_MY_DIR/mysqld.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  fi
  SJ_PG_DIR=""
  SJ_MY_DIR=""
}

# Shared helpers for end-to-end tests: source it first.
#   . "$(dirname "$0")/lib.sh"
set -u
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# every layer's headers, for test drivers built against libprovenance.a: the
# folders of the Makefile's "<folder>/%.o: LAYER_INC" rules (one list, there)
PROV_INC=$(awk -v top="$TOP" '$1 ~ /\/%\.o:$/ && $2 == "LAYER_INC" { sub(/\/%\.o:$/, "", $1); printf "-I%s/%s ", top, $1 }' "$TOP/Makefile")
PROVENANCE=${PROVENANCE:-$TOP/provenance}
T=$(mktemp -d "${TMPDIR:-/tmp}/prov-test.XXXXXX")

# Every JSON document a test has triage, query, env, fixcheck (--format json)
# or show print is validated against its schema in docs/schema/ when the test
# exits: $PROVENANCE is tests/e2e/schema-wrap.sh, written into a folder of
# its own beside $T (find "$T" sees nothing new), which keeps a copy of that
# stdout; any other run it execs untouched. PROVENANCE_BIN is the binary
# itself, for what needs the ELF (ldd, strace of its own opens). The exit
# trap runs check-schema.py once over all copies; a document that does not
# conform fails the test with the schema's message. Tests set their own EXIT
# traps: the `trap` function below puts the check in front of theirs (in the
# test's own shell only, not in subshells). PROVENANCE_SCHEMA_CHECK=0 turns
# it off.
PROVENANCE_BIN=$PROVENANCE
SCHEMA_RUNS=
__schema_shell=$BASHPID
__schema_failed=
if [ "${PROVENANCE_SCHEMA_CHECK:-1}" != 0 ] && [ -f "$TOP/tests/e2e/schema-wrap.sh" ] &&
	SCHEMA_RUNS=$(mktemp -d "${TMPDIR:-/tmp}/prov-schema.XXXXXX"); then
	__schema_q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
	mkdir "$SCHEMA_RUNS/runs"
	# a test may run $PROVENANCE as another user (setpriv): it may run the
	# wrapper, which then cannot keep a copy and execs the binary unchecked
	chmod 755 "$SCHEMA_RUNS"
	sed -e "s|^REAL=@REAL@\$|REAL=$(__schema_q "$PROVENANCE_BIN" | sed 's/[|&\\]/\\&/g')|" \
		-e "s|^DIR=@DIR@\$|DIR=$(__schema_q "$SCHEMA_RUNS/runs" | sed 's/[|&\\]/\\&/g')|" \
		"$TOP/tests/e2e/schema-wrap.sh" >"$SCHEMA_RUNS/provenance" &&
		chmod +x "$SCHEMA_RUNS/provenance" && PROVENANCE=$SCHEMA_RUNS/provenance
fi
# schema_check: validate the copies kept so far (lib.sh's exit trap calls it)
schema_check() {
	[ -n "$SCHEMA_RUNS" ] && [ -d "$SCHEMA_RUNS/runs" ] || return 0
	compgen -G "$SCHEMA_RUNS/runs/*.rc" >/dev/null || return 0
	python3 -c 'import jsonschema' 2>/dev/null || { echo "# schema check skipped: no python3-jsonschema"; return 0; }
	python3 "$TOP/tests/e2e/check-schema.py" --wrapped "$TOP/docs/schema" "$SCHEMA_RUNS/runs"
}
__schema_exit_pre() {
	[ "$BASHPID" = "$__schema_shell" ] || return 0
	schema_check >&2 || { __schema_failed=1; echo "FAIL: JSON that does not conform to docs/schema (above)" >&2; }
	[ -n "$SCHEMA_RUNS" ] && rm -rf "$SCHEMA_RUNS"
	return 0
}
__schema_exit_post() { [ "$BASHPID" = "$__schema_shell" ] && [ -n "$__schema_failed" ] && exit 1; return 0; }
# trap CMD EXIT: the test's handler, with the schema check before it
trap() {
	if [ $# = 2 ] && { [ "$2" = EXIT ] || [ "$2" = 0 ]; } && [ "$BASHPID" = "$__schema_shell" ]; then
		builtin trap -- "__schema_exit_pre; $1
__schema_exit_post" EXIT
	else
		builtin trap "$@"
	fi
}
trap 'rm -rf "$T"' EXIT
# Tests never touch the user's cache or config.
export PROVENANCE_CACHE="$T/cache"
export XDG_CONFIG_HOME="$T/config"
export XDG_CACHE_HOME="$T/xdg-cache"
export XDG_DATA_HOME="$T/xdg-data"
unset DEBUGINFOD_URLS
CFLAGS_FIXTURE="-g -O0 -fno-omit-frame-pointer"

# Deterministic fixtures that take long to make are made once per checkout and
# copied: the plain and the sanitizer pass of CI share them (make clean keeps
# tests/.fixtures). The key is the generator's content and its arguments, so a
# changed generator makes a new one.
FIXTURE_CACHE=${PROVENANCE_FIXTURE_CACHE:-$TOP/tests/.fixtures}
# fixture_cached DEST GENERATOR [ARG...]: what "GENERATOR DIR ARG..." makes in DIR, copied to DEST
fixture_cached() {
	local dest=$1 gen=$2 key dir
	shift 2
	key=$({ sha256sum <"$gen"; printf '%s\n' "$@"; } | sha256sum | cut -c1-16)
	dir=$FIXTURE_CACHE/$(basename "$gen")-$key
	mkdir -p "$FIXTURE_CACHE" || return 1
	(
		flock 9 || exit 1
		[ -d "$dir" ] && exit 0
		rm -rf "$dir.tmp"
		"$gen" "$dir.tmp" "$@" >/dev/null && mv "$dir.tmp" "$dir"
	) 9>"$dir.lock" || return 1
	cp -a "$dir" "$dest"
}
skip() { echo "skip: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }

# check_eq ACTUAL EXPECTED WHAT
check_eq() {
	if [ "$1" != "$2" ]; then
		fail "$3: expected '$2', got '$1'"
	fi
	echo "ok: $3 = '$1'"
}
# check_match STRING ERE WHAT
check_match() {
	if ! printf '%s' "$1" | grep -Eq -- "$2"; then
		fail "$3: '$1' does not match /$2/"
	fi
	echo "ok: $3 matches /$2/"
}
# check_exit EXPECTED WHAT -- CMD...: run CMD, compare its exit code
check_exit() {
	local want=$1 what=$2; shift 2
	[ "$1" = "--" ] && shift
	"$@" >"$T/last.out" 2>"$T/last.err"
	local rc=$?
	if [ "$rc" != "$want" ]; then
		echo "stdout:"; head -20 "$T/last.out"; echo "stderr:"; head -20 "$T/last.err"
		fail "$what: exit $rc, expected $want"
	fi
	echo "ok: $what exits $rc"
}

# jq-like accessor: json_get FILE PYTHON-EXPR (the document is `d`)
json_get() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
v=eval(sys.argv[2])
print("null" if v is None else (json.dumps(v) if isinstance(v,(dict,list,bool)) else v))' "$1" "$2"
}

# wait_file FILE WHAT: a server the test started has written FILE (its port or
# pid) within 10 s, or the test fails saying WHAT did not start.
wait_file() { for _ in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.1; done; fail "$2 did not start"; }

# count_opens REGEX CMD...: how many times CMD (and its children and threads)
# opened a file whose path matches REGEX (a Python regex), as strace sees the
# opens that succeeded: a count of work for scaling tests, not a time. The
# test checks `command -v strace` first (make deps installs it).
count_opens() {
	local re=$1 dir
	shift
	dir=$(mktemp -d -p "$T" strace.XXXXXX)
	[ "$1" = "$PROVENANCE" ] && set -- "$PROVENANCE_BIN" "${@:2}"
	# -ff: one log per thread, so that no call is split across lines
	strace -f -ff -qq -z -e trace=open,openat,openat2 -o "$dir/log" "$@" >/dev/null 2>&1
	cat "$dir"/log.* | python3 -c '
import re, sys
pat, n = re.compile(sys.argv[1]), 0
for line in sys.stdin:
    m = re.search(r"open(?:at2?)?\((?:[^,]*, )?\"((?:[^\"\\]|\\.)*)\"", line)
    n += bool(m and pat.search(m.group(1)))
print(n)' "$re"
}

# count_syscalls NAME CMD...: how many NAME system calls (pread64, read, ...)
# CMD and its children and threads made, as strace -c counts them (0 when
# none); like count_opens, a count of work, and the test checks for strace.
count_syscalls() {
	local name=$1 log
	shift
	log=$(mktemp -p "$T" strace-c.XXXXXX)
	[ "$1" = "$PROVENANCE" ] && set -- "$PROVENANCE_BIN" "${@:2}"
	strace -f -qq -c -e trace="$name" -o "$log" "$@" >/dev/null 2>&1
	awk -v n="$name" '$NF == n { c = $4 } END { print c + 0 }' "$log"
}

# build_fixture SRC OUT [extra cc args]: compile a fixture program
build_fixture() {
	local src=$1 out=$2; shift 2
	${CC:-cc} $CFLAGS_FIXTURE -o "$out" "$src" "$@" || fail "cannot build $src"
}

# two_reports: two real crashes of fixtures/crashers (a SIGSEGV through a
# library, a SIGABRT) run under gdb, their pasted backtraces resolved offline
# into $T/a.json and $T/b.json (the store tests' seed reports); programs in $T/bin
two_reports() {
	mkdir -p "$T/bin"
	build_fixture "$TOP/fixtures/crashers/libnull.c" "$T/bin/libnull.so" -fPIC -shared
	build_fixture "$TOP/fixtures/crashers/nullmain.c" "$T/bin/nullmain" "$T/bin/libnull.so" -Wl,-rpath,"$T/bin"
	build_fixture "$TOP/fixtures/crashers/abort.c" "$T/bin/abort"
	(cd "$T/bin" && gdb -nx -batch -ex run -ex bt ./nullmain) >"$T/bt1.txt" 2>&1
	(cd "$T/bin" && gdb -nx -batch -ex run -ex bt ./abort) >"$T/bt2.txt" 2>&1
	grep -q SIGSEGV "$T/bt1.txt" && grep -q SIGABRT "$T/bt2.txt" || fail "gdb did not see the crashes"
	"$PROVENANCE" resolve --offline --format json "$T/bt1.txt" >"$T/a.json" 2>/dev/null
	"$PROVENANCE" resolve --offline --format json "$T/bt2.txt" >"$T/b.json" 2>/dev/null
}

# start_server NAME ARGS...: `provenance serve ARGS` in the background, its pid
# added to SERVER_PIDS (stop_servers ends them); once it says where it
# listens, PORT and BASE (http://127.0.0.1:PORT) name it
SERVER_PIDS=""
start_server() {
	local name=$1; shift
	"$PROVENANCE" serve "$@" >"$T/serve.$name.out" 2>"$T/serve.$name.err" </dev/null &
	SERVER_PIDS="$SERVER_PIDS $!"
	for _ in $(seq 100); do grep -q '^listening on' "$T/serve.$name.out" 2>/dev/null && break; sleep 0.1; done
	grep -q '^listening on' "$T/serve.$name.out" || { cat "$T/serve.$name.err"; fail "$name: serve did not start"; }
	PORT=$(sed -n 's|^listening on http://[^ ]*:\([0-9]*\)/.*|\1|p' "$T/serve.$name.out")
	BASE="http://127.0.0.1:$PORT"
}
stop_servers() { local p; for p in $SERVER_PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; SERVER_PIDS=""; }

# can_dump_core: skip unless a crashing process leaves a core in its cwd
can_dump_core() {
	local pat
	pat=$(cat /proc/sys/kernel/core_pattern 2>/dev/null)
	case "$pat" in
	"|"*) skip "core_pattern pipes cores to '$pat'; cannot make cores here" ;;
	/*) skip "core_pattern writes cores to '$pat'; expected a relative pattern" ;;
	esac
}

# make_core DIR CMD...: run CMD in DIR with cores enabled; prints the core's path.
# The command is expected to die by a signal.
make_core() {
	local dir=$1; shift
	can_dump_core >/dev/null
	rm -f "$dir"/core "$dir"/core.*
	( cd "$dir" && ulimit -c unlimited && exec "$@" ) >/dev/null 2>&1
	local rc=$?
	[ $rc -ge 128 ] || fail "'$*' did not crash (exit $rc)"
	local c
	c=$(ls -t "$dir"/core "$dir"/core.* 2>/dev/null | head -1)
	[ -n "$c" ] || fail "'$*' crashed (exit $rc) but left no core in $dir"
	echo "$c"
}

# A throw-away PostgreSQL server for store tests: Debian's initdb and
# pg_ctl run as the postgres user (initdb refuses root), listening only on a
# Unix socket in a private directory, stopped by the EXIT trap. Sets PGDIR
# and PGURL (a postgresql:// URI naming the socket and the database "prov").
# Skips (77) when PostgreSQL is not installed.
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
pg_stop() {
	[ -n "${PGDIR:-}" ] && [ -d "$PGDIR" ] || return 0
	runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PGDIR/data" -m immediate stop >/dev/null 2>&1
	rm -rf "$PGDIR"
}
pg_start() {
	[ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/pg_ctl" ] || skip "no PostgreSQL server here ($PG_BIN/initdb; make deps installs postgresql)"
	id postgres >/dev/null 2>&1 || skip "no postgres user to run the PostgreSQL server as"
	command -v runuser >/dev/null || skip "no runuser to start PostgreSQL as the postgres user"
	PGDIR=$(mktemp -d /tmp/prov-pg.XXXXXX)
	chown postgres "$PGDIR"
	trap 'pg_stop; rm -rf "$T"' EXIT
	runuser -u postgres -- "$PG_BIN/initdb" -D "$PGDIR/data" -U postgres --auth=trust \
		--no-sync -E UTF8 --locale=C.UTF-8 >"$PGDIR/initdb.log" 2>&1 ||
		{ cat "$PGDIR/initdb.log"; fail "initdb"; }
	runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/log" -w \
		-o "-k $PGDIR -c listen_addresses= -c fsync=off -c max_connections=60" start >/dev/null 2>&1 ||
		{ cat "$PGDIR/log"; fail "pg_ctl start"; }
	psql -h "$PGDIR" -U postgres -d postgres -qAt -c 'CREATE DATABASE prov' >/dev/null ||
		fail "create database"
	PGURL="postgresql:///prov?host=$PGDIR&user=postgres"
}
# The read-only role docs/store.md gives for `query` (and dashboards), on
# database DB (default prov) whose store exists; sets PGRO to its URL.
pg_reader() {
	local db=${1:-prov}
	psql -h "$PGDIR" -U postgres -d postgres -qAt -c "DO \$\$BEGIN
		IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dashboards') THEN
			CREATE ROLE dashboards LOGIN;
			ALTER ROLE dashboards SET default_transaction_read_only = on;
			ALTER ROLE dashboards SET statement_timeout = '30s';
		END IF; END\$\$" >/dev/null || fail "create the dashboards role"
	psql -h "$PGDIR" -U postgres -d "$db" -qAt -c "GRANT CONNECT ON DATABASE $db TO dashboards;
		GRANT USAGE ON SCHEMA public TO dashboards;
		GRANT SELECT ON ALL TABLES IN SCHEMA public TO dashboards;" >/dev/null ||
		fail "grant the dashboards role on $db"
	PGRO="postgresql:///$db?host=$PGDIR&user=dashboards"
}
# psql on the test server's store: one value.
pg_sql() { psql -h "$PGDIR" -U postgres -d "${PGDB:-prov}" -qAt -c "$1"; }

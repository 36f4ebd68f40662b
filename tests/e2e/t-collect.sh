#!/bin/bash
# provenance collect: the core_pattern handler stores each crash with its job
# and rank, keeps the first core (zstd: an ELF core of the crashed pid), reads
# the packages of a chrooted crash from the chroot's dpkg database;
# --install --persist writes the sysctl.d file and --uninstall removes it;
# --uninstall restores core_pattern byte for byte; a report queued
# while the store fails is sent exactly once by --flush, also after a flush
# killed with kill -9 halfway.
# test: alone (it sets the machine-wide core_pattern; core-making tests must not run beside it)
. "$(dirname "$0")/lib.sh"

CP=/proc/sys/kernel/core_pattern
PL=/proc/sys/kernel/core_pipe_limit
[ "$(id -u)" = 0 ] || skip "needs root (writes $CP)"
[ -w "$CP" ] || skip "$CP is not writable here"
command -v sqlite3 >/dev/null || skip "needs sqlite3"
command -v gcc >/dev/null || skip "needs gcc"

ORIG_PATTERN=$(cat "$CP"; echo x)	# the x keeps the trailing newline
ORIG_LIMIT=$(cat "$PL")
cp "$CP" "$T/pattern.orig"
restore() {
	printf '%s' "${ORIG_PATTERN%x}" >"$CP" 2>/dev/null
	printf '%s\n' "$ORIG_LIMIT" >"$PL" 2>/dev/null
}
# every exit path: other tests need the original core_pattern ("core")
trap 'restore; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM HUP

SP="$T/spool"
DB="$T/store.sqlite"
cat >"$T/crash.c" <<'C'
volatile int *p;
int __attribute__((noinline)) crash_here(void) { return *p; }
int main(void) { return crash_here(); }
C
gcc $CFLAGS_FIXTURE -o "$T/crash" "$T/crash.c" || fail "gcc"

# the truth for the signature: an ordinary core of the same program, resolved
(cd "$T" && ulimit -c unlimited && printf 'core' >"$CP" && { "$T/crash"; true; }) 2>/dev/null
restore
CORE=$(ls "$T"/core* 2>/dev/null | head -1)
[ -n "$CORE" ] || skip "no ordinary core was written (core dumps disabled here)"
"$PROVENANCE" resolve "$CORE" --offline --store="$T/ref.sqlite" >/dev/null 2>&1
REF_SIG=$(sqlite3 "$T/ref.sqlite" "select signature from crashes")
check_match "$REF_SIG" '^11\|crash_here\|main' "reference signature (gdb-free: the fixture's own functions)"

# the sysctl.d file of --persist goes under $T, never into the real /etc
export PROVENANCE_SYSCTL_DIR="$T/sysctl.d"
mkdir -p "$PROVENANCE_SYSCTL_DIR"
# nice 0: at nice 19 in the root cgroup the analysis starves on a loaded machine
"$PROVENANCE" -c collect.keepFree=0 -c collect.rateLimit=0 -c collect.nice=0 -c collect.wallBudget=0 collect --install --persist \
	--spool-dir "$SP" --store "$DB" >"$T/install.out" 2>&1 || fail "install: $(cat "$T/install.out")"
cat "$T/install.out"
check_eq "$(sed -n 's/^kernel.core_pattern = //p' "$PROVENANCE_SYSCTL_DIR/50-provenance-collect.conf")" \
	"$(cat "$CP")" "--persist: the sysctl.d file holds the installed pattern"
grep -qx 'collect.keepfree=0' "$SP/config" || fail "the -c collect.* settings are not kept for the handler"
PAT=$(cat "$CP")
check_match "$PAT" "^\|/[^ ]*provenance collect --handler $SP %P %s %t %h %u\$" "installed core_pattern"
[ "$(cat "$PL")" != 0 ] || fail "core_pipe_limit still 0"

wait_rows() {	# wait_rows N: until the store has N crashes (bounded: 300 s)
	local i
	for i in $(seq 1 600); do
		# only this test's program: other crashes on the machine may reach the handler too
		[ "$(sqlite3 "$DB" "select count(*) from reports where json_extract(json,'\$.collect.exe') = '$T/crash'" 2>/dev/null)" -ge "$1" ] 2>/dev/null && return 0
		sleep 0.5
	done
	return 1
}
(ulimit -c unlimited; "$T/crash" & echo $! >"$T/crash.pid"; wait) 2>/dev/null
if ! wait_rows 1; then
	[ -d "$SP/queue" ] || [ -e "$DB" ] || skip "the kernel did not start the handler (a container whose binary the host cannot see?)"
	fail "the handler stored nothing in 300 s"
fi
(ulimit -c unlimited; SLURM_JOB_ID=4242 SLURM_PROCID=7 RANK=7 SECRET_TOKEN=hunter2 "$T/crash"; true) 2>/dev/null
wait_rows 2 || fail "the second crash was not stored in 300 s"

Q="select c.signature, c.host, json_extract(r.json,'\$.job.id'), json_extract(r.json,'\$.job.rank')
   from crashes c join reports r on r.crash_id = c.id
   where json_extract(r.json,'\$.collect.exe') = '$T/crash' order by c.id"
sqlite3 "$DB" "$Q" >"$T/rows"
check_eq "$(sed -n 1p "$T/rows")" "$REF_SIG|$(hostname)||" "plain crash: signature, host, no job"
# the first core of the signature is kept: an ELF core whose NT_PRSTATUS has the crashed pid
KEPT=$(sqlite3 "$DB" "select json_extract(r.json,'\$.collect.core') from crashes c join reports r on r.crash_id = c.id
	where json_extract(r.json,'\$.collect.exe') = '$T/crash' order by c.id limit 1")
[ -n "$KEPT" ] && [ -f "$KEPT" ] || fail "the first core was not kept ('$KEPT')"
zstd -dc "$KEPT" >"$T/kept.core" || fail "zstd -d of the kept core"
check_eq "$(od -An -c -N4 "$T/kept.core" | tr -d ' ')" '177ELF' "kept core: ELF magic"
check_eq "$(od -An -tu2 -j16 -N2 "$T/kept.core" | tr -d ' ')" 4 "kept core: e_type ET_CORE"
check_match "$(eu-readelf -n "$T/kept.core" 2>/dev/null | grep -m1 -Eo 'pid: [0-9]+')" "^pid: $(cat "$T/crash.pid")\$" "kept core: the crashed pid's NT_PRSTATUS"
# (other programs' crashes may reach the handler meanwhile: only this program's reports count)
check_match "$(sqlite3 "$DB" "select json_extract(r.json,'\$.collect.core') is null, json_extract(r.json,'\$.collect.core_note') from crashes c join reports r on r.crash_id = c.id
	where json_extract(r.json,'\$.collect.exe') = '$T/crash' order by c.id limit 1 offset 1")" '^1\|.*collect\.keepCores' "second core of the signature not kept (keepCores=1)"
check_eq "$(sed -n 2p "$T/rows")" "$REF_SIG|$(hostname)|4242|7" "Slurm crash: signature, host, job, rank"
! sqlite3 "$DB" "select json from reports" | grep -q hunter2 || fail "an environment variable outside the list was stored"
echo "ok: other environment variables are not stored"

# a crash in a chroot with its own dpkg database: the packages come from the chroot
F=$TOP/fixtures/crashers
LIBDIR=/provenance-test-lib BINDIR=/provenance-test-bin
if [ -e "$LIBDIR" ] || [ -e "$BINDIR" ] || ! command -v chroot >/dev/null; then
	note "$LIBDIR or $BINDIR exists here, or no chroot: the chroot case is not run"
else
	R=$T/root
	mkdir -p "$R$LIBDIR" "$R$BINDIR" "$R/var/lib/dpkg/info"
	gcc $CFLAGS_FIXTURE -fPIC -shared -o "$R$LIBDIR/libnull.so" "$F/libnull.c" || fail "libnull.so"
	gcc $CFLAGS_FIXTURE -o "$R$BINDIR/prog" "$F/nullmain.c" -L"$R$LIBDIR" -lnull \
		-Wl,-rpath,"$LIBDIR" -Wl,--no-as-needed || fail "prog"
	LIBC=""
	for lib in $(ldd "$R$BINDIR/prog" | grep -Eo '/[^ ]+' | grep -v "$LIBDIR"); do
		mkdir -p "$R$(dirname "$lib")"
		cp -L "$lib" "$R$lib"
		case $lib in */libc.so.*) LIBC=$lib ;; esac
	done
	[ -n "$LIBC" ] || fail "no libc in ldd's answer"
	# the chroot's dpkg database: versions the host does not have
	printf 'Package: libc6\nStatus: install ok installed\nArchitecture: amd64\nSource: glibc\nVersion: 2.99-1chroot\n\nPackage: provtest-libnull\nStatus: install ok installed\nArchitecture: amd64\nVersion: 7.7-1chroot\n\n' \
		>"$R/var/lib/dpkg/status"
	printf '/.\n%s\n' "$LIBC" >"$R/var/lib/dpkg/info/libc6:amd64.list"
	printf '/.\n%s\n' "$LIBDIR/libnull.so" >"$R/var/lib/dpkg/info/provtest-libnull:amd64.list"
	HOSTV=$(dpkg-query -W -f '${Version}' libc6 2>/dev/null)
	[ "$HOSTV" != 2.99-1chroot ] || fail "the host has the chroot's libc6 version"
	(ulimit -c unlimited; chroot "$R" "$BINDIR/prog"; true) >/dev/null 2>&1
	CQ="from reports where json_extract(json,'\$.collect.exe') = '$R$BINDIR/prog'"
	for i in $(seq 1 600); do
		[ "$(sqlite3 "$DB" "select count(*) $CQ" 2>/dev/null)" -ge 1 ] 2>/dev/null && break
		sleep 0.5
	done
	sqlite3 "$DB" "select json $CQ" >"$T/chroot.json"
	[ -s "$T/chroot.json" ] || fail "the chrooted crash was not stored in 300 s"
	check_eq "$(json_get "$T/chroot.json" '[(m.get("package") or {}).get("version") for m in d["modules"] if m["path"] == "'"$LIBC"'"]')" \
		'["2.99-1chroot"]' "chroot crash: libc6's version from the chroot's dpkg (host: $HOSTV)"
	check_eq "$(json_get "$T/chroot.json" '[(m.get("package") or {}).get("name") for m in d["modules"] if m["path"] == "'$LIBDIR'/libnull.so"]')" \
		'["provtest-libnull"]' "chroot crash: the library's package from the chroot"
	check_eq "$(json_get "$T/chroot.json" 'd["collect"]["root"].startswith("/proc/")')" true "chroot crash: read through /proc/PID/root"
fi

"$PROVENANCE" collect --uninstall --spool-dir "$SP" >"$T/un.out" 2>&1 || fail "uninstall: $(cat "$T/un.out")"
[ ! -e "$PROVENANCE_SYSCTL_DIR/50-provenance-collect.conf" ] || fail "--uninstall left the sysctl.d file"
cat "$CP" >"$T/pattern.now"	# cmp would trust /proc's size (0)
cmp -s "$T/pattern.now" "$T/pattern.orig" || fail "core_pattern is not what it was: '$(cat "$CP")'"
check_eq "$(cat "$PL")" "$ORIG_LIMIT" "core_pipe_limit restored"
echo "ok: core_pattern restored byte for byte"

# store down: the handler queues; flush sends each exactly once, also after kill -9
export PROVENANCE_CACHE="$T/cache"
# a store under a file of /proc: root cannot create it either
sleep 300 & P1=$!
SLURM_JOB_ID=77 RANK=1 sleep 300 & P2=$!
for p in $P1 $P2; do
	"$PROVENANCE" collect --handler "$SP" $p 11 1764000000 qhost 0 --store /proc/version/s.sqlite <"$CORE" ||
		fail "handler with the store down"
done
kill $P1 $P2; wait $P1 $P2 2>/dev/null
check_eq "$(ls "$SP/queue" | wc -l)" 2 "reports queued while the store was down"
PROVENANCE_TEST_FLUSH_SLEEP=30 "$PROVENANCE" collect --flush --spool-dir "$SP" --store "$T/flush.sqlite" >/dev/null 2>&1 &
F=$!
for i in $(seq 1 120); do
	[ "$(ls "$SP/queue" | wc -l)" = 1 ] && break
	sleep 0.5
done
kill -9 $F; wait $F 2>/dev/null
"$PROVENANCE" collect --flush --spool-dir "$SP" --store "$T/flush.sqlite" || fail "flush"
check_eq "$(ls "$SP/queue" | wc -l)" 0 "queue empty after flush"
check_eq "$(sqlite3 "$T/flush.sqlite" 'select count(*) from crashes')" 2 "each queued report stored exactly once"
"$PROVENANCE" collect --flush --spool-dir "$SP" --store "$T/flush.sqlite" >/dev/null || fail "flush again"
check_eq "$(sqlite3 "$T/flush.sqlite" 'select count(*) from crashes')" 2 "a second flush adds nothing"
check_eq "$(sqlite3 "$T/flush.sqlite" "select json_extract(r.json,'\$.job.id') from crashes c join reports r on r.crash_id=c.id where c.host='qhost' and json_extract(r.json,'\$.job.id') is not null")" 77 "queued report keeps its job"
echo "ok: t-collect"

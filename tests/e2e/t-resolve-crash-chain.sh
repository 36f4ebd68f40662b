#!/usr/bin/env bash
# The environment table is the crash's (issue 34 item 2). A crasher linked
# against two libraries of its own, both packaged in a fake dpkg root:
# libchain (its function is on the crashing thread's stack) and libside
# (loaded with dlopen and called before the crash, so mapped but in no frame
# at crash time). Truth: which modules the crash chain holds from gdb's
# frames of the core (gdb.solib_name of each frame's pc); the packages from
# dpkg-query on the root's database; the source from the fixture.
# libside's mapping points at a loopback server that records every request:
# by default it must get none (no network work off the chain); with
# --all-components it is asked (so the recording works), the run lists
# libside and, that lookup failing, is incomplete (exit 1); without it, a
# chain fully resolved exits 0.
. "$(dirname "$0")/lib.sh"

[ -x "$PROVENANCE" ] || skip "provenance is not built"
command -v gdb >/dev/null || skip "gdb is not installed"
command -v git >/dev/null || skip "git is not installed"
command -v dpkg-query >/dev/null || skip "dpkg-query is not installed"
can_dump_core

L=$T/lib
mkdir -p "$L" "$T/src"
cat >"$T/src/chain.c" <<'C'
#include <stddef.h>

int chain_store(int *slot, int v)
{
	*slot = v; /* CRASH */
	return v;
}
C
cat >"$T/src/side.c" <<'C'
int side_value(void)
{
	return 7;
}
C
cat >"$T/src/app.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>

int chain_store(int *slot, int v);

int main(int argc, char **argv)
{
	void *h = dlopen(argc > 1 ? argv[1] : "libside.so.2", RTLD_NOW);
	int (*side)(void) = h ? (int (*)(void))dlsym(h, "side_value") : NULL;

	if (!side)
		return 3;
	return chain_store(argc > 5 ? &argc : NULL, side());
}
C
${CC:-cc} $CFLAGS_FIXTURE -fPIC -shared -Wl,-soname,libchain.so.1 -o "$L/libchain.so.1" "$T/src/chain.c" || fail "cannot build libchain"
${CC:-cc} $CFLAGS_FIXTURE -fPIC -shared -Wl,-soname,libside.so.2 -o "$L/libside.so.2" "$T/src/side.c" || fail "cannot build libside"
build_fixture "$T/src/app.c" "$L/chain-app" "$L/libchain.so.1" -ldl "-Wl,-rpath,$L"
core=$(make_core "$T" "$L/chain-app" "$L/libside.so.2")

# gdb: the modules of the crashing thread's frames (None: the executable)
gdb -batch -q -ex 'set backtrace past-main on' -ex 'python
f = gdb.newest_frame()
while f is not None:
    print("CHAIN", gdb.solib_name(f.pc()) or "EXE")
    f = f.older()
' -ex 'info sharedlibrary' "$L/chain-app" "$core" >"$T/gdb.txt" 2>&1
grep -q "^CHAIN $L/libchain.so.1\$" "$T/gdb.txt" || { cat "$T/gdb.txt"; fail "gdb: libchain is not in the crash chain"; }
grep -q "^CHAIN $L/libside.so.2\$" "$T/gdb.txt" && fail "gdb: libside is in the crash chain (the fixture is wrong)"
grep -q "$L/libside.so.2" "$T/gdb.txt" || fail "gdb: libside is not loaded in the core"
libc=$(sed -n 's/^CHAIN \(.*libc\.so\.6\)$/\1/p' "$T/gdb.txt" | head -1)
[ -n "$libc" ] || { cat "$T/gdb.txt"; fail "gdb: no libc frame in the crash chain"; }
ldso=$(grep -o '/[^ ]*ld-linux[^ ]*' "$T/gdb.txt" | head -1)

# the root: the same paths as on this host, packaged
R=$T/root
mkdir -p "$R/var/lib/dpkg/info" "$R$L"
cp "$L/libchain.so.1" "$L/libside.so.2" "$L/chain-app" "$R$L/"
# the core may name libc by its real path (merged /usr): both names, one file
libc_real=$(readlink -f "$libc")
for f in "$libc_real" $(readlink -f $ldso); do mkdir -p "$R$(dirname "$f")"; cp -L "$f" "$R$f"; done
[ "$libc" = "$libc_real" ] || { mkdir -p "$R$(dirname "$libc")"; ln -sf "$libc_real" "$R$libc"; }
pkgent() {	# NAME VERSION
	printf 'Package: %s\nStatus: install ok installed\nPriority: optional\nSection: misc\nMaintainer: T <t@example.invalid>\nArchitecture: amd64\nVersion: %s\nDescription: test\n test\n\n' "$1" "$2"
}
{ pkgent chain-app 1.0-1; pkgent libchain1 1.2.0-1; pkgent libside2 2.5.0-1; pkgent libc6 2.99-1; } >"$R/var/lib/dpkg/status"
echo "$L/chain-app" >"$R/var/lib/dpkg/info/chain-app.list"
echo "$L/libchain.so.1" >"$R/var/lib/dpkg/info/libchain1.list"
echo "$L/libside.so.2" >"$R/var/lib/dpkg/info/libside2.list"
printf '%s\n' "$libc" "$libc_real" $ldso $(readlink -f $ldso) | sort -u >"$R/var/lib/dpkg/info/libc6.list"
check_eq "$(dpkg-query --admindir="$R/var/lib/dpkg" -S "$L/libside.so.2" | cut -d: -f1)" libside2 "dpkg-query: libside's package"

# upstream repositories: libchain and glibc (the shipped mapping) local, at their tags
mkrepo() {	# DIR TAG [FILE: copied into src/, where the build had it]
	git init -q "$1" && ( cd "$1" && { [ -z "${3:-}" ] || { mkdir -p src && cp "$3" src/; }; } && echo x >README &&
		git add -A && git -c user.name=t -c user.email=t@t commit -qm init && git tag "$2" ) ||
		fail "cannot make $1"
}
mkrepo "$T/up/libchain" v1.2.0 "$T/src/chain.c"
mkrepo "$T/up/glibc" glibc-2.99
# libside: a loopback server that records each request and answers 404
python3 - "$T/port" "$T/requests" <<'PY' >/dev/null 2>&1 &
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(sys.argv[2], "a") as f:
            f.write(self.path + "\n")
        self.send_error(404)
    do_POST = do_GET
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(s.server_port))
s.serve_forever()
PY
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$T"' EXIT
wait_file "$T/port" "the recording server"
: >"$T/requests"
cat >"$T/chain.map" <<M
[component "libchain"]
	library = libchain.so*
	package = libchain1
	repo = https://example.invalid/libchain.git
	ref = v{upstream_version}
[component "libside"]
	library = libside.so*
	package = libside2
	repo = http://127.0.0.1:$(cat "$T/port")/libside.git
	ref = v{upstream_version}
M
run() {
	"$PROVENANCE" resolve "$core" --sysroot "$R" --mapping "$T/chain.map" \
		-c "url.file://$T/up/libchain.insteadOf=https://example.invalid/libchain.git" \
		-c "url.file://$T/up/glibc.insteadOf=https://sourceware.org/git/glibc.git" \
		-c fetch.connectTimeout=5 --no-suspects "$@"
}

# --- JSON: every component, in_crash_chain as gdb says -------------------
run --format json >"$T/r.json" 2>"$T/r.err"
rc=$?
check_eq "$rc" 0 "exit status: the crash chain is fully resolved (stderr: $(head -c 600 "$T/r.err"))"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/r.json" || fail "JSON vs schema"
comp() { json_get "$T/r.json" "[c for c in d['components'] if c['name'] == '$1'][0]['$2']"; }
mod() { json_get "$T/r.json" "[m for m in d['modules'] if m['path'] == '$1'][0]['$2']"; }
check_eq "$(comp libchain in_crash_chain)" true "libchain: in the crash chain (gdb)"
check_eq "$(comp libside in_crash_chain)" false "libside: not in the crash chain (gdb)"
check_eq "$(comp glibc in_crash_chain)" true "glibc: in the crash chain (gdb: a libc frame)"
check_eq "$(mod "$L/libchain.so.1" in_crash_chain)" true "module libchain: in the chain"
check_eq "$(mod "$L/libside.so.2" in_crash_chain)" false "module libside: not in the chain"
check_eq "$(json_get "$T/r.json" "[m['in_crash_chain'] for m in d['modules'] if m['path'] in ('$libc', '$libc_real')][0]")" true "module libc: in the chain"
check_eq "$(json_get "$T/r.json" "[m for m in d['modules'] if m['path'] == '$L/libside.so.2'][0]['package']['name']")" libside2 "libside: package (dpkg-query)"
check_eq "$(comp libchain commit)" "$(git -C "$T/up/libchain" rev-parse v1.2.0)" "libchain: commit of tag v1.2.0 (git)"
check_eq "$(comp libside commit)" null "libside: not looked up"
check_eq "$(wc -l <"$T/requests")" 0 "no request for the off-chain component's repository: $(cat "$T/requests")"
line=$(grep -n '/\* CRASH \*/' "$T/src/chain.c" | cut -d: -f1)
check_eq "$(json_get "$T/r.json" "[s for s in d['sources'] if s['component'] == 'libchain'][0]['line']")" "$line" "libchain: source of the crash line"

# --- text and markdown: the chain's components, then a count of the others -
nchain=$(json_get "$T/r.json" "len([c for c in d['components'] if c['in_crash_chain']])")
nother=$(json_get "$T/r.json" "len([c for c in d['components'] if not c['in_crash_chain']])")
check_eq "$nother" 1 "one component outside the chain (libside)"
run --offline >"$T/r.txt" 2>/dev/null
sed -n '/^Components:/,/^$/p' "$T/r.txt" >"$T/comps.txt"
grep -q '^  libchain ' "$T/comps.txt" || fail "text: libchain not listed: $(cat "$T/comps.txt")"
grep -q '^  libside ' "$T/comps.txt" && fail "text: libside listed: $(cat "$T/comps.txt")"
grep -q "^  and 1 other component loaded; --all-components lists them\$" "$T/comps.txt" ||
	fail "text: no count of the others: $(cat "$T/comps.txt")"
check_eq "$(grep -c '^  [a-z]' "$T/comps.txt")" "$((nchain + 1))" "text: the chain's components and the count line"
run --offline --format markdown >"$T/r.md" 2>/dev/null
sed -n '/^### Container environment/,/^### /p' "$T/r.md" >"$T/env.md"
grep -q '^| libchain |' "$T/env.md" || fail "markdown: libchain not in the table: $(cat "$T/env.md")"
grep -q 'libside' "$T/env.md" && fail "markdown: libside in the table: $(cat "$T/env.md")"
grep -q '^and 1 other component loaded; --all-components lists them$' "$T/env.md" ||
	fail "markdown: no count of the others: $(cat "$T/env.md")"
echo "ok: text and markdown list the crash chain's components"

# --- --all-components: listed and looked up (the server is asked) --------
run --all-components >"$T/all.txt" 2>"$T/all.err"
rc=$?
check_eq "$rc" 1 "--all-components: libside's repository fails, so incomplete"
[ -s "$T/requests" ] || fail "--all-components: the off-chain repository was not asked"
grep -q '/libside.git' "$T/requests" || fail "--all-components: requests: $(cat "$T/requests")"
sed -n '/^Components:/,/^$/p' "$T/all.txt" >"$T/allc.txt"
grep -q '^  libside ' "$T/allc.txt" || fail "--all-components: libside not listed: $(cat "$T/allc.txt")"
grep -q 'other component' "$T/allc.txt" && fail "--all-components: a count line"
"$PROVENANCE" resolve --help | grep -q -- '--all-components' || fail "--help does not name --all-components"
echo "ok: the environment table is the crash chain's"

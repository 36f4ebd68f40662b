#!/usr/bin/env bash
# Rust binaries that carry their dependency list (cargo-auditable's .dep-v0):
# the root crate becomes a component (found_by cargo-auditable, no commit:
# the format records none), the other packages are listed by env; hostile
# sections give one warning each and no component, the rest intact.
#
# cargo-auditable is not packaged in Debian (bookworm: `apt-cache search
# auditable` finds nothing), so no Debian tool writes the section: Debian's
# rustc builds the program, and the test adds .dep-v0 with objcopy from JSON
# it writes and zlib-compresses itself (the format of
# rust-secure-code/cargo-auditable's PARSING.md). The truth is that JSON.
. "$(dirname "$0")/lib.sh"
RUSTC=/usr/bin/rustc	# Debian's (make deps installs rustc), not a rustup toolchain
[ -x "$RUSTC" ] || skip "Debian's rustc is not installed (make deps installs rustc)"
for c in objcopy readelf python3; do command -v $c >/dev/null || skip "$c not installed"; done

mkdir -p "$T/src" "$T/root/usr/local/bin"
cat > "$T/src/main.rs" <<'RS'
use std::env;

#[inline(never)]
fn crash_here(n: usize) -> usize {
    if n > 1 {
        std::process::abort(); // on purpose: the test wants a core
    }
    n + 1
}

fn main() {
    println!("{}", crash_here(env::args().count()));
}
RS
"$RUSTC" -C debuginfo=1 -o "$T/rcrasher.plain" "$T/src/main.rs" 2>"$T/rustc.err" ||
	{ cat "$T/rustc.err"; fail "rustc"; }

# the section as cargo auditable writes it: zlib(JSON), one root, indices
python3 - "$T" <<'PY' || fail "writing the sections"
import json, sys, zlib
t = sys.argv[1]
good = {"packages": [
    {"name": "rcrasher", "version": "0.3.1", "source": "local", "dependencies": [1, 2, 3], "root": True},
    {"name": "serde", "version": "1.0.188", "source": "crates.io", "dependencies": [4]},
    {"name": "libc", "version": "0.2.147", "source": "crates.io"},
    {"name": "cc", "version": "1.0.83", "source": "crates.io", "kind": "build"},
    {"name": "serde_derive", "version": "1.0.188-rc.1+meta", "source": "git"},
]}
json.dump(good, open(t + "/truth.json", "w"))
def w(name, data): open("%s/%s.z" % (t, name), "wb").write(data)
w("good", zlib.compress(json.dumps(good).encode(), 9))
def root(name, **kw):
    p = {"name": name, "version": "1.0.0", "source": "local", "root": True}
    p.update(kw)
    return p
# truncated zlib: the stream cut in the middle
z = zlib.compress(json.dumps({"packages": [root("hostile-trunc")] + good["packages"][1:]}).encode())
w("trunc", z[: len(z) // 2])
# a zlib bomb: 64 MiB of JSON whitespace from about 64 KiB
w("bomb", zlib.compress(b'{"packages":[' + b" " * (64 << 20) + b"]}", 9))
# a dependency index out of range
w("index", zlib.compress(json.dumps({"packages": [root("hostile-index", dependencies=[0, 7])]}).encode()))
# markup and a terminal escape in a crate name
w("name", zlib.compress(json.dumps({"packages": [root("evil\u001b[31m<b>&amp;\u0007")]}).encode()))
PY
ls -l "$T"/*.z | sed 's/^/# /'
add() {	# add SECTION-FILE OUT
	objcopy --add-section ".dep-v0=$1" --set-section-flags .dep-v0=contents,readonly \
		"$T/rcrasher.plain" "$2" || fail "objcopy --add-section ($1)"
}
add "$T/good.z" "$T/root/usr/local/bin/rcrasher"
for h in trunc bomb index name; do add "$T/$h.z" "$T/root/usr/local/bin/hostile-$h"; done
# the premise, from binutils: the section is in the binary and decodes to the truth
objcopy --dump-section .dep-v0="$T/dumped.z" "$T/root/usr/local/bin/rcrasher" || fail "objcopy --dump-section"
python3 -c 'import json,sys,zlib; assert json.loads(zlib.decompress(open(sys.argv[1],"rb").read())) == json.load(open(sys.argv[2]))' \
	"$T/dumped.z" "$T/truth.json" || fail "the section does not decode to the JSON written"
echo "ok: .dep-v0 is in the binary (objcopy --dump-section) and decodes to the JSON written"

# env: the root crate, then every other package of the list, as written
check_exit 0 "env --sysroot" -- "$PROVENANCE" env --sysroot "$T/root" --format json
cp "$T/last.out" "$T/env.json"
cp "$T/last.err" "$T/env.err"
python3 - "$T/env.json" "$T/truth.json" <<'PY' || fail "env differs from the section's JSON"
import json, sys
d = json.load(open(sys.argv[1]))
truth = json.load(open(sys.argv[2]))["packages"]
ours = [c for c in d["components"] if c.get("found_by") == "cargo-auditable"]
got = sorted((c["name"], c["version"]) for c in ours)
want = sorted((p["name"], p["version"]) for p in truth)
assert got == want, (got, want)
for c in ours:
    assert c["commit"] is None, c  # the format records no commit
    assert c["kind"] == "path", c
    assert "/usr/local/bin/rcrasher" in c["evidence"], c
root = [c for c in ours if c["name"] == "rcrasher"][0]
assert "source local" in root["evidence"], root
cc = [c for c in ours if c["name"] == "cc"][0]
assert "build dependency of rcrasher" in cc["evidence"], cc
assert not [c for c in d["components"] if "hostile" in (c.get("evidence") or "") or "evil" in c["name"]], \
    "a hostile section gave a component"
print("ok: env lists the %d packages of the section, each with its version; no commit" % len(ours))
PY
# each hostile section: one warning line naming its binary; no escape byte anywhere
for h in trunc bomb index name; do
	n=$(grep -c "cargo-auditable: '/usr/local/bin/hostile-$h': .dep-v0 not read" "$T/env.err")
	check_eq "$n" 1 "one warning for hostile-$h"
done
grep "hostile-" "$T/env.err" | sed 's/^/# /'
grep -q "truncated" "$T/env.err" || fail "the truncated stream is not called truncated"
grep -q "decompresses to more than" "$T/env.err" || fail "the bomb is not refused as one"
grep -q "not an index below 1" "$T/env.err" || fail "the index out of range is not named"
grep -q "not a crate name" "$T/env.err" || fail "the markup name is not refused"
if LC_ALL=C grep -q $'\x1b\|\x07\|<b>' "$T/env.json" "$T/env.err"; then fail "an escape or markup byte reached the output"; fi
echo "ok: no escape or markup from the hostile names in stdout or stderr"

# the text form lists them too (as Go's dependencies are)
check_exit 0 "env --sysroot (text)" -- "$PROVENANCE" env --sysroot "$T/root"
for p in "rcrasher 0.3.1" "serde 1.0.188" "cc 1.0.83" "serde_derive 1.0.188-rc.1+meta"; do
	grep -q "${p% *}.*${p#* }" "$T/last.out" || { cat "$T/last.out"; fail "env text lacks $p"; }
done
echo "ok: env's text form lists the packages"

# a core of the program: the executable is the component rcrasher 0.3.1
cp "$T/root/usr/local/bin/rcrasher" "$T/rcrasher"
core=$(make_core "$T" "$T/rcrasher" crash now)
# exit 1, incomplete: rcrasher has no commit to read source at (and, offline,
# glibc has no mirror)
check_exit 1 "resolve the Rust core" -- "$PROVENANCE" resolve --offline "$core" --format json
cp "$T/last.out" "$T/r.json"
python3 "$TOP/tests/e2e/check-json-contract.py" "$T/r.json" --kind core || fail "JSON contract"
C='[c for c in d["components"] if c["name"] == "rcrasher"]'
check_eq "$(json_get "$T/r.json" "len($C)")" 1 "resolve: one component rcrasher"
check_eq "$(json_get "$T/r.json" "$C[0]['version']")" 0.3.1 "resolve: the version the section states"
check_eq "$(json_get "$T/r.json" "$C[0]['found_by']")" cargo-auditable "resolve: found by"
check_eq "$(json_get "$T/r.json" "$C[0]['commit']")" null "resolve: no commit (the format has none)"
check_eq "$(json_get "$T/r.json" "$C[0]['commit_is']")" null "resolve: commit_is null"
check_match "$(json_get "$T/r.json" "$C[0]['note']")" "records no repository or commit" "resolve: the note says why"
M='[m for m in d["modules"] if m["path"].endswith("/rcrasher")]'
check_eq "$(json_get "$T/r.json" "$M[0]['package']['name']")" rcrasher "resolve: the module's package"
check_eq "$(json_get "$T/r.json" "$M[0]['component']")" rcrasher "resolve: the module's component"
# the text report lists the component
check_exit 1 "resolve (text)" -- "$PROVENANCE" resolve --offline "$core"
grep -q "rcrasher" "$T/last.out" || { cat "$T/last.out"; fail "the text report lacks rcrasher"; }
echo "ok: t-cargo-auditable"

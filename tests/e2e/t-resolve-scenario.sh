#!/usr/bin/env bash
# The whole pipeline on the demo scenario: a library built from upstream tag
# v1.0.0 with RPM's long debug prefix, installed in a container-like root with
# a dpkg entry, crashed there. Every fact the report states is checked against
# gdb, eu-unstrip, dpkg-query, git and the fixture's source.
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v chroot >/dev/null || skip "no chroot"
[ "$(id -u)" = 0 ] || unshare -r true 2>/dev/null || skip "needs root or user namespaces for chroot"

"$TOP/fixtures/demo/build-scenario.sh" "$T/s" >"$T/build.log" 2>&1 || {
	rc=$?; cat "$T/build.log"; [ $rc = 77 ] && skip "scenario left no core"; fail "scenario build failed"; }
. "$T/s/facts"
root=$T/s/root
core=$root/core
up=$T/s/upstream
insteadof="url.file://$T/s/upstream.insteadOf=https://example.invalid/libgreet.git"

run_resolve() {
	"$PROVENANCE" resolve "$@" --sysroot "$root" --mapping "$TOP/fixtures/demo/greet.map" \
		-c "$insteadof" --fix "$fix"
}
run_resolve "$core" --format json >"$T/r.json" 2>"$T/r.err"
rc=$?
cat "$T/r.err"
[ $rc -le 1 ] || fail "resolve exited $rc"

python3 "$TOP/tests/e2e/check-json-contract.py" "$T/r.json" --kind core || fail "the report breaks the JSON contract"
echo "ok: the report holds the design's JSON contract"

# --- signal and pattern: the program passes a NULL greeter (app.c) ---------
check_eq "$(json_get "$T/r.json" 'd["signal"]["name"]')" SIGSEGV "signal"
check_eq "$(json_get "$T/r.json" 'd["signal"]["address"]')" 0x0 "fault address (g->name with g == NULL)"
check_eq "$(json_get "$T/r.json" '",".join(p["id"] for p in d["crash"]["patterns"])')" null-deref "patterns"
check_eq "$(json_get "$T/r.json" 'd["crash"]["context"]')" runtime "context"

# --- call chain vs gdb ----------------------------------------------------
gdb -batch -ex "set sysroot $root" -ex "set debuginfod enabled off" -ex bt \
	"$root/usr/bin/greet-app" "$core" 2>/dev/null >"$T/gdb.txt"
# gdb prints a provisional "#0 ?? ()" before loading the libraries: keep the last backtrace
gdb_fns=$(awk '/^#0 /{buf=""} /^#[0-9]+ /{buf=buf $0 "\n"} END{printf "%s", buf}' "$T/gdb.txt" | sed -E 's/^#[0-9]+ +(0x[0-9a-f]+ in )?//; s/ \(.*//' | head -3 | tr '\n' ' ')
our_fns=$(json_get "$T/r.json" '" ".join(f["function"] or "??" for f in [t for t in d["threads"] if t["crashed"]][0]["frames"][:3])')
check_eq "$our_fns " "$gdb_fns" "top three functions, as gdb prints them"

# --- crash line from the fixture's source at the deployed tag -----------------
f0=$(json_get "$T/r.json" '[t for t in d["threads"] if t["crashed"]][0]["frames"][0]')
check_eq "$(json_get "$T/r.json" '[t for t in d["threads"] if t["crashed"]][0]["frames"][0]["line"]')" "$crash_line" "frame #0 line"
check_eq "$(json_get "$T/r.json" '[t for t in d["threads"] if t["crashed"]][0]["frames"][0]["repo_path"]')" "$crash_file" "frame #0 repo path (RPM prefix stripped)"
check_eq "$(json_get "$T/r.json" '[t for t in d["threads"] if t["crashed"]][0]["frames"][0]["file"]')" "$prefix/$crash_file" "frame #0 file as recorded"

# --- modules vs eu-unstrip ----------------------------------------------------
eu-unstrip -n --core="$core" | awk '{split($2,a,"@"); if (a[1] != "-") print a[1]}' | sort >"$T/eu-ids"
json_get "$T/r.json" '"\n".join(sorted(m["build_id"] for m in d["modules"] if m["build_id"]))' >"$T/our-ids"
diff "$T/eu-ids" "$T/our-ids" || fail "module build IDs differ from eu-unstrip -n --core"
echo "ok: $(wc -l <"$T/eu-ids") build IDs agree with eu-unstrip"

# --- package vs dpkg ------------------------------------------------------------
admin=$root/var/lib/dpkg
want_pkg=$(dpkg --admindir="$admin" -S /usr/lib/x86_64-linux-gnu/libgreet.so.1.0.0 | cut -d: -f1)
want_ver=$(dpkg-query --admindir="$admin" -W -f '${Version}' libgreet1)
m='[m for m in d["modules"] if m["path"].endswith("libgreet.so.1.0.0")][0]'
check_eq "$(json_get "$T/r.json" "$m[\"package\"][\"name\"]")" "$want_pkg" "libgreet's package (dpkg -S)"
check_eq "$(json_get "$T/r.json" "$m[\"package\"][\"version\"]")" "$want_ver" "libgreet's version (dpkg-query)"
check_eq "$(json_get "$T/r.json" "$m[\"package\"][\"kind\"]")" dpkg "package kind"

# --- component and commit vs git -------------------------------------------------
c='[c for c in d["components"] if c["name"] == "libgreet"][0]'
check_eq "$(json_get "$T/r.json" "$c[\"commit\"]")" "$(git -C "$up" rev-parse 'v1.0.0^{commit}')" "deployed commit = v1.0.0"
check_eq "$(json_get "$T/r.json" "$c[\"ref\"]")" v1.0.0 "ref from the template v{upstream_version}"

# --- source lines at that commit ---------------------------------------------------
want_text=$(git -C "$up" show "v1.0.0:$crash_file" | sed -n "${crash_line}p")
got_text=$(json_get "$T/r.json" "[l[\"text\"] for l in d[\"sources\"][0][\"lines\"] if l[\"number\"] == $crash_line][0]")
check_eq "$got_text" "$want_text" "crash line text from git show v1.0.0:$crash_file"

# --- fix status vs git merge-base and git tag --contains -----------------------------
if git -C "$up" merge-base --is-ancestor "$fix" "$deployed"; then want=true; else want=false; fi
check_eq "$(json_get "$T/r.json" 'd["fixes"][0]["included"]')" "$want" "fix included (git merge-base --is-ancestor)"
first=$(git -C "$up" tag --contains "$fix" --sort=creatordate | head -1)
check_eq "$(json_get "$T/r.json" 'd["fixes"][0]["first_tag"]')" "$first" "first tag with the fix (git tag --contains)"

# --- possible upstream fixes vs git log -L over the crashing functions -------------
want=$(for fn in name_length greet_format; do
	git -C "$up" log --format='commit %H' -L ":$fn:$crash_file" "$deployed..main" | sed -n 's/^commit //p'
done | sort -u | tr '\n' ' ')
check_eq "$(json_get "$T/r.json" '" ".join(sorted(s["commit"] for s in d["suspects"])) + " "')" "$want" \
	"suspects = git log -L :name_length: and :greet_format: $crash_file $deployed_tag..main"
check_eq "$(json_get "$T/r.json" 'd["suspects"][0]["commit"]')" "$fix" "the top suspect is the fixture's real fix"
# the fix rewrites greet_format's crash line (frame #1's line at the deployed tag): git diff -U0 says so
l1=$(grep -n 'int len = name_length(g);' "$T/s/build/$crash_file" | cut -d: -f1)
git -C "$up" diff -U0 "$deployed" "$fix" -- "$crash_file" | grep -Eq "^@@ -$l1(,[1-9][0-9]*)? " ||
	fail "fixture: the fix does not rewrite line $l1"
check_eq "$(json_get "$T/r.json" 'd["suspects"][0]["how_related"]')" "changes crash line" "the fix changes the crash line"
check_eq "$(json_get "$T/r.json" 'd["suspects"][0]["first_tag"]')" "$(git -C "$up" tag --contains "$fix" --sort=taggerdate | head -1)" \
	"the top suspect's first tag (git tag --contains)"

# --- the same crash compressed four ways gives the same report ------------------------
norm='import json,sys; d=json.load(open(sys.argv[1])); d["input"]["path"]=None; print(json.dumps(d, sort_keys=True))'
python3 -c "$norm" "$T/r.json" >"$T/r.norm"
for z in "zstd -q -c" "xz -c" "lz4 -q -c" "gzip -c"; do
	tool=${z%% *}
	$z "$core" >"$T/core.$tool"
	run_resolve "$T/core.$tool" --format json >"$T/r.$tool.json" 2>/dev/null
	python3 -c "$norm" "$T/r.$tool.json" >"$T/r.$tool.norm"
	diff -q "$T/r.norm" "$T/r.$tool.norm" >/dev/null || { diff "$T/r.norm" "$T/r.$tool.norm" | head; fail "$tool-compressed core gives another report"; }
	echo "ok: $tool-compressed core gives the same report"
done
ls "$PROVENANCE_CACHE/tmp" 2>/dev/null | grep -q . && fail "temporary decompressed cores left in the cache"

# --- text input of the same crash: the same call chain ----------------------------------
"$PROVENANCE" resolve "$T/gdb.txt" --offline --format json >"$T/t.json" 2>/dev/null
text_fns=$(json_get "$T/t.json" '" ".join(f["function"] or "??" for f in [t for t in d["threads"] if t["crashed"]][0]["frames"][:3])')
check_eq "$text_fns" "$our_fns" "gdb text of the same crash: same call chain"

# --- markdown: sections present, tables well formed -------------------------------------
run_resolve "$core" --format markdown >"$T/r.md" 2>/dev/null
for h in "**Crash signal:**" "**Crashing thread:**" "**Crash context:**" "**Determinism:**" \
	"### Crash call chain" "### Crashing instruction" "### Container environment" \
	"### Source at the crash" "### Upstream fix status" "### Recommended next steps" \
	"| Component | Version | Git Hash |" "| Frame | Function | Library / Source | Component |"; do
	grep -qF -- "$h" "$T/r.md" || { cat "$T/r.md"; fail "markdown lacks '$h'"; }
done
python3 - "$T/r.md" <<'PY' || fail "markdown tables are malformed"
import re, sys
lines = open(sys.argv[1]).read().split("\n")
def cells(l):
    # split on unescaped pipes
    return [c for c in re.split(r"(?<!\\)\|", l.strip())[1:-1]]
i = 0; tables = 0
while i < len(lines):
    if lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"^\|(\s*-+\s*\|)+$", lines[i+1]):
        n = len(cells(lines[i])); tables += 1
        j = i + 2
        while j < len(lines) and lines[j].startswith("|"):
            assert len(cells(lines[j])) == n, (lines[j], n)
            j += 1
        i = j
    else:
        i += 1
assert tables >= 2, tables
print("ok: %d markdown tables well formed" % tables)
PY
grep -q "v1.1.0" "$T/r.md" || fail "markdown does not name the first release with the fix"
sed -n '/^### Possible upstream fixes/,/^### R/p' "$T/r.md" | grep -qF "\`${fix:0:12}\`" ||
	fail "markdown's 'Possible upstream fixes' does not name the fix"
grep -q "libgreet1\|libgreet" "$T/r.md" || fail "markdown environment lacks libgreet"

# --- the crashing instruction vs gdb's x/i $pc ---------------------------------------------
gdb -batch -ex "set sysroot $root" -ex "set debuginfod enabled off" -ex "set disassembly-flavor intel" \
	-ex 'x/i $pc' "$root/usr/bin/greet-app" "$core" 2>/dev/null | grep '=>' >"$T/gdb-insn" || true
if [ -s "$T/gdb-insn" ]; then
	want=$(sed -E 's/.*>:\s*//; s/\s+//g' "$T/gdb-insn" | tr 'A-Z' 'a-z')
	got=$(json_get "$T/r.json" '[i["text"] for i in d["instructions"] if i["current"]][0]' | sed -E 's/\s+//g' | tr 'A-Z' 'a-z')
	check_eq "$got" "$want" "faulting instruction (gdb x/i \$pc, intel syntax)"
else
	fail "gdb printed no instruction at \$pc"
fi
# --- env: the container's inventory, with the mapping's component and ref ------------------
"$PROVENANCE" env --sysroot "$root" --mapping "$TOP/fixtures/demo/greet.map" --format json >"$T/env.json" ||
	fail "env failed"
e='[c for c in d["components"] if c["name"] == "libgreet1"][0]'
check_eq "$(json_get "$T/env.json" "$e[\"version\"]")" "$want_ver" "env: libgreet1 version (dpkg-query)"
check_eq "$(json_get "$T/env.json" "$e[\"component\"]")" libgreet "env: mapped component"
check_eq "$(json_get "$T/env.json" "$e[\"ref\"]")" v1.0.0 "env: ref from the mapping's template"
"$PROVENANCE" env --sysroot "$root" --format markdown | grep -qF "| libgreet1 | 1.0.0-1 |" || fail "env markdown lacks libgreet1's row"
echo "all scenario checks passed"

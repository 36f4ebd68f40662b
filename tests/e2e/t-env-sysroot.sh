#!/usr/bin/env bash
# provenance env on a fake container root with real dpkg/rpm databases, pip,
# conda, ROCm, CUDA and git trees. Expected values come from the tools that
# built the root (dpkg-query, rpm -q, git rev-parse) or from what the builder
# wrote, never from provenance.
. "$(dirname "$0")/lib.sh"

"$TOP/fixtures/roots/build-root.sh" "$T/root" "$T/truth" || { rc=$?; [ $rc = 77 ] && exit 77; fail "cannot build the fixture root"; }
truth() { grep -m1 "^$1=" "$T/truth" | cut -d= -f2-; }

check_exit 0 "env --format json" -- "$PROVENANCE" env --sysroot "$T/root" --format json
cp "$T/last.out" "$T/env.json"
cp "$T/last.err" "$T/env.err"
comp() {	# NAME FIELD: the field of the component named NAME
	json_get "$T/env.json" "[c for c in d['components'] if c['name']=='$1'][0]['$2']"
}
python3 - "$T/env.json" <<'PY' || fail "env JSON shape"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "provenance/1", d["schema"]
names = [c["name"] for c in d["components"]]
assert names == sorted(names), names
for c in d["components"]:
	for k in ("name", "version", "commit", "repo", "ref", "found_by"):
		assert k in c, (k, c)
print("ok: schema, every key present, sorted by name")
PY

check_eq "$(comp libfoo1 version)" "$(truth dpkg.libfoo1.version)" "dpkg libfoo1 (multi-arch) version"
check_eq "$(comp libfoo1 found_by)" dpkg "libfoo1 found_by"
check_eq "$(comp libbar2 version)" "$(truth dpkg.libbar2.version)" "dpkg libbar2 version"
json_get "$T/env.json" "[c['name'] for c in d['components']]" | grep -q foo-tools &&
	fail "foo-tools ships no shared library but is listed"
echo "ok: foo-tools (no .so) is not listed"
if [ -n "$(truth rpm.qux-libs.version)" ]; then
	check_eq "$(comp qux-libs version)" "$(truth rpm.qux-libs.version)" "rpm qux-libs version"
	check_eq "$(comp qux-libs found_by)" rpm "qux-libs found_by"
else
	note "rpmbuild could not build the rpm fixture; rpm part not checked"
fi
check_eq "$(comp mypkg version)" "$(truth pip.mypkg.version)" "pip mypkg version"
check_eq "$(comp mypkg commit)" "$(truth pip.mypkg.commit)" "pip mypkg commit (direct_url.json)"
check_eq "$(comp mypkg repo)" "$(truth pip.mypkg.url)" "pip mypkg repo"
check_eq "$(comp mypkg ref)" "$(truth pip.mypkg.ref)" "pip mypkg ref"
check_eq "$(comp torch version)" "$(truth pip.torch.version)" "pip torch version"
check_eq "$(comp torch commit)" "$(truth pip.torch.commit)" "torch commit (torch/version.py)"
check_eq "$(comp zlib version)" "$(truth conda.zlib.version)" "conda zlib version"
check_eq "$(comp zlib found_by)" conda "zlib found_by"
check_eq "$(comp rocm version)" "$(truth rocm.version)" "ROCm version"
check_eq "$(comp cuda version)" "$(truth cuda.version)" "CUDA version"
check_eq "$(comp myproj commit)" "$(truth git.myproj.commit)" "git working tree HEAD"
check_eq "$(comp myproj ref)" "$(truth git.myproj.branch)" "git branch"
check_eq "$(comp myproj repo)" "$(truth git.myproj.url)" "git remote"
check_eq "$(json_get "$T/env.json" "len([c for c in d['components'] if c['name']=='rocm'])")" 1 \
	"/opt/rocm symlink and /opt/rocm-6.2.0 listed once"

# hostile parts were warned about, and nothing outside the root leaked in
grep -q "libbar2.list" "$T/env.err" || fail "no warning for the .list naming ../../etc/shadow"
grep -q "broken stanza" "$T/env.err" || fail "no warning for the broken status stanza"
grep -q "RECORD" "$T/env.err" || fail "no warning for RECORD's huge and binary lines"
if [ -n "$(truth rpm.qux-libs.version)" ]; then
	grep -q "bad package header" "$T/env.err" || fail "no warning for the rpm blobs with offsets past their end"
fi
echo "ok: warnings for the hostile inputs"
grep -q SECRET "$T/env.json" && fail "content of the root's /etc/shadow leaked"

# markdown and text
check_exit 0 "env --format markdown" -- "$PROVENANCE" env --sysroot "$T/root" --format markdown
check_eq "$(head -1 "$T/last.out")" "| Component | Version | Git Hash |" "markdown header"
# named as resolve names it: the component of the shipped mapping that lists package torch
torch_comp=$(awk '/^\[component /{c=$2; gsub(/[]"]/, "", c)} /^[[:space:]]*package = torch$/{print c; exit}' "$TOP"/mappings/*.map)
[ -n "$torch_comp" ] || fail "no shipped mapping lists package torch"
grep -qF "| $torch_comp | $(truth pip.torch.version) | $(truth pip.torch.commit) |" "$T/last.out" ||
	fail "markdown row for torch (component $torch_comp)"
echo "ok: markdown row for torch, named $torch_comp as resolve does"
check_exit 0 "env (text)" -- "$PROVENANCE" env --sysroot "$T/root"
grep -Eq "^libfoo1 +1:2\.0\.0-43~24\.04 +- +dpkg$" "$T/last.out" || { cat "$T/last.out"; fail "text row for libfoo1"; }
echo "ok: text row for libfoo1"

# a '|' in a name is escaped in markdown
mkdir -p "$T/root/opt/conda/pkgs"
printf '{"name": "a|b", "version": "1", "files": []}\n' >"$T/root/opt/conda/conda-meta/ab-1-0.json"
touch -d '+1 min' "$T/root/opt/conda/conda-meta"
check_exit 0 "env --format markdown with a pipe" -- "$PROVENANCE" env --sysroot "$T/root" --format markdown
grep -qF '| a\|b | 1 |  |' "$T/last.out" || { cat "$T/last.out"; fail "pipe not escaped"; }
echo "ok: '|' escaped"

# errors
check_exit 2 "env on a missing sysroot" -- "$PROVENANCE" env --sysroot "$T/nope"
check_exit 64 "env with a bad format" -- "$PROVENANCE" env --format yaml
exit 0

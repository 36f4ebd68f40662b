#!/bin/bash
# Python frames resolve like native ones: a package installed by pip (a
# wheel built here, installed with `pip install --target` into a
# site-packages) crashes Debian's python3.11 in C; the package's frame gets
# its pip package (RECORD), its component through a mapping, its repo_path
# (site-packages rule) and its crash line from the upstream repository at the
# tag; a standard-library frame gets dpkg's package (`dpkg -S`), cpython and
# Lib/<path>. The Markdown call chain shows Python and native frames.
. "$(dirname "$0")/lib.sh"
# a libdw leak on python3.11-dbg's DWARF (see the file) must not fail ASan runs
export LSAN_OPTIONS="suppressions=$TOP/tests/e2e/lsan-libdw.supp:print_suppressions=0:fast_unwind_on_malloc=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
can_dump_core
PY=/usr/bin/python3.11
[ -x $PY ] || skip "no Debian python3.11 (make deps installs it)"
command -v dpkg >/dev/null || skip "no dpkg"
pip_py=$(command -v python3)
"$pip_py" -m pip --version >/dev/null 2>&1 || skip "no pip for python3"

# upstream: the package's repository, tagged v1.0.0
mkdir -p "$T/up/crashpkg"
cat >"$T/up/crashpkg/core.py" <<'PYSRC'
import ctypes


def crash(n):
    return ctypes.string_at(n)  # MARK-crash


def run():
    return crash(0)  # MARK-run
PYSRC
: >"$T/up/crashpkg/__init__.py"
git -C "$T/up" init -q && git -C "$T/up" add -A &&
	git -C "$T/up" -c user.name=t -c user.email=t@t commit -qm "crashpkg 1.0.0" &&
	git -C "$T/up" tag v1.0.0 || fail "cannot make the upstream repository"

# the wheel, from the tagged tree, installed by pip
python3 - "$T/up" "$T/crashpkg-1.0.0-py3-none-any.whl" <<'PYW' || fail "cannot build the wheel"
import base64, hashlib, os, sys, zipfile
src, whl = sys.argv[1:3]
files = {p: open(os.path.join(src, p), "rb").read() for p in ("crashpkg/__init__.py", "crashpkg/core.py")}
di = "crashpkg-1.0.0.dist-info"
files[di + "/METADATA"] = b"Metadata-Version: 2.1\nName: crashpkg\nVersion: 1.0.0\n"
files[di + "/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
rec = ["%s,sha256=%s,%d" % (k, base64.urlsafe_b64encode(hashlib.sha256(v).digest()).rstrip(b"=").decode(), len(v))
       for k, v in files.items()] + [di + "/RECORD,,"]
files[di + "/RECORD"] = ("\n".join(rec) + "\n").encode()
with zipfile.ZipFile(whl, "w") as z:
    for k, v in files.items():
        z.writestr(k, v)
PYW
SITE=$T/venv/lib/python3.11/site-packages
"$pip_py" -m pip install -q --no-index --no-deps --disable-pip-version-check --target "$SITE" \
	"$T/crashpkg-1.0.0-py3-none-any.whl" 2>/dev/null || fail "pip install failed"
grep -q '^crashpkg/core.py,' "$SITE"/crashpkg-1.0.0.dist-info/RECORD || fail "pip wrote no RECORD entry"

cat >"$T/map" <<EOF2
[component "crashpkg"]
	package = crashpkg
	repo = file://$T/up
	ref = v{version}
EOF2
mkdir -p "$T/run"
printf 'import crashpkg.core\ncrashpkg.core.run()\n' >"$T/run/main.py"
core=$(PYTHONPATH=$SITE make_core "$T/run" env PYTHONPATH="$SITE" $PY main.py) || exit 1

"$PROVENANCE" resolve --offline --mapping "$T/map" --format json "$core" >"$T/r.json" 2>"$T/r.err"
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || { cat "$T/r.err"; fail "resolve exit $rc"; }
line_crash=$(grep -n MARK-crash "$T/up/crashpkg/core.py" | cut -d: -f1)
line_run=$(grep -n MARK-run "$T/up/crashpkg/core.py" | cut -d: -f1)
q='[f for f in d["threads"][0]["frames"] if f["language"] == "python" and f["function"] == "%s"][0]'
check_eq "$(json_get "$T/r.json" "$(printf "$q" crash)[\"line\"]")" "$line_crash" "crash frame line"
check_eq "$(json_get "$T/r.json" "$(printf "$q" crash)[\"component\"]")" crashpkg "crash frame component"
check_eq "$(json_get "$T/r.json" "$(printf "$q" crash)[\"repo_path\"]")" crashpkg/core.py "crash frame repo_path"
check_eq "$(json_get "$T/r.json" "$(printf "$q" run)[\"line\"]")" "$line_run" "run frame line"
mq='[m for m in d["modules"] if m["path"] == "'"$SITE"'/crashpkg/core.py"][0]["package"]'
check_eq "$(json_get "$T/r.json" "$mq[\"kind\"] + ' ' + $mq[\"name\"] + ' ' + $mq[\"version\"]")" \
	"pip crashpkg 1.0.0" "core.py's package (pip RECORD)"
# the crash line, from the repository at the tag
want=$(git -C "$T/up" show v1.0.0:crashpkg/core.py | sed -n "${line_crash}p")
sq='[l["text"] for s in d["sources"] if s["path"] == "crashpkg/core.py" and s["line"] == '"$line_crash"' for l in s["lines"] if l["number"] == '"$line_crash"'][0]'
check_eq "$(json_get "$T/r.json" "$sq")" "$want" "crash line from upstream v1.0.0"
check_eq "$(json_get "$T/r.json" '[c["commit"] for c in d["components"] if c["name"] == "crashpkg"][0]')" \
	"$(git -C "$T/up" rev-parse v1.0.0)" "crashpkg commit"
# the standard library frame: dpkg's package, cpython's Lib/
stdlib=/usr/lib/python3.11/ctypes/__init__.py
check_eq "$(json_get "$T/r.json" '[m for m in d["modules"] if m["path"] == "'$stdlib'"][0]["package"]["name"]')" \
	"$(dpkg -S $stdlib | cut -d: -f1)" "stdlib file's package (dpkg -S)"
sf='[f for f in d["threads"][0]["frames"] if f["file"] == "'$stdlib'"][0]'
check_eq "$(json_get "$T/r.json" "$sf[\"repo_path\"]")" Lib/ctypes/__init__.py "stdlib repo_path"

"$PROVENANCE" resolve --offline --mapping "$T/map" --format markdown "$core" >"$T/r.md" 2>/dev/null
check_match "$(cat "$T/r.md")" "\| #[0-9]+ \(Python\) \| \`crash\` \| core.py — crashpkg/core.py:$line_crash \| crashpkg \|" "Markdown row of the Python frame"
check_match "$(cat "$T/r.md")" "\| #[0-9]+ \| \`_PyEval_EvalFrameDefault\` \|" "Markdown row of the native eval frame"

#!/usr/bin/env bash
# A CPython outside any package manager (pyenv's versions/X.Y.Z, a venv made
# with --copies) crashes: its interpreter, libpython and lib-dynload modules
# are cpython at the version the interpreter itself reports
# (platform.python_version()), read from the prefix's patchlevel.h or the
# venv's pyvenv.cfg; the component's ref is v<version> and its commit that
# tag's (git rev-parse); source paths lose the tarball's root "Python-X.Y.Z/";
# the pyenv checkout (a git working tree that ignores versions/) claims none.
# `env` lists the distributions of the Python on PATH and of venvs in $HOME
# (importlib.metadata in each interpreter is the ground truth).
. "$(dirname "$0")/lib.sh"
can_dump_core
pyroot=${PYENV_ROOT:-$HOME/.pyenv}
py=
for d in "$pyroot"/versions/3.11.7 "$pyroot"/versions/3.*; do
	[ -x "$d/bin/python3" ] && ls "$d"/lib/libpython3.*.so* >/dev/null 2>&1 && [ -f "$d"/include/python3.*/patchlevel.h ] &&
		{ py=$d/bin/python3; break; }
done
[ -n "$py" ] || skip "no pyenv CPython with a shared libpython under $pyroot/versions"
prefix=$(dirname "$(dirname "$py")")
ver=$("$py" -c 'import platform; print(platform.python_version())')
note "pyenv Python $ver at $prefix"

# an upstream mirror with the release tag (file://, through insteadOf)
up=$T/cpython
git -c init.defaultBranch=main init -q "$up"
git -C "$up" -c user.email=t@example.invalid -c user.name=t commit -q --allow-empty -m "Python $ver"
git -C "$up" -c user.email=t@example.invalid -c user.name=t tag -a "v$ver" -m "v$ver"
want_commit=$(git -C "$up" rev-parse "v$ver^{commit}")
insteadof="url.file://$up.insteadOf=https://github.com/python/cpython.git"

check_python_core() {	# WHAT CORE EXE
	local what=$1 core=$2 exe=$3
	"$PROVENANCE" resolve "$core" -c "$insteadof" --format json >"$T/r.json" 2>"$T/r.err"
	local rc=$?
	[ $rc -le 1 ] || { cat "$T/r.err"; fail "$what: resolve exited $rc"; }
	pkgf() { json_get "$T/r.json" "[m['package'] and m['package']['$2'] for m in d['modules'] if m['path']=='$1'][0]"; }
	check_eq "$(pkgf "$exe" name)" cpython "$what: interpreter's package"
	check_eq "$(pkgf "$exe" version)" "$ver" "$what: interpreter's version (platform.python_version())"
	check_eq "$(pkgf "$exe" guess)" false "$what: version read from a file, not guessed"
	# libpython and every lib-dynload module: cpython at that version, never a git tree's
	check_eq "$(json_get "$T/r.json" '" ".join(sorted(set("%s/%s/%s" % (m["package"] and m["package"]["name"], m["package"] and m["package"]["version"], m["package"] and m["package"]["kind"]) for m in d["modules"] if "/lib-dynload/" in m["path"] or "libpython" in m["path"])))')" "cpython/$ver/path" "$what: libpython and lib-dynload modules"
	comp='[c for c in d["components"] if c["name"]=="cpython"][0]'
	check_eq "$(json_get "$T/r.json" "$comp[\"version\"]")" "$ver" "$what: component version"
	check_eq "$(json_get "$T/r.json" "$comp[\"ref\"]")" "v$ver" "$what: component ref"
	check_eq "$(json_get "$T/r.json" "$comp[\"commit\"]")" "$want_commit" "$what: commit (git rev-parse v$ver)"
	# every cpython frame whose DWARF path holds the tarball root loses it
	json_get "$T/r.json" '"\n".join("%s|%s" % (f["file"], f["repo_path"]) for t in d["threads"] for f in t["frames"] if f["file"] and "/Python-" in f["file"])' >"$T/paths"
	[ -s "$T/paths" ] || skip "$what: no frame has a Python-X.Y.Z/ source path (no debug info?)"
	while IFS='|' read -r file rp; do
		want=${file#*/Python-"$ver"/}
		want=$(python3 -c 'import os,sys; print(os.path.normpath(sys.argv[1]))' "$want")
		[ "$rp" = "$want" ] || fail "$what: $file -> repo_path '$rp', expected '$want'"
	done <"$T/paths"
	echo "ok: $what: $(wc -l <"$T/paths") source paths stripped of Python-$ver/"
}

core=$(make_core "$T" "$py" -c 'import ctypes; ctypes.string_at(0)') || exit 1
check_python_core "pyenv" "$core" "$(readlink -f "$py")"

# a venv with copied binaries: pyvenv.cfg gives the version
"$py" -m venv --copies --without-pip "$T/venv" || fail "cannot make a venv"
grep -q "^version" "$T/venv/pyvenv.cfg" || skip "this venv writes no version to pyvenv.cfg"
vexe=$(readlink -f "$T/venv/bin/python3")
core=$(make_core "$T" "$T/venv/bin/python3" -c 'import ctypes; ctypes.string_at(0)') || exit 1
"$PROVENANCE" resolve --offline "$core" --format json >"$T/v.json" 2>/dev/null
exe=$(json_get "$T/v.json" 'd["process"]["executable"]')
check_eq "$(json_get "$T/v.json" "[m['package'] and m['package']['version'] for m in d['modules'] if m['path']=='$exe'][0]")" "$ver" "venv interpreter ($exe): version from pyvenv.cfg"
check_match "$(json_get "$T/v.json" "[m['package'] and m['package']['evidence'] for m in d['modules'] if m['path']=='$exe'][0]")" "pyvenv.cfg$" "venv evidence"

# env: the Python on PATH and a venv under $HOME
mkdir -p "$T/home"
"$py" -m venv "$T/home/.venv" >/dev/null 2>&1 || fail "cannot make a venv with pip"
HOME=$T/home PATH=$(dirname "$py"):$PATH "$PROVENANCE" env --format json >"$T/env.json" 2>/dev/null ||
	fail "env failed"
for interp in "$py" "$T/home/.venv/bin/python3"; do
	"$interp" -c '
import importlib.metadata as m, sysconfig
site = sysconfig.get_paths()["purelib"]
for d in m.distributions(path=[site]):
    print(d.metadata["Name"], d.version)' | sort -u >"$T/want"
	[ -s "$T/want" ] || continue
	python3 - "$T/env.json" "$T/want" <<'PY' || fail "env: distributions of $interp are missing"
import json, sys
have = {(c["name"].lower().replace("_", "-"), c["version"]) for c in json.load(open(sys.argv[1]))["components"]}
missing = [l for l in open(sys.argv[2]).read().split("\n") if l and
           (l.split()[0].lower().replace("_", "-"), l.split()[1]) not in have]
print("missing:", missing) if missing else None
sys.exit(1 if missing else 0)
PY
	echo "ok: env lists the $(wc -l <"$T/want") distributions of $interp"
done
exit 0

#!/bin/bash
# A Python process that imported numpy (and torch, when python3-torch is
# installed) crashes: `resolve` and `env` name an upstream repository and a
# tag (or the commit the package embeds) for numpy, torch, glibc and cpython.
# Truth: versions from dpkg-query, numpy's commit from its own _version.py,
# the tag rule written below (the shipped mappings' convention for each
# project), commits from git rev-parse in repositories this test builds and
# reaches through url.insteadOf (nothing is fetched from the network: every
# other https:// URL points at a directory that does not exist).
# Part 2: a package no mapping names, whose DEP-5 copyright names its
# repository: a derived upstream, its tag found in the mirror.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY"
command -v dpkg-query >/dev/null || skip "no dpkg-query"
"$PY" -c 'import numpy' 2>/dev/null || skip "python3-numpy is not installed (make deps installs it)"
have_torch=0
if "$PY" -c 'import torch' 2>/dev/null && dpkg-query -W python3-torch >/dev/null 2>&1; then
	have_torch=1
else
	note "python3-torch is not installed: the torch part is skipped (apt-get install python3-torch to run it)"
fi

# Debian's upstream version: no epoch, no revision, no +dfsg repack suffix
debver() { dpkg-query -W -f '${Version}' "$1" | sed -e 's/^[0-9]*://' -e 's/-[^-]*$//' -e 's/[+~.]dfsg.*//' -e 's/[+~]ds.*//'; }
owner() { dpkg-query -S "$1" 2>/dev/null | head -1 | cut -d: -f1; }

numpy_dir=$("$PY" -c 'import numpy, os; print(os.path.dirname(numpy.__file__))')
numpy_pkg=$(owner "$numpy_dir/_version.py")
[ -n "$numpy_pkg" ] || skip "numpy at $numpy_dir is not a dpkg package"
numpy_ver=$(debver "$numpy_pkg")
numpy_commit=$(grep -o '"full-revisionid": "[0-9a-f]\{40\}"' "$numpy_dir/_version.py" | grep -o '[0-9a-f]\{40\}')
libc_ver=$(debver libc6)
pylib=$(owner "$(readlink -f "$PY")")
py_ver=$(debver "$pylib")
# the package of a C extension module of the standard library (libpython3.X-stdlib)
pystd=$(owner "$("$PY" -c 'import _ctypes; print(_ctypes.__file__)')")
note "numpy $numpy_pkg $numpy_ver ($numpy_commit), libc6 $libc_ver, $pylib $py_ver"

# upstream repositories with the tags the rule names
mkrepo() {	# NAME TAG
	git init -q "$T/up/$1.git" && (
		cd "$T/up/$1.git" && git config user.email t@t && git config user.name t &&
		git commit -q --allow-empty -m "before $2" && git commit -q --allow-empty -m "release $2" &&
		git tag "$2" && git commit -q --allow-empty -m "after $2"
	) || fail "cannot build $1"
}
mkrepo numpy "v$numpy_ver"
mkrepo glibc "glibc-$libc_ver"
mkrepo cpython "v$py_ver"
cfg=(-c "url.file://$T/none/.insteadOf=https://" -c "url.file://$T/none/.insteadOf=http://"
	-c "url.file://$T/up/numpy.git.insteadOf=https://github.com/numpy/numpy.git"
	-c "url.file://$T/up/glibc.git.insteadOf=https://sourceware.org/git/glibc.git"
	-c "url.file://$T/up/cpython.git.insteadOf=https://github.com/python/cpython.git")
crash="import numpy, ctypes; ctypes.string_at(0)"
if [ $have_torch = 1 ]; then
	torch_ver=$(debver python3-torch)
	torch_tag=v$(echo "$torch_ver" | cut -d. -f1-3)
	mkrepo pytorch "$torch_tag"
	cfg+=(-c "url.file://$T/up/pytorch.git.insteadOf=https://github.com/pytorch/pytorch.git")
	# crash inside a callback that torch/nn/modules/module.py calls: a torch/*.py frame
	crash="import numpy, torch, ctypes; torch.nn.Linear(1, 1).apply(lambda m: ctypes.string_at(0))"
fi

mkdir -p "$T/run"
(cd "$T/run" && ulimit -c unlimited && exec "$PY" -c "$crash") 2>/dev/null
core=$(ls "$T"/run/core* 2>/dev/null | head -1)
[ -n "$core" ] || skip "no core dump (ulimit -c or core_pattern)"

# by default only the crash chain's components are looked up: numpy's code
# is in no frame of the crashing thread (ctypes.string_at crashes in libc)
"$PROVENANCE" "${cfg[@]}" resolve --format json "$core" >"$T/r0.json" 2>"$T/r0.err"
[ $? -le 1 ] || { cat "$T/r0.err"; fail "resolve (crash chain) failed"; }
check_eq "$(json_get "$T/r0.json" "[c['in_crash_chain'] for c in d['components'] if c['name']=='numpy'][0]")" false \
	"numpy: not in the crash chain"
check_eq "$(json_get "$T/r0.json" "[c['commit'] for c in d['components'] if c['name']=='numpy'][0]")" null \
	"numpy: not looked up by default"
check_eq "$(json_get "$T/r0.json" "[c['in_crash_chain'] for c in d['components'] if c['name']=='glibc'][0]")" true \
	"glibc: in the crash chain"
# --all-components: every component is looked up, as env does
# resolve exits 1: most components have no mirror here (partial), never 2 or 3
"$PROVENANCE" "${cfg[@]}" resolve --all-components --format json "$core" >"$T/r.json" 2>"$T/r.err"
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || { cat "$T/r.err"; fail "resolve exit $rc"; }
comp() { json_get "$T/r.json" "[c.get('$2') for c in d['components'] if c['name']=='$1'][0]"; }
rev() { git -C "$T/up/$1.git" rev-parse "$2^{commit}"; }

[ -s "$T/r.json" ] || { cat "$T/r.err"; fail "resolve wrote no report (exit $rc)"; }
check_eq "$(comp glibc repo)" "https://sourceware.org/git/glibc.git" "glibc repo"
check_eq "$(comp glibc ref)" "glibc-$libc_ver" "glibc tag"
check_eq "$(comp glibc commit)" "$(rev glibc "glibc-$libc_ver")" "glibc commit"
check_eq "$(comp cpython repo)" "https://github.com/python/cpython.git" "cpython repo"
check_eq "$(comp cpython ref)" "v$py_ver" "cpython tag"
check_eq "$(comp cpython commit)" "$(rev cpython "v$py_ver")" "cpython commit"
check_eq "$(comp numpy repo)" "https://github.com/numpy/numpy.git" "numpy repo"
check_eq "$(comp numpy version)" "$(dpkg-query -W -f '${Version}' "$numpy_pkg")" "numpy version (dpkg)"
if [ -n "$numpy_commit" ]; then
	# the commit numpy's _version.py records wins over the tag rule (this
	# test's repository does not hold it: a note says so)
	check_eq "$(comp numpy commit)" "$numpy_commit" "numpy commit (its _version.py)"
	check_match "$(comp numpy found_by)" "_version\.py" "numpy found_by"
else
	check_eq "$(comp numpy ref)" "v$numpy_ver" "numpy tag"
fi
# numpy's extension modules belong to the numpy component
check_eq "$(json_get "$T/r.json" "sorted(set(m.get('component') for m in d['modules'] if '/numpy/core/' in m['path']))")" \
	'["numpy"]' "numpy modules' component"
if [ $have_torch = 1 ]; then
	check_eq "$(comp pytorch repo)" "https://github.com/pytorch/pytorch.git" "torch repo"
	check_eq "$(comp pytorch ref)" "$torch_tag" "torch tag"
	check_eq "$(comp pytorch commit)" "$(rev pytorch "$torch_tag")" "torch commit"
	# torch's own _C extension is pytorch, like libtorch
	check_eq "$(json_get "$T/r.json" "sorted(set(m.get('component') for m in d['modules'] if '/torch/_C.' in m['path'] or '/libtorch' in m['path']))")" \
		'["pytorch"]' "torch/_C and libtorch component"
	# the torch/*.py frame (Python frames read from the core) is pytorch too;
	# dpkg says python3-torch (source pytorch) owns that file
	pyfile=$(json_get "$T/r.json" "([f['file'] for t in d['threads'] for f in t['frames'] if f.get('language')=='python' and '/torch/nn/modules/module.py' in (f.get('file') or '')] or [None])[0]")
	if [ "$pyfile" != null ]; then
		check_eq "$(dpkg-query -W -f '${source:Package}' "$(owner "$pyfile")")" "pytorch" "dpkg: source of $pyfile"
		check_eq "$(json_get "$T/r.json" "sorted(set(f.get('component') for t in d['threads'] for f in t['frames'] if (f.get('file') or '')=='$pyfile'))")" \
			'["pytorch"]' "torch/*.py frame component"
	else
		note "no Python frames in this core: the torch/*.py frame check is skipped"
	fi
fi

# env: the same repositories and tags, from the package databases alone
"$PROVENANCE" "${cfg[@]}" env --format json >"$T/e.json" 2>"$T/e.err" || { cat "$T/e.err"; fail "env"; }
row() { json_get "$T/e.json" "[c.get('$3') for c in d['components'] if c['name']=='$1' and c['kind']=='$2'][0]"; }
check_eq "$(row libc6 dpkg repo)" "https://sourceware.org/git/glibc.git" "env glibc repo"
check_eq "$(row libc6 dpkg ref)" "glibc-$libc_ver" "env glibc tag"
check_eq "$(row "$pystd" dpkg component)" "cpython" "env cpython component ($pystd)"
check_eq "$(row "$pystd" dpkg ref)" "v$py_ver" "env cpython tag"
check_eq "$(row "$numpy_pkg" dpkg component)" "numpy" "env numpy component"
check_eq "$(row "$numpy_pkg" dpkg ref)" "v$numpy_ver" "env numpy tag"
if [ $have_torch = 1 ]; then
	check_eq "$(row python3-torch dpkg ref)" "$torch_tag" "env torch tag"
	# Debian's egg-info says 1.13.0a0+gitunknown: dpkg's version wins
	check_eq "$(row torch pip version)" "$(dpkg-query -W -f '${Version}' python3-torch)" "env torch (pip) version from dpkg"
	check_eq "$(row torch pip ref)" "$torch_tag" "env torch (pip) tag"
fi

# ---- part 2: a derived upstream (DEP-5 Source:), a root built here ----
R=$T/root
mkdir -p "$R/var/lib/dpkg/info" "$R/usr/lib/x86_64-linux-gnu" "$R/usr/share/doc/libfoo1"
printf 'int foo(void) { return 0; }\n' >"$T/foo.c"
${CC:-cc} -shared -fPIC -o "$R/usr/lib/x86_64-linux-gnu/libfoo.so.1" "$T/foo.c" || fail "cc"
cat >"$R/var/lib/dpkg/status" <<EOF
Package: libfoo1
Status: install ok installed
Architecture: amd64
Maintainer: t <t@example.org>
Source: foo
Version: 1:2.4.1-3
Description: test

EOF
printf '/.\n/usr\n/usr/lib\n/usr/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu/libfoo.so.1\n/usr/share/doc/libfoo1/copyright\n' \
	>"$R/var/lib/dpkg/info/libfoo1:amd64.list"
# a Python distribution whose own metadata carries a broken version (as
# Debian's torch egg-info does), installed by a dpkg package
egg=/usr/lib/python3/dist-packages/pyfoo-2.4.0a0+gitunknown.egg-info
mkdir -p "$R$egg"
printf 'Metadata-Version: 2.1\nName: pyfoo\nVersion: 2.4.0a0+gitunknown\n' >"$R$egg/PKG-INFO"
cat >>"$R/var/lib/dpkg/status" <<EOF
Package: python3-foo
Status: install ok installed
Architecture: all
Maintainer: t <t@example.org>
Source: foo
Version: 2.4.1+dfsg-2
Description: test

EOF
printf '/.\n/usr\n/usr/lib\n/usr/lib/python3\n/usr/lib/python3/dist-packages\n%s\n%s/PKG-INFO\n' "$egg" "$egg" \
	>"$R/var/lib/dpkg/info/python3-foo.list"
cat >"$R/usr/share/doc/libfoo1/copyright" <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: foo
Source: https://foo.example.org/download/
 https://github.com/example/foo/releases

Files: *
Copyright: 2020 Someone
License: MIT
EOF
# hostile metadata: a copyright that is a FIFO (never opened: no hang) and
# one that is a symlink out of the root (re-rooted: nothing)
for p in libevil1 libevil2; do
	mkdir -p "$R/usr/share/doc/$p"
	cp "$R/usr/lib/x86_64-linux-gnu/libfoo.so.1" "$R/usr/lib/x86_64-linux-gnu/$p.so"
	printf 'Package: %s\nStatus: install ok installed\nMaintainer: t <t@example.org>\nArchitecture: amd64\nVersion: 1.0-1\nDescription: test\n\n' "$p" >>"$R/var/lib/dpkg/status"
	printf '/.\n/usr\n/usr/lib\n/usr/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu/%s.so\n' "$p" >"$R/var/lib/dpkg/info/$p.list"
done
mkfifo "$R/usr/share/doc/libevil1/copyright"
# (the host file is a DEP-5 file naming a repository: read, it would show)
ln -s /usr/share/doc/libffi8/copyright "$R/usr/share/doc/libevil2/copyright"
# a conda package and a pip wheel that no mapping names, whose metadata names
# their repositories (conda's info/about.json, pip's Project-URL)
mkdir -p "$R/opt/conda/conda-meta" "$R/opt/conda/lib" "$R/opt/conda/pkgs/libbaz-0.9.1-h0_1/info"
cp "$R/usr/lib/x86_64-linux-gnu/libfoo.so.1" "$R/opt/conda/lib/libbaz.so.0"
printf '{"name": "libbaz", "version": "0.9.1", "build": "h0_1", "files": ["lib/libbaz.so.0"]}\n' \
	>"$R/opt/conda/conda-meta/libbaz-0.9.1-h0_1.json"
printf '{"home": "https://baz.example.org", "dev_url": "https://gitlab.com/example/baz/-/tree/main"}\n' \
	>"$R/opt/conda/pkgs/libbaz-0.9.1-h0_1/info/about.json"
site=/usr/local/lib/python3.11/dist-packages
mkdir -p "$R$site/quxpy" "$R$site/quxpy-1.3.0.dist-info"
cp "$R/usr/lib/x86_64-linux-gnu/libfoo.so.1" "$R$site/quxpy/_core.cpython-311-x86_64-linux-gnu.so"
printf 'Metadata-Version: 2.1\nName: quxpy\nVersion: 1.3.0\nHome-page: https://quxpy.example.org\nProject-URL: Documentation, https://quxpy.example.org/docs\nProject-URL: Source Code, https://github.com/example/quxpy\n\nbody\n' \
	>"$R$site/quxpy-1.3.0.dist-info/METADATA"
printf 'quxpy/_core.cpython-311-x86_64-linux-gnu.so,,\nquxpy-1.3.0.dist-info/METADATA,,\n' >"$R$site/quxpy-1.3.0.dist-info/RECORD"
git init -q "$T/up/foo.git" && (cd "$T/up/foo.git" && git config user.email t@t && git config user.name t &&
	git commit -q --allow-empty -m one && git tag foo-2.4.0 && git commit -q --allow-empty -m two &&
	git tag foo-2.4.1 && git commit -q --allow-empty -m three) || fail "foo repo"
fcfg=(-c "url.file://$T/none/.insteadOf=https://" -c "url.file://$T/up/foo.git.insteadOf=https://github.com/example/foo.git")
"$PROVENANCE" "${fcfg[@]}" env --sysroot "$R" --format json >"$T/f.json" || fail "env --sysroot"
frow() { json_get "$T/f.json" "[c.get('$1') for c in d['components'] if c['name']=='libfoo1'][0]"; }
check_eq "$(frow repo)" "https://github.com/example/foo.git" "derived repo (DEP-5 Source)"
check_eq "$(frow found_by)" "derived:dep5-source" "derived found_by"
check_eq "$(frow ref)" "null" "derived tag without a mirror: not stated"
check_eq "$(json_get "$T/f.json" "[c['repo'] for c in d['components'] if c['name'] in ('libevil1', 'libevil2')]")" \
	'[null, null]' "hostile copyright files give no upstream"
xrow() { json_get "$T/f.json" "[c.get('$2') for c in d['components'] if c['name']=='$1'][0]"; }
check_eq "$(xrow libbaz repo)" "https://gitlab.com/example/baz.git" "derived repo (conda about.json dev_url)"
check_eq "$(xrow libbaz found_by)" "derived:conda-about" "conda derived found_by"
check_eq "$(xrow quxpy repo)" "https://github.com/example/quxpy.git" "derived repo (pip Project-URL Source Code)"
check_eq "$(xrow quxpy found_by)" "derived:pip-project-url" "pip derived found_by"
check_eq "$(json_get "$T/f.json" "[c['version'] for c in d['components'] if c['name']=='pyfoo'][0]")" \
	"$(dpkg-query --admindir="$R/var/lib/dpkg" -W -f '${Version}' python3-foo)" \
	"pip distribution installed by dpkg: dpkg's version"
check_match "$(json_get "$T/f.json" "[c['found_by'] for c in d['components'] if c['name']=='pyfoo'][0]")" \
	"version from dpkg python3-foo" "pip distribution: found_by says so"
# resolve: a text frame in libfoo, resolved in the root
printf '#0  0x0000000000001109 in foo () from /usr/lib/x86_64-linux-gnu/libfoo.so.1\n#1  0x0000000000001000 in main ()\n' >"$T/bt.txt"
"$PROVENANCE" "${fcfg[@]}" resolve --sysroot "$R" --format json "$T/bt.txt" >"$T/fr.json" 2>"$T/fr.err"
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || { cat "$T/fr.err"; fail "resolve --sysroot exit $rc"; }
fcomp() { json_get "$T/fr.json" "[c.get('$1') for c in d['components'] if c['name']=='foo'][0]"; }
check_eq "$(fcomp repo)" "https://github.com/example/foo.git" "resolve: derived repo"
check_eq "$(fcomp found_by)" "derived:dep5-source" "resolve: derived found_by"
check_eq "$(fcomp ref)" "null" "resolve: no tag stated without the mirror (fetch.trustSystemUrls unset)"
check_match "$(fcomp note)" "not checked" "resolve: the note says the tags were not checked"
# with the mirror (trusted, fetched): the tag the version names
"$PROVENANCE" "${fcfg[@]}" -c fetch.trustSystemUrls=true env --fetch --sysroot "$R" --format json >"$T/f.json" ||
	fail "env --fetch"
check_eq "$(frow ref)" "foo-2.4.1" "derived tag"
check_eq "$(frow commit)" "$(git -C "$T/up/foo.git" rev-parse 'foo-2.4.1^{commit}')" "derived commit"
# once a mirror is in the cache (env --fetch made it), its tags are looked up
"$PROVENANCE" "${fcfg[@]}" resolve --sysroot "$R" --format json "$T/bt.txt" >"$T/fr.json" 2>"$T/fr.err"
check_eq "$(fcomp ref)" "foo-2.4.1" "resolve: derived tag (the mirror in the cache)"
check_eq "$(fcomp commit)" "$(git -C "$T/up/foo.git" rev-parse 'foo-2.4.1^{commit}')" "resolve: derived commit"
# the report is still valid against the schema
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/fr.json" >/dev/null 2>&1 ||
	fail "report does not match its schema"
echo "ok: all"

#!/usr/bin/env bash
# fixcheck --rpm-spec: an RPM spec's Patch: lines as distribution patches.
# A source RPM is built here with rpmbuild -bs from a spec whose patches are
# an upstream fix (git format-patch, named through a macro and a URL) and a
# packaging patch (diff -Naur), then unpacked with rpm2archive + tar, as a
# user would unpack a .src.rpm. Ground truth: rpmspec -P (patch names after
# macros), rpmbuild -bp (the prepped tree has the fix: grep), git tag
# --contains, git rev-list.
. "$(dirname "$0")/lib.sh"
for c in rpmbuild rpmspec rpm2archive; do command -v $c >/dev/null || skip "no $c (apt-get install rpm)"; done

up=$T/up
n=0
g() {
	n=$((n + 1))
	GIT_AUTHOR_DATE="@$((1700000000 + n * 60)) +0000" GIT_COMMITTER_DATE="@$((1700000000 + n * 60)) +0000" \
		git -C "$up" -c user.name=Up -c user.email=up@example.invalid "$@"
}
git init -q -b main "$up"
cp -r "$TOP/fixtures/srcpkg/libfoo-1.0/." "$up/"
g add -A && g commit -qm "libfoo 1.0" && g tag v1.0
# the upstream fix (two files) the package carries
sed -i 's|return (int)strlen(f->name); /\* CRASH-HERE \*/|return f \&\& f->name ? (int)strlen(f->name) : 0; /* CRASH-HERE */|' "$up/src/foo.c"
printf '/* foo_length(NULL) returns 0 */\n' >> "$up/include/foo.h"
g commit -qam "foo_length: accept NULL"
fixa=$(g rev-parse HEAD)
git -C "$up" show "$fixa" -- src/foo.c | grep -q '^+.*f && f->name' || fail "fixture: the fix did not change src/foo.c"
# another fix, not in the package
printf '\n/* counts are never negative */\n' >> "$up/README"
g commit -qam "README: counts"
fixb=$(g rev-parse HEAD)
g tag v1.1

# --- the source RPM --------------------------------------------------------------
top=$T/rpm
mkdir -p "$top/SOURCES" "$top/SPECS"
git -C "$up" archive --prefix=libfoo-1.0/ -o "$top/SOURCES/libfoo-1.0.tar.gz" v1.0
fixname=$(git -C "$up" format-patch -1 "$fixa" -o "$top/SOURCES" | xargs -n1 basename)
mkdir -p "$T/pk/a" && tar -C "$T/pk/a" -xzf "$top/SOURCES/libfoo-1.0.tar.gz"
cp -r "$T/pk/a/libfoo-1.0" "$T/pk/libfoo-1.0.orig"
printf 'Built for the provenance tests.\n' > "$T/pk/a/libfoo-1.0/PACKAGING"
(cd "$T/pk" && cp -r a/libfoo-1.0 libfoo-1.0 && diff -Naur libfoo-1.0.orig libfoo-1.0 > "$top/SOURCES/libfoo-packaging.patch"; true)
[ -s "$top/SOURCES/libfoo-packaging.patch" ] || fail "fixture: empty packaging patch"
cat > "$top/SPECS/libfoo.spec" <<SPEC
%global fixpatch ${fixname}
Name:           libfoo
Version:        1.0
Release:        1
Summary:        tiny counting library (provenance tests)
License:        MIT
Source0:        https://example.invalid/%{name}-%{version}.tar.gz
Patch0:         %{name}-packaging.patch
Patch1:         https://example.invalid/upstream/%{fixpatch}

%description
A tiny library for the provenance tests.

%prep
%autosetup -p1

%build

%install

%files

%changelog
* Mon Jan 01 2024 Tests <tests@example.invalid> - 1.0-1
- Patch99: not-a-patch.patch (in the changelog: not a tag)
SPEC
rpmbuild -bs --define "_topdir $top" "$top/SPECS/libfoo.spec" >"$T/rpmbuild.log" 2>&1 || { cat "$T/rpmbuild.log"; fail "rpmbuild -bs failed"; }
srpm=$(ls "$top"/SRPMS/libfoo-1.0-1*.src.rpm)
mkdir -p "$T/srpm"
rpm2archive - < "$srpm" | tar -C "$T/srpm" -xzf - || fail "cannot unpack $srpm"
spec=$T/srpm/libfoo.spec
[ -f "$spec" ] || fail "no spec in the source RPM: $(ls "$T/srpm")"

# ground truth: the patch names after macros, the prepped tree
want_names=$(rpmspec -P "$spec" | sed -n 's/^Patch[0-9]*:[[:space:]]*//p' | xargs -n1 basename | tr '\n' ' ')
check_eq "$want_names" "libfoo-packaging.patch $fixname " "rpmspec -P: patch names"
rpmbuild -bp --nodeps --define "_topdir $top" "$top/SPECS/libfoo.spec" >"$T/bp.log" 2>&1 || { cat "$T/bp.log"; fail "rpmbuild -bp failed"; }
grep -q 'f && f->name' "$top/BUILD/libfoo-1.0/src/foo.c" || fail "rpmbuild -bp: the prepped tree lacks the fix"
grep -q 'counts are never negative' "$top/BUILD/libfoo-1.0/README" && fail "rpmbuild -bp: fix B is in the prepped tree"
echo "ok: rpmbuild -bp applies the fix, not fix B"

fc() { "$PROVENANCE" fixcheck "$@"; }
# --- the fix is carried as Patch1 ----------------------------------------------------
check_exit 0 "fix A in v1.0 + the spec's patches" -- fc "$fixa" --repo "$up" --at v1.0 --rpm-spec "$spec" --format json
cp "$T/last.out" "$T/a.json"
check_eq "$(json_get "$T/a.json" 'd[0]["how"]')" distribution-patch "how"
check_eq "$(json_get "$T/a.json" 'd[0]["via"]')" "$fixname" "via = the spec's patch carrying it"
check_eq "$(json_get "$T/a.json" 'd[0]["included"]')" true "included"
check_exit 0 "text" -- fc "$fixa" --repo "$up" --at v1.0 --rpm-spec "$spec"
check_match "$(cat "$T/last.out")" "^YES $fixa is in v1\\.0 \\+ libfoo\\.spec .*distribution-patch $fixname" "text line"
# without the spec: not in v1.0 by ancestry
git -C "$up" merge-base --is-ancestor "$fixa" v1.0 && fail "fixture: fix A in v1.0"
check_exit 1 "fix A without the spec" -- fc "$fixa" --repo "$up" --at v1.0

# --- fix B is not; a range of both is partial -------------------------------------------
check_exit 1 "fix B" -- fc "$fixb" --repo "$up" --at v1.0 --rpm-spec "$spec" --format json
check_eq "$(json_get "$T/last.out" 'd[0]["first_tag"]')" "$(git -C "$up" tag --contains "$fixb" | head -1)" "fix B first tag (git tag --contains)"
check_eq "$(git -C "$up" rev-list --reverse v1.0..v1.1 | tr '\n' ' ')" "$fixa $fixb " "git rev-list v1.0..v1.1"
check_exit 1 "range v1.0..v1.1" -- fc v1.0..v1.1 --repo "$up" --at v1.0 --rpm-spec "$spec" --format json
check_eq "$(json_get "$T/last.out" 'd[0]["how"]')" partial "range: partial"
check_eq "$(json_get "$T/last.out" '" ".join(d[0]["commits_missing"])')" "$fixb" "range: fix B missing"

# --- bad specs: exit 2, one line, nothing read outside the spec's directory ----------------
bad=$T/bad; mkdir -p "$bad"
cp "$spec" "$bad/missing.spec"; sed -i 's/^Patch0:.*/Patch0: nosuch.patch/' "$bad/missing.spec"
check_exit 2 "a patch not beside the spec" -- fc "$fixa" --repo "$up" --at v1.0 --rpm-spec "$bad/missing.spec"
check_match "$(cat "$T/last.err")" "^provenance: spec '.*missing\\.spec' names patch 'nosuch\\.patch', which is not beside it" "message"
check_eq "$(wc -l < "$T/last.err")" 1 "one line on stderr"
printf 'Name: x\nPatch0: ../../../../etc/hostname\n' > "$bad/escape.spec"
check_exit 2 "a patch name leading outside" -- fc "$fixa" --repo "$up" --at v1.0 --rpm-spec "$bad/escape.spec"
check_match "$(cat "$T/last.err")" "names patch 'hostname', which is not beside it" "../ refused"
ln -s /etc/hostname "$bad/evil.patch"
printf 'Name: x\nPatch0: evil.patch\n' > "$bad/symlink.spec"
check_exit 2 "a patch that is a symlink leading outside" -- fc "$fixa" --repo "$up" --at v1.0 --rpm-spec "$bad/symlink.spec"
check_match "$(cat "$T/last.err")" "names patch 'evil\\.patch', which is not beside it" "symlink out refused"
printf 'Name: x\nPatch0: %%{undefined_macro}.patch\n' > "$bad/macro.spec"
check_exit 2 "an unexpandable macro" -- fc "$fixa" --repo "$up" --at v1.0 --rpm-spec "$bad/macro.spec"
check_match "$(cat "$T/last.err")" "cannot be expanded" "macro message"
check_exit 2 "no spec" -- fc "$fixa" --repo "$up" --at v1.0 --rpm-spec "$bad/nosuch.spec"
mkfifo "$bad/fifo.spec"
check_exit 2 "a FIFO as spec (no hang)" -- timeout 120 "$PROVENANCE" fixcheck "$fixa" --repo "$up" --at v1.0 --rpm-spec "$bad/fifo.spec"
check_exit 64 "--rpm-spec with --component" -- fc "$fixa" core --component libfoo --rpm-spec "$spec"
echo "all ok"

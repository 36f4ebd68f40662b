#!/usr/bin/env bash
# make install DESTDIR=… puts the program, the shipped mappings, the man
# page and the completion where the Makefile says, the staged program runs
# and finds its mappings, and make uninstall takes back exactly that. A plain
# make installs nothing (no apt-get, no debootstrap, no download), says what
# is missing when the build cannot go on, and a new PREFIX rebuilds one
# object: checked in a copy of the tree, so that the tree is not rebuilt.
. "$(dirname "$0")/lib.sh"
cd "$TOP"
# Every build happens in a copy of the tree (sources and build products,
# mtimes kept) with the flags the tree was built with, so that nothing is
# rebuilt that the tree has built and the tree itself is never rebuilt under
# other flags; apt-get, apt, sudo, debootstrap and dpkg that record being
# called come first on PATH.
flags=$(cat .build-flags 2>/dev/null || true)
mk=()
case " $flags " in *" -Werror "*) mk+=(DEVELOPER=1) ;; esac
san=$(printf '%s\n' $flags | sed -n 's/^-fsanitize=//p' | head -1)
[ -n "$san" ] && mk+=(SANITIZE="$san")
[ -n "$flags" ] && mk+=(CC="${flags%% *}")
mkdir -p "$T/copy" "$T/fake"
{ git ls-files -z --cached --others --exclude-standard -- Makefile src cache resolvers mappings docs
  find src cache resolvers -name '*.[od]' -print0
  for f in libprovenance.a provenance .build-flags .build-datadir; do [ -e "$f" ] && printf '%s\0' "$f"; done
} | tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$T/copy"
for c in apt-get apt sudo debootstrap dpkg; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/called"\nexit 1\n' "$c" "$T" >"$T/fake/$c"
	chmod +x "$T/fake/$c"
done
PATH="$T/fake:$PATH" make -C "$T/copy" "${mk[@]}" >"$T/copy.log" 2>&1 || { cat "$T/copy.log"; fail "a plain make in the copy failed"; }
[ -x "$T/copy/provenance" ] || fail "a plain make built no program"
[ -e "$T/called" ] && { cat "$T/called"; fail "a plain make ran a package tool (above)"; }
echo "ok: a plain make builds and calls no apt-get, sudo, debootstrap or dpkg"

PATH="$T/fake:$PATH" make -C "$T/copy" -s install DESTDIR="$T/stage" "${mk[@]}" >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; fail "make install failed"; }
[ -e "$T/called" ] && { cat "$T/called"; fail "make install ran a package tool (above)"; }
prefix=$(make -s -p -n NO_DEPS=1 2>/dev/null | awk -F' = ' '$1 == "PREFIX" {print $2; exit}')
[ -n "$prefix" ] || prefix=/usr/local
bin=$T/stage$prefix/bin/provenance
[ -x "$bin" ] || fail "no $bin"
check_match "$("$bin" --version)" '^provenance [0-9]+\.[0-9]+' "installed --version"
n_repo=$(ls mappings/*.map | wc -l)
n_inst=$(ls "$T/stage$prefix/share/provenance/mappings/"*.map | wc -l)
check_eq "$n_inst" "$n_repo" "shipped mappings installed"
[ -f "$T/stage$prefix/share/man/man1/provenance.1" ] || fail "man page not installed"
command -v man >/dev/null && ! man -l "$T/stage$prefix/share/man/man1/provenance.1" 2>/dev/null | grep -q "EXIT STATUS" &&
	fail "the installed man page does not render"
echo "ok: installed under $T/stage$prefix"

# the staged program finds its staged mappings (<bin>/../share/provenance/mappings):
# a mapping planted there names the library of a text backtrace
probe=$T/stage$prefix/share/provenance/mappings/zz-t-install.map
printf '[component "t-install-probe"]\n\tlibrary = libtinstallprobe.so.1\n\trepo = https://example.invalid/probe.git\n\tref = v{upstream_version}\n' >"$probe"
printf 'Program received signal SIGSEGV, Segmentation fault.\n#0  0x00007f0000001234 in probe_crash () from /usr/lib/libtinstallprobe.so.1\n#1  0x0000555555555150 in main ()\n' >"$T/probe.txt"
"$bin" resolve --offline "$T/probe.txt" >"$T/probe.out" 2>"$T/probe.err" || true
grep -q 't-install-probe .*https://example.invalid/probe.git' "$T/probe.out" ||
	{ cat "$T/probe.out" "$T/probe.err"; fail "the staged program does not read the staged mappings"; }
grep -Eq '^  glibc +.*sourceware' <("$bin" resolve --offline <(sed 's|/usr/lib/libtinstallprobe.so.1|/lib/x86_64-linux-gnu/libc.so.6|' "$T/probe.txt") 2>/dev/null) ||
	fail "the staged program does not map libc.so.6 with the shipped system.map"
rm -f "$probe"
echo "ok: the staged program finds its mappings (a planted one and the shipped system.map)"

# the man page names the data directory of this PREFIX, not /usr/local
# (install-data: the same rules as install without rebuilding the program for that PREFIX)
make -s install-data DESTDIR="$T/stage2" PREFIX=/opt/prov NO_DEPS=1 >"$T/install2.log" 2>&1 || { cat "$T/install2.log"; fail "make install-data PREFIX=/opt/prov failed"; }
man2=$T/stage2/opt/prov/share/man/man1/provenance.1
grep -q '/opt/prov/share/provenance/mappings' "$man2" || fail "the man page does not name /opt/prov/share/provenance/mappings"
grep -q '/usr/local/share/provenance' "$man2" && fail "the man page still names /usr/local/share/provenance"
echo "ok: the installed man page names \$(PREFIX)/share/provenance"

# shell completion: installed, and it completes (bash runs it; zsh when present)
bc=$T/stage$prefix/share/bash-completion/completions/provenance
zc=$T/stage$prefix/share/zsh/site-functions/_provenance
[ -f "$bc" ] || fail "no bash completion at $bc"
[ -f "$zc" ] || fail "no zsh completion at $zc"
got=$(bash -c '. "$1"; COMP_WORDS=(provenance fix); COMP_CWORD=1; _provenance; echo "${COMPREPLY[*]}"' _ "$bc")
check_eq "$got" "fixcheck" "bash completes 'provenance fix'"
got=$(bash -c '. "$1"; COMP_WORDS=(provenance fixcheck --deb); COMP_CWORD=2; _provenance; echo "${COMPREPLY[*]}"' _ "$bc")
check_eq "$got" "--debian-source" "bash completes fixcheck options"
got=$(bash -c '. "$1"; COMP_WORDS=(provenance resolve --format m); COMP_CWORD=3; _provenance; echo "${COMPREPLY[*]}"' _ "$bc")
check_eq "$got" "markdown" "bash completes --format values"
# every option the completion offers is one the command accepts (its --help names it),
# and every option a command's --help lists is offered; every command is offered
cmds=$("$bin" --help 2>&1 | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 { print $1 }')
got=$(bash -c '. "$1"; COMP_WORDS=(provenance ""); COMP_CWORD=1; _provenance; echo "${COMPREPLY[*]}"' _ "$bc")
for c in $cmds; do
	case " $got " in *" $c "*) ;; *) fail "completion does not offer the command $c" ;; esac
done
for c in $cmds; do
	[ "$c" = cache ] && continue	# stats|clear, no options
	opts=$(bash -c '. "$1"; COMP_WORDS=(provenance '"$c"' -); COMP_CWORD=2; _provenance; echo "${COMPREPLY[*]}"' _ "$bc")
	for o in $opts; do
		"$bin" "$c" --help 2>&1 | grep -q -- "$o" || fail "completion offers $c $o, which $c --help does not name"
	done
	for o in $("$bin" "$c" --help 2>&1 | grep -oE '^ +--[a-z][a-z-]*' | tr -d ' '); do
		case " $opts " in *" $o "*) ;; *) fail "$c --help lists $o, which completion does not offer" ;; esac
	done
done
echo "ok: completion offers every command and exactly the options each command's --help lists"
if command -v zsh >/dev/null; then
	zsh -n "$zc" || fail "zsh completion has a syntax error"
	echo "ok: zsh parses the completion"
fi

# make uninstall removes exactly what install put there, and the provenance
# folders it made
make -C "$T/copy" -s uninstall DESTDIR="$T/stage" >"$T/uninstall.log" 2>&1 || { cat "$T/uninstall.log"; fail "make uninstall failed"; }
left=$(find "$T/stage" ! -type d)
[ -z "$left" ] || fail "make uninstall left: $left"
[ -e "$T/stage$prefix/share/provenance" ] && fail "make uninstall left $prefix/share/provenance"
echo "ok: make uninstall leaves no file behind"

# what the build lacks: one line that names it and make deps; nothing installed
printf '#!/bin/sh\ncase " $* " in *" libgit2 "*) exit 1 ;; esac\nexec pkg-config "$@"\n' >"$T/fake/pkg-config-nogit2"
chmod +x "$T/fake/pkg-config-nogit2"
if PATH="$T/fake:$PATH" make -C "$T/copy" "${mk[@]}" PKG_CONFIG="$T/fake/pkg-config-nogit2" >"$T/miss.out" 2>"$T/miss.err"; then
	cat "$T/miss.out" "$T/miss.err"
	fail "make went on without libgit2"
fi
grep -q '^provenance: cannot build, missing: libgit2 (`make deps` installs them)$' "$T/miss.err" ||
	{ cat "$T/miss.err"; fail "no line naming libgit2 and make deps"; }
[ -e "$T/called" ] && { cat "$T/called"; fail "make with libgit2 missing ran a package tool (above)"; }
grep -q ' CC ' "$T/miss.out" && { cat "$T/miss.out"; fail "make compiled before saying what is missing"; }
echo "ok: a missing library stops make with: $(cat "$T/miss.err" | head -1)"

# NO_DEPS=1: make deps installs and downloads nothing
PATH="$T/fake:$PATH" make -C "$T/copy" deps NO_DEPS=1 >"$T/nodeps.log" 2>&1 || true
[ -e "$T/called" ] && { cat "$T/called"; fail "make deps NO_DEPS=1 ran a package tool (above)"; }
[ -e "$T/copy/tests/debs" ] && fail "make deps NO_DEPS=1 made tests/debs"
echo "ok: make deps NO_DEPS=1 installs and downloads nothing"

# a new PREFIX rebuilds the one object that names the data directory
PATH="$T/fake:$PATH" make -C "$T/copy" PREFIX=/opt/prov-t-install "${mk[@]}" >"$T/prefix.log" 2>&1 || { cat "$T/prefix.log"; fail "make PREFIX=/opt/prov-t-install failed"; }
got=$(awk '$1 == "CC" { print $2 }' "$T/prefix.log" | tr '\n' ' ')
check_eq "$got" "src/components/mapping.o " "objects a new PREFIX rebuilds"
strings "$T/copy/provenance" | grep -q '^/opt/prov-t-install/share/provenance/mappings$' ||
	fail "the program rebuilt for PREFIX=/opt/prov-t-install does not name its mappings"
echo "ok: a new PREFIX rebuilds src/components/mapping.o alone"

#!/usr/bin/env bash
# make install DESTDIR=… puts the program, the shipped mappings and the man
# page where the Makefile says, and the installed program runs.
. "$(dirname "$0")/lib.sh"
cd "$TOP"
make -s install DESTDIR="$T/stage" NO_DEPS=1 >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "make install failed"; }
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

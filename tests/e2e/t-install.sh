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

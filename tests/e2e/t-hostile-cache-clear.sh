#!/usr/bin/env bash
# `cache clear` removes only a cache provenance made (issue 27): a --cache
# that is a symlink to $HOME is $HOME (refused, its mirrors/ and cache.sqlite
# stay), a directory with other files and no CACHEDIR.TAG is refused, a cache
# a run made (tagged) is cleared; `cache stats` is a report and makes no
# directory or database where --cache points.
. "$(dirname "$0")/lib.sh"

printf '#0  0x00007f0000001000 in foo () from /usr/lib/libfoo.so.1\n#1  0x0000000000401136 in main () at main.c:5\n' >"$T/bt.txt"

# ---- a symlink to $HOME ----
H="$T/home"
mkdir -p "$H/mirrors/precious.git"
echo keep >"$H/mirrors/precious.git/HEAD"
echo keep >"$H/cache.sqlite"
echo keep >"$H/.bashrc"
ln -s "$H" "$T/link"
HOME="$H" "$PROVENANCE" --cache "$T/link" cache clear 2>"$T/err"; rc=$?
check_eq "$rc" 2 "cache clear of a symlink to HOME: exit code"
grep -q refusing "$T/err" || { cat "$T/err"; fail "no refusal message"; }
[ -f "$H/mirrors/precious.git/HEAD" ] && [ -f "$H/cache.sqlite" ] || fail "files under HOME were removed"
echo "ok: a symlink to HOME is refused, nothing removed"

# ---- a directory that is not a cache ----
D="$T/notcache"
mkdir -p "$D/mirrors"; echo keep >"$D/cache.sqlite"; echo keep >"$D/thesis.tex"
"$PROVENANCE" --cache "$D" cache clear 2>"$T/err"; rc=$?
check_eq "$rc" 2 "cache clear of a directory with foreign files: exit code"
[ -f "$D/cache.sqlite" ] && [ -d "$D/mirrors" ] || fail "a directory that is not a cache was cleared"
echo "ok: a directory holding other files, without the tag, is refused"

# ---- a cache a run made is cleared, even with a stray file in it ----
C="$T/cache"
"$PROVENANCE" --cache "$C" resolve --offline --format json "$T/bt.txt" >/dev/null 2>"$T/err"
[ -f "$C/cache.sqlite" ] || { cat "$T/err"; fail "the run made no cache"; }
head -1 "$C/CACHEDIR.TAG" | grep -qx 'Signature: 8a477f597d28d172789f06886806bc55' || fail "no CACHEDIR.TAG in a new cache"
echo stray >"$C/notes.txt"
"$PROVENANCE" --cache "$C" cache clear >/dev/null 2>"$T/err" || { cat "$T/err"; fail "a cache provenance made was not cleared"; }
[ -e "$C/cache.sqlite" ] && fail "cache.sqlite survived cache clear"
echo "ok: a tagged cache is cleared"

# ---- an old cache (exact layout, no tag) is accepted ----
O="$T/old"
mkdir -p "$O/mirrors/x.git" "$O/tmp"; : >"$O/cache.sqlite"; : >"$O/cache.sqlite-wal"; : >"$O/store.sqlite"
"$PROVENANCE" --cache "$O" cache clear >/dev/null 2>"$T/err" || { cat "$T/err"; fail "an untagged cache of the exact layout was refused"; }
[ -e "$O/mirrors" ] && fail "mirrors survived"
[ -f "$O/store.sqlite" ] || fail "cache clear removed the store"
echo "ok: an untagged cache of the exact layout is cleared, the store kept"

# ---- stats creates nothing ----
"$PROVENANCE" --cache "$T/nothere/deeper" cache stats >"$T/out" 2>"$T/err" || { cat "$T/err"; fail "cache stats of a missing cache failed"; }
[ -e "$T/nothere" ] && fail "cache stats created '$T/nothere'"
echo "ok: cache stats creates nothing"

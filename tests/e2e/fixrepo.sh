# Sourced by the fixcheck tests that build an upstream history in $up: a
# fixed identity, one commit an hour from 2024-01-01 (commit prints its
# sha), and ed FILE OLD NEW... (exact text replaced once each, or fail).
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
g() { git -C "$up" "$@"; }
n=0
commit() {
	n=$((n + 1))
	g add -A
	GIT_AUTHOR_DATE="@$((1704067200 + n * 3600)) +0000" GIT_COMMITTER_DATE="@$((1704067200 + n * 3600)) +0000" \
		g commit -qm "$1" || fail "commit $1"
	g rev-parse HEAD
}
ed() { # ed FILE OLD NEW...: replace exact text (once each)
	python3 - "$@" <<'PY' || fail "edit $1"
import sys
p = sys.argv[1]; s = open(p).read()
for a, b in zip(sys.argv[2::2], sys.argv[3::2]):
    if a not in s: sys.exit("no %r in %s" % (a, p))
    s = s.replace(a, b, 1)
open(p, "w").write(s)
PY
}

#!/usr/bin/env bash
# House style that the compiler cannot check: every project source includes
# banned.h last (so strcpy & co. fail to compile), no banned call slipped in
# through a macro-free spelling, and comments are /* */.
. "$(dirname "$0")/lib.sh"
cd "$TOP"
bad=0
for f in $(git ls-files 'src/*.c' 'resolvers/*.c' 'cache/*.c'); do
	last=$(grep -n '^#include' "$f" | tail -1 | cut -d: -f2-)
	if [ "$last" != '#include "banned.h"' ]; then
		echo "$f: the last include is '$last', not banned.h"; bad=1
	fi
done
if git grep -nE '\b(strcpy|strcat|strncpy|sprintf|vsprintf|strtok|atoi|sscanf|gmtime|localtime|gets)\s*\(' -- 'src/*.c' 'src/*.h' 'resolvers/*' 'cache/*' ':!src/util/banned.h'; then
	echo "banned functions used (see src/util/banned.h)"; bad=1
fi
if git grep -nE '^\s*//' -- 'src/*.[ch]' 'resolvers/*.[ch]' 'cache/*.[ch]' 'tests/unit/*.c' 'fuzz/*.c'; then
	echo "// comments: the house style is /* */"; bad=1
fi
[ $bad = 0 ] || fail "style checks failed"
echo "ok: $(git ls-files 'src/*.c' 'resolvers/*.c' 'cache/*.c' | wc -l) sources include banned.h last; no banned calls; no // comments"

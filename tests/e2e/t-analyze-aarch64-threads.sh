#!/usr/bin/env bash
# Dynamic aarch64 crashers run under qemu-aarch64 -L with the cross
# toolchain's aarch64 root (/usr/aarch64-linux-gnu: libc6-arm64-cross,
# libstdc++6-arm64-cross), analysed here with --sysroot holding that root:
# QEMU's cores have no NT_FILE and no read-only text, so the libraries come
# from the dynamic linker's list and their files under the sysroot.
# - threaded C: three threads (the crasher's source makes a worker, an idle
#   thread and main), every thread's frames, registers and the instruction
#   at pc agree with gdb-multiarch on the same core;
# - C++: a virtual call through a NULL element of a std::vector in a
#   template: frames (demangled) and registers agree with gdb-multiarch; the
#   load of the NULL object's vtable is the null-deref, x0 its base.
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ qemu-aarch64 gdb-multiarch python3; do
	command -v $c >/dev/null || skip "$c not installed (apt-get install gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user gdb-multiarch)"
done
root=/usr/aarch64-linux-gnu
[ -e "$root/lib/ld-linux-aarch64.so.1" ] || skip "$root has no aarch64 dynamic linker (libc6-arm64-cross)"

# qemu_core NAME: run $T/NAME under qemu-aarch64 -L $root; prints its core
qemu_core() {
	rm -f "$T"/qemu_"$1"_*.core
	( cd "$T" && ulimit -c unlimited && exec qemu-aarch64 -L "$root" "./$1" ) >/dev/null 2>&1
	rm -f "$T/core"	# a core of qemu itself, if any
	ls "$T"/qemu_"$1"_*.core 2>/dev/null | head -1
}
# gdb_truth EXE CORE OUT
gdb_truth() {
	gdb-multiarch -batch -ex "set sysroot $root" -ex "file $1" -ex "core $2" \
		-ex 'thread apply all bt' -ex 'info registers' -ex 'x/i $pc' >"$3" 2>&1
}

cat >"$T/thr.c" <<'C'
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
struct node { int pad[4]; int value; };
static volatile int ready;
__attribute__((noinline)) static int crash_here(struct node *n) { return n->value; }
__attribute__((noinline)) static void *worker(void *arg) { (void)arg; while (!ready) ; return (void *)(long)crash_here(NULL); }
static void *idle(void *arg) { (void)arg; for (;;) sched_yield(); return NULL; }
int main(void) { pthread_t a, b; pthread_create(&b, NULL, idle, NULL); pthread_create(&a, NULL, worker, NULL); ready = 1; pthread_join(a, NULL); return 0; }
C
# not PIE: gdb relocates no PIE executable in a QEMU core (no NT_FILE)
aarch64-linux-gnu-gcc -g -O1 -no-pie -pthread -o "$T/thr" "$T/thr.c" || fail "cannot build thr.c"
core=$(qemu_core thr)
[ -n "$core" ] || skip "qemu-aarch64 wrote no core"
check_exit 0 "analyze (threaded)" -- "$PROVENANCE" analyze --sysroot "$root" --exe "$T/thr" "$core" --format json
cp "$T/last.out" "$T/thr.json"
gdb_truth "$T/thr" "$core" "$T/thr.gdb"
python3 "$TOP/tests/e2e/check-gdb-aarch64.py" "$T/thr.json" "$T/thr.gdb" --threads || fail "gdb-multiarch disagrees (threaded)"
check_eq "$(json_get "$T/thr.json" 'len(d["threads"])')" 3 "threads (the source makes two)"
check_eq "$(json_get "$T/thr.json" '[f["function"] for f in d["threads"][0]["frames"][:2]]')" \
	'["crash_here", "worker"]' "the crashing thread's frames (source)"
check_eq "$(json_get "$T/thr.json" 'd["threads"][0]["frames"][0]["line"]')" \
	"$(grep -n 'crash_here(struct node' "$T/thr.c" | cut -d: -f1)" "crash line (source)"
for lib in /lib/libc.so.6 /lib/ld-linux-aarch64.so.1; do
	check_eq "$(json_get "$T/thr.json" "len([m for m in d['modules'] if m['path'] == '$lib' and m['build_id']])")" 1 \
		"$lib once, with its build ID"
done
check_eq "$(json_get "$T/thr.json" '" ".join(p["id"] for p in d["crash"]["patterns"])')" "null-deref" "patterns"
# n->value: offset 16 from the NULL node
check_match "$(json_get "$T/thr.json" 'd["crash"]["patterns"][0]["evidence"]')" 'address is 0x10 ' "null-deref at the field's offset"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/thr.json" || fail "schema"
# a sysroot holding this machine's x86-64 libc at the aarch64 path: refused
# (a QEMU core has no build ID to check it against; its machine differs)
hostlibc=$(ldd /bin/sh | sed -n 's/.*libc.so.6 => \([^ ]*\).*/\1/p')
if [ -n "$hostlibc" ]; then
	mkdir -p "$T/wrong/lib" && cp "$hostlibc" "$T/wrong/lib/libc.so.6"
	"$PROVENANCE" analyze --sysroot "$T/wrong" --exe "$T/thr" "$core" --format json >"$T/wrong.json" 2>/dev/null
	check_eq "$(json_get "$T/wrong.json" "[m['path'] for m in d['modules'] if m['path'] == '/lib/libc.so.6']")" "[]" \
		"an x86-64 libc under --sysroot is no module of an aarch64 core"
fi

cat >"$T/cxx.cc" <<'C'
#include <cstdio>
#include <vector>
namespace shapes {
struct Shape {
	virtual ~Shape() {}
	virtual int area() const = 0;
};
struct Square : Shape {
	int side;
	explicit Square(int s) : side(s) {}
	int area() const override { return side * side; }
};
template <typename T> __attribute__((noinline)) int total(const std::vector<T *> &v)
{
	int sum = 0;
	for (const T *s : v)
		sum += s->area();	/* CRASH: the second element is NULL */
	return sum;
}
}
int main()
{
	shapes::Square a(3);
	std::vector<shapes::Shape *> v{&a, nullptr};
	std::printf("%d\n", shapes::total(v));
	return 0;
}
C
aarch64-linux-gnu-g++ -g -O1 -no-pie -o "$T/cxx" "$T/cxx.cc" || fail "cannot build cxx.cc"
core=$(qemu_core cxx)
[ -n "$core" ] || skip "qemu-aarch64 wrote no core"
check_exit 0 "analyze (C++)" -- "$PROVENANCE" analyze --sysroot "$root" --exe "$T/cxx" "$core" --format json
cp "$T/last.out" "$T/cxx.json"
gdb_truth "$T/cxx" "$core" "$T/cxx.gdb"
python3 "$TOP/tests/e2e/check-gdb-aarch64.py" "$T/cxx.json" "$T/cxx.gdb" || fail "gdb-multiarch disagrees (C++)"
check_eq "$(json_get "$T/cxx.json" 'd["threads"][0]["frames"][0]["line"]')" \
	"$(grep -n 'CRASH:' "$T/cxx.cc" | cut -d: -f1)" "crash line (source)"
check_match "$(json_get "$T/cxx.json" 'd["threads"][0]["frames"][0]["function"]')" '^int shapes::total<shapes::Shape>\(' "demangled template"
for lib in /lib/libstdc++.so.6 /lib/libc.so.6; do
	check_eq "$(json_get "$T/cxx.json" "len([m for m in d['modules'] if m['path'] == '$lib' and m['build_id']])")" 1 \
		"$lib once, with its build ID"
done
check_eq "$(json_get "$T/cxx.json" '" ".join(p["id"] for p in d["crash"]["patterns"])')" "null-deref" "patterns"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/cxx.json" || fail "schema"

/*
 * Hang analysis (src/model/hang.c) on hand-built models: stack groups, the
 * wait named from the frames, a mutex owner read through the memory
 * callback (glibc x86-64: __owner at offset 8 of the futex word in rdi),
 * the GIL holder, and wait-for cycles. Expected values are written by hand
 * from the threads set up here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hang.h"
#include "util.h"
#include "banned.h"

/* fake memory: a few int32 words */
static const struct {
	uint64_t addr;
	int32_t value;
} words[] = {
	{ 0x1008, 102 },	/* mutex 0x1000: owned by 102 */
	{ 0x2008, 103 },	/* mutex 0x2000: owned by 103 */
	{ 0x3008, 101 },	/* mutex 0x3000: owned by 101 */
	{ 0x4008, 999 },	/* mutex 0x4000: an owner that is no thread */
	{ 0x5000, 101 },	/* a pthread_join futex: thread 101's tid field */
};

static int fake_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	size_t i;

	(void)arg;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (words[i].addr == addr && len == sizeof(int32_t)) {
			memcpy(buf, &words[i].value, len);
			return 0;
		}
	return -1;
}

static struct prov_thread *thread(struct prov_crash *c, int64_t tid, const char *const *fns,
				  int futex, uint64_t rdi)
{
	struct prov_thread *t = prov_crash_add_thread(c);
	size_t i;

	t->has_tid = 1;
	t->tid = tid;
	for (i = 0; fns[i]; i++) {
		struct prov_frame *f = prov_thread_add_frame(t);

		f->function = prov_xstrdup(fns[i]);
	}
	if (futex) {
		t->regs = prov_xcalloc(2, sizeof(*t->regs));
		t->nregs = 2;
		memcpy(t->regs[0].name, "orig_rax", 9);
		t->regs[0].value = 202;
		memcpy(t->regs[1].name, "rdi", 4);
		t->regs[1].value = rdi;
	}
	return t;
}

static const char *const mutex_a[] = { "__lll_lock_wait", "___pthread_mutex_lock", "a", "start_thread", NULL };
static const char *const mutex_b[] = { "__lll_lock_wait", "___pthread_mutex_lock", "b", "start_thread", NULL };
static const char *const idle[] = { "__futex_abstimed_wait_common", "__pthread_cond_wait_common",
	"___pthread_cond_wait", "worker", "start_thread", NULL };
static const char *const rwlock[] = { "__futex_abstimed_wait_common", "__pthread_rwlock_rdlock_full64",
	"___pthread_rwlock_rdlock", "reader", "start_thread", NULL };
static const char *const joiner[] = { "__futex_abstimed_wait_common", "__pthread_clockjoin_ex",
	"main", NULL };

static const struct prov_hang_wait *wait_of(const struct prov_crash *c, int64_t tid)
{
	size_t i;

	for (i = 0; i < c->hang->nwaits; i++)
		if (prov_hang_tid(c, c->hang->waits[i].thread) == tid)
			return &c->hang->waits[i];
	return NULL;
}

static void test_three_way_deadlock(void **state)
{
	struct prov_crash *c = prov_crash_new(PROV_INPUT_CORE, "x");
	const struct prov_hang_wait *w;

	(void)state;
	thread(c, 100, joiner, 1, 0x5000);
	thread(c, 101, mutex_a, 1, 0x1000);	/* 101 -> 102 */
	thread(c, 102, mutex_b, 1, 0x2000);	/* 102 -> 103 */
	thread(c, 103, mutex_a, 1, 0x3000);	/* 103 -> 101 */
	thread(c, 104, mutex_b, 1, 0x4000);	/* owner 999: no thread */
	thread(c, 105, idle, 1, 0x6000);
	thread(c, 106, idle, 1, 0x6000);
	thread(c, 107, idle, 0, 0);
	thread(c, 108, rwlock, 1, 0x8008);
	prov_hang_analyze(c, fake_read, NULL);

	assert_int_equal(c->hang->ngroups, 5);
	assert_int_equal(c->hang->groups[0].nthreads, 3);	/* idle workers first */
	assert_int_equal(prov_hang_tid(c, c->hang->groups[0].threads[0]), 105);
	assert_int_equal(c->hang->groups[1].nthreads, 2);	/* a: 101, 103 */
	assert_int_equal(prov_hang_tid(c, c->hang->groups[1].threads[1]), 103);

	w = wait_of(c, 101);
	assert_non_null(w);
	assert_string_equal(w->on, "mutex 0x1000");
	assert_true(w->has_owner);
	assert_int_equal(w->owner, 102);
	w = wait_of(c, 104);
	assert_non_null(w);
	assert_false(w->has_owner);
	w = wait_of(c, 100);
	assert_non_null(w);
	assert_string_equal(w->on, "join");
	assert_int_equal(w->owner, 101);
	w = wait_of(c, 107);
	assert_non_null(w);
	assert_string_equal(w->on, "condvar");
	assert_false(w->has_owner);

	w = wait_of(c, 108);
	assert_non_null(w);
	assert_string_equal(w->on, "rwlock");
	assert_false(w->has_owner);

	assert_int_equal(c->hang->ncycles, 1);
	assert_int_equal(c->hang->cycle_len[0], 3);
	assert_int_equal(c->hang->cycles[0][0], 101);
	assert_int_equal(c->hang->cycles[0][1], 102);
	assert_int_equal(c->hang->cycles[0][2], 103);
	prov_crash_free(c);
}

static void test_gil_and_no_memory(void **state)
{
	static const char *const gil[] = { "__futex_abstimed_wait_common", "___pthread_cond_timedwait64",
		"PyCOND_TIMEDWAIT", "take_gil", "PyEval_RestoreThread", NULL };
	static const char *const busy[] = { "compute", "main", NULL };
	struct prov_crash *c = prov_crash_new(PROV_INPUT_CORE, "x");
	const struct prov_hang_wait *w;

	(void)state;
	thread(c, 10, busy, 0, 0)->holds_gil = 1;
	thread(c, 11, gil, 1, 0x7000);
	thread(c, 12, mutex_a, 1, 0x1000);
	prov_hang_analyze(c, NULL, NULL);	/* nothing readable */
	w = wait_of(c, 11);
	assert_non_null(w);
	assert_string_equal(w->on, "gil");
	assert_true(w->has_owner);
	assert_int_equal(w->owner, 10);
	w = wait_of(c, 12);
	assert_non_null(w);
	assert_false(w->has_owner);
	assert_null(wait_of(c, 10));	/* running, not waiting */
	assert_int_equal(c->hang->ncycles, 0);
	prov_crash_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_three_way_deadlock),
		cmocka_unit_test(test_gil_and_no_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

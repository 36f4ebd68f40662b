/*
 * Hang analysis of a snapshot (a gcore core, --pid): who waits for whom.
 *
 * Threads are grouped by identical stacks (the same function sequence).
 * Each thread's wait is named from its frames, innermost first: a Python
 * wait (queue.get, Thread.join, a threading lock) or the GIL, then the libc
 * call it blocks in (pthread_mutex_lock, pthread_cond_wait, pthread_join,
 * sleep, I/O). Owners come from memory: a thread blocked in the futex
 * syscall (x86-64 orig_rax 202) has the futex word in rdi; for a mutex that
 * word is pthread_mutex_t.__data.__lock and __owner (the holder's tid) is 8
 * bytes on; for pthread_join the word is the joined thread's tid field. The
 * GIL waiters' owner is the thread the Python reader saw holding the GIL.
 * CPython records no owner for threading.Lock: null. Wait-for edges
 * thread -> owner form a functional graph; its cycles are the deadlocks.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hang.h"
#include "util.h"
#include "banned.h"

#define SYS_FUTEX_X86_64 202
#define MUTEX_OWNER_OFFSET 8	/* glibc x86-64: int __lock; unsigned __count; int __owner */

int64_t prov_hang_tid(const struct prov_crash *c, size_t thread)
{
	return thread < c->nthreads && c->threads[thread].has_tid ? c->threads[thread].tid : -1;
}

static int same_stack(const struct prov_thread *a, const struct prov_thread *b)
{
	size_t i;

	if (a->nframes != b->nframes)
		return 0;
	for (i = 0; i < a->nframes; i++) {
		const char *x = a->frames[i].function, *y = b->frames[i].function;

		if ((x == NULL) != (y == NULL) || (x && strcmp(x, y) != 0))
			return 0;
		if (!x && a->frames[i].has_pc != b->frames[i].has_pc)
			return 0;
	}
	return 1;
}

static int group_cmp(const void *pa, const void *pb)
{
	const struct prov_hang_group *a = pa, *b = pb;

	if (a->nthreads != b->nthreads)
		return a->nthreads > b->nthreads ? -1 : 1;
	return a->threads[0] < b->threads[0] ? -1 : a->threads[0] > b->threads[0];
}

/* FNV-1a over the function sequence: threads are compared within a hash only */
static uint64_t stack_hash(const struct prov_thread *t)
{
	uint64_t h = PROV_HASH_INIT;
	size_t i;

	for (i = 0; i < t->nframes; i++) {
		const char *f = t->frames[i].function ? t->frames[i].function : "?";

		h = prov_hash_more(h, f, strlen(f));
		h = prov_hash_more(h, "\xff", 1);
	}
	return h;
}

struct hashed {
	uint64_t hash;
	size_t thread;
};

static int hashed_cmp(const void *pa, const void *pb)
{
	const struct hashed *a = pa, *b = pb;

	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return a->thread < b->thread ? -1 : a->thread > b->thread;
}

/*
 * Groups of identical stacks in O(n log n): threads sorted by stack hash,
 * each run of one hash split by real comparison (collisions stay apart).
 */
static void group_threads(struct prov_hang *h, const struct prov_crash *c)
{
	struct hashed *v = prov_xcalloc(c->nthreads ? c->nthreads : 1, sizeof(*v));
	size_t i, g, run, alloc = 0;

	for (i = 0; i < c->nthreads; i++) {
		v[i].hash = stack_hash(&c->threads[i]);
		v[i].thread = i;
	}
	qsort(v, c->nthreads, sizeof(*v), hashed_cmp);
	for (run = 0; run < c->nthreads; run = i) {
		size_t first_group = h->ngroups;

		for (i = run; i < c->nthreads && v[i].hash == v[run].hash; i++) {
			const struct prov_thread *t = &c->threads[v[i].thread];

			for (g = first_group; g < h->ngroups; g++)
				if (same_stack(&c->threads[h->groups[g].threads[0]], t))
					break;
			if (g == h->ngroups) {
				PROV_ALLOC_GROW(h->groups, h->ngroups + 1, alloc);
				memset(&h->groups[h->ngroups], 0, sizeof(h->groups[0]));
				h->groups[h->ngroups].threads = prov_xcalloc(1, sizeof(size_t));
				h->ngroups++;
			} else {
				h->groups[g].threads = prov_xrealloc(h->groups[g].threads,
					(h->groups[g].nthreads + 1) * sizeof(size_t));
			}
			h->groups[g].threads[h->groups[g].nthreads++] = v[i].thread;
		}
	}
	if (h->ngroups > 1)
		qsort(h->groups, h->ngroups, sizeof(*h->groups), group_cmp);
	free(v);
}

static int reg_value(const struct prov_thread *t, const char *name, uint64_t *v)
{
	size_t i;

	for (i = 0; t->regs && i < t->nregs; i++)
		if (strcmp(t->regs[i].name, name) == 0) {
			*v = t->regs[i].value;
			return 1;
		}
	return 0;
}

/* The futex word a thread blocked in the futex syscall waits on (x86-64). */
static int futex_word(const struct prov_thread *t, uint64_t *addr)
{
	uint64_t nr;

	return reg_value(t, "orig_rax", &nr) && nr == SYS_FUTEX_X86_64 && reg_value(t, "rdi", addr);
}

static int name_is(const char *fn, const char *const *names)
{
	size_t i;

	for (i = 0; fn && names[i]; i++)
		if (strcmp(fn, names[i]) == 0)
			return 1;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path;
}

enum wait_kind {
	W_NONE, W_GIL, W_PY_QUEUE, W_PY_JOIN, W_PY_WAIT, W_PY_EVENT, W_PY_LOCK, W_MUTEX, W_CONDVAR,
	W_JOIN, W_BARRIER, W_SEM, W_RWLOCK, W_SLEEP, W_IO, W_FUTEX,
};

static const char *const gil_fns[] = { "take_gil", NULL };
static const char *const pylock_fns[] = { "lock_PyThread_acquire_lock", "rlock_acquire",
	"acquire_timed", "PyThread_acquire_lock_timed", "_PyMutex_LockTimed", NULL };
static const char *const mutex_fns[] = { "pthread_mutex_lock", "___pthread_mutex_lock",
	"__pthread_mutex_lock", "__pthread_mutex_lock_full", "__lll_lock_wait",
	"__GI___lll_lock_wait", "lll_mutex_lock_optimized", "pthread_mutex_timedlock",
	"__pthread_mutex_clocklock_common", "__pthread_mutex_timedlock", NULL };
static const char *const cond_fns[] = { "pthread_cond_wait", "___pthread_cond_wait",
	"__pthread_cond_wait", "__pthread_cond_wait_common", "pthread_cond_timedwait",
	"___pthread_cond_timedwait", "___pthread_cond_timedwait64", "pthread_cond_clockwait",
	NULL };
static const char *const join_fns[] = { "pthread_join", "___pthread_join", "__pthread_join",
	"__pthread_clockjoin_ex", "pthread_timedjoin_np", "pthread_clockjoin_np", NULL };
static const char *const barrier_fns[] = { "pthread_barrier_wait", "___pthread_barrier_wait",
	NULL };
static const char *const sem_fns[] = { "sem_wait", "__new_sem_wait_slow64", "sem_timedwait",
	"sem_clockwait", "__new_sem_wait", NULL };
static const char *const rwlock_fns[] = { "pthread_rwlock_rdlock", "pthread_rwlock_wrlock",
	"___pthread_rwlock_rdlock", "___pthread_rwlock_wrlock", "__pthread_rwlock_rdlock",
	"__pthread_rwlock_wrlock", "__pthread_rwlock_rdlock_full64", "__pthread_rwlock_wrlock_full64",
	"__pthread_rwlock_rdlock_full", "__pthread_rwlock_wrlock_full", "pthread_rwlock_timedrdlock",
	"pthread_rwlock_timedwrlock", "pthread_rwlock_clockrdlock", "pthread_rwlock_clockwrlock", NULL };
static const char *const sleep_fns[] = { "nanosleep", "__nanosleep", "clock_nanosleep",
	"__clock_nanosleep", "__GI___clock_nanosleep", "sleep", "usleep", "pause", NULL };
static const char *const io_fns[] = { "read", "__libc_read", "__GI___libc_read", "recv",
	"__libc_recv", "recvfrom", "__libc_recvfrom", "recvmsg", "__libc_recvmsg", "accept",
	"accept4", "__libc_accept", "poll", "__poll", "__GI___poll", "ppoll", "__ppoll",
	"select", "__select", "pselect", "epoll_wait", "__epoll_wait", "epoll_pwait",
	"epoll_pwait2", "wait4", "waitpid", "__waitpid", "sigtimedwait", "sigwaitinfo",
	"__sigtimedwait", "msgrcv", "io_getevents", NULL };
static const char *const futex_fns[] = { "__futex_abstimed_wait_common",
	"__futex_abstimed_wait_common64", "__GI___futex_abstimed_wait_cancelable64",
	"__futex_abstimed_wait_cancelable64", "futex_wait", "syscall", NULL };

/*
 * What a Python frame says the thread waits for: queue.get, Thread.join ...
 * Python 3.11+ names frames by qualified name ("Queue.get"), older ones by
 * the bare function name; the file tells the module.
 */
static enum wait_kind python_wait(const struct prov_frame *f)
{
	const char *file = base_name(f->file), *fn = f->function, *dot;

	if (!fn || !file)
		return W_NONE;
	dot = strrchr(fn, '.');
	if (dot)
		fn = dot + 1;
	if (strcmp(file, "queue.py") == 0 && strcmp(fn, "get") == 0)
		return W_PY_QUEUE;
	if (strcmp(file, "threading.py") != 0)
		return W_NONE;
	if (strcmp(fn, "join") == 0 || strcmp(fn, "_wait_for_tstate_lock") == 0)
		return W_PY_JOIN;
	if (strcmp(fn, "wait") == 0 && strncmp(f->function, "Event.", 6) == 0)
		return W_PY_EVENT;
	if (strcmp(fn, "wait") == 0 || strcmp(fn, "wait_for") == 0)
		return W_PY_WAIT;
	return W_NONE;
}

static enum wait_kind native_wait(const struct prov_frame *f)
{
	const char *fn = f->function;

	if (name_is(fn, gil_fns))
		return W_GIL;
	if (name_is(fn, pylock_fns))
		return W_PY_LOCK;
	if (name_is(fn, mutex_fns))
		return W_MUTEX;
	if (name_is(fn, cond_fns))
		return W_CONDVAR;
	if (name_is(fn, join_fns))
		return W_JOIN;
	if (name_is(fn, barrier_fns))
		return W_BARRIER;
	if (name_is(fn, sem_fns))
		return W_SEM;
	if (name_is(fn, rwlock_fns))
		return W_RWLOCK;
	if (name_is(fn, sleep_fns))
		return W_SLEEP;
	if (name_is(fn, io_fns))
		return W_IO;
	if (name_is(fn, futex_fns))
		return W_FUTEX;
	return W_NONE;
}

static int python_lib_frame(const struct prov_frame *f)
{
	const char *file = base_name(f->file);

	return file && (strcmp(file, "threading.py") == 0 || strcmp(file, "queue.py") == 0);
}

/*
 * The wait of one thread. Native frames from the top down to the first
 * Python frame: the GIL and a Python lock win over the libc call under
 * them (take_gil waits in pthread_cond_wait, a lock in sem_clockwait),
 * otherwise the innermost specific libc wait over the futex it ends in.
 * Then the Python frames in threading.py/queue.py, outermost wins:
 * queue.get over Condition.wait, Thread.join over _wait_for_tstate_lock.
 * `*io` is the I/O function.
 */
static enum wait_kind thread_wait(const struct prov_thread *t, const char **io)
{
	enum wait_kind best = W_NONE, k, py = W_NONE;
	size_t i;

	for (i = 0; i < t->nframes && !t->frames[i].python; i++) {
		k = native_wait(&t->frames[i]);
		if (k == W_NONE || best == W_GIL)
			continue;
		if (k == W_GIL || k == W_PY_LOCK || best == W_NONE || best == W_FUTEX ||
		    (best == W_SEM && k == W_PY_LOCK)) {
			if (k == W_IO)
				*io = t->frames[i].function;
			if (best != W_PY_LOCK || k == W_GIL)
				best = k;
		}
	}
	for (; i < t->nframes && t->frames[i].python; i++) {
		k = python_wait(&t->frames[i]);
		if (k != W_NONE)
			py = k;
		else if (!python_lib_frame(&t->frames[i]))
			break;
	}
	if (best == W_GIL || py == W_NONE)
		return best;
	return py;
}

/* Threads by tid, sorted: owners are looked up by bsearch (16384 threads). */
struct tid_ix {
	int64_t tid;
	size_t thread;
};

static int tid_cmp(const void *pa, const void *pb)
{
	const struct tid_ix *a = pa, *b = pb;

	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static struct tid_ix *tid_index(const struct prov_crash *c, size_t *n)
{
	struct tid_ix *v = prov_xcalloc(c->nthreads ? c->nthreads : 1, sizeof(*v));
	size_t i;

	*n = 0;
	for (i = 0; i < c->nthreads; i++)
		if (c->threads[i].has_tid) {
			v[*n].tid = c->threads[i].tid;
			v[(*n)++].thread = i;
		}
	qsort(v, *n, sizeof(*v), tid_cmp);
	return v;
}

/* The index of the thread with `tid`, or nthreads. */
static size_t thread_of_tid(const struct prov_crash *c, const struct tid_ix *ix, size_t n,
			    int64_t tid)
{
	struct tid_ix key = { tid, 0 };
	const struct tid_ix *hit = n ? bsearch(&key, ix, n, sizeof(*ix), tid_cmp) : NULL;

	return hit ? hit->thread : c->nthreads;
}

static void add_wait(struct prov_hang *h, size_t *alloc, size_t thread, char *on,
		     int has_owner, int64_t owner)
{
	struct prov_hang_wait *w;

	PROV_ALLOC_GROW(h->waits, h->nwaits + 1, *alloc);
	w = &h->waits[h->nwaits++];
	w->thread = thread;
	w->on = on;
	w->has_owner = has_owner;
	w->owner = owner;
}

/* A tid stored as an int32 at addr, when it names a thread of the process. */
static int read_tid(const struct prov_crash *c, const struct tid_ix *ix, size_t nix,
		    prov_hang_read_fn mem, void *arg, uint64_t addr, int64_t *tid)
{
	int32_t v;

	if (!mem || mem(arg, addr, &v, sizeof(v)) != 0 || v <= 0)
		return 0;
	*tid = v & 0x3fffffff;	/* FUTEX_WAITERS / FUTEX_OWNER_DIED bits of robust mutexes */
	return thread_of_tid(c, ix, nix, *tid) < c->nthreads;
}

static void find_waits(struct prov_hang *h, const struct prov_crash *c, const struct tid_ix *ix,
		       size_t nix, prov_hang_read_fn mem, void *arg)
{
	static const char *const kind_names[] = { "", "gil", "python-queue-get",
		"python-thread-join", "python-condition-wait", "python-event-wait",
		"python-lock-acquire", "mutex",
		"condvar", "join", "barrier", "semaphore", "rwlock", "sleep", "io", "futex" };
	size_t i, alloc = 0, gil = c->nthreads;
	int64_t owner = 0;
	uint64_t word = 0;

	for (i = 0; i < c->nthreads; i++)
		if (c->threads[i].holds_gil)
			gil = i;
	for (i = 0; i < c->nthreads; i++) {
		const struct prov_thread *t = &c->threads[i];
		const char *io = NULL;
		enum wait_kind k = thread_wait(t, &io);
		int has_word = futex_word(t, &word), has_owner = 0;
		char *on;

		if (k == W_NONE)
			continue;
		if (k == W_MUTEX && has_word) {
			on = prov_xasprintf("mutex 0x%" PRIx64, word);
			has_owner = read_tid(c, ix, nix, mem, arg, word + MUTEX_OWNER_OFFSET, &owner);
		} else if (k == W_JOIN && has_word) {
			/* the joined thread's tid field: the kernel clears it at exit */
			has_owner = read_tid(c, ix, nix, mem, arg, word, &owner);
			on = prov_xstrdup("join");
		} else if (k == W_GIL) {
			has_owner = gil < c->nthreads && gil != i && c->threads[gil].has_tid;
			owner = has_owner ? c->threads[gil].tid : 0;
			on = prov_xstrdup("gil");
		} else if (k == W_IO && io) {
			on = prov_xasprintf("io %s", io);
		} else if ((k == W_CONDVAR || k == W_FUTEX) && has_word) {
			on = prov_xasprintf("%s 0x%" PRIx64, kind_names[k], word);
		} else {
			on = prov_xstrdup(kind_names[k]);
		}
		if (has_owner && owner == prov_hang_tid(c, i) && k != W_MUTEX)
			has_owner = 0;
		add_wait(h, &alloc, i, on, has_owner, owner);
	}
}

/* The wait-for graph's cycles: every thread waits for at most one owner. */
static void find_cycles(struct prov_hang *h, const struct prov_crash *c, const struct tid_ix *ix,
			size_t nix)
{
	size_t n = c->nthreads, i, k, len, alloc = 0, start, lo;
	size_t *next = prov_xcalloc(n ? n : 1, sizeof(*next));
	int *state = prov_xcalloc(n ? n : 1, sizeof(*state));	/* 0 new, 1 on path, 2 done */

	for (i = 0; i < n; i++)
		next[i] = n;
	for (i = 0; i < h->nwaits; i++)
		if (h->waits[i].has_owner)
			next[h->waits[i].thread] = thread_of_tid(c, ix, nix, h->waits[i].owner);
	for (i = 0; i < n; i++) {
		size_t v = i;

		while (v < n && state[v] == 0) {
			state[v] = 1;
			v = next[v];
		}
		if (v < n && state[v] == 1) {
			/* a new cycle through v: name it from its lowest tid */
			len = 1;
			lo = v;
			for (k = next[v]; k != v; k = next[k], len++)
				if (prov_hang_tid(c, k) < prov_hang_tid(c, lo))
					lo = k;
			PROV_ALLOC_GROW(h->cycles, h->ncycles + 1, alloc);
			h->cycle_len = prov_xrealloc(h->cycle_len, alloc * sizeof(*h->cycle_len));
			h->cycles[h->ncycles] = prov_xcalloc(len, sizeof(int64_t));
			for (k = 0, start = lo; k < len; k++, start = next[start])
				h->cycles[h->ncycles][k] = prov_hang_tid(c, start);
			h->cycle_len[h->ncycles++] = len;
		}
		for (v = i; v < n && state[v] == 1; v = next[v])
			state[v] = 2;
	}
	free(next);
	free(state);
}

void prov_hang_analyze(struct prov_crash *c, prov_hang_read_fn mem, void *arg)
{
	struct prov_hang *h;
	struct tid_ix *ix;
	size_t nix;

	prov_hang_free(c->hang);
	h = prov_xcalloc(1, sizeof(*h));
	ix = tid_index(c, &nix);
	group_threads(h, c);
	find_waits(h, c, ix, nix, mem, arg);
	find_cycles(h, c, ix, nix);
	free(ix);
	c->hang = h;
}

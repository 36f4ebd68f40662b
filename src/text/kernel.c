/*
 * Kernel log lines about a fatal user-space fault (dmesg, journalctl -k,
 * /var/log/kern.log), as x86 Linux prints them:
 *
 *   prog[1234]: segfault at 0 ip 00007f… sp 00007ff… error 6 in libfoo.so.1[7f…+2a3000]
 *       arch/x86/mm/fault.c show_signal_msg(): "%s[%d]: segfault at %lx ip %px
 *       sp %px error %lx", then print_vma_addr(" in ", ip) and, since 6.2,
 *       " likely on CPU %d (core %d, socket %d)".
 *   traps: prog[1234] trap divide error ip:55… sp:7ff… error:0 in prog[55…+1000]
 *   traps: prog[1234] general protection fault ip:… sp:… error:0 in libc.so.6[…]
 *       arch/x86/kernel/traps.c show_signal(): "%s[%d] %s%s ip:%lx sp:%lx
 *       error:%lx" (pr_fmt "traps: "), then print_vma_addr(" in ", ip).
 *
 * print_vma_addr() (mm/memory.c) names the file of the mapping holding ip
 * and that mapping: "NAME[START+SIZE]" with START = vm_start (older
 * kernels), or "NAME[OFF,START+SIZE]" with OFF = ip's offset in the file
 * (ip - vm_start + vm_pgoff << PAGE_SHIFT, newer kernels). START is the
 * start of the mapping that holds ip, not of the file's first mapping: with
 * the older form the file offset needs the segment's own offset, which the
 * lookup takes from the file (src/core/modsym.h).
 *
 * The pid printed is task_pid_nr(), the thread's id: the thread gets it as
 * its tid. Each line is a thread of one frame (the faulting instruction);
 * the first line is the crash.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "util.h"
#include "banned.h"

/* bare hex ("00007f…", "0", also "0x…") at s: value and end; 0 on success */
static int kx(uint64_t *out, const char *s, const char **end)
{
	const char *p = s;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	s = p;
	while (tp_isxdigit((unsigned char)*p))
		p++;
	if (p == s || p - s > 16 || prov_parse_u64(out, s, (size_t)(p - s), 16) < 0)
		return -1;
	*end = p;
	return 0;
}

/* the signal a trap's description means (arch/x86/kernel/traps.c) */
static int trap_signal(const char *desc, size_t n)
{
	static const struct {
		const char *desc;
		int signo;
	} traps[] = {
		{ "trap divide error", 8 }, { "trap int3", 5 }, { "trap overflow", 11 },
		{ "trap bounds", 11 }, { "trap invalid opcode", 4 }, { "trap stack segment", 7 },
		{ "trap alignment check", 7 }, { "trap coprocessor segment overrun", 8 },
		{ "trap invalid TSS", 11 }, { "trap segment not present", 7 },
		{ "general protection", 11 }, { "general protection fault", 11 },
	};
	size_t i;

	for (i = 0; i < sizeof(traps) / sizeof(traps[0]); i++)
		if (strlen(traps[i].desc) == n && memcmp(traps[i].desc, desc, n) == 0)
			return traps[i].signo;
	return 0;
}

/* "comm[pid]" ending just before `br_end` (the ']'): comm start, pid */
static const char *comm_pid(const char *line, const char *br_end, int64_t *pid)
{
	const char *open = br_end, *c;

	while (open > line && open[-1] != '[')
		open--;
	if (open == line || open == br_end || prov_parse_i64(pid, open, (size_t)(br_end - open)) < 0)
		return NULL;
	open--;	/* the '[' */
	for (c = open; c > line && c[-1] != ' '; c--)
		;
	return c == open ? NULL : c;
}

/* " in NAME[START+SIZE]" / " in NAME[OFF,START+SIZE]" at p, then the CPU suffix */
static void mapping(struct prov_kernel_line *k, const char *p)
{
	const char *name, *open, *close, *q;
	uint64_t a, b, c;

	if (!(p = prov_skip_prefix(p, " in ")))
		return;
	name = p;
	close = strstr(p, "] likely on CPU ");
	if (!close) {
		close = p + strlen(p);
		while (close > p && close[-1] != ']')
			close--;
		if (close == p)
			return;
		close--;
	}
	for (open = close; open > name && *open != '['; open--)
		;
	if (open == name || kx(&a, open + 1, &q) < 0)
		return;
	if (*q == ',') {
		if (kx(&b, q + 1, &q) < 0 || *q != '+' || kx(&c, q + 1, &q) < 0 || q != close)
			return;
		k->has_file_offset = 1;
		k->file_offset = a;
		a = b;
		b = c;
	} else if (*q != '+' || kx(&b, q + 1, &q) < 0 || q != close) {
		return;
	}
	tp_set(&k->module, name, (size_t)(open - name));
	k->has_base = 1;
	k->base = a;
	k->size = b;
	if ((q = prov_skip_prefix(close, "] likely on CPU ")) != NULL && tp_dec(&k->cpu, q, &q) == 0)
		k->has_cpu = 1;
}

/* "segfault at A ip I sp S error E" at p; 0 on success */
static int segfault(struct prov_kernel_line *k, const char **pp)
{
	const char *p = *pp;

	if (!(p = prov_skip_prefix(p, "segfault at ")) || kx(&k->addr, p, &p) < 0 ||
	    !(p = prov_skip_prefix(p, " ip ")) || kx(&k->ip, p, &p) < 0 ||
	    !(p = prov_skip_prefix(p, " sp ")) || kx(&k->sp, p, &p) < 0 ||
	    !(p = prov_skip_prefix(p, " error ")) || kx(&k->error, p, &p) < 0)
		return -1;
	k->has_addr = k->has_ip = k->has_sp = k->has_error = 1;
	k->kind = prov_xstrdup("segfault");
	*pp = p;
	return 0;
}

/* "DESC ip:I sp:S error:E" at p; the signal, 0 when not a trap line */
static int trap(struct prov_kernel_line *k, const char **pp)
{
	const char *p = *pp, *ip = strstr(p, " ip:");
	int signo;

	if (!ip || (signo = trap_signal(p, (size_t)(ip - p))) == 0)
		return 0;
	if (kx(&k->ip, ip + 4, &p) < 0 || !(p = prov_skip_prefix(p, " sp:")) || kx(&k->sp, p, &p) < 0 ||
	    !(p = prov_skip_prefix(p, " error:")) || kx(&k->error, p, &p) < 0)
		return 0;
	k->has_ip = k->has_sp = k->has_error = 1;
	tp_set(&k->kind, *pp, (size_t)(ip - *pp));
	*pp = p;
	return signo;
}

static void kernel_free(struct prov_kernel_line *k)
{
	free(k->kind);
	free(k->module);
	free(k);
}

/* the headline: the line from its description on */
static void headline(struct tp_state *st, const char *from)
{
	struct prov_headline *h;
	const char *cut = strstr(from, " likely on CPU ");

	if (st->c->headline)
		return;
	h = st->c->headline = prov_xcalloc(1, sizeof(*h));
	tp_set(&h->text, from, cut ? (size_t)(cut - from) : strlen(from));
	h->error = prov_xstrdup(st->c->kernel_line->kind);
	if (st->c->kernel_line->has_addr) {
		h->has_addr = 1;
		h->addr = st->c->kernel_line->addr;
	}
}

int tp_kernel_line(struct tp_state *st, char *s, size_t indent)
{
	struct prov_kernel_line *k;
	struct prov_thread *t;
	struct prov_frame *f;
	const char *p, *br, *comm, *desc;
	int64_t pid;
	int signo = 11;

	(void)indent;
	/* "comm[pid]: segfault at" or "comm[pid] trap …" / "… general protection" */
	if ((p = strstr(s, "]: segfault at ")) != NULL) {
		br = p;
		desc = p + 3;
	} else if ((p = strstr(s, "] trap ")) != NULL || (p = strstr(s, "] general protection")) != NULL) {
		br = p;
		desc = p + 2;
	} else {
		return 0;
	}
	comm = comm_pid(s, br, &pid);
	if (!comm)
		return 0;
	k = prov_xcalloc(1, sizeof(*k));
	p = desc;
	if (segfault(k, &p) < 0 && (signo = trap(k, &p)) == 0) {
		kernel_free(k);
		return 0;
	}
	mapping(k, p);
	tp_end_block(st);
	t = tp_open(st, TP_KERNEL, 1);
	if (!t) {
		kernel_free(k);
		return 1;
	}
	tp_set(&t->name, comm, (size_t)(strchr(comm, '[') - comm));
	t->has_tid = 1;
	t->tid = pid;
	f = tp_frame_new(st, TP_KERNEL, 0);
	if (f) {
		f->has_pc = 1;
		f->pc = k->ip;
		if (k->module)
			f->module = prov_xstrdup(k->module);
	}
	if (st->c->kernel_line) {
		kernel_free(k);
	} else {
		t->crashed = 1;
		st->c->kernel_line = k;
		tp_set_signal(st, signo);
		if (k->has_addr)
			tp_set_addr(st, k->addr);
		headline(st, desc);
	}
	tp_end_block(st);
	return 1;
}

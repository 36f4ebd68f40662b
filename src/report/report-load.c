/* A stored JSON report read back into the crash model, checked by writing it again (show, the web view). */
#include <stdlib.h>
#include <string.h>

#include <elf.h>

#include "error.h"
#include "jsonread.h"
#include "report.h"
#include "util.h"
#include "banned.h"

/* The string at key (a copy), NULL when absent, null or no string. */
static char *jstr(const struct prov_jv *o, const char *key)
{
	return prov_xstrdup_or_null(prov_jv_get_str(o, key));
}

static int jint(const struct prov_jv *o, const char *key, int64_t *v)
{
	const struct prov_jv *x = prov_jv_get(o, key);

	return x && x->type == PROV_JV_NUMBER && prov_parse_i64(v, x->str, x->len) == 0;
}

/* An int-sized number at key: 1 and *v set, else 0. */
static int jint32(const struct prov_jv *o, const char *key, int *v)
{
	int64_t x;

	if (!jint(o, key, &x) || x < -2147483647 || x > 2147483647)
		return 0;
	*v = (int)x;
	return 1;
}

/* "0x1f" (the writer's hex strings). */
static int jhex(const struct prov_jv *o, const char *key, uint64_t *v)
{
	const char *s = prov_jv_get_str(o, key);

	return s && strncmp(s, "0x", 2) == 0 && prov_parse_u64(v, s, (size_t)-1, 16) == 0;
}

static int jbool(const struct prov_jv *o, const char *key)
{
	const struct prov_jv *x = prov_jv_get(o, key);

	return x && x->type == PROV_JV_BOOL && x->boolean;
}

static int jfalse(const struct prov_jv *o, const char *key)
{
	const struct prov_jv *x = prov_jv_get(o, key);

	return x && x->type == PROV_JV_BOOL && !x->boolean;
}

/* The array at key, or NULL (n = 0). */
static const struct prov_jv *jarr(const struct prov_jv *o, const char *key, size_t *n)
{
	const struct prov_jv *x = prov_jv_get(o, key);

	*n = x && x->type == PROV_JV_ARRAY ? x->n : 0;
	return x && x->type == PROV_JV_ARRAY ? x : NULL;
}

static const struct prov_jv *jobj(const struct prov_jv *o, const char *key)
{
	const struct prov_jv *x = prov_jv_get(o, key);

	return x && x->type == PROV_JV_OBJECT ? x : NULL;
}

/* Registers {"rip": "0x..."} into a new array. */
static struct prov_reg *load_regs(const struct prov_jv *o, size_t *n)
{
	struct prov_reg *r;
	size_t i;

	*n = 0;
	if (!o)
		return NULL;
	r = prov_xcalloc(o->n + 1, sizeof(*r));
	for (i = 0; i < o->n; i++) {
		if (strlen(o->keys[i]) >= sizeof(r[*n].name) || !jhex(o, o->keys[i], &r[*n].value))
			continue;
		memcpy(r[*n].name, o->keys[i], strlen(o->keys[i]) + 1);
		(*n)++;
	}
	return r;
}

static struct prov_var *load_vars(const struct prov_jv *a, size_t *n)
{
	struct prov_var *v;
	size_t i;

	*n = 0;
	if (!a || !a->n)
		return NULL;
	v = prov_xcalloc(a->n, sizeof(*v));
	for (i = 0; i < a->n; i++) {
		v[i].name = jstr(&a->items[i], "name");
		v[i].type = jstr(&a->items[i], "type");
		v[i].value = jstr(&a->items[i], "value");
		v[i].note = jstr(&a->items[i], "note");
	}
	*n = a->n;
	return v;
}

static void load_frame(struct prov_frame *f, const struct prov_jv *o)
{
	const struct prov_jv *args = prov_jv_get(o, "args"), *locals = prov_jv_get(o, "locals");
	const char *lang = prov_jv_get_str(o, "language");

	jint32(o, "index", &f->index);
	f->has_pc = jhex(o, "pc", &f->pc);
	f->function = jstr(o, "function");
	f->has_offset = jhex(o, "offset", &f->offset);
	f->module = jstr(o, "module");
	f->file = jstr(o, "file");
	jint32(o, "line", &f->line);
	jint32(o, "column", &f->column);
	f->inlined = jbool(o, "inlined");
	f->python = lang && strcmp(lang, "python") == 0;
	f->repo_path = jstr(o, "repo_path");
	f->path_rule = jstr(o, "path_rule");
	f->component = jstr(o, "component");
	f->located_by = jstr(o, "located_by");
	f->location_guess = jbool(o, "location_guess");
	f->signal_frame = jbool(o, "signal_frame");
	f->in_handler = jbool(o, "in_signal_handler");
	f->unwind_derived = jbool(o, "unwind_derived");
	if (args && args->type == PROV_JV_ARRAY) {
		f->has_vars = 1;
		f->args = load_vars(args, &f->nargs);
		f->locals = load_vars(locals && locals->type == PROV_JV_ARRAY ? locals : NULL, &f->nlocals);
	}
}

static int load_thread(struct prov_crash *c, const struct prov_jv *o)
{
	struct prov_thread *t = prov_crash_add_thread(c);
	const struct prov_jv *frames;
	size_t i, n;
	int crash_index;

	t->has_tid = jint(o, "tid", &t->tid);
	t->thread_id = jstr(o, "thread_id");
	t->name = jstr(o, "name");
	t->crashed = jbool(o, "crashed");
	t->regs = load_regs(jobj(o, "registers"), &t->nregs);
	t->truncated = jbool(o, "truncated");
	t->unwind_error = jstr(o, "unwind_error");
	t->python = jbool(o, "python");
	t->holds_gil = jbool(o, "holds_gil");
	t->python_note = jstr(o, "python_note");
	frames = jarr(o, "frames", &n);
	for (i = 0; i < n; i++) {
		struct prov_frame *f = prov_thread_add_frame(t);

		if (!f)
			return prov_error_set(PROV_ELIMIT, "a thread of the stored report has too many frames");
		load_frame(f, &frames->items[i]);
	}
	if (jint32(o, "crash_frame", &crash_index)) {
		for (i = 0; i < t->nframes && t->frames[i].index != crash_index; i++)
			;
		t->has_crash_frame = i < t->nframes;
		t->crash_frame = i;
		t->handler_regs = load_regs(jobj(o, "handler_registers"), &t->nhandler_regs);
	}
	if (t->crashed && !c->has_crashed_thread) {
		c->has_crashed_thread = 1;
		c->crashed_thread = c->nthreads - 1;
	}
	return 0;
}

static struct prov_origin *load_origin(const struct prov_jv *o)
{
	struct prov_origin *p;

	if (!o)
		return NULL;
	p = prov_xcalloc(1, sizeof(*p));
	p->kind = jstr(o, "kind");
	p->name = jstr(o, "name");
	p->version = jstr(o, "version");
	p->source = jstr(o, "source");
	p->source_version = jstr(o, "source_version");
	p->arch = jstr(o, "arch");
	p->vcs_url = jstr(o, "vcs_url");
	p->commit = jstr(o, "commit");
	p->found_by = jstr(o, "found_by");
	p->evidence = jstr(o, "evidence");
	p->guess = jbool(o, "guess");
	p->build_id_mismatch = jfalse(o, "build_id_match");
	return p;
}

static void load_module(struct prov_crash *c, const struct prov_jv *o)
{
	struct prov_module *m = prov_crash_add_module(c);
	const char *from = prov_jv_get_str(o, "build_id_from");

	m->path = jstr(o, "path");
	m->has_range = jhex(o, "start", &m->start) && jhex(o, "end", &m->end);
	m->build_id = jstr(o, "build_id");
	m->build_id_mismatch = jfalse(o, "build_id_match");
	m->build_id_from_file = from && strcmp(from, "file") == 0;
	m->file = jstr(o, "file");
	m->debug_file = jstr(o, "debug_file");
	m->note = jstr(o, "note");
	m->origin = load_origin(jobj(o, "package"));
	m->component = jstr(o, "component");
	m->in_crash_chain = jbool(o, "in_crash_chain");
}

static void load_component(struct prov_crash *c, const struct prov_jv *o)
{
	struct prov_component *p = prov_crash_add_component(c);

	p->name = jstr(o, "name");
	p->version = jstr(o, "version");
	p->commit = jstr(o, "commit");
	p->repo = jstr(o, "repo");
	p->ref = jstr(o, "ref");
	p->subdir = jstr(o, "subdir");
	p->found_by = jstr(o, "found_by");
	p->commit_is = jstr(o, "commit_is");
	p->note = jstr(o, "note");
	p->in_crash_chain = jbool(o, "in_crash_chain");
}

static void load_source(struct prov_crash *c, const struct prov_jv *o)
{
	struct prov_source *s = prov_crash_add_source(c);
	const struct prov_jv *lines;
	size_t i, n;

	s->component = jstr(o, "component");
	s->commit = jstr(o, "commit");
	s->path = jstr(o, "path");
	jint32(o, "line", &s->line);
	jint32(o, "frame", &s->frame_index);
	s->located_by = jstr(o, "located_by");
	s->commit_is = jstr(o, "commit_is");
	s->fetched_by = jstr(o, "fetched_by");
	s->function = jstr(o, "function");
	s->build_id = jstr(o, "build_id");
	jint32(o, "candidates", &s->candidates);
	lines = jarr(o, "lines", &n);
	if (!n)
		return;
	s->lines = prov_xcalloc(n, sizeof(*s->lines));
	for (i = 0; i < n; i++) {
		jint32(&lines->items[i], "number", &s->lines[i].number);
		s->lines[i].text = jstr(&lines->items[i], "text");
	}
	s->nlines = n;
}

/* A static string equal to s from the writers' fixed sets, so the model may keep it. */
static const char *intern(const char *s, const char *const *set)
{
	size_t i;

	for (i = 0; s && set[i]; i++)
		if (strcmp(s, set[i]) == 0)
			return set[i];
	return NULL;
}

static const char *const fix_hows[] = {
	"ancestor", "cherry-pick", "distribution-patch", "adapted", "partial", "missing", NULL
};
static const char *const hunk_states[] = {
	"present-exact", "present-changed-lines", "absent", "test-only", "unknown", NULL
};

static void load_fix(struct prov_crash *c, const struct prov_jv *o)
{
	struct prov_fix_status *x = prov_crash_add_fix(c);
	const struct prov_jv *ev, *inc = prov_jv_get(o, "included");
	size_t i, n;

	x->fix = jstr(o, "fix");
	x->fix_commit = jstr(o, "fix");
	x->deployed = jstr(o, "deployed");
	x->known = inc && inc->type == PROV_JV_BOOL;
	x->included = jbool(o, "included");
	x->how = intern(prov_jv_get_str(o, "how"), fix_hows);
	x->via = jstr(o, "via");
	x->first_tag = jstr(o, "first_tag");
	x->branch_tag = jstr(o, "branch_tag");
	x->files_missing = jstr(o, "files_missing");
	x->commits_missing = jstr(o, "commits_missing");
	x->component = jstr(o, "component");
	x->note = jstr(o, "note");
	ev = jarr(o, "evidence", &n);
	if (!n)
		return;
	x->evidence = prov_xcalloc(n, sizeof(*x->evidence));
	for (i = 0; i < n; i++) {
		const struct prov_jv *e = &ev->items[i];

		x->evidence[i].commit = jstr(e, "commit");
		x->evidence[i].file = jstr(e, "file");
		x->evidence[i].deployed_file = jstr(e, "deployed_file");
		x->evidence[i].hunk = jstr(e, "hunk");
		x->evidence[i].function = jstr(e, "function");
		x->evidence[i].state = intern(prov_jv_get_str(e, "state"), hunk_states);
		x->evidence[i].via = jstr(e, "via");
		/* the notes are the writers' static strings: kept in the tree, which outlives c */
		x->evidence[i].note = prov_jv_get_str(e, "note");
	}
	x->nevidence = n;
}

static void load_suspect(struct prov_crash *c, const struct prov_jv *o)
{
	struct prov_suspect *x = prov_crash_add_suspect(c);
	const struct prov_jv *frames;
	const char *how = prov_jv_get_str(o, "how_related");
	size_t i, n;

	x->commit = jstr(o, "commit");
	x->subject = jstr(o, "subject");
	x->date = jstr(o, "date");
	x->component = jstr(o, "component");
	x->path = jstr(o, "path");
	x->function = jstr(o, "function");
	x->first_tag = jstr(o, "first_tag");
	x->crash_line = how && strcmp(how, "changes crash line") == 0;
	x->fix_words = jbool(o, "fix_words");
	frames = jarr(o, "frames", &n);
	if (!n)
		return;
	x->frames = prov_xcalloc(n, sizeof(*x->frames));
	for (i = 0; i < n; i++) {
		const struct prov_jv *v = &frames->items[i];
		int64_t k = 0;

		if (v->type == PROV_JV_NUMBER && prov_parse_i64(&k, v->str, v->len) == 0 &&
		    k >= 0 && k <= 2147483647)
			x->frames[x->nframes++] = (int)k;
	}
}

static void load_signal(struct prov_signal *s, const struct prov_jv *o)
{
	int64_t v;

	jint32(o, "number", &s->number);
	s->name = jstr(o, "name");
	s->has_code = jint32(o, "code", &s->code);
	s->code_name = jstr(o, "code_name");
	s->has_addr = jhex(o, "address", &s->addr);
	s->has_sender = jint(o, "sender_pid", &v);
	s->sender_pid = v;
}

static void load_input(struct prov_crash *c, const struct prov_jv *in)
{
	const struct prov_jv *l = jobj(in, "launcher"), *sr = jobj(in, "sysroot"), *un;
	int64_t v = 0;
	size_t i, n;

	c->format = jstr(in, "format");
	c->label = jstr(in, "label");
	if (l) {
		c->launch = prov_xcalloc(1, sizeof(*c->launch));
		c->launch->launcher = jstr(l, "name");
		c->launch->host = jstr(l, "host");
		c->launch->task = jstr(l, "task");
		c->launch->has_exit_code = jint32(l, "exit_code", &c->launch->exit_code);
		c->launch->signo = prov_jv_get_str(l, "signal") ? prov_signal_number(prov_jv_get_str(l, "signal")) : 0;
		c->launch->error_file = jstr(l, "error_file");
	}
	if (sr)
		prov_crash_set_sysroot(c, prov_jv_get_str(sr, "kind"), prov_jv_get_str(sr, "digest"),
				       prov_jv_get_str(sr, "ref"));
	c->partial = jbool(in, "partial");
	if (jint(in, "unparsed_lines", &v) && v > 0)
		c->unparsed_lines = (size_t)v;
	un = jarr(in, "unparsed", &n);
	if (n)
		c->unparsed = prov_xcalloc(n, sizeof(*c->unparsed));
	for (i = 0; i < n; i++)
		if (prov_jv_str(&un->items[i]))
			c->unparsed[c->nunparsed++] = prov_xstrdup(prov_jv_str(&un->items[i]));
}

static void load_headline(struct prov_crash *c, const struct prov_jv *o)
{
	struct prov_headline *h;
	int64_t size;

	if (!o)
		return;
	h = c->headline = prov_xcalloc(1, sizeof(*h));
	h->text = jstr(o, "text");
	h->error = jstr(o, "error");
	h->has_size = jint(o, "size", &size) && size >= 0;
	h->size = h->has_size ? (uint64_t)size : 0;
	h->has_addr = jhex(o, "address", &h->addr);
	h->device_thread = jstr(o, "device_thread");
	h->device_block = jstr(o, "device_block");
}

static void load_kernel_line(struct prov_crash *c, const struct prov_jv *o)
{
	struct prov_kernel_line *k;

	if (!o)
		return;
	k = c->kernel_line = prov_xcalloc(1, sizeof(*k));
	k->kind = jstr(o, "kind");
	k->module = jstr(o, "module");
	k->has_addr = jhex(o, "address", &k->addr);
	k->has_ip = jhex(o, "ip", &k->ip);
	k->has_sp = jhex(o, "sp", &k->sp);
	k->has_error = jhex(o, "error", &k->error);
	k->has_base = jhex(o, "base", &k->base) && jhex(o, "size", &k->size);
	k->has_file_offset = jhex(o, "file_offset", &k->file_offset);
	k->has_vaddr = jhex(o, "file_address", &k->vaddr);
	k->has_cpu = jint32(o, "cpu", &k->cpu);
	k->file = jstr(o, "file");
	k->note = jstr(o, "note");
}

/* crash.*: context, patterns, the faulting operand, host and time. */
static void load_crash(struct prov_crash *c, const struct prov_jv *o)
{
	const struct prov_jv *pats, *reg;
	const char *ctx = prov_jv_get_str(o, "context");
	size_t i, n;
	int k;

	for (k = PROV_CONTEXT_UNKNOWN; ctx && k <= PROV_CONTEXT_MODULE_LOAD; k++)
		if (strcmp(ctx, prov_context_name((enum prov_context)k)) == 0)
			c->context = (enum prov_context)k;
	c->snapshot = jbool(o, "snapshot");
	load_headline(c, jobj(o, "headline"));
	load_kernel_line(c, jobj(o, "kernel_line"));
	pats = jarr(o, "patterns", &n);
	for (i = 0; i < n; i++)
		prov_crash_add_pattern(c, prov_jv_get_str(&pats->items[i], "id"),
				       prov_jv_get_str(&pats->items[i], "evidence"));
	c->host = jstr(o, "host");
	c->time = jstr(o, "time");
	c->fault_operand = jstr(o, "fault_operand");
	reg = jobj(o, "fault_register");
	if (reg && prov_jv_get_str(reg, "name") && strlen(prov_jv_get_str(reg, "name")) < sizeof(c->fault_base_reg) &&
	    jhex(reg, "value", &c->fault_base)) {
		c->has_fault_base = 1;
		memcpy(c->fault_base_reg, prov_jv_get_str(reg, "name"), strlen(prov_jv_get_str(reg, "name")) + 1);
	}
}

/* The core's machine, which the report does not name: from the crashing thread's registers. */
static void guess_machine(struct prov_crash *c)
{
	const struct prov_thread *t = prov_crash_crashed_thread(c);
	size_t i;

	for (i = 0; c->kind == PROV_INPUT_CORE && t && i < t->nregs; i++) {
		if (strcmp(t->regs[i].name, "rip") == 0)
			c->machine = EM_X86_64;
		else if (strcmp(t->regs[i].name, "eip") == 0)
			c->machine = EM_386;
		else if (strcmp(t->regs[i].name, "x29") == 0)
			c->machine = EM_AARCH64;
		else
			continue;
		c->machine_is64 = c->machine != EM_386;
		return;
	}
}

static void load_rest(struct prov_crash *c, const struct prov_jv *root)
{
	const struct prov_jv *a, *py = jobj(root, "python");
	size_t i, n;
	int64_t v;

	if (py) {
		c->python_version = jstr(py, "version");
		c->python_finalizing = jbool(py, "finalizing");
		c->python_note = jstr(py, "note");
	}
	c->threads_note = jstr(root, "threads_note");
	for (a = jarr(root, "modules", &n), i = 0; i < n; i++)
		load_module(c, &a->items[i]);
	for (a = jarr(root, "components", &n), i = 0; i < n; i++)
		load_component(c, &a->items[i]);
	for (a = jarr(root, "sources", &n), i = 0; i < n; i++)
		load_source(c, &a->items[i]);
	for (a = jarr(root, "debuginfod_sources", &n), i = 0; i < n; i++)
		load_source(c, &a->items[i]);
	for (a = jarr(root, "local_sources", &n), i = 0; i < n; i++)
		load_source(c, &a->items[i]);
	c->determinism = jstr(root, "determinism");
	for (a = jarr(root, "instructions", &n), i = 0; i < n; i++) {
		struct prov_insn *in = prov_crash_add_insn(c);

		jhex(&a->items[i], "address", &in->addr);
		in->text = jstr(&a->items[i], "text");
		in->current = jbool(&a->items[i], "current");
	}
	c->insns_note = jstr(root, "instructions_note");
	c->registers_note = jstr(root, "registers_note");
	for (a = jarr(root, "fixes", &n), i = 0; i < n; i++)
		load_fix(c, &a->items[i]);
	for (a = jarr(root, "suspects", &n), i = 0; i < n; i++)
		load_suspect(c, &a->items[i]);
	c->suspects_note = jstr(root, "suspects_note");
	if (jint(root, "suspects_frames", &v) && v > 0)
		c->suspects_frames = (size_t)v;
	c->suspects_fixcheck = jstr(root, "suspects_fixcheck");
}

/*
 * The stored tree a and the rewritten b hold the same content (key order and
 * layout aside); a key b writes as null may be absent from a (a report
 * stored before this version wrote that key: unknown either way).
 */
static int jv_same(const struct prov_jv *a, const struct prov_jv *b)
{
	size_t i;

	if (a->type != b->type || (a->type != PROV_JV_OBJECT && a->n != b->n))
		return 0;
	switch (a->type) {
	case PROV_JV_NULL:
		return 1;
	case PROV_JV_BOOL:
		return a->boolean == b->boolean;
	case PROV_JV_NUMBER:
	case PROV_JV_STRING:
		return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
	case PROV_JV_ARRAY:
		for (i = 0; i < a->n; i++)
			if (!jv_same(&a->items[i], &b->items[i]))
				return 0;
		return 1;
	case PROV_JV_OBJECT:
		for (i = 0; i < a->n; i++) {
			const struct prov_jv *y = prov_jv_get(b, a->keys[i]);

			if (!y || !jv_same(&a->items[i], y))
				return 0;
		}
		for (i = 0; i < b->n; i++)
			if (!prov_jv_get(a, b->keys[i]) && b->items[i].type != PROV_JV_NULL)
				return 0;
		return 1;
	}
	return 0;
}

int prov_report_load(struct prov_crash **out, const struct prov_jv *root)
{
	struct prov_crash *c = NULL;
	const struct prov_jv *in = jobj(root, "input"), *sig = jobj(root, "signal"), *proc, *threads;
	const char *schema = prov_jv_get_str(root, "schema"), *kind = in ? prov_jv_get_str(in, "kind") : NULL;
	struct prov_buf again = PROV_BUF_INIT;
	struct prov_jv *back = NULL;
	size_t i, n;
	int err = 0;

	*out = NULL;
	if (!schema || strcmp(schema, "provenance/1") != 0 || !kind)
		return prov_error_set(PROV_EINPUT, "the stored report is no provenance/1 report");
	c = prov_crash_new(strcmp(kind, "core") == 0 ? PROV_INPUT_CORE : PROV_INPUT_TEXT,
			   prov_jv_get_str(in, "path"));
	load_input(c, in);
	if ((proc = jobj(root, "process"))) {
		int64_t pid = 0;

		c->has_process = 1;
		c->process.has_pid = jint(proc, "pid", &pid);
		c->process.pid = pid;
		c->process.executable = jstr(proc, "executable");
		c->process.cmdline = jstr(proc, "cmdline");
	}
	if (sig) {
		c->has_signal = 1;
		load_signal(&c->signal, sig);
		if ((c->has_delivered = jobj(sig, "reraised") != NULL))
			load_signal(&c->delivered, jobj(sig, "reraised"));
	}
	if (jobj(root, "crash"))
		load_crash(c, jobj(root, "crash"));
	threads = jarr(root, "threads", &n);
	for (i = 0; i < n && err == 0; i++)
		err = load_thread(c, &threads->items[i]);
	if (err < 0)
		goto cleanup;
	guess_machine(c);
	load_rest(c, root);
	/* what the model cannot hold (a newer writer's key, a hang analysis) would be lost: refuse */
	if ((err = prov_report_json(&again, c)) < 0 || (err = prov_jv_parse(&back, again.buf, again.len)) < 0)
		goto cleanup;
	if (!jv_same(root, back)) {
		err = prov_error_set(PROV_EUNKNOWN, "the stored report has parts this version cannot show "
				     "as text or Markdown (show --format json prints it)");
		goto cleanup;
	}
	*out = c;
	c = NULL;
cleanup:
	prov_jv_free(back);
	prov_buf_release(&again);
	prov_crash_free(c);
	return err;
}

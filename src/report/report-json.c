/* The JSON report of a crash (docs/schema/report.schema.json), read from the model only. */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "banned.h"

/* The design's JSON report: every key present, null when unknown. */

static void write_origin(struct prov_json *j, const struct prov_origin *o)
{
	if (!o) {
		prov_json_null(j);
		return;
	}
	prov_json_begin_object(j);
	prov_json_kv_string(j, "kind", o->kind);
	prov_json_kv_string(j, "name", o->name);
	prov_json_kv_string(j, "version", o->version);
	prov_json_kv_string(j, "source", o->source);
	prov_json_kv_string(j, "source_version", o->source_version);
	prov_json_kv_string(j, "arch", o->arch);
	prov_json_kv_string(j, "vcs_url", o->vcs_url);
	prov_json_kv_string(j, "commit", o->commit);
	prov_json_kv_string(j, "found_by", o->found_by);
	prov_json_kv_string(j, "evidence", o->evidence);
	prov_json_kv_bool(j, "guess", o->guess);
	/* a mismatched build: the version is what is installed, not what ran */
	if (o->build_id_mismatch) {
		prov_json_kv_bool(j, "build_id_match", 0);
		prov_json_kv_string(j, "version_is", "installed, not the crashed build");
	}
	prov_json_end_object(j);
}

static void write_vars(struct prov_json *j, const char *key, int has,
		       const struct prov_var *v, size_t n)
{
	size_t i;

	prov_json_key(j, key);
	if (!has) {
		prov_json_null(j);
		return;
	}
	prov_json_begin_array(j);
	for (i = 0; i < n; i++) {
		prov_json_begin_object(j);
		prov_json_kv_string(j, "name", v[i].name);
		prov_json_kv_string(j, "type", v[i].type);
		prov_json_kv_string(j, "value", v[i].value);
		prov_json_kv_string(j, "note", v[i].note);
		prov_json_end_object(j);
	}
	prov_json_end_array(j);
}

static void write_frame(struct prov_json *j, const struct prov_frame *f)
{
	prov_json_begin_object(j);
	prov_json_kv_int(j, "index", f->index);
	if (f->has_pc)
		prov_json_kv_hex(j, "pc", f->pc);
	else
		prov_json_kv_null(j, "pc");
	prov_json_kv_string(j, "function", f->function);
	if (f->has_offset)
		prov_json_kv_hex(j, "offset", f->offset);
	else
		prov_json_kv_null(j, "offset");
	prov_json_kv_string(j, "module", f->module);
	prov_json_kv_string(j, "file", f->file);
	if (f->line > 0)
		prov_json_kv_int(j, "line", f->line);
	else
		prov_json_kv_null(j, "line");
	if (f->column > 0)
		prov_json_kv_int(j, "column", f->column);
	else
		prov_json_kv_null(j, "column");
	prov_json_kv_bool(j, "inlined", f->inlined);
	prov_json_kv_string(j, "language", f->python ? "python" : "native");
	prov_json_kv_string(j, "repo_path", f->repo_path);
	prov_json_kv_string(j, "path_rule", f->path_rule);
	prov_json_kv_string(j, "component", f->component);
	prov_json_kv_string(j, "located_by", f->located_by);
	prov_json_kv_bool(j, "location_guess", f->location_guess);
	if (prov_frame_is_signal(f))
		prov_json_kv_bool(j, "signal_frame", 1);
	if (f->in_handler)
		prov_json_kv_bool(j, "in_signal_handler", 1);
	if (f->unwind_derived)
		prov_json_kv_bool(j, "unwind_derived", 1);
	write_vars(j, "args", f->has_vars, f->args, f->nargs);
	write_vars(j, "locals", f->has_vars, f->locals, f->nlocals);
	prov_json_end_object(j);
}

static void write_thread(struct prov_json *j, const struct prov_thread *t)
{
	size_t i;

	prov_json_begin_object(j);
	if (t->has_tid)
		prov_json_kv_int(j, "tid", t->tid);
	else
		prov_json_kv_null(j, "tid");
	prov_json_kv_string(j, "thread_id", t->thread_id);
	prov_json_kv_string(j, "name", t->name);
	prov_json_kv_bool(j, "crashed", t->crashed);
	prov_json_key(j, "registers");
	if (t->regs) {
		prov_json_begin_object(j);
		for (i = 0; i < t->nregs; i++)
			prov_json_kv_hex(j, t->regs[i].name, t->regs[i].value);
		prov_json_end_object(j);
	} else {
		prov_json_null(j);
	}
	if (t->has_crash_frame) {
		/* the crash site below a signal handler: registers are its own,
		 * handler_registers what the core recorded inside the handler */
		prov_json_kv_int(j, "crash_frame", t->frames[prov_thread_crash_frame(t)].index);
		prov_json_key(j, "handler_registers");
		prov_json_begin_object(j);
		for (i = 0; i < t->nhandler_regs; i++)
			prov_json_kv_hex(j, t->handler_regs[i].name, t->handler_regs[i].value);
		prov_json_end_object(j);
	}
	prov_json_kv_bool(j, "truncated", t->truncated);
	prov_json_kv_string(j, "unwind_error", t->unwind_error);
	prov_json_kv_bool(j, "python", t->python);
	prov_json_kv_bool(j, "holds_gil", t->holds_gil);
	prov_json_kv_string(j, "python_note", t->python_note);
	prov_json_key(j, "frames");
	prov_json_begin_array(j);
	for (i = 0; i < t->nframes; i++)
		write_frame(j, &t->frames[i]);
	prov_json_end_array(j);
	prov_json_end_object(j);
}

static void write_module(struct prov_json *j, const struct prov_module *m)
{
	prov_json_begin_object(j);
	prov_json_kv_string(j, "path", m->path);
	if (m->has_range) {
		prov_json_kv_hex(j, "start", m->start);
		prov_json_kv_hex(j, "end", m->end);
	} else {
		prov_json_kv_null(j, "start");
		prov_json_kv_null(j, "end");
	}
	prov_json_kv_string(j, "build_id", m->build_id);
	if (m->build_id_mismatch)
		prov_json_kv_bool(j, "build_id_match", 0);
	else if (m->build_id && m->file)
		prov_json_kv_bool(j, "build_id_match", 1);
	else
		prov_json_kv_null(j, "build_id_match");
	if (m->build_id_from_file)
		prov_json_kv_string(j, "build_id_from", "file");
	prov_json_kv_string(j, "file", m->file);
	prov_json_kv_string(j, "debug_file", m->debug_file);
	prov_json_kv_string(j, "note", m->note);
	prov_json_key(j, "package");
	write_origin(j, m->origin);
	prov_json_kv_string(j, "component", m->component);
	prov_json_kv_bool(j, "in_crash_chain", m->in_crash_chain);
	prov_json_end_object(j);
}

/* chain: 1 to say whether the component is in the crash chain (a crash's
 * report), 0 for an inventory with no crash (env) */
static void write_component(struct prov_json *j, const struct prov_component *p, int chain)
{
	prov_json_begin_object(j);
	prov_json_kv_string(j, "name", p->name);
	prov_json_kv_string(j, "version", p->version);
	prov_json_kv_string(j, "commit", p->commit);
	prov_json_kv_string(j, "repo", p->repo);
	prov_json_kv_string(j, "ref", p->ref);
	prov_json_kv_string(j, "subdir", p->subdir);
	prov_json_kv_string(j, "found_by", p->found_by ? p->found_by : "unknown");
	prov_json_kv_string(j, "commit_is", p->commit ? p->commit_is : NULL);
	prov_json_kv_string(j, "note", p->note);
	if (chain)
		prov_json_kv_bool(j, "in_crash_chain", p->in_crash_chain);
	prov_json_end_object(j);
}

void prov_report_json_component(struct prov_json *j, const struct prov_component *p)
{
	write_component(j, p, 0);
}

void prov_report_json_fix(struct prov_json *j, const struct prov_fix_status *x)
{
	prov_json_begin_object(j);
	prov_json_kv_string(j, "fix", x->fix_commit ? x->fix_commit : x->fix);
	prov_json_kv_string(j, "deployed", x->deployed);
	if (x->known)
		prov_json_kv_bool(j, "included", x->included);
	else
		prov_json_kv_null(j, "included");
	prov_json_kv_string(j, "how", x->how);
	prov_json_kv_string(j, "via", x->via);
	prov_json_kv_string(j, "first_tag", x->first_tag);
	prov_json_kv_string(j, "branch_tag", x->branch_tag);
	prov_json_kv_string(j, "files_missing", x->files_missing);
	prov_json_kv_string(j, "commits_missing", x->commits_missing);
	prov_json_kv_string(j, "component", x->component);
	prov_json_kv_string(j, "note", x->note);
	prov_report_json_fix_evidence(j, x->evidence, x->nevidence);
	prov_json_end_object(j);
}

void prov_report_json_fix_evidence(struct prov_json *j, const struct prov_fix_evidence *ev, size_t n)
{
	size_t k;

	prov_json_key(j, "evidence");
	prov_json_begin_array(j);
	for (k = 0; k < n; k++) {
		const struct prov_fix_evidence *e = &ev[k];

		prov_json_begin_object(j);
		prov_json_kv_string(j, "commit", e->commit);
		prov_json_kv_string(j, "file", e->file);
		prov_json_kv_string(j, "deployed_file", e->deployed_file);
		prov_json_kv_string(j, "hunk", e->hunk);
		prov_json_kv_string(j, "function", e->function);
		prov_json_kv_string(j, "state", e->state);
		prov_json_kv_string(j, "via", e->via);
		prov_json_kv_string(j, "note", e->note);
		prov_json_end_object(j);
	}
	prov_json_end_array(j);
}

static int is_debuginfod(const struct prov_source *s)
{
	return s->located_by && !strcmp(s->located_by, "debuginfod");
}

/* your own program's file at its DWARF path: no component, no commit */
static int is_local(const struct prov_source *s)
{
	return s->fetched_by && !strcmp(s->fetched_by, "local-file");
}

static void write_source(struct prov_json *j, const struct prov_source *s)
{
	size_t i;

	prov_json_begin_object(j);
	prov_json_kv_string(j, "component", s->component);
	prov_json_kv_string(j, "commit", s->commit);
	prov_json_kv_string(j, "path", s->path);
	prov_json_kv_int(j, "line", s->line);
	prov_json_kv_int(j, "frame", s->frame_index);
	prov_json_kv_string(j, "located_by", s->located_by);
	prov_json_kv_string(j, "commit_is", s->commit_is);
	prov_json_kv_string(j, "fetched_by", s->fetched_by);
	prov_json_kv_string(j, "function", s->function);
	if (is_debuginfod(s))
		prov_json_kv_string(j, "build_id", s->build_id);
	if (s->located_by && !is_debuginfod(s))
		prov_json_kv_int(j, "candidates", s->candidates);
	else
		prov_json_kv_null(j, "candidates");
	prov_json_key(j, "lines");
	prov_json_begin_array(j);
	for (i = 0; i < s->nlines; i++) {
		prov_json_begin_object(j);
		prov_json_kv_int(j, "number", s->lines[i].number);
		prov_json_kv_string(j, "text", s->lines[i].text);
		prov_json_end_object(j);
	}
	prov_json_end_array(j);
	prov_json_end_object(j);
}

static void write_suspect(struct prov_json *j, const struct prov_suspect *x)
{
	size_t i;

	prov_json_begin_object(j);
	prov_json_kv_string(j, "commit", x->commit);
	prov_json_kv_string(j, "subject", x->subject);
	prov_json_kv_string(j, "date", x->date);
	prov_json_kv_string(j, "component", x->component);
	prov_json_kv_string(j, "path", x->path);
	prov_json_kv_string(j, "function", x->function);
	prov_json_key(j, "frames");
	prov_json_begin_array(j);
	for (i = 0; i < x->nframes; i++)
		prov_json_int(j, x->frames[i]);
	prov_json_end_array(j);
	prov_json_kv_string(j, "first_tag", x->first_tag);
	prov_json_kv_string(j, "how_related", x->crash_line ? "changes crash line" : "changes function");
	prov_json_kv_bool(j, "fix_words", x->fix_words);
	prov_json_end_object(j);
}

/* input.launcher: what srun or torchrun said of this rank (text input of a cluster job) */
static void write_launch(struct prov_json *j, const struct prov_launch *l)
{
	prov_json_key(j, "launcher");
	if (!l) {
		prov_json_null(j);
		return;
	}
	prov_json_begin_object(j);
	prov_json_kv_string(j, "name", l->launcher);
	prov_json_kv_string(j, "host", l->host);
	prov_json_kv_string(j, "task", l->task);
	if (l->has_exit_code)
		prov_json_kv_int(j, "exit_code", l->exit_code);
	else
		prov_json_kv_null(j, "exit_code");
	prov_json_kv_string(j, "signal", l->signo > 0 ? prov_signal_name(l->signo) : NULL);
	prov_json_kv_string(j, "error_file", l->error_file);
	prov_json_end_object(j);
}

/* crash.headline: the tool's own words for the crash (compute-sanitizer, a kernel line) */
static void write_headline(struct prov_json *j, const struct prov_headline *h)
{
	prov_json_key(j, "headline");
	if (!h) {
		prov_json_null(j);
		return;
	}
	prov_json_begin_object(j);
	prov_json_kv_string(j, "text", h->text);
	prov_json_kv_string(j, "error", h->error);
	if (h->has_size)
		prov_json_kv_int(j, "size", (int64_t)h->size);
	else
		prov_json_kv_null(j, "size");
	if (h->has_addr)
		prov_json_kv_hex(j, "address", h->addr);
	else
		prov_json_kv_null(j, "address");
	prov_json_kv_string(j, "device_thread", h->device_thread);
	prov_json_kv_string(j, "device_block", h->device_block);
	prov_json_end_object(j);
}

static void kv_hex_or_null(struct prov_json *j, const char *key, int has, uint64_t v)
{
	if (has)
		prov_json_kv_hex(j, key, v);
	else
		prov_json_kv_null(j, key);
}

/* crash.kernel_line: what a kernel fault line said, decoded */
static void write_kernel_line(struct prov_json *j, const struct prov_kernel_line *k)
{
	char *bits;

	prov_json_key(j, "kernel_line");
	if (!k) {
		prov_json_null(j);
		return;
	}
	prov_json_begin_object(j);
	prov_json_kv_string(j, "kind", k->kind);
	prov_json_kv_string(j, "module", k->module);
	kv_hex_or_null(j, "address", k->has_addr, k->addr);
	kv_hex_or_null(j, "ip", k->has_ip, k->ip);
	kv_hex_or_null(j, "sp", k->has_sp, k->sp);
	kv_hex_or_null(j, "error", k->has_error, k->error);
	prov_json_key(j, "error_bits");
	if (k->has_error && k->kind && strcmp(k->kind, "segfault") == 0) {
		prov_json_begin_object(j);
		prov_json_kv_bool(j, "user", (k->error & 4) != 0);
		prov_json_kv_bool(j, "write", (k->error & 2) != 0);
		prov_json_kv_bool(j, "protection", (k->error & 1) != 0);
		prov_json_kv_bool(j, "instruction_fetch", (k->error & 16) != 0);
		prov_json_kv_bool(j, "reserved_bit", (k->error & 8) != 0);
		prov_json_kv_bool(j, "protection_key", (k->error & 32) != 0);
		bits = prov_kernel_error_text(k->error);
		prov_json_kv_string(j, "text", bits);
		free(bits);
		prov_json_end_object(j);
	} else {
		prov_json_null(j);
	}
	kv_hex_or_null(j, "base", k->has_base, k->base);
	kv_hex_or_null(j, "size", k->has_base, k->size);
	kv_hex_or_null(j, "file_offset", k->has_file_offset, k->file_offset);
	kv_hex_or_null(j, "file_address", k->has_vaddr, k->vaddr);
	if (k->has_cpu)
		prov_json_kv_int(j, "cpu", k->cpu);
	else
		prov_json_kv_null(j, "cpu");
	prov_json_kv_string(j, "file", k->file);
	prov_json_kv_string(j, "note", k->note);
	prov_json_end_object(j);
}

/* The signal the process died of when a handler re-raised the fault (signal is the fault). */
static void write_delivered(struct prov_json *j, const struct prov_signal *d)
{
	prov_json_key(j, "reraised");
	prov_json_begin_object(j);
	prov_json_kv_int(j, "number", d->number);
	prov_json_kv_string(j, "name", d->name ? d->name : prov_signal_name(d->number));
	if (d->has_code)
		prov_json_kv_int(j, "code", d->code);
	else
		prov_json_kv_null(j, "code");
	prov_json_kv_string(j, "code_name", d->code_name);
	if (d->has_sender)
		prov_json_kv_int(j, "sender_pid", d->sender_pid);
	else
		prov_json_kv_null(j, "sender_pid");
	prov_json_end_object(j);
}

/* "input": what was read, and how (the root, partial, lines not read). */
static void write_input(struct prov_json *j, const struct prov_crash *c)
{
	size_t i;

	prov_json_key(j, "input");
	prov_json_begin_object(j);
	prov_json_kv_string(j, "path", c->input_path);
	prov_json_kv_string(j, "kind", c->kind == PROV_INPUT_CORE ? "core" : "text");
	prov_json_kv_string(j, "format", c->format);
	prov_json_kv_string(j, "label", c->label);
	write_launch(j, c->launch);
	/* the root --sysroot named: which image (docs/containers.md) */
	if (c->sysroot_kind) {
		prov_json_key(j, "sysroot");
		prov_json_begin_object(j);
		prov_json_kv_string(j, "kind", c->sysroot_kind);
		prov_json_kv_string(j, "digest", c->sysroot_digest);
		prov_json_kv_string(j, "ref", c->sysroot_ref);
		prov_json_end_object(j);
	} else {
		prov_json_kv_null(j, "sysroot");
	}
	if (c->kind == PROV_INPUT_CORE) {
		prov_json_kv_bool(j, "partial", c->partial);
		prov_json_kv_bool(j, "snapshot", c->snapshot);
	} else {
		prov_json_kv_null(j, "partial");
		prov_json_kv_null(j, "snapshot");
	}
	/* lines that looked like frames but were not read (text input) */
	if (c->kind == PROV_INPUT_TEXT) {
		prov_json_kv_int(j, "unparsed_lines", (int64_t)c->unparsed_lines);
		prov_json_key(j, "unparsed");
		prov_json_begin_array(j);
		for (i = 0; i < c->nunparsed; i++)
			prov_json_string(j, c->unparsed[i]);
		prov_json_end_array(j);
	} else {
		prov_json_kv_null(j, "unparsed_lines");
		prov_json_kv_null(j, "unparsed");
	}
	prov_json_end_object(j);
}

void prov_report_json_body(struct prov_json *j, const struct prov_crash *c)
{
	const struct prov_signal *s = &c->signal;
	const struct prov_thread *crashed = prov_crash_crashed_thread(c);
	size_t i;

	prov_json_kv_string(j, "schema", "provenance/1");

	write_input(j, c);

	prov_json_key(j, "process");
	if (c->has_process) {
		prov_json_begin_object(j);
		if (c->process.has_pid)
			prov_json_kv_int(j, "pid", c->process.pid);
		else
			prov_json_kv_null(j, "pid");
		prov_json_kv_string(j, "executable", c->process.executable);
		prov_json_kv_string(j, "cmdline", c->process.cmdline);
		prov_json_end_object(j);
	} else {
		prov_json_null(j);
	}

	prov_json_key(j, "signal");
	if (c->has_signal) {
		prov_json_begin_object(j);
		prov_json_kv_int(j, "number", s->number);
		prov_json_kv_string(j, "name", s->name ? s->name : prov_signal_name(s->number));
		if (s->has_code)
			prov_json_kv_int(j, "code", s->code);
		else
			prov_json_kv_null(j, "code");
		prov_json_kv_string(j, "code_name", s->code_name);
		if (s->has_addr)
			prov_json_kv_hex(j, "address", s->addr);
		else
			prov_json_kv_null(j, "address");
		if (s->has_sender)
			prov_json_kv_int(j, "sender_pid", s->sender_pid);
		else
			prov_json_kv_null(j, "sender_pid");
		if (c->has_delivered)
			write_delivered(j, &c->delivered);
		prov_json_end_object(j);
	} else {
		prov_json_null(j);
	}

	prov_json_key(j, "crash");
	prov_json_begin_object(j);
	if (crashed && crashed->has_tid)
		prov_json_kv_int(j, "thread", crashed->tid);
	else
		prov_json_kv_null(j, "thread");
	prov_json_kv_string(j, "context", prov_context_name(c->context));
	prov_json_kv_bool(j, "snapshot", c->snapshot);
	write_headline(j, c->headline);
	write_kernel_line(j, c->kernel_line);
	prov_json_key(j, "patterns");
	prov_json_begin_array(j);
	for (i = 0; i < c->npatterns; i++) {
		prov_json_begin_object(j);
		prov_json_kv_string(j, "id", c->patterns[i].id);
		prov_json_kv_string(j, "evidence", c->patterns[i].evidence);
		prov_json_end_object(j);
	}
	prov_json_end_array(j);
	prov_json_kv_string(j, "host", c->host);
	prov_json_kv_string(j, "time", c->time);
	/* the faulting instruction's memory operand, in words, and its base register (show renders them) */
	prov_json_kv_string(j, "fault_operand", c->fault_operand);
	prov_json_key(j, "fault_register");
	if (c->has_fault_base && c->fault_base_reg[0]) {
		prov_json_begin_object(j);
		prov_json_kv_string(j, "name", c->fault_base_reg);
		prov_json_kv_hex(j, "value", c->fault_base);
		prov_json_end_object(j);
	} else {
		prov_json_null(j);
	}
	prov_json_end_object(j);

	prov_json_key(j, "python");
	if (c->python_version || c->python_note) {
		prov_json_begin_object(j);
		prov_json_kv_string(j, "version", c->python_version);
		prov_json_kv_bool(j, "finalizing", c->python_finalizing);
		prov_json_kv_string(j, "note", c->python_note);
		prov_json_end_object(j);
	} else {
		prov_json_null(j);
	}

	prov_report_hang_json(j, c);
	prov_json_key(j, "threads");
	prov_json_begin_array(j);
	for (i = 0; i < c->nthreads; i++)
		write_thread(j, &c->threads[i]);
	prov_json_end_array(j);
	/* why threads were cut short by the frames cap of the whole report, or null */
	prov_json_kv_string(j, "threads_note", c->threads_note);

	prov_json_key(j, "modules");
	prov_json_begin_array(j);
	for (i = 0; i < c->nmodules; i++)
		write_module(j, &c->modules[i]);
	prov_json_end_array(j);

	prov_json_key(j, "components");
	prov_json_begin_array(j);
	for (i = 0; i < c->ncomponents; i++)
		write_component(j, &c->components[i], 1);
	prov_json_end_array(j);

	prov_json_key(j, "sources");
	prov_json_begin_array(j);
	for (i = 0; i < c->nsources; i++)
		if (!is_debuginfod(&c->sources[i]) && !is_local(&c->sources[i]))
			write_source(j, &c->sources[i]);
	prov_json_end_array(j);
	/* no component or commit: the file debuginfod serves for the module's build */
	prov_json_key(j, "debuginfod_sources");
	prov_json_begin_array(j);
	for (i = 0; i < c->nsources; i++)
		if (is_debuginfod(&c->sources[i]))
			write_source(j, &c->sources[i]);
	prov_json_end_array(j);
	prov_json_key(j, "local_sources");
	prov_json_begin_array(j);
	for (i = 0; i < c->nsources; i++)
		if (is_local(&c->sources[i]))
			write_source(j, &c->sources[i]);
	prov_json_end_array(j);

	prov_json_kv_string(j, "determinism", c->determinism);

	prov_json_key(j, "instructions");
	prov_json_begin_array(j);
	for (i = 0; i < c->ninsns; i++) {
		prov_json_begin_object(j);
		prov_json_kv_hex(j, "address", c->insns[i].addr);
		prov_json_kv_string(j, "text", c->insns[i].text);
		prov_json_kv_bool(j, "current", c->insns[i].current);
		prov_json_end_object(j);
	}
	prov_json_end_array(j);
	/* why there are no instructions (null when there are some) */
	prov_json_kv_string(j, "instructions_note", c->ninsns ? NULL : c->insns_note);
	/* a core whose architecture's registers are not read (null otherwise) */
	prov_json_kv_string(j, "registers_note", c->registers_note);

	prov_json_key(j, "fixes");
	prov_json_begin_array(j);
	for (i = 0; i < c->nfixes; i++)
		prov_report_json_fix(j, &c->fixes[i]);
	prov_json_end_array(j);

	prov_json_key(j, "suspects");
	prov_json_begin_array(j);
	for (i = 0; i < c->nsuspects; i++)
		write_suspect(j, &c->suspects[i]);
	prov_json_end_array(j);
	prov_json_kv_string(j, "suspects_note", c->suspects_note);
	prov_json_kv_int(j, "suspects_frames", (int64_t)c->suspects_frames);
	prov_json_kv_string(j, "suspects_fixcheck", c->suspects_fixcheck);
}

int prov_report_json(struct prov_buf *out, const struct prov_crash *c)
{
	struct prov_json j;

	prov_json_init(&j, out);
	prov_json_begin_object(&j);
	prov_report_json_body(&j, c);
	prov_json_end_object(&j);
	return prov_json_finish(&j);
}

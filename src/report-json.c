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
	prov_json_end_object(j);
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
	prov_json_kv_bool(j, "truncated", t->truncated);
	prov_json_kv_string(j, "unwind_error", t->unwind_error);
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
	prov_json_kv_string(j, "file", m->file);
	prov_json_kv_string(j, "debug_file", m->debug_file);
	prov_json_kv_string(j, "note", m->note);
	prov_json_key(j, "package");
	write_origin(j, m->origin);
	prov_json_kv_string(j, "component", m->component);
	prov_json_end_object(j);
}

void prov_report_json_component(struct prov_json *j, const struct prov_component *p)
{
	prov_json_begin_object(j);
	prov_json_kv_string(j, "name", p->name);
	prov_json_kv_string(j, "version", p->version);
	prov_json_kv_string(j, "commit", p->commit);
	prov_json_kv_string(j, "repo", p->repo);
	prov_json_kv_string(j, "ref", p->ref);
	prov_json_kv_string(j, "subdir", p->subdir);
	prov_json_kv_string(j, "found_by", p->found_by ? p->found_by : "unknown");
	prov_json_kv_string(j, "note", p->note);
	prov_json_end_object(j);
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
	prov_json_kv_string(j, "component", x->component);
	prov_json_kv_string(j, "note", x->note);
	prov_json_end_object(j);
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

void prov_report_json_body(struct prov_json *j, const struct prov_crash *c)
{
	const struct prov_signal *s = &c->signal;
	const struct prov_thread *crashed = prov_crash_crashed_thread(c);
	size_t i;

	prov_json_kv_string(j, "schema", "provenance/1");

	prov_json_key(j, "input");
	prov_json_begin_object(j);
	prov_json_kv_string(j, "path", c->input_path);
	prov_json_kv_string(j, "kind", c->kind == PROV_INPUT_CORE ? "core" : "text");
	prov_json_kv_string(j, "format", c->format);
	prov_json_end_object(j);

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
	prov_json_key(j, "patterns");
	prov_json_begin_array(j);
	for (i = 0; i < c->npatterns; i++) {
		prov_json_begin_object(j);
		prov_json_kv_string(j, "id", c->patterns[i].id);
		prov_json_kv_string(j, "evidence", c->patterns[i].evidence);
		prov_json_end_object(j);
	}
	prov_json_end_array(j);
	prov_json_end_object(j);

	prov_json_key(j, "threads");
	prov_json_begin_array(j);
	for (i = 0; i < c->nthreads; i++)
		write_thread(j, &c->threads[i]);
	prov_json_end_array(j);

	prov_json_key(j, "modules");
	prov_json_begin_array(j);
	for (i = 0; i < c->nmodules; i++)
		write_module(j, &c->modules[i]);
	prov_json_end_array(j);

	prov_json_key(j, "components");
	prov_json_begin_array(j);
	for (i = 0; i < c->ncomponents; i++)
		prov_report_json_component(j, &c->components[i]);
	prov_json_end_array(j);

	prov_json_key(j, "sources");
	prov_json_begin_array(j);
	for (i = 0; i < c->nsources; i++)
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

	prov_json_key(j, "fixes");
	prov_json_begin_array(j);
	for (i = 0; i < c->nfixes; i++)
		prov_report_json_fix(j, &c->fixes[i]);
	prov_json_end_array(j);
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

/*
 * Arguments and locals of a frame from DWARF: location expressions evaluated
 * with libdwfl's unwound registers and the crashed process's memory, values
 * rendered the way gdb prints them (so that a reader, and our tests, can put
 * the two side by side).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "corevars.h"
#include "util.h"
#include "banned.h"

#define MAX_VARS 128	/* per frame and kind */
#define MAX_OBJ 4096	/* bytes of one variable read */
#define MAX_VALUE 1024	/* characters of one rendered value */
#define MAX_STRING 200	/* characters of a char * pointee */
#define MAX_ELEMS 16	/* array elements shown */
#define MAX_MEMBERS 64
#define MAX_STACK 64
#define ENTRY_NOTE "optimized out (only its value at entry was recorded: entry value not recovered)"

struct vctx {
	Dwfl *dwfl;
	Dwfl_Frame *state;
	Dwfl_Module *mod;
	Dwarf_Addr bias, adj;
	prov_mem_read_fn read;
	void *arg;
	int cplus;
	int cfa_state;	/* 0 not tried, 1 known, -1 unknown */
	uint64_t cfa;
	int fb_state;
	uint64_t fb;
	Dwarf_Die fb_die;	/* the subprogram whose frame base applies */
	int have_fb_die;
	const unsigned char *fpregs;	/* frame 0 only: NT_FPREGSET */
	const char *no_reg;	/* why a register has no value in this frame */
	struct prov_vars_pending *pending;
	const char *callee;	/* the physical function's linkage name or name */
	Dwarf_Addr callee_entry;	/* its lowest address (absolute), when have_entry */
	int have_entry;
};

/*
 * A variable whose location is only its value at the function's entry
 * (DW_OP_entry_value(DW_OP_regN) DW_OP_stack_value): the caller's call site
 * says what it passed in that register, so it is resolved with the next
 * (calling) frame's registers.
 */
struct pending {
	size_t frame;	/* index in the thread's frames */
	int local;	/* 0: args[var], 1: locals[var] */
	size_t var;
	unsigned int regno;
	Dwarf_Die type;
	const char *callee;	/* the function whose entry it is (linkage name, else name) */
	Dwarf_Addr callee_entry;	/* its lowest address (absolute), when have_entry */
	int have_entry;
};

struct prov_vars_pending {
	struct pending *items;
	size_t n, alloc;
};

void prov_vars_pending_free(struct prov_vars_pending *p)
{
	if (!p)
		return;
	free(p->items);
	free(p);
}

void prov_vars_pending_reset(struct prov_vars_pending *p)
{
	if (p)
		p->n = 0;
}

/* ---- memory and registers ---- */

/* Bytes of a module's file mapped at addr (read-only data the core did not dump). */
static int file_read(struct vctx *v, uint64_t addr, void *buf, size_t len)
{
	Dwfl_Module *m = dwfl_addrmodule(v->dwfl, addr);
	Dwarf_Addr b = 0;
	Elf *elf;
	size_t n, i;

	if (!m || !(elf = dwfl_module_getelf(m, &b)) || elf_getphdrnum(elf, &n) != 0)
		return -1;
	for (i = 0; i < n && i < 4096; i++) {
		GElf_Phdr ph;
		uint64_t rel = addr - b;
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (rel < ph.p_vaddr || rel - ph.p_vaddr >= ph.p_filesz ||
		    len > ph.p_filesz - (rel - ph.p_vaddr))
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)(ph.p_offset + (rel - ph.p_vaddr)), len,
					 ELF_T_BYTE);
		if (!d || d->d_size < len)
			return -1;
		memcpy(buf, d->d_buf, len);
		return 0;
	}
	return -1;
}

static int mem_read(struct vctx *v, uint64_t addr, void *buf, size_t len)
{
	if (addr + len < addr)
		return -1;
	if (v->read(v->arg, addr, buf, len) == 0)
		return 0;
	return file_read(v, addr, buf, len);
}

static int reg_read(struct vctx *v, unsigned int regno, uint64_t *out)
{
	Dwarf_Word w;

	if (dwfl_frame_reg(v->state, regno, &w) != 0)
		return -1;
	*out = w;
	return 0;
}

/* ---- location expressions ---- */

enum loc_kind { LOC_MEM, LOC_REG, LOC_VALUE, LOC_IMPLICIT };

struct loc {
	enum loc_kind kind;
	uint64_t addr;	/* LOC_MEM; LOC_VALUE: the value */
	unsigned int regno;
	const unsigned char *data;	/* LOC_IMPLICIT */
	size_t ndata;
};

static int frame_cfa(struct vctx *v, uint64_t *out);
static int frame_base(struct vctx *v, uint64_t *out, const char **why);

/*
 * Evaluate ops[from, to) (no DW_OP_piece inside) into one location. 0, or
 * -1 with *why saying why the value cannot be known.
 */
static int eval_simple(struct vctx *v, Dwarf_Attribute *attr, const Dwarf_Op *ops, size_t from,
		       size_t to, struct loc *out, const char **why)
{
	uint64_t st[MAX_STACK];
	size_t sp = 0, i;

#define NEED(k) do { if (sp < (k)) { *why = "malformed location expression"; return -1; } } while (0)
#define PUSH(x) do { if (sp >= MAX_STACK) { *why = "location expression too deep"; return -1; } st[sp++] = (x); } while (0)
	memset(out, 0, sizeof(*out));
	if (from == to) {
		*why = "optimized out";
		return -1;
	}
	for (i = from; i < to; i++) {
		const Dwarf_Op *op = &ops[i];
		uint8_t a = op->atom;
		uint64_t x, y;

		if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
			out->kind = LOC_REG;
			out->regno = a - DW_OP_reg0;
			return 0;
		}
		if (a == DW_OP_regx) {
			out->kind = LOC_REG;
			out->regno = (unsigned int)op->number;
			return 0;
		}
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			PUSH((uint64_t)(a - DW_OP_lit0));
			continue;
		}
		if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
			if (reg_read(v, a - DW_OP_breg0, &x) < 0) {
				*why = v->no_reg;
				return -1;
			}
			PUSH(x + (uint64_t)(int64_t)op->number);
			continue;
		}
		switch (a) {
		case DW_OP_addr:
			PUSH(op->number + v->bias);
			break;
		case DW_OP_bregx:
			if (reg_read(v, (unsigned int)op->number, &x) < 0) {
				*why = v->no_reg;
				return -1;
			}
			PUSH(x + (uint64_t)(int64_t)op->number2);
			break;
		case DW_OP_fbreg:
			if (frame_base(v, &x, why) < 0)
				return -1;
			PUSH(x + (uint64_t)(int64_t)op->number);
			break;
		case DW_OP_call_frame_cfa:
			if (frame_cfa(v, &x) < 0) {
				*why = "no call frame information for this pc";
				return -1;
			}
			PUSH(x);
			break;
		case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
		case DW_OP_constu:
		case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
		case DW_OP_consts:
			PUSH(op->number);
			break;
		case DW_OP_dup:
			NEED(1);
			x = st[sp - 1];
			PUSH(x);
			break;
		case DW_OP_drop:
			NEED(1);
			sp--;
			break;
		case DW_OP_over:
			NEED(2);
			x = st[sp - 2];
			PUSH(x);
			break;
		case DW_OP_swap:
			NEED(2);
			x = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = x;
			break;
		case DW_OP_deref:
		case DW_OP_deref_size: {
			unsigned char b[8] = { 0 };
			size_t n = a == DW_OP_deref ? 8 : (size_t)op->number;

			NEED(1);
			if (n == 0 || n > 8 || mem_read(v, st[sp - 1], b, n) < 0) {
				*why = "cannot read memory";
				return -1;
			}
			x = 0;
			while (n--)
				x = (x << 8) | b[n];
			st[sp - 1] = x;
			break;
		}
		case DW_OP_plus_uconst:
			NEED(1);
			st[sp - 1] += op->number;
			break;
		case DW_OP_neg:
			NEED(1);
			st[sp - 1] = (uint64_t)-(int64_t)st[sp - 1];
			break;
		case DW_OP_not:
			NEED(1);
			st[sp - 1] = ~st[sp - 1];
			break;
		case DW_OP_plus: case DW_OP_minus: case DW_OP_mul: case DW_OP_and:
		case DW_OP_or: case DW_OP_xor: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
			NEED(2);
			y = st[--sp];
			x = st[sp - 1];
			switch (a) {
			case DW_OP_plus: x += y; break;
			case DW_OP_minus: x -= y; break;
			case DW_OP_mul: x *= y; break;
			case DW_OP_and: x &= y; break;
			case DW_OP_or: x |= y; break;
			case DW_OP_xor: x ^= y; break;
			case DW_OP_shl: x = y < 64 ? x << y : 0; break;
			case DW_OP_shr: x = y < 64 ? x >> y : 0; break;
			default: x = y < 64 ? (uint64_t)((int64_t)x >> y) : 0; break;
			}
			st[sp - 1] = x;
			break;
		case DW_OP_stack_value:
			NEED(1);
			out->kind = LOC_VALUE;
			out->addr = st[sp - 1];
			return 0;
		case DW_OP_implicit_value: {
			Dwarf_Block blk;

			if (!attr || dwarf_getlocation_implicit_value(attr, op, &blk) != 0) {
				*why = "malformed location expression";
				return -1;
			}
			out->kind = LOC_IMPLICIT;
			out->data = blk.data;
			out->ndata = blk.length;
			return 0;
		}
		case DW_OP_entry_value:
		case DW_OP_GNU_entry_value:
			*why = ENTRY_NOTE;
			return -1;
		case DW_OP_GNU_parameter_ref:
		case DW_OP_implicit_pointer:
		case DW_OP_GNU_implicit_pointer:
			*why = "optimized out";
			return -1;
		case DW_OP_nop:
			break;
		default:
			*why = "unsupported DWARF location operation";
			return -1;
		}
	}
	NEED(1);
	out->kind = LOC_MEM;
	out->addr = st[sp - 1];
	return 0;
#undef NEED
#undef PUSH
}

static int frame_cfa(struct vctx *v, uint64_t *out)
{
	Dwarf_CFI *cfis[2];
	Dwarf_Addr cb[2] = { 0, 0 };
	int k;

	if (v->cfa_state) {
		*out = v->cfa;
		return v->cfa_state > 0 ? 0 : -1;
	}
	v->cfa_state = -1;
	cfis[0] = dwfl_module_eh_cfi(v->mod, &cb[0]);
	cfis[1] = dwfl_module_dwarf_cfi(v->mod, &cb[1]);
	for (k = 0; k < 2; k++) {
		Dwarf_Frame *fr = NULL;
		Dwarf_Op *ops = NULL;
		size_t nops = 0;
		struct loc l;
		const char *why;

		if (!cfis[k] || dwarf_cfi_addrframe(cfis[k], v->adj - cb[k], &fr) != 0)
			continue;
		if (dwarf_frame_cfa(fr, &ops, &nops) == 0 && nops &&
		    eval_simple(v, NULL, ops, 0, nops, &l, &why) == 0 && l.kind == LOC_MEM) {
			v->cfa = l.addr;
			v->cfa_state = 1;
			free(fr);
			break;
		}
		free(fr);
	}
	*out = v->cfa;
	return v->cfa_state > 0 ? 0 : -1;
}

static int frame_base(struct vctx *v, uint64_t *out, const char **why)
{
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t nops;
	struct loc l;

	if (v->fb_state) {
		*out = v->fb;
		if (v->fb_state < 0)
			*why = "frame base unknown";
		return v->fb_state > 0 ? 0 : -1;
	}
	v->fb_state = -1;
	*why = "frame base unknown";
	if (!v->have_fb_die || !dwarf_attr(&v->fb_die, DW_AT_frame_base, &at) ||
	    dwarf_getlocation_addr(&at, v->adj - v->bias, &ops, &nops, 1) != 1)
		return -1;
	if (eval_simple(v, &at, ops, 0, nops, &l, why) < 0)
		return -1;
	if (l.kind == LOC_REG) {
		if (reg_read(v, l.regno, &v->fb) < 0)
			return -1;
	} else if (l.kind == LOC_MEM) {
		v->fb = l.addr;
	} else {
		return -1;
	}
	v->fb_state = 1;
	*out = v->fb;
	return 0;
}

/*
 * The bytes of a variable of `size` bytes described by ops (pieces
 * included). 0; or -1 with *why, and *bad_addr set when memory was the problem.
 */
static int fetch(struct vctx *v, Dwarf_Attribute *attr, const Dwarf_Op *ops, size_t nops,
		 unsigned char *out, size_t size, const char **why, uint64_t *bad_addr,
		 int *have_addr, uint64_t *addr)
{
	size_t i, start = 0, off = 0;
	int pieces = 0;

	*have_addr = 0;
	for (i = 0; i < nops; i++)
		if (ops[i].atom == DW_OP_piece)
			pieces = 1;
	for (i = 0; i <= nops; i++) {
		struct loc l;
		size_t want;

		if (pieces && i < nops && ops[i].atom != DW_OP_piece)
			continue;
		if (pieces && i == nops)
			break;
		want = pieces ? (size_t)ops[i].number : size;
		if (want > size - off)
			want = size - off;
		if (eval_simple(v, attr, ops, start, pieces ? i : nops, &l, why) < 0)
			return -1;
		switch (l.kind) {
		case LOC_MEM:
			if (!pieces) {
				*have_addr = 1;
				*addr = l.addr;
			}
			if (mem_read(v, l.addr, out + off, want) < 0) {
				*bad_addr = l.addr;
				*why = "cannot read memory";
				return -1;
			}
			break;
		case LOC_REG: {
			uint64_t r;
			size_t k;

			/* x86-64 DWARF 17-32: xmm0-15, at 160 in user_fpregs_struct */
			if (l.regno >= 17 && l.regno <= 32 && v->fpregs && want <= 16) {
				memcpy(out + off, v->fpregs + 160 + 16 * (l.regno - 17), want);
				break;
			}
			if (reg_read(v, l.regno, &r) < 0) {
				*why = v->no_reg;
				return -1;
			}
			if (want > 8) {
				*why = "register value not available";
				return -1;
			}
			for (k = 0; k < want; k++)
				out[off + k] = (unsigned char)(r >> (8 * k));
			break;
		}
		case LOC_VALUE: {
			size_t k;

			for (k = 0; k < want; k++)
				out[off + k] = k < 8 ? (unsigned char)(l.addr >> (8 * k)) : 0;
			break;
		}
		case LOC_IMPLICIT:
			if (l.ndata < want) {
				*why = "malformed location expression";
				return -1;
			}
			memcpy(out + off, l.data, want);
			break;
		}
		off += want;
		start = i + 1;
		if (!pieces)
			break;
	}
	if (pieces && off < size) {
		*why = "partly optimized out";
		return -1;
	}
	return 0;
}

/* ---- types ---- */

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute at;

	return dwarf_attr_integrate(die, DW_AT_name, &at) ? dwarf_formstring(&at) : NULL;
}

static int die_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute at;

	return dwarf_attr_integrate(die, DW_AT_type, &at) && dwarf_formref_die(&at, out) ? 0 : -1;
}

static uint64_t array_count(Dwarf_Die *arr, int *known)
{
	Dwarf_Die child;
	Dwarf_Attribute at;
	Dwarf_Word w;

	*known = 0;
	if (dwarf_child(arr, &child) != 0)
		return 0;
	do {
		if (dwarf_tag(&child) != DW_TAG_subrange_type)
			continue;
		if (dwarf_attr(&child, DW_AT_count, &at) && dwarf_formudata(&at, &w) == 0) {
			*known = 1;
			return w;
		}
		if (dwarf_attr(&child, DW_AT_upper_bound, &at) && dwarf_formudata(&at, &w) == 0) {
			*known = 1;
			return w + 1;
		}
		return 0;	/* only the first dimension */
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static void type_name(struct prov_buf *b, Dwarf_Die *type, int depth);

#define QUAL_CONST 1
#define QUAL_VOLATILE 2

/*
 * A run of qualifiers (const, volatile, restrict, _Atomic) from *type: their
 * const/volatile flags added to *quals, the first type past them in *base
 * (0), or -1 when the run ends in void.
 */
static int qualifier_run(Dwarf_Die *type, unsigned *quals, Dwarf_Die *base)
{
	Dwarf_Die cur = *type;
	int i;

	for (i = 0; i < 16; i++) {
		int tag = dwarf_tag(&cur);

		if (tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type) {
			*base = cur;
			return 0;
		}
		*quals |= tag == DW_TAG_const_type ? QUAL_CONST : tag == DW_TAG_volatile_type ? QUAL_VOLATILE : 0;
		if (die_type(&cur, &cur) != 0)
			return -1;
	}
	return -1;
}

/*
 * A qualified type as gdb writes it: "const volatile short", "char *
 * const"; qualifiers of an array are its element's (C's rule, and GCC puts
 * them on both), so "volatile char [16]", never twice.
 */
static void qualified_name(struct prov_buf *b, Dwarf_Die *type, unsigned quals, int depth)
{
	Dwarf_Die base;
	int tag;

	if (depth > 8) {
		prov_buf_puts(b, "...");
		return;
	}
	if (qualifier_run(type, &quals, &base) < 0) {
		prov_buf_printf(b, "%s%svoid", quals & QUAL_CONST ? "const " : "",
				quals & QUAL_VOLATILE ? "volatile " : "");
		return;
	}
	tag = dwarf_tag(&base);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type) {
		type_name(b, &base, depth + 1);
		prov_buf_printf(b, "%s%s", quals & QUAL_CONST ? " const" : "", quals & QUAL_VOLATILE ? " volatile" : "");
	} else if (tag == DW_TAG_array_type && quals) {
		Dwarf_Die elem;
		int known;
		uint64_t n = array_count(&base, &known);

		if (die_type(&base, &elem) == 0)
			qualified_name(b, &elem, quals, depth + 1);
		else
			prov_buf_printf(b, "%s%svoid", quals & QUAL_CONST ? "const " : "",
					quals & QUAL_VOLATILE ? "volatile " : "");
		if (known)
			prov_buf_printf(b, " [%" PRIu64 "]", n);
		else
			prov_buf_puts(b, " []");
	} else {
		prov_buf_printf(b, "%s%s", quals & QUAL_CONST ? "const " : "", quals & QUAL_VOLATILE ? "volatile " : "");
		type_name(b, &base, depth + 1);
	}
}

static void type_name(struct prov_buf *b, Dwarf_Die *type, int depth)
{
	Dwarf_Die inner;
	const char *name = type ? die_name(type) : NULL;
	int tag = type ? dwarf_tag(type) : 0, has_inner, known;
	size_t mark;

	if (!type) {
		prov_buf_puts(b, "void");
		return;
	}
	if (depth > 8) {
		prov_buf_puts(b, "...");
		return;
	}
	has_inner = die_type(type, &inner) == 0;
	switch (tag) {
	case DW_TAG_base_type:
	case DW_TAG_typedef:
	case DW_TAG_unspecified_type:
		prov_buf_puts(b, name ? name : "?");
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type: {
		const char *kw = tag == DW_TAG_structure_type ? "struct " :
			tag == DW_TAG_class_type ? "class " :
			tag == DW_TAG_union_type ? "union " : "enum ";
		Dwarf_Die cu;
		int cplus = dwarf_diecu(type, &cu, NULL, NULL) &&
			    (dwarf_srclang(&cu) == DW_LANG_C_plus_plus ||
			     dwarf_srclang(&cu) == DW_LANG_C_plus_plus_11 ||
			     dwarf_srclang(&cu) == DW_LANG_C_plus_plus_14);

		if (name)
			prov_buf_printf(b, "%s%s", cplus ? "" : kw, name);
		else
			prov_buf_printf(b, "%s{...}", kw);
		break;
	}
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		const char *suffix = tag == DW_TAG_pointer_type ? "*" :
			tag == DW_TAG_reference_type ? "&" : "&&";

		if (has_inner && dwarf_tag(&inner) == DW_TAG_subroutine_type) {
			Dwarf_Die ret;

			type_name(b, die_type(&inner, &ret) == 0 ? &ret : NULL, depth + 1);
			prov_buf_printf(b, " (%s)(...)", suffix);
			break;
		}
		mark = b->len;
		type_name(b, has_inner ? &inner : NULL, depth + 1);
		prov_buf_puts(b, b->len > mark && (b->buf[b->len - 1] == '*' ||
						   b->buf[b->len - 1] == '&') ? "" : " ");
		prov_buf_puts(b, suffix);
		break;
	}
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		qualified_name(b, type, 0, depth);
		break;
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		type_name(b, has_inner ? &inner : NULL, depth + 1);
		break;
	case DW_TAG_array_type: {
		uint64_t n = array_count(type, &known);

		if (has_inner)
			qualified_name(b, &inner, 0, depth + 1);
		else
			type_name(b, NULL, depth + 1);
		if (known)
			prov_buf_printf(b, " [%" PRIu64 "]", n);
		else
			prov_buf_puts(b, " []");
		break;
	}
	case DW_TAG_subroutine_type:
		prov_buf_puts(b, "function");
		break;
	default:
		prov_buf_puts(b, name ? name : "?");
		break;
	}
}

static int type_size(Dwarf_Die *type, uint64_t *out)
{
	Dwarf_Word w;

	if (dwarf_aggregate_size(type, &w) != 0)
		return -1;
	*out = w;
	return 0;
}

/* ---- values ---- */

static uint64_t load_le(const unsigned char *p, size_t n)
{
	uint64_t x = 0;

	if (n > 8)
		n = 8;
	while (n--)
		x = (x << 8) | p[n];
	return x;
}

static int64_t sext(uint64_t x, size_t n)
{
	if (n >= 8 || n == 0)
		return (int64_t)x;
	if (x & ((uint64_t)1 << (8 * n - 1)))
		x |= ~(uint64_t)0 << (8 * n);
	return (int64_t)x;
}

/* gdb's way to show one character inside quotes */
static void put_char(struct prov_buf *b, unsigned int c, char quote)
{
	switch (c) {
	case '\n': prov_buf_puts(b, "\\n"); return;
	case '\t': prov_buf_puts(b, "\\t"); return;
	case '\r': prov_buf_puts(b, "\\r"); return;
	case '\a': prov_buf_puts(b, "\\a"); return;
	case '\b': prov_buf_puts(b, "\\b"); return;
	case '\f': prov_buf_puts(b, "\\f"); return;
	case '\v': prov_buf_puts(b, "\\v"); return;
	case 033: prov_buf_puts(b, "\\033"); return;
	default: break;
	}
	if (c == '\\' || c == (unsigned char)quote)
		prov_buf_printf(b, "\\%c", c);
	else if (c >= 0x20 && c < 0x7f)
		prov_buf_putc(b, (char)c);
	else
		prov_buf_printf(b, "\\%03o", c & 0xff);
}

static int is_char_type(Dwarf_Die *t)
{
	Dwarf_Die p;
	Dwarf_Attribute at;
	Dwarf_Word enc;

	if (dwarf_peel_type(t, &p) != 0 || dwarf_tag(&p) != DW_TAG_base_type ||
	    dwarf_bytesize(&p) != 1 || !dwarf_attr(&p, DW_AT_encoding, &at) ||
	    dwarf_formudata(&at, &enc) != 0)
		return 0;
	return enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char ||
	       ((enc == DW_ATE_signed || enc == DW_ATE_unsigned) && die_name(&p) &&
		strstr(die_name(&p), "char"));
}

static void put_cstring(struct vctx *v, struct prov_buf *b, uint64_t addr)
{
	unsigned char c;
	size_t i;

	if (mem_read(v, addr, &c, 1) < 0) {
		prov_buf_printf(b, " <error: Cannot access memory at address 0x%" PRIx64 ">", addr);
		return;
	}
	prov_buf_puts(b, " \"");
	for (i = 0; i < MAX_STRING; i++) {
		if (mem_read(v, addr + i, &c, 1) < 0 || c == 0)
			break;
		put_char(b, c, '"');
	}
	prov_buf_putc(b, '"');
	if (i == MAX_STRING)
		prov_buf_puts(b, "...");
}

static void format_value(struct vctx *v, struct prov_buf *b, Dwarf_Die *type,
			 const unsigned char *bytes, size_t have, int depth);

static void format_members(struct vctx *v, struct prov_buf *b, Dwarf_Die *t,
			   const unsigned char *bytes, size_t have, int depth)
{
	Dwarf_Die m;
	int first = 1, n = 0;

	if (depth > 1) {
		prov_buf_puts(b, "{...}");
		return;
	}
	prov_buf_putc(b, '{');
	if (dwarf_child(t, &m) == 0) {
		do {
			int tag = dwarf_tag(&m);
			Dwarf_Attribute at;
			Dwarf_Word off = 0, bits = 0, bitoff = 0;
			Dwarf_Die mt;
			uint64_t msize;
			const char *name;

			if (tag != DW_TAG_member && tag != DW_TAG_inheritance)
				continue;
			if (dwarf_hasattr(&m, DW_AT_external) || dwarf_hasattr(&m, DW_AT_declaration))
				continue;	/* static member */
			if (n++ >= MAX_MEMBERS) {
				prov_buf_puts(b, ", ...");
				break;
			}
			name = die_name(&m);
			prov_buf_puts(b, first ? "" : ", ");
			first = 0;
			if (tag == DW_TAG_inheritance) {
				Dwarf_Die bt;

				prov_buf_putc(b, '<');
				if (die_type(&m, &bt) == 0)
					type_name(b, &bt, 0);
				prov_buf_puts(b, "> = ");
			} else {
				prov_buf_printf(b, "%s = ", name ? name : "<anonymous>");
			}
			if (dwarf_attr(&m, DW_AT_data_member_location, &at))
				dwarf_formudata(&at, &off);
			if (die_type(&m, &mt) != 0 || type_size(&mt, &msize) != 0) {
				prov_buf_puts(b, "?");
				continue;
			}
			if (dwarf_attr(&m, DW_AT_bit_size, &at) && dwarf_formudata(&at, &bits) == 0 &&
			    bits > 0 && bits < 64) {
				uint64_t x;

				if (dwarf_attr(&m, DW_AT_data_bit_offset, &at))
					dwarf_formudata(&at, &bitoff);
				else
					bitoff = off * 8;
				if (bitoff / 8 + 8 > have) {
					prov_buf_puts(b, "<not read>");
					continue;
				}
				x = load_le(bytes + bitoff / 8, 8) >> (bitoff % 8);
				x &= ((uint64_t)1 << bits) - 1;
				prov_buf_printf(b, "%" PRIu64, x);
				continue;
			}
			if (off > have || msize > have - off) {
				prov_buf_puts(b, "<not read>");
				continue;
			}
			format_value(v, b, &mt, bytes + off, (size_t)msize, depth + 1);
		} while (dwarf_siblingof(&m, &m) == 0 && b->len < MAX_VALUE);
	}
	prov_buf_putc(b, '}');
}

static void format_value(struct vctx *v, struct prov_buf *b, Dwarf_Die *type,
			 const unsigned char *bytes, size_t have, int depth)
{
	Dwarf_Die t, inner;
	Dwarf_Attribute at;
	Dwarf_Word enc = 0;
	uint64_t size = 0, x;
	int tag;

	if (dwarf_peel_type(type, &t) != 0) {
		prov_buf_puts(b, "?");
		return;
	}
	/* an array larger than what was read shows its first elements */
	if (type_size(&t, &size) != 0 || (size > have && dwarf_tag(&t) != DW_TAG_array_type)) {
		prov_buf_puts(b, "?");
		return;
	}
	tag = dwarf_tag(&t);
	switch (tag) {
	case DW_TAG_base_type:
		if (dwarf_attr(&t, DW_AT_encoding, &at))
			dwarf_formudata(&at, &enc);
		x = load_le(bytes, (size_t)size);
		if (enc == DW_ATE_boolean) {
			prov_buf_puts(b, x ? "true" : "false");
		} else if (enc == DW_ATE_float && size == 4) {
			float f;

			memcpy(&f, bytes, 4);
			prov_buf_printf(b, "%.9g", (double)f);
		} else if (enc == DW_ATE_float && size == 8) {
			double d;

			memcpy(&d, bytes, 8);
			prov_buf_printf(b, "%.17g", d);
		} else if (enc == DW_ATE_float && size == 16) {
			long double d;

			memcpy(&d, bytes, sizeof(d) < 16 ? sizeof(d) : 16);
			prov_buf_printf(b, "%.21Lg", d);
		} else if (is_char_type(&t)) {
			int64_t s = enc == DW_ATE_unsigned_char || enc == DW_ATE_unsigned ?
				(int64_t)x : sext(x, 1);

			prov_buf_printf(b, "%" PRId64 " '", s);
			put_char(b, (unsigned int)(x & 0xff), '\'');
			prov_buf_putc(b, '\'');
		} else if (enc == DW_ATE_signed || enc == DW_ATE_signed_char) {
			prov_buf_printf(b, "%" PRId64, sext(x, (size_t)size));
		} else if (size <= 8) {
			prov_buf_printf(b, "%" PRIu64, x);
		} else {
			prov_buf_puts(b, "?");
		}
		break;
	case DW_TAG_enumeration_type: {
		Dwarf_Die e;
		int found = 0;

		x = load_le(bytes, (size_t)size);
		if (dwarf_child(&t, &e) == 0) {
			do {
				Dwarf_Sword sv;

				if (dwarf_tag(&e) != DW_TAG_enumerator ||
				    !dwarf_attr(&e, DW_AT_const_value, &at) ||
				    dwarf_formsdata(&at, &sv) != 0)
					continue;
				if ((uint64_t)sext((uint64_t)sv, (size_t)size) == (uint64_t)sext(x, (size_t)size) &&
				    die_name(&e)) {
					prov_buf_puts(b, die_name(&e));
					found = 1;
					break;
				}
			} while (dwarf_siblingof(&e, &e) == 0);
		}
		if (!found)
			prov_buf_printf(b, "%" PRId64, sext(x, (size_t)size));
		break;
	}
	case DW_TAG_pointer_type:
		x = load_le(bytes, (size_t)size);
		prov_buf_printf(b, "0x%" PRIx64, x);
		if (x && die_type(&t, &inner) == 0 && is_char_type(&inner))
			put_cstring(v, b, x);
		break;
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		x = load_le(bytes, (size_t)size);
		prov_buf_printf(b, "@0x%" PRIx64, x);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		format_members(v, b, &t, bytes, have, depth);
		break;
	case DW_TAG_array_type: {
		int known;
		uint64_t n = array_count(&t, &known), esize, i;

		if (die_type(&t, &inner) != 0 || type_size(&inner, &esize) != 0 || esize == 0) {
			prov_buf_puts(b, "?");
			break;
		}
		if (is_char_type(&inner)) {
			prov_buf_putc(b, '"');
			for (i = 0; i < n && i < have && i < MAX_STRING && bytes[i]; i++)
				put_char(b, bytes[i], '"');
			prov_buf_putc(b, '"');
			if (i == MAX_STRING)
				prov_buf_puts(b, "...");
			break;
		}
		if (depth > 1) {
			prov_buf_puts(b, "{...}");
			break;
		}
		prov_buf_putc(b, '{');
		for (i = 0; i < n && i < MAX_ELEMS && (i + 1) * esize <= have; i++) {
			prov_buf_puts(b, i ? ", " : "");
			format_value(v, b, &inner, bytes + i * esize, (size_t)esize, depth + 1);
		}
		if (i < n)
			prov_buf_puts(b, i ? ", ..." : "...");
		prov_buf_putc(b, '}');
		break;
	}
	default:
		prov_buf_puts(b, "?");
		break;
	}
}

/* ---- variables ---- */

/* What identifies a function across modules: its linkage name, else its name. */
static const char *func_key(Dwarf_Die *die)
{
	Dwarf_Attribute at;
	const char *s;

	if ((dwarf_attr_integrate(die, DW_AT_linkage_name, &at) ||
	     dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at)) && (s = dwarf_formstring(&at)))
		return s;
	return die_name(die);
}

/* DW_OP_entry_value(DW_OP_regN) DW_OP_stack_value: N, else -1 */
static int entry_reg(Dwarf_Attribute *attr, const Dwarf_Op *ops, size_t nops)
{
	Dwarf_Attribute sub;
	Dwarf_Op *sops;
	size_t nsops;

	if (nops != 2 || (ops[0].atom != DW_OP_entry_value && ops[0].atom != DW_OP_GNU_entry_value) ||
	    ops[1].atom != DW_OP_stack_value ||
	    dwarf_getlocation_attr(attr, &ops[0], &sub) != 0 ||
	    dwarf_getlocation(&sub, &sops, &nsops) != 0 || nsops != 1)
		return -1;
	if (sops[0].atom >= DW_OP_reg0 && sops[0].atom <= DW_OP_reg31)
		return sops[0].atom - DW_OP_reg0;
	if (sops[0].atom == DW_OP_regx && sops[0].number < 128)
		return (int)sops[0].number;
	return -1;
}

static void read_var(struct vctx *v, Dwarf_Die *die, struct prov_var *out, int *entry_regno)
{
	Dwarf_Attribute at;
	Dwarf_Die type;
	Dwarf_Op *ops = NULL;
	size_t nops = 0;
	struct prov_buf b;
	unsigned char *bytes = NULL;
	uint64_t size = 0, bad = 0, addr = 0;
	const char *why = NULL;
	int have_type = die_type(die, &type) == 0, have_addr = 0, n;

	prov_buf_init(&b, MAX_VALUE + 256);
	out->name = prov_xstrdup(die_name(die));
	type_name(&b, have_type ? &type : NULL, 0);
	out->type = prov_buf_detach(&b);
	if (!have_type || type_size(&type, &size) != 0 || size == 0) {
		out->note = prov_xstrdup("type without a known size");
		goto cleanup;
	}
	if (size > MAX_OBJ)
		size = MAX_OBJ;	/* arrays: the first elements only */
	bytes = prov_xcalloc(1, (size_t)size);
	if (dwarf_attr(die, DW_AT_location, &at)) {
		n = dwarf_getlocation_addr(&at, v->adj - v->bias, &ops, &nops, 1);
		if (n == 0) {
			why = "optimized out";	/* not live at this pc */
		} else if (n < 0) {
			why = "unreadable location";
		} else if (fetch(v, &at, ops, nops, bytes, (size_t)size, &why, &bad, &have_addr,
				 &addr) < 0) {
			if (bad) {
				out->note = prov_xasprintf("cannot read memory at 0x%" PRIx64, bad);
				goto cleanup;
			}
			if (!why)
				why = "unknown";
			if (!strcmp(why, ENTRY_NOTE))
				*entry_regno = entry_reg(&at, ops, nops);
		} else {
			why = NULL;
		}
	} else if (dwarf_attr_integrate(die, DW_AT_const_value, &at)) {
		Dwarf_Block blk;
		Dwarf_Word w;

		if (dwarf_formblock(&at, &blk) == 0) {
			memcpy(bytes, blk.data, blk.length < size ? blk.length : (size_t)size);
		} else if (dwarf_formudata(&at, &w) == 0) {
			size_t k;

			for (k = 0; k < size && k < 8; k++)
				bytes[k] = (unsigned char)(w >> (8 * k));
		} else {
			why = "constant not shown";
		}
	} else {
		why = "optimized out";
	}
	if (why) {
		out->note = prov_xstrdup(why);
		goto cleanup;
	}
	prov_buf_init(&b, MAX_VALUE + 256);
	format_value(v, &b, &type, bytes, (size_t)size, 0);
	if (b.len >= MAX_VALUE) {
		prov_buf_setlen(&b, MAX_VALUE);
		prov_buf_puts(&b, "...");
	}
	out->value = prov_buf_detach(&b);
cleanup:
	free(bytes);
}

static void add_var(struct vctx *v, Dwarf_Die *die, struct prov_thread *t, size_t fi, int local)
{
	struct prov_frame *f = &t->frames[fi];
	struct prov_var **arr = local ? &f->locals : &f->args;
	size_t *n = local ? &f->nlocals : &f->nargs;
	int regno = -1;

	if (*n >= MAX_VARS)
		return;
	*arr = prov_xrealloc(*arr, (*n + 1) * sizeof(**arr));
	memset(&(*arr)[*n], 0, sizeof(**arr));
	read_var(v, die, &(*arr)[*n], &regno);
	if (regno >= 0 && v->pending) {
		struct pending *pd;

		PROV_ALLOC_GROW(v->pending->items, v->pending->n + 1, v->pending->alloc);
		pd = &v->pending->items[v->pending->n++];
		pd->frame = fi;
		pd->local = local;
		pd->var = *n;
		pd->regno = (unsigned int)regno;
		pd->callee = v->callee;
		pd->callee_entry = v->callee_entry;
		pd->have_entry = v->have_entry;
		if (!pd->callee || die_type(die, &pd->type) != 0)
			v->pending->n--;
	}
	(*n)++;
}

/* The variables a scope declares directly: parameters (when `params`) and locals. */
static void scope_vars(struct vctx *v, Dwarf_Die *scope, struct prov_thread *t, size_t fi,
		       int params)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		if (!die_name(&child) || dwarf_hasattr(&child, DW_AT_declaration))
			continue;
		if (tag == DW_TAG_formal_parameter && params)
			add_var(v, &child, t, fi, 0);
		else if (tag == DW_TAG_variable)
			add_var(v, &child, t, fi, 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The lowest address of a function DIE's own code (low_pc, else its ranges'): 0, or -1 when it has none. */
static int die_low(Dwarf_Die *die, Dwarf_Addr *out)
{
	Dwarf_Addr base, start, end, lo = 0;
	ptrdiff_t off = 0;
	int any = 0;

	if (dwarf_lowpc(die, out) == 0)
		return 0;
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0)
		if (!any || start < lo) {
			lo = start;
			any = 1;
		}
	if (!any)
		return -1;
	*out = lo;
	return 0;
}

/*
 * Does call site cs call pd's function directly? As gdb decides it: the
 * site must name its target (DW_AT_call_origin); a declaration is matched
 * by name, a definition by its address. An abstract instance (a function
 * also inlined elsewhere: DW_AT_inline, no code of its own) names no
 * address, and gdb shows the parameter as <optimized out>; so do we. Calls
 * through a pointer (DW_AT_call_target) are declined, and so is a call
 * whose target is another function: a tail call in between means the
 * registers at this function's entry are not what this site passed.
 */
static int call_site_calls(struct vctx *v, Dwarf_Die *cs, const struct pending *pd)
{
	Dwarf_Attribute at;
	Dwarf_Die origin;
	Dwarf_Addr lo;
	const char *key;

	if (dwarf_hasattr(cs, DW_AT_call_target) || dwarf_hasattr(cs, DW_AT_GNU_call_site_target))
		return 0;
	if (!(dwarf_attr(cs, DW_AT_call_origin, &at) || dwarf_attr(cs, DW_AT_abstract_origin, &at)) ||
	    !dwarf_formref_die(&at, &origin))
		return 0;
	if (dwarf_hasattr(&origin, DW_AT_declaration) && !dwarf_hasattr(&origin, DW_AT_specification))
		return (key = func_key(&origin)) && !strcmp(key, pd->callee);
	return pd->have_entry && die_low(&origin, &lo) == 0 && lo + v->bias == pd->callee_entry;
}

/*
 * The call site in the calling frame (scopes at its pc) that returns to
 * `ret` (module-relative): what did it pass in register `regno`? 0 and the
 * value, or -1.
 */
static int call_site_value(struct vctx *v, Dwarf_Die *scopes, int nscopes, Dwarf_Addr ret,
			   const struct pending *pd, uint64_t *out)
{
	int i;

	for (i = 0; i < nscopes; i++) {
		Dwarf_Die cs;

		if (dwarf_child(&scopes[i], &cs) != 0)
			continue;
		do {
			int tag = dwarf_tag(&cs);
			Dwarf_Attribute at;
			Dwarf_Addr a;
			Dwarf_Die par;

			if (tag != DW_TAG_call_site && tag != DW_TAG_GNU_call_site)
				continue;
			if (!(dwarf_attr(&cs, DW_AT_call_return_pc, &at) ||
			      dwarf_attr(&cs, DW_AT_low_pc, &at)) || dwarf_formaddr(&at, &a) != 0 ||
			    a != ret)
				continue;
			if (!call_site_calls(v, &cs, pd))
				return -1;
			if (dwarf_child(&cs, &par) != 0)
				return -1;
			do {
				Dwarf_Op *ops;
				size_t nops;
				struct loc l;
				const char *why;
				int ptag = dwarf_tag(&par);

				if ((ptag != DW_TAG_call_site_parameter &&
				     ptag != DW_TAG_GNU_call_site_parameter) ||
				    !dwarf_attr(&par, DW_AT_location, &at) ||
				    dwarf_getlocation(&at, &ops, &nops) != 0 || nops != 1 ||
				    !((ops[0].atom == DW_OP_reg0 + pd->regno && pd->regno < 32) ||
				      (ops[0].atom == DW_OP_regx && ops[0].number == pd->regno)))
					continue;
				if (!(dwarf_attr(&par, DW_AT_call_value, &at) ||
				      dwarf_attr(&par, DW_AT_GNU_call_site_value, &at)) ||
				    dwarf_getlocation(&at, &ops, &nops) != 0 ||
				    eval_simple(v, &at, ops, 0, nops, &l, &why) < 0)
					return -1;
				if (l.kind == LOC_REG)
					return reg_read(v, l.regno, out);
				if (l.kind == LOC_IMPLICIT) {
					*out = load_le(l.data, l.ndata);
					return 0;
				}
				*out = l.addr;	/* the value itself (DW_OP_stack_value implied) */
				return 0;
			} while (dwarf_siblingof(&par, &par) == 0);
			return -1;
		} while (dwarf_siblingof(&cs, &cs) == 0);
	}
	return -1;
}

/* Resolve the previous frame's entry values with this (calling) frame. */
static void resolve_pending(struct vctx *v, struct prov_thread *t, Dwarf_Die *scopes, int nscopes,
			    Dwarf_Addr pc)
{
	struct prov_vars_pending *p = v->pending;
	size_t i;

	for (i = 0; p && i < p->n; i++) {
		struct pending *pd = &p->items[i];
		struct prov_frame *f;
		struct prov_var *var;
		unsigned char bytes[8];
		uint64_t x, size;
		struct prov_buf b;
		size_t k;

		if (pd->frame >= t->nframes)
			continue;
		f = &t->frames[pd->frame];
		if (pd->var >= (pd->local ? f->nlocals : f->nargs))
			continue;
		var = pd->local ? &f->locals[pd->var] : &f->args[pd->var];
		if (type_size(&pd->type, &size) != 0 || size == 0 || size > 8 ||
		    call_site_value(v, scopes, nscopes, pc - v->bias, pd, &x) < 0)
			continue;
		for (k = 0; k < 8; k++)
			bytes[k] = (unsigned char)(x >> (8 * k));
		prov_buf_init(&b, MAX_VALUE + 256);
		format_value(v, &b, &pd->type, bytes, (size_t)size, 0);
		free(var->value);
		var->value = prov_buf_detach(&b);
		free(var->note);
		var->note = prov_xstrdup("its value at entry, from the caller's call site");
	}
	if (p)
		p->n = 0;
}

#define MAX_SCOPES 64

/*
 * The scopes holding pc, innermost first, in the concrete tree (unlike
 * dwarf_getscopes, which leaves an inlined subroutine for its abstract
 * origin and so loses the function it was inlined into). Returns the count.
 */
static int find_scopes(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
	Dwarf_Die child;
	int n;

	if (depth >= MAX_SCOPES || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);

		switch (tag) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
			if (dwarf_haspc(&child, pc) != 1)
				break;
			n = find_scopes(&child, pc, out, depth + 1);
			if (n < MAX_SCOPES) {
				out[n] = child;
				n++;
			}
			return n;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
			if (depth == 0 || dwarf_tag(parent) == DW_TAG_namespace ||
			    dwarf_tag(parent) == DW_TAG_structure_type ||
			    dwarf_tag(parent) == DW_TAG_class_type) {
				n = find_scopes(&child, pc, out, depth + 1);
				if (n)
					return n;
			}
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

void prov_core_frame_vars(struct prov_thread *t, size_t first, int read_vars,
			  struct prov_vars_pending **pending, Dwfl_Frame *state, Dwfl_Module *mod,
			  Dwarf_Addr pc, Dwarf_Addr adj, const unsigned char *fpregs,
			  prov_mem_read_fn read, void *arg)
{
	struct vctx v;
	Dwarf_Die *cudie, scopes[MAX_SCOPES];
	int nscopes, i;
	size_t k = first;
	bool isact = false;
	Dwarf_Addr pc2;

	if (!*pending)
		*pending = prov_xcalloc(1, sizeof(**pending));
	memset(&v, 0, sizeof(v));
	v.pending = *pending;
	if (!state || !mod || first > t->nframes)
		goto drop;
	v.dwfl = dwfl_thread_dwfl(dwfl_frame_thread(state));
	v.state = state;
	v.mod = mod;
	v.adj = adj;
	v.read = read;
	v.arg = arg;
	v.fpregs = fpregs;
	/*
	 * Outside the innermost frame, only the registers the ABI has callees
	 * preserve (and CFI restores) are known; gdb shows the inner frame's
	 * value of the others, which the call may have changed.
	 */
	v.no_reg = dwfl_frame_pc(state, &pc2, &isact) && !isact ?
		"optimized out (held in a register the call did not preserve)" : "optimized out";
	cudie = dwfl_module_addrdie(mod, adj, &v.bias);
	if (!cudie || (nscopes = find_scopes(cudie, adj - v.bias, scopes, 0)) <= 0)
		goto drop;
	/* the frame base is the real (outermost) function's */
	for (i = 0; i < nscopes; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			v.fb_die = scopes[i];
			v.have_fb_die = 1;
			break;
		}
	if (!v.have_fb_die)
		goto drop;
	if (!isact)
		resolve_pending(&v, t, scopes, nscopes, pc);
	v.pending->n = 0;
	v.callee = func_key(&v.fb_die);
	if (die_low(&v.fb_die, &v.callee_entry) == 0) {
		v.callee_entry += v.bias;
		v.have_entry = 1;
	}
	for (i = 0; read_vars && i < nscopes && k < t->nframes; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_lexical_block) {
			scope_vars(&v, &scopes[i], t, k, 0);
		} else if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) {
			scope_vars(&v, &scopes[i], t, k, 1);
			t->frames[k].has_vars = 1;
			k++;
			if (tag == DW_TAG_subprogram)
				break;
		}
	}
	return;
drop:
	(*pending)->n = 0;
}

/*
 * The core's notes, parsed by hand from PT_NOTE: NT_PRSTATUS (threads,
 * registers), NT_PRPSINFO, NT_SIGINFO, NT_FILE (mapped files), NT_AUXV.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>

#include "core-int.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/* x86-64 user_regs_struct order, as pr_reg holds them. */
const char *const core_x86_64_regs[] = {
	"r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8",
	"rax", "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags",
	"rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs",
};
/* i386 user_regs_struct order. */
const char *const core_i386_regs[] = {
	"ebx", "ecx", "edx", "esi", "edi", "ebp", "eax", "ds", "es", "fs",
	"gs", "orig_eax", "eip", "cs", "eflags", "esp", "ss",
};
/* aarch64 user_pt_regs order (struct user_pt_regs in asm/ptrace.h). */
const char *const core_aarch64_regs[] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
	"x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20",
	"x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "x30",
	"sp", "pc", "pstate",
};

static int note_prstatus(struct core_ctx *x, const unsigned char *d, size_t n)
{
	struct prov_crash *c = x->c;
	struct prov_thread *t;
	size_t off_cursig = 12, off_pid = x->is64 ? 32 : 24;
	size_t off_regs = x->is64 ? 112 : 72, i, nregs = 0, wsz = x->is64 ? 8 : 4;
	const char *const *names = NULL;

	if (x->machine == EM_68K && !x->is64) {
		/* m68k aligns longs to 2 bytes: pr_sigpend follows the short
		 * pr_cursig at 14, so pr_pid is at 22 and pr_reg at 70 (the
		 * kernel's elf_prstatus; eu-readelf reads it so) */
		off_pid = 22;
		off_regs = 70;
	}

	if (n < off_pid + 4)
		return 0;	/* too short to say anything: skip it */
	if (c->nthreads >= PROV_MAX_THREADS)
		return prov_error_set(PROV_ELIMIT, "'%s' has more than %d threads",
				      x->path, PROV_MAX_THREADS);
	t = prov_crash_add_thread(c);
	t->has_tid = 1;
	t->tid = (int32_t)core_rd32(x, d + off_pid);
	if (c->nthreads == 1) {
		uint16_t cursig;

		memcpy(&cursig, d + off_cursig, 2);
		if (x->swap)
			cursig = __builtin_bswap16(cursig);
		t->crashed = 1;
		c->has_crashed_thread = 1;
		c->crashed_thread = 0;
		x->notes.first_cursig = cursig;
		if (!c->has_signal && cursig) {
			c->has_signal = 1;
			c->signal.number = cursig;
		}
	}
	if (x->machine == EM_X86_64 && x->is64) {
		names = core_x86_64_regs;
		nregs = sizeof(core_x86_64_regs) / sizeof(core_x86_64_regs[0]);
	} else if (x->machine == EM_386 && !x->is64) {
		names = core_i386_regs;
		nregs = sizeof(core_i386_regs) / sizeof(core_i386_regs[0]);
	} else if (x->machine == EM_AARCH64 && x->is64) {
		/* elf_prstatus has the same LP64 layout: pr_reg at 112 */
		names = core_aarch64_regs;
		nregs = sizeof(core_aarch64_regs) / sizeof(core_aarch64_regs[0]);
	}
	if (names && n >= off_regs + nregs * wsz) {
		t->regs = prov_xcalloc(nregs, sizeof(*t->regs));
		t->nregs = nregs;
		for (i = 0; i < nregs; i++) {
			memcpy(t->regs[i].name, names[i], strlen(names[i]) + 1);
			t->regs[i].value = core_rdword(x, d + off_regs + i * wsz);
		}
	}
	return 0;
}

static void note_prpsinfo(struct core_ctx *x, const unsigned char *d, size_t n)
{
	struct prov_crash *c = x->c;
	size_t off_pid = x->is64 ? 24 : 12, off_fname = x->is64 ? 40 : 28;
	size_t off_args = x->is64 ? 56 : 44;

	if (!x->is64 && n == 128) {
		/* 32-bit uid_t and gid_t (ppc32, mips32; i386 and m68k have
		 * 16-bit ones: 124 bytes): each field after them 4 further */
		off_pid += 4;
		off_fname += 4;
		off_args += 4;
	}

	if (x->notes.seen_prpsinfo || n < off_args + 80)
		return;
	x->notes.seen_prpsinfo = 1;
	c->has_process = 1;
	c->process.has_pid = 1;
	c->process.pid = (int32_t)core_rd32(x, d + off_pid);
	free(c->process.executable);
	c->process.executable = core_field_str(d + off_fname, 16);
	free(c->process.cmdline);
	c->process.cmdline = core_field_str(d + off_args, 80);
}

static void note_siginfo(struct core_ctx *x, const unsigned char *d, size_t n)
{
	struct prov_signal *s = &x->c->signal;
	size_t off_union = x->is64 ? 16 : 12;
	int signo, code;

	if (x->notes.seen_siginfo || n < off_union + (x->is64 ? 8 : 4))
		return;
	x->notes.seen_siginfo = 1;
	signo = (int32_t)core_rd32(x, d);
	code = (int32_t)core_rd32(x, d + 8);
	if (signo <= 0 || signo > 128)
		return;
	x->c->has_signal = 1;
	s->number = signo;
	s->has_code = 1;
	s->code = code;
	s->has_addr = 0;
	s->has_sender = 0;
	if (prov_signal_has_fault_addr(signo, code)) {
		s->has_addr = 1;
		s->addr = core_rdword(x, d + off_union);
	} else if (code == SI_USER || code == SI_TKILL || code == SI_QUEUE) {
		s->has_sender = 1;
		s->sender_pid = (int32_t)core_rd32(x, d + off_union);
	}
}

static int note_file(struct core_ctx *x, const unsigned char *d, size_t n)
{
	size_t w = x->is64 ? 8 : 4, i;
	uint64_t count;
	const unsigned char *names, *end = d + n;

	if (x->map.files || n < 2 * w)
		return 0;
	count = core_rdword(x, d);
	if (count > (n - 2 * w) / (3 * w))
		return prov_error_set(PROV_EINPUT, "'%s' has a damaged file note (NT_FILE)",
				      x->path);
	if (count > MAX_FILE_ENTRIES)
		return prov_error_set(PROV_ELIMIT, "'%s' maps more than %zu files",
				      x->path, MAX_FILE_ENTRIES);
	x->map.files = prov_xcalloc(count ? count : 1, sizeof(*x->map.files));
	x->map.nfiles = count;
	x->map.file_page = core_rdword(x, d + w);
	names = d + 2 * w + count * 3 * w;
	for (i = 0; i < count; i++) {
		const unsigned char *e = d + 2 * w + i * 3 * w;
		size_t len;

		x->map.files[i].start = core_rdword(x, e);
		x->map.files[i].end = core_rdword(x, e + w);
		x->map.files[i].pgoff = core_rdword(x, e + 2 * w);
		if (names >= end)
			continue;
		len = strnlen((const char *)names, (size_t)(end - names));
		if (names + len >= end)
			break;	/* unterminated: the note was cut */
		x->map.files[i].name = prov_xstrndup((const char *)names, len < MAX_NAME ? len : MAX_NAME);
		names += len + 1;
	}
	{
		size_t named = 0;

		for (i = 0; i < count; i++)
			named += x->map.files[i].name != NULL;
		if (named < count) {
			/* damaged names: the modules they were are missing, and so
			 * is anything drawn from the module list being whole */
			x->c->modules_incomplete = 1;
			prov_warn("'%s': the file note (NT_FILE) names %zu of its %llu mappings (damaged); "
				  "the modules of the others are missing", x->path, named,
				  (unsigned long long)count);
		}
	}
	return 0;
}

static void note_auxv(struct core_ctx *x, const unsigned char *d, size_t n)
{
	size_t w = x->is64 ? 8 : 4, i;

	for (i = 0; i + 2 * w <= n; i += 2 * w) {
		uint64_t type = core_rdword(x, d + i);

		if (type == AT_NULL)
			break;
		if (type == AT_ENTRY) {
			x->notes.has_entry = 1;
			x->notes.entry = core_rdword(x, d + i + w);
		} else if (type == AT_PHDR) {
			x->notes.has_phdr = 1;
			x->notes.phdr = core_rdword(x, d + i + w);
		} else if (type == AT_PHNUM) {
			x->notes.phnum = core_rdword(x, d + i + w);
		} else if (type == AT_BASE) {
			x->notes.interp_base = core_rdword(x, d + i + w);
		} else if (type == AT_SYSINFO_EHDR) {
			x->notes.has_vdso = 1;
			x->notes.vdso = core_rdword(x, d + i + w);
		}
	}
}

/* NT_ARM_PAC_MASK: { data_mask, insn_mask }; the first one counts */
static void note_pac_mask(struct core_ctx *x, const unsigned char *desc, size_t len)
{
	if (x->machine == EM_AARCH64 && !x->notes.has_pac_mask && len >= 16) {
		x->notes.pac_insn_mask = core_rd64(x, desc + 8);
		x->notes.has_pac_mask = 1;
	}
}

int core_parse_notes(struct core_ctx *x, const GElf_Phdr *ph, size_t *nnotes)
{
	Elf_Data *data;
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;
	int error;

	if (!ph->p_filesz)
		return 0;
	data = elf_getdata_rawchunk(x->elf, (int64_t)ph->p_offset, ph->p_filesz,
				    ph->p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
	if (!data)
		return prov_error_set(PROV_EINPUT, "cannot read the notes of '%s': %s",
				      x->path, elf_errmsg(-1));
	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const unsigned char *buf = data->d_buf;
		const unsigned char *desc;
		int core_owner;

		if (++*nnotes > MAX_NOTES)
			return prov_error_set(PROV_ELIMIT, "'%s' has more than %zu notes",
					      x->path, MAX_NOTES);
		if (next <= off || desc_off > data->d_size ||
		    nh.n_descsz > data->d_size - desc_off || name_off > data->d_size ||
		    nh.n_namesz > data->d_size - name_off)
			break;
		desc = buf + desc_off;
		core_owner = nh.n_namesz == 5 && memcmp(buf + name_off, "CORE", 5) == 0;
		/* Linux writes the regset notes but NT_PRSTATUS, NT_PRFPREG, NT_PRPSINFO,
		 * NT_SIGINFO, NT_FILE and NT_AUXV under "LINUX": the PAC mask is one */
		if (nh.n_type == NT_ARM_PAC_MASK && nh.n_namesz == 6 &&
		    memcmp(buf + name_off, "LINUX", 6) == 0)
			note_pac_mask(x, desc, nh.n_descsz);
		if (core_owner) {
			switch (nh.n_type) {
			case NT_PRSTATUS:
				if ((error = note_prstatus(x, desc, nh.n_descsz)) < 0)
					return error;
				break;
			case NT_PRPSINFO:
				note_prpsinfo(x, desc, nh.n_descsz);
				break;
			case NT_ARM_PAC_MASK:	/* as an older writer may have put it */
				note_pac_mask(x, desc, nh.n_descsz);
				break;
			case NT_SIGINFO:
				note_siginfo(x, desc, nh.n_descsz);
				break;
			case NT_FILE:
				if ((error = note_file(x, desc, nh.n_descsz)) < 0)
					return error;
				break;
			case NT_AUXV:
				note_auxv(x, desc, nh.n_descsz);
				break;
			case NT_FPREGSET:	/* the crashing thread's (the first) SSE registers */
				if (x->machine == EM_X86_64 && x->c->nthreads == 1 && !x->notes.has_fpregs &&
				    nh.n_descsz >= sizeof(x->notes.fpregs)) {
					memcpy(x->notes.fpregs, desc, sizeof(x->notes.fpregs));
					x->notes.has_fpregs = 1;
				}
				break;
			}
		}
		off = next;
	}
	return 0;
}

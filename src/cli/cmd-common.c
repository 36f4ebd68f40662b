/* The helpers every command uses: messages to stderr, usage errors, help, writing stdout, --format, --exe. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "config.h"
#include "error.h"
#include "util.h"
#include "image.h"
#include "banned.h"

static void eprint_escaped(struct prov_buf *b)
{
	prov_escape_controls(b, 0, 1);
	fwrite(b->buf, 1, b->len, stderr);
}

void prov_cmd_eprintf(const char *fmt, ...)
{
	struct prov_buf b = PROV_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	prov_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	eprint_escaped(&b);
	prov_buf_release(&b);
}

int prov_cmd_fail(int code)
{
	const char *msg = prov_error_last();

	if (code == PROV_OK)
		return 0;
	prov_cmd_eprintf("provenance: %s\n", *msg ? msg : "unknown error");
	/*
	 * A command that fails wrote no result: exit 1 says "done but
	 * incomplete", a lie when nothing was written (a temporary file that
	 * could not be made, an I/O error). Such errors could not determine
	 * anything: 3.
	 */
	if (prov_error_exit_code(code) == PROV_EXIT_PARTIAL)
		return PROV_EXIT_UNKNOWN;
	return prov_error_exit_code(code);
}

int prov_cmd_usage_error(const struct cmd *c, const char *fmt, ...)
{
	va_list ap;

	struct prov_buf b = PROV_BUF_INIT;

	prov_buf_printf(&b, "provenance %s: ", c->name);
	va_start(ap, fmt);
	prov_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	prov_buf_putc(&b, '\n');
	eprint_escaped(&b);
	prov_buf_release(&b);
	prov_cmd_eprintf("usage: provenance %s\n", c->usage);
	return PROV_EXIT_USAGE;
}

int prov_cmd_help(const struct cmd *c, const char *body)
{
	printf("usage: provenance %s\n\n%s\n", c->usage, c->desc);
	if (body && *body)
		printf("\n%s", body);
	printf("\ncommon options: -c KEY=VALUE, --cache DIR (see 'provenance --help')\n");
	return 0;
}

int prov_cmd_check_exe(const char **pathp)
{
	static char abs[PATH_MAX];
	const char *path = *pathp;
	unsigned char magic[4];
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return prov_error_set(PROV_EINPUT, "--exe '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return prov_error_set(PROV_EINPUT, "--exe '%s' is not a regular file", path);
	}
	n = read(fd, magic, sizeof(magic));
	close(fd);
	if (n != (ssize_t)sizeof(magic) || memcmp(magic, "\177ELF", 4))
		return prov_error_set(PROV_EINPUT, "--exe '%s' is not an ELF executable", path);
	if (path[0] != '/' && realpath(path, abs))
		*pathp = abs;
	return 0;
}

/* The reader of standard output went away (`provenance env | head`). */
static int stdout_gone;

int prov_cmd_write(const char *data, size_t len)
{
	/*
	 * Controls from input never reach the terminal raw: C0 (but \n, \t),
	 * DEL and C1 (U+0080..U+009F, UTF-8 C2 80..C2 9F: CSI is C2 9B). JSON
	 * has none (the writer escapes all three as \uXXXX).
	 */
	size_t i;

	if (stdout_gone)
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)data[i];
		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f ||
		    (c == 0xc2 && i + 1 < len && (unsigned char)data[i + 1] >= 0x80 &&
		     (unsigned char)data[i + 1] <= 0x9f))
			break;
	}
	if (i < len) {
		struct prov_buf b = PROV_BUF_INIT;
		int err = 0;
		b.cap = (size_t)-1;
		prov_buf_add(&b, data, len);
		prov_escape_controls(&b, i, 1);
		if (fwrite(b.buf, 1, b.len, stdout) != b.len) {
			if (errno == EPIPE)
				stdout_gone = 1;	/* as git and coreutils: not an error to report */
			else
				err = prov_error_set(PROV_ERROR, "cannot write to standard output: %s",
						     strerror(errno));
		}
		prov_buf_release(&b);
		return err;
	}
	if (len && fwrite(data, 1, len, stdout) != len) {
		if (errno == EPIPE) {
			/* as git and coreutils: a closed pipe is not an error to report */
			stdout_gone = 1;
			return 0;
		}
		return prov_error_set(PROV_ERROR, "cannot write to standard output: %s",
				      strerror(errno));
	}
	return 0;
}

int prov_cmd_stdout_gone(void)
{
	return stdout_gone;
}

int prov_cmd_parse_format(enum prov_format *out, const char *value, const char *allowed)
{
	static const struct {
		const char *name;
		enum prov_format format;
	} names[] = {
		{ "text", PROV_FORMAT_TEXT },
		{ "markdown", PROV_FORMAT_MARKDOWN },
		{ "json", PROV_FORMAT_JSON },
		{ "table", PROV_FORMAT_TABLE },
		{ "csv", PROV_FORMAT_CSV },
	};
	const char *p = allowed;
	size_t n = strlen(value), i;

	while (*p) {
		const char *bar = strchr(p, '|');
		size_t l = bar ? (size_t)(bar - p) : strlen(p);

		for (i = 0; l == n && strncmp(p, value, n) == 0 && i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(names[i].name, value)) {
				*out = names[i].format;
				return 0;
			}
		p += l;
		if (*p == '|')
			p++;
	}
	return prov_error_set(PROV_EUSAGE, "unknown format '%s' (expected %s)", value,
			      allowed);
}

int prov_cmd_open_sysroot(struct prov_image *img, const char **sysroot, const struct prov_ctx *g)
{
	const char *v = g ? prov_config_get(g->config, "cache.maxsize") : NULL;
	uint64_t max = 0;
	int err;

	if (!*sysroot)
		return 0;
	if (v && (err = prov_image_parse_size(&max, v)) < 0)
		return err;
	if ((err = prov_image_open(img, *sysroot, g ? g->cache_dir : NULL, max)) < 0)
		return err;
	*sysroot = img->root;
	return 0;
}

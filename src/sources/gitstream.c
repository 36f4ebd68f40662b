/* The bounded socket under libgit2's connections in a fetch child (gitstream.h). */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <git2.h>
#include <git2/sys/stream.h>

#include "gitstream.h"
#include "alloc.h"
#include "util.h"
#include "banned.h"

/*
 * libgit2 1.5's own socket stream reads whatever the server sends: an
 * endless ref advertisement was held in memory until the parent killed the
 * fetch, whose error then said the server "got no answer" (nothing reached
 * the progress callbacks). See gitstream.h.
 */

struct bstream {
	git_stream parent;
	char *host, *port;
	int fd;
};

static struct {
	struct prov_gitstream_bounds b;
	uint64_t bytes;	/* read by every stream of this fetch */
	uint64_t last_ping_ms;
	int in_pack;
	char why[200];
} state;

static void mib(char *out, size_t n, uint64_t bytes)
{
	if (bytes >= ((uint64_t)1 << 20) && !(bytes & (((uint64_t)1 << 20) - 1)))
		snprintf(out, n, "%llu MiB", (unsigned long long)(bytes >> 20));
	else
		snprintf(out, n, "%llu bytes", (unsigned long long)bytes);
}

/* what: "the ref advertisement was over" / "the server sent more than"; why: the bound's name */
static int fail(const char *what, uint64_t bound, const char *why)
{
	char size[40];

	mib(size, sizeof(size), bound);
	snprintf(state.why, sizeof(state.why), "%s %s (%s); abandoned", what, size, why);
	git_error_set_str(GIT_ERROR_NET, state.why);
	return -1;
}

static int bs_connect(git_stream *s)
{
	struct bstream *st = (struct bstream *)s;
	struct addrinfo hints, *res = NULL, *ai;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(st->host, st->port, &hints, &res);
	if (rc) {
		git_error_set(GIT_ERROR_NET, "cannot resolve '%s': %s", st->host, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		st->fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (st->fd < 0)
			continue;
		if (connect(st->fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		close(st->fd);
		st->fd = -1;
	}
	freeaddrinfo(res);
	if (st->fd < 0) {
		git_error_set(GIT_ERROR_NET, "cannot connect to '%s' port %s: %s", st->host, st->port,
			      strerror(errno));
		return -1;
	}
	return 0;
}

static ssize_t bs_read(git_stream *s, void *data, size_t len)
{
	struct bstream *st = (struct bstream *)s;
	ssize_t n;

	for (;;) {
		struct pollfd p = { st->fd, POLLIN, 0 };
		int wait = -1, pr;

		if (state.b.deadline_ms) {
			uint64_t now = prov_now_ms();

			if (now >= state.b.deadline_ms) {
				snprintf(state.why, sizeof(state.why), "took longer than %llu s (fetch.timeout)",
					 (unsigned long long)state.b.timeout_s);
				git_error_set_str(GIT_ERROR_NET, state.why);
				return -1;
			}
			wait = (int)(state.b.deadline_ms - now < 1000 ? state.b.deadline_ms - now : 1000);
		}
		pr = poll(&p, 1, wait);
		if (pr < 0 && errno != EINTR) {
			git_error_set(GIT_ERROR_NET, "poll: %s", strerror(errno));
			return -1;
		}
		if (pr > 0)
			break;
	}
	n = recv(st->fd, data, len, 0);
	if (n < 0) {
		git_error_set(GIT_ERROR_NET, "read from '%s': %s", st->host, strerror(errno));
		return -1;
	}
	state.bytes += (uint64_t)n;
	if (n > 0 && state.b.ping_fd >= 0) {
		uint64_t now = prov_now_ms();

		if (now - state.last_ping_ms >= 50) {
			state.last_ping_ms = now;
			if (write(state.b.ping_fd, "P", 1) < 0) {
				/* the parent is gone: nothing to do */
			}
		}
	}
	if (!state.in_pack && state.b.max_advert && state.bytes > state.b.max_advert)
		return fail("the ref advertisement was over", state.b.max_advert, "fetch.maxRefsSize");
	if (state.b.max_bytes && state.bytes > state.b.max_bytes)
		return fail("the server sent more than", state.b.max_bytes, "fetch.maxPackSize");
	return n;
}

static ssize_t bs_write(git_stream *s, const char *data, size_t len, int flags)
{
	struct bstream *st = (struct bstream *)s;
	size_t off = 0;

	(void)flags;
	while (off < len) {
		ssize_t n = send(st->fd, data + off, len - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			git_error_set(GIT_ERROR_NET, "write to '%s': %s", st->host, strerror(errno));
			return -1;
		}
		off += (size_t)n;
	}
	return (ssize_t)len;
}

static int bs_close(git_stream *s)
{
	struct bstream *st = (struct bstream *)s;

	if (st->fd >= 0)
		close(st->fd);
	st->fd = -1;
	return 0;
}

static void bs_free(git_stream *s)
{
	struct bstream *st = (struct bstream *)s;

	if (st->fd >= 0)
		close(st->fd);
	free(st->host);
	free(st->port);
	free(st);
}

static int bs_init(git_stream **out, const char *host, const char *port)
{
	struct bstream *st = prov_xcalloc(1, sizeof(*st));

	st->parent.version = GIT_STREAM_VERSION;
	st->parent.connect = bs_connect;
	st->parent.read = bs_read;
	st->parent.write = bs_write;
	st->parent.close = bs_close;
	st->parent.free = bs_free;
	st->host = prov_xstrdup(host);
	st->port = prov_xstrdup(port);
	st->fd = -1;
	*out = &st->parent;
	return 0;
}

int prov_gitstream_install(const struct prov_gitstream_bounds *b)
{
	git_stream_registration reg;

	memset(&state, 0, sizeof(state));
	state.b = *b;
	memset(&reg, 0, sizeof(reg));
	reg.version = GIT_STREAM_VERSION;
	reg.init = bs_init;
	/* libgit2's TLS (mbedTLS in Debian 12) is set up by git_libgit2_init:
	 * the CA file replaces the chain it loaded (GIT_OPT_SET_SSL_CERT_LOCATIONS) */
	if (b->ca_file && (git_libgit2_init() < 0 ||
			   git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, b->ca_file, NULL) < 0))
		return -1;
	return git_stream_register(GIT_STREAM_STANDARD, &reg) < 0 ? -1 : 0;
}

void prov_gitstream_pack_started(void)
{
	state.in_pack = 1;
}

const char *prov_gitstream_why(void)
{
	return state.why[0] ? state.why : NULL;
}

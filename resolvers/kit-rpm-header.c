/* The resolvers' kit: rpm package headers (the blobs of rpmdb.sqlite), parsed with every count and offset checked. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kit-rpm-header.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/*
 * rpm 4.16+: rpmdb.sqlite, table Packages(hnum, blob). The blobs are parsed
 * here (rpm's format.md): be32 entry count, be32 data length, 16-byte
 * big-endian entries {tag, type, offset, count}, then the data store.
 */

enum {
	TAG_NAME = 1000, TAG_VERSION = 1001, TAG_RELEASE = 1002, TAG_EPOCH = 1003,
	TAG_URL = 1020, TAG_ARCH = 1022, TAG_SOURCERPM = 1044, TAG_VCS = 5034, TAG_DIRINDEXES = 1116,
	TAG_BASENAMES = 1117, TAG_DIRNAMES = 1118,
};
enum { T_INT32 = 4, T_STRING = 6, T_STRING_ARRAY = 8, T_I18NSTRING = 9 };

static uint32_t be32(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

struct hdr {
	const unsigned char *ents, *data;
	uint32_t il, dl;
};

static const unsigned char *find_entry(const struct hdr *h, uint32_t tag)
{
	uint32_t i;

	for (i = 0; i < h->il; i++)
		if (be32(h->ents + (size_t)i * 16) == tag)
			return h->ents + (size_t)i * 16;
	return NULL;
}

/* Up to `want` NUL-terminated strings starting at the entry's offset; each checked. */
static int get_strings(char ***out, uint32_t *nout, const struct hdr *h, uint32_t tag, uint32_t max)
{
	const unsigned char *e = find_entry(h, tag);
	uint32_t type, off, count, i;
	size_t pos;
	char **v;

	*out = NULL;
	*nout = 0;
	if (!e)
		return PROV_ENOTFOUND;
	type = be32(e + 4);
	off = be32(e + 8);
	count = be32(e + 12);
	if (type != T_STRING && type != T_STRING_ARRAY && type != T_I18NSTRING)
		return prov_error_set(PROV_EINPUT, "rpm header: tag %u has type %u, expected a string", tag, type);
	if (type == T_STRING)
		count = 1;
	if (count > max)
		return prov_error_set(PROV_ELIMIT, "rpm header: tag %u has %u strings", tag, count);
	if (off >= h->dl)
		return prov_error_set(PROV_EINPUT, "rpm header: tag %u offset %u past the data (%u bytes)",
				      tag, off, h->dl);
	if (type == T_I18NSTRING)
		count = count ? 1 : 0;
	v = prov_xcalloc((size_t)count + 1, sizeof(*v));
	pos = off;
	for (i = 0; i < count; i++) {
		const unsigned char *nul;

		if (pos >= h->dl) {
			goto bad;
		}
		nul = memchr(h->data + pos, 0, h->dl - pos);
		if (!nul)
			goto bad;
		v[i] = prov_xstrndup((const char *)h->data + pos, (size_t)(nul - (h->data + pos)));
		pos = (size_t)(nul - h->data) + 1;
	}
	*out = v;
	*nout = count;
	return 0;
bad:
	for (i = 0; i < count; i++)
		free(v[i]);
	free(v);
	return prov_error_set(PROV_EINPUT, "rpm header: tag %u runs past the data", tag);
}

static char *get_string(const struct hdr *h, uint32_t tag)
{
	char **v = NULL;
	uint32_t n = 0;
	char *s;

	if (get_strings(&v, &n, h, tag, 1) < 0)
		return NULL;
	if (n < 1) {
		free(v);
		return NULL;
	}
	s = v[0];
	free(v);
	return s;
}

static int get_int32s(uint32_t **out, uint32_t *nout, const struct hdr *h, uint32_t tag, uint32_t max)
{
	const unsigned char *e = find_entry(h, tag);
	uint32_t type, off, count, i;
	uint32_t *v;

	*out = NULL;
	*nout = 0;
	if (!e)
		return PROV_ENOTFOUND;
	type = be32(e + 4);
	off = be32(e + 8);
	count = be32(e + 12);
	if (type != T_INT32)
		return prov_error_set(PROV_EINPUT, "rpm header: tag %u has type %u, expected int32", tag, type);
	if (count > max)
		return prov_error_set(PROV_ELIMIT, "rpm header: tag %u has %u values", tag, count);
	if ((uint64_t)off + (uint64_t)count * 4 > h->dl)
		return prov_error_set(PROV_EINPUT, "rpm header: tag %u runs past the data", tag);
	v = prov_xcalloc((size_t)count + 1, sizeof(*v));
	for (i = 0; i < count; i++)
		v[i] = be32(h->data + off + (size_t)i * 4);
	*out = v;
	*nout = count;
	return 0;
}

static void free_strv(char **v, uint32_t n)
{
	uint32_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void prov_rpm_header_release(struct prov_rpm_header *h)
{
	size_t i;

	if (!h)
		return;
	free(h->name);
	free(h->version);
	free(h->release);
	free(h->arch);
	free(h->sourcerpm);
	free(h->url);
	free(h->vcs);
	for (i = 0; i < h->nfiles; i++)
		free(h->files[i]);
	free(h->files);
	memset(h, 0, sizeof(*h));
}

int prov_rpm_header_parse(struct prov_rpm_header *out, const unsigned char *blob, size_t len)
{
	struct prov_rpm_header r;
	struct hdr h;
	char **base = NULL, **dirs = NULL;
	uint32_t *idx = NULL, nbase = 0, ndirs = 0, nidx = 0, *ep = NULL, nep = 0, i;
	int err;

	memset(&r, 0, sizeof(r));
	if (len < 8)
		return prov_error_set(PROV_EINPUT, "rpm header: %zu bytes, too short", len);
	h.il = be32(blob);
	h.dl = be32(blob + 4);
	if (h.il == 0 || h.il > PROV_RPM_MAX_ENTRIES)
		return prov_error_set(h.il ? PROV_ELIMIT : PROV_EINPUT, "rpm header: %u entries", h.il);
	if (8 + (uint64_t)h.il * 16 + (uint64_t)h.dl > len)
		return prov_error_set(PROV_EINPUT, "rpm header: %u entries and %u data bytes do not fit in %zu bytes",
				      h.il, h.dl, len);
	h.ents = blob + 8;
	h.data = blob + 8 + (size_t)h.il * 16;

	r.name = get_string(&h, TAG_NAME);
	if (!r.name) {
		err = prov_error_set(PROV_EINPUT, "rpm header: no readable name");
		goto cleanup;
	}
	r.version = get_string(&h, TAG_VERSION);
	r.release = get_string(&h, TAG_RELEASE);
	r.arch = get_string(&h, TAG_ARCH);
	r.sourcerpm = get_string(&h, TAG_SOURCERPM);
	r.url = get_string(&h, TAG_URL);
	r.vcs = get_string(&h, TAG_VCS);
	if (get_int32s(&ep, &nep, &h, TAG_EPOCH, 1) == 0 && nep == 1) {
		r.has_epoch = 1;
		r.epoch = ep[0];
	}
	err = get_strings(&base, &nbase, &h, TAG_BASENAMES, PROV_RPM_MAX_FILES);
	if (err == PROV_ENOTFOUND) {
		err = 0;
		goto done;
	}
	if (err < 0)
		goto cleanup;
	if ((err = get_strings(&dirs, &ndirs, &h, TAG_DIRNAMES, PROV_RPM_MAX_FILES)) < 0 ||
	    (err = get_int32s(&idx, &nidx, &h, TAG_DIRINDEXES, PROV_RPM_MAX_FILES)) < 0) {
		if (err == PROV_ENOTFOUND)
			err = prov_error_set(PROV_EINPUT, "rpm header: basenames without dirnames");
		goto cleanup;
	}
	if (nidx != nbase) {
		err = prov_error_set(PROV_EINPUT, "rpm header: %u basenames but %u dirindexes", nbase, nidx);
		goto cleanup;
	}
	r.files = prov_xcalloc((size_t)nbase + 1, sizeof(*r.files));
	for (i = 0; i < nbase; i++) {
		if (idx[i] >= ndirs) {
			err = prov_error_set(PROV_EINPUT, "rpm header: dirindex %u past %u dirnames", idx[i], ndirs);
			goto cleanup;
		}
		r.files[r.nfiles++] = prov_xasprintf("%s%s", dirs[idx[i]], base[i]);
	}
done:
	*out = r;
	memset(&r, 0, sizeof(r));
	err = 0;
cleanup:
	prov_rpm_header_release(&r);
	free_strv(base, nbase);
	free_strv(dirs, ndirs);
	free(idx);
	free(ep);
	return err;
}

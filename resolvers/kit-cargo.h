#ifndef PROV_KIT_CARGO_H
#define PROV_KIT_CARGO_H

#include <stddef.h>

/*
 * The resolvers' kit: cargo-auditable's dependency list (kit-cargo.c).
 *
 * A Rust binary built with `cargo auditable` carries a section `.dep-v0`:
 * zlib-compressed JSON {"format": N, "packages": [{"name", "version",
 * "source", "kind", "dependencies": [index, ...], "root": bool}]} (the
 * format is rust-secure-code/cargo-auditable's PARSING.md and its JSON
 * schema). `source` is only a word ("crates.io", "git", "local",
 * "registry" or another): the format records no repository URL and no
 * commit, for the root package or any dependency.
 */
struct prov_cargo_pkg {
	char *name;	/* a crate name: [A-Za-z0-9_-], at most 64 bytes */
	char *version;	/* semver characters only, starts with a digit */
	char *source;	/* printable ASCII, no spaces */
	int build;	/* kind "build" (else runtime) */
	size_t *deps;	/* indices into the package list, each checked */
	size_t ndeps;
};

struct prov_cargo_audit {
	struct prov_cargo_pkg *pkgs;
	size_t n;
	size_t root;	/* the one package with root: true */
	unsigned long format;	/* 0 when absent */
};

/* Caps on untrusted sections (the format's authors suggest 8 MiB of JSON). */
#define PROV_CARGO_MAX_SECTION ((size_t)4 << 20)	/* compressed bytes */
#define PROV_CARGO_MAX_JSON ((size_t)8 << 20)	/* decompressed bytes */
#define PROV_CARGO_MAX_DEPTH 4	/* {"packages":[{"dependencies":[ */
#define PROV_CARGO_MAX_VALUES 1000000	/* JSON values, counted before parsing */
#define PROV_CARGO_MAX_PACKAGES 20000

/*
 * Decompress and read a .dep-v0 section's bytes. 0 and *out filled (free
 * with prov_cargo_audit_release); PROV_EINPUT when malformed (not zlib,
 * truncated, not the format, a bad name or version, an index out of range,
 * no root or two); PROV_ELIMIT when a cap is hit. The stored message never
 * quotes the section's text. Nothing is left in *out on failure.
 */
int prov_cargo_audit_parse(struct prov_cargo_audit *out, const void *data, size_t len);
void prov_cargo_audit_release(struct prov_cargo_audit *a);

#endif

#ifndef PROV_ERROR_H
#define PROV_ERROR_H

/*
 * Errors: a few negative codes for expected outcomes, -1 for the rest, and one
 * stored message per thread, set where the failure is understood and printed
 * once by the command layer (docs/HACKING.md, "Errors").
 */

enum prov_error_code {
	PROV_OK = 0,
	PROV_ERROR = -1,	/* see prov_error_last() */
	PROV_EINPUT = -2,	/* the user's input is bad: exit 2 */
	PROV_ENOTFOUND = -3,	/* nothing matched: expected */
	PROV_EUSAGE = -4,	/* bad command line: exit 64 */
	PROV_EUNKNOWN = -5,	/* could not determine (network, missing mirror): exit 3 */
	PROV_EPASSTHROUGH = -30,	/* a resolver declines: try the next */
	PROV_ELIMIT = -31,	/* untrusted input hit a hard cap */
};

/*
 * Store a message (printf format) and return `code`, so that callers can write
 * `return prov_error_set(PROV_EINPUT, "'%s' is not a core", path);`.
 * Messages follow git: lowercase, no full stop, subjects in quotes.
 */
int prov_error_set(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The last stored message; "" when none. Valid until the next set/clear. */
const char *prov_error_last(void);

/* The code given with the last stored message; PROV_OK when none. */
int prov_error_last_code(void);

void prov_error_clear(void);

/*
 * Warnings from below the command layer (a broken stanza in a package
 * database, a build-id mismatch): handed to the sink the command layer
 * installed, which decides whether and how to print them. Without a sink
 * they are dropped.
 */
typedef void (*prov_warn_fn)(const char *msg, void *data);
void prov_warn_set_sink(prov_warn_fn fn, void *data);
void prov_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Exit code for an error code: 2 for input errors, 3 for could not determine, 64 for usage, else 1. */
int prov_error_exit_code(int code);

#endif

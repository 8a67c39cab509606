/*
 * jsonw.h - a small buffered streaming JSON writer.
 *
 * Writes objects, arrays, keys and scalars in order, without building a
 * tree, to either a FILE* (through an internal buffer flushed as it fills)
 * or a growable memory buffer (capped). Nesting is checked: a key outside
 * an object, a value without a key inside an object, a mismatched end or
 * more than JSONW_MAX_DEPTH levels set a sticky error instead of producing
 * invalid JSON. Strings are escaped (quotes, backslash, control characters,
 * U+2028/U+2029), and bytes that are not valid UTF-8 are written as \ufffd,
 * so the output is always valid UTF-8 JSON. Doubles are written with the
 * fewest digits (15..17) that read back to the same value, integral values
 * below 1e17 as plain digits (timestamps: 1623142623460172, not 1.6e+15);
 * NaN and infinities are written as null.
 *
 * Errors are sticky: the writing calls return nothing; jsonw_finish()
 * returns NNS_OK or the first error (NNS_EINVAL for misuse, NNS_EIO for a
 * failed write, NNS_ENOMEM for allocation / the buffer cap).
 *
 * Ownership: struct jsonw is caller storage. It never closes the FILE.
 * jsonw_release() frees its buffer; jsonw_take() hands the memory buffer to
 * the caller (free() it).
 */
#ifndef NNS_OUTPUT_JSONW_H
#define NNS_OUTPUT_JSONW_H

#include "common/err.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH 64
#define JSONW_BUF_MAX_DEFAULT ((size_t)1 << 30) /* memory backend cap: 1 GiB */

struct jsonw {
	FILE *f;   /* FILE backend, NULL for the memory backend */
	char *buf; /* staging buffer (FILE) or the output (memory) */
	size_t len, cap;
	size_t max_bytes; /* memory backend cap */
	int err;	  /* first error, NNS_OK if none */
	int depth;
	int pretty_depth;		/* containers opened below this depth are indented */
	int done;			/* a complete top-level value was written */
	uint8_t kind[JSONW_MAX_DEPTH];	/* 'o' or 'a' per open level */
	uint8_t count[JSONW_MAX_DEPTH]; /* 0: no member yet, 1: has members */
	uint8_t want_value;		/* a key was written, its value is due */
};

/* FILE backend; pretty_depth: containers opened at nesting depth
 * < pretty_depth put each member on its own indented line (0 = compact). */
int jsonw_init_file(struct jsonw *w, FILE *f, int pretty_depth);
/* Memory backend, capped at max_bytes (0 = JSONW_BUF_MAX_DEFAULT). */
int jsonw_init_mem(struct jsonw *w, size_t max_bytes, int pretty_depth);
void jsonw_release(struct jsonw *w);

void jsonw_obj_begin(struct jsonw *w);
void jsonw_obj_end(struct jsonw *w);
void jsonw_arr_begin(struct jsonw *w);
void jsonw_arr_end(struct jsonw *w);
void jsonw_key(struct jsonw *w, const char *key);

void jsonw_str(struct jsonw *w, const char *s); /* NULL writes null */
void jsonw_strn(struct jsonw *w, const char *s, size_t n);
void jsonw_int(struct jsonw *w, int64_t v);
void jsonw_double(struct jsonw *w, double v);
void jsonw_bool(struct jsonw *w, int v);
void jsonw_null(struct jsonw *w);

/* key + value shorthands */
void jsonw_kstr(struct jsonw *w, const char *key, const char *s);
void jsonw_kint(struct jsonw *w, const char *key, int64_t v);
void jsonw_kdouble(struct jsonw *w, const char *key, double v);
void jsonw_kbool(struct jsonw *w, const char *key, int v);
void jsonw_knull(struct jsonw *w, const char *key);

/* Checks that exactly one complete value was written, appends a newline,
 * flushes the FILE backend. Returns NNS_OK or the sticky error (err may be
 * NULL; its message names the problem). */
int jsonw_finish(struct jsonw *w, struct nns_err *err);

/* Memory backend: returns the NUL-terminated output and its length and
 * leaves w empty; the caller frees it. NULL on error. */
char *jsonw_take(struct jsonw *w, size_t *len);

/* Formats v like jsonw_double (shortest round-trip of %.15g..%.17g, "null"
 * for NaN/Inf) into buf (>= 32 bytes). Returns the length. */
int jsonw_fmt_double(char *buf, size_t size, double v);

#endif

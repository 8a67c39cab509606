/*
 * ms_csv.h - the CSV reader of MindSpore's profiler files (step trace,
 * cluster, hccl_raw, aicore_intermediate ...): a bounds-checked cursor over
 * a buffer with RFC 4180 quotes (as Python's csv module writes them), rows
 * into fixed-size fields, and whole-field numbers.
 */
#ifndef NNS_MS_CSV_H
#define NNS_MS_CSV_H

#include <stddef.h>

#define MS_CSV_FIELD_MAX ((size_t)64 << 20) /* cap of one field */

/* A cursor over [p, end). field is owned (ms_csv_release frees it). */
struct ms_csv {
	const char *p, *end;
	char *field; /* the unquoted text of the current field, NUL-terminated */
	size_t flen, fcap;
};

void ms_csv_init(struct ms_csv *c, const char *buf, size_t n);
void ms_csv_release(struct ms_csv *c);

/* Reads one field into c->field; *eol is set when the row ends after it.
 * Returns 0, or -1 at end of input before any field, -2 on a bad quote, the
 * field cap or out of memory. */
int ms_csv_field(struct ms_csv *c, int *eol);

/* Skips to the next line. */
void ms_csv_skip_line(struct ms_csv *c);

/* The current field ("" before the first). */
const char *ms_csv_str(const struct ms_csv *c);

/* Reads one row into at most nf fields, field i NUL-terminated at
 * f + i * cap. Returns the number of fields of the row (0 at end of input;
 * nf + 1 when it has more), or -1 when a field needs more than cap - 1
 * bytes or is malformed (the rest of the row is skipped). */
int ms_csv_row(struct ms_csv *c, char *f, int nf, size_t cap);

/* A whole field as a finite number, spaces around it allowed; 0 or -1. */
int ms_csv_num(const char *s, double *out);

#endif

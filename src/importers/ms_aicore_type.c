/*
 * ms_aicore_type.c - aicore_intermediate_<dev>_type.csv -> op statistics by
 * type (definitions in ms_aicore_type.h).
 */
#include "importers/ms_aicore_type.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Splits line [p, end) into at most 4 fields copied into f (each capped).
 * Returns the number of fields, or -1 when one is longer than the cap. */
static int split4(const char *p, const char *end, char f[4][MS_AT_FIELD_MAX])
{
	int k = 0;
	size_t len = 0;

	f[0][0] = 0;
	for (; p < end; p++) {
		if (*p == ',') {
			if (++k >= 4)
				return 5;
			len = 0;
			f[k][0] = 0;
			continue;
		}
		if (*p == '\r')
			continue;
		if (len + 1 >= MS_AT_FIELD_MAX)
			return -1;
		f[k][len++] = *p;
		f[k][len] = 0;
	}
	return k + 1;
}

static int num(const char *s, double *out)
{
	char *e;

	errno = 0;
	*out = strtod(s, &e);
	return (e == s || *e || errno || !isfinite(*out)) ? -1 : 0;
}

static int cmp_total_desc(const void *a, const void *b)
{
	const struct ms_at_row *x = a, *y = b;

	if (x->total_time_us != y->total_time_us)
		return x->total_time_us < y->total_time_us ? 1 : -1;
	return (x->order > y->order) - (x->order < y->order); /* ties: file order */
}

int ms_at_parse(struct ms_at *t, const char *buf, size_t n, struct nns_err *err)
{
	const char *p = buf, *end = buf + n;
	char f[4][MS_AT_FIELD_MAX];
	size_t line = 0;
	int rc = NNS_OK;

	memset(t, 0, sizeof(*t));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		struct ms_at_row r;
		double tot, freq, pc;
		int k;

		line++;
		k = split4(p, le, f);
		p = nl ? nl + 1 : end;
		if (line == 1) {
			if (k != 4 || strcmp(f[0], "kernel_type") || strcmp(f[1], "total_time") ||
			    strcmp(f[2], "execution_frequency") || strcmp(f[3], "percent")) {
				rc = nns_err_set(err, NNS_EFORMAT,
						 "aicore type csv: line 1 is not the header "
						 "kernel_type,total_time,execution_frequency,percent");
				goto out;
			}
			continue;
		}
		if (k == 1 && f[0][0] == 0)
			continue; /* blank line */
		if (k < 0) {
			rc = nns_err_set(err, NNS_EFORMAT, "aicore type csv: line %zu: field longer than %d bytes",
					 line, MS_AT_FIELD_MAX - 1);
			goto out;
		}
		if (k != 4 || num(f[1], &tot) || num(f[2], &freq) || num(f[3], &pc) || freq < 0 ||
		    freq > 1e15 || freq != floor(freq)) {
			rc = nns_err_set(err, NNS_EFORMAT,
					 "aicore type csv: line %zu: need 4 fields: name, ms, calls, percent", line);
			goto out;
		}
		if (t->rows.n >= MS_AT_MAX_ROWS) {
			rc = nns_err_set(err, NNS_EFORMAT, "aicore type csv: more than %d rows", MS_AT_MAX_ROWS);
			goto out;
		}
		memset(&r, 0, sizeof(r));
		{ /* capped copy: a longer name is cut at MS_AT_NAME_MAX-1 bytes */
			size_t len = strnlen(f[0], sizeof(r.kernel_type) - 1);
			memcpy(r.kernel_type, f[0], len);
			r.kernel_type[len] = 0;
		}
		r.execution_frequency = (long)freq;
		r.total_time_us = round(tot * 1000.0 * 100.0) / 100.0;
		r.avg_time_us = freq > 0 ? round(r.total_time_us / freq * 1000.0) / 1000.0 : 0;
		r.total_percent = pc * 100.0;
		r.order = t->rows.n;
		if (vec_push(&t->rows, r)) {
			rc = nns_err_set(err, NNS_ENOMEM, "aicore type csv: out of memory");
			goto out;
		}
	}
	if (line == 0)
		rc = nns_err_set(err, NNS_EFORMAT, "aicore type csv: empty file");
out:
	if (rc) {
		ms_at_release(t);
		return rc;
	}
	if (t->rows.n > 1)
		qsort(t->rows.v, t->rows.n, sizeof(t->rows.v[0]), cmp_total_desc);
	return NNS_OK;
}

void ms_at_release(struct ms_at *t)
{
	vec_free(&t->rows);
}

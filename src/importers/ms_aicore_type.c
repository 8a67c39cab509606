/*
 * ms_aicore_type.c - aicore_intermediate_<dev>_type.csv -> op statistics by
 * type (definitions in ms_aicore_type.h).
 */
#include "importers/ms_aicore_type.h"
#include "importers/ms_csv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_total_desc(const void *a, const void *b)
{
	const struct ms_at_row *x = a, *y = b;

	if (x->total_time_us != y->total_time_us)
		return x->total_time_us < y->total_time_us ? 1 : -1;
	return (x->order > y->order) - (x->order < y->order); /* ties: file order */
}

int ms_at_parse(struct ms_at *t, const char *buf, size_t n, struct nns_err *err)
{
	struct ms_csv c;
	char f[4][MS_AT_FIELD_MAX];
	size_t line = 0;
	int rc = NNS_OK, k;

	memset(t, 0, sizeof(*t));
	ms_csv_init(&c, buf, n);
	while ((k = ms_csv_row(&c, &f[0][0], 4, MS_AT_FIELD_MAX)) != 0) {
		struct ms_at_row r;
		double tot, freq, pc;

		line++;
		if (line == 1) {
			/* MindInsight skips the header and reads the columns by
			 * position: the older header (op_type,execution_time,...)
			 * names the same columns */
			int now = !strcmp(f[0], "kernel_type") && !strcmp(f[1], "total_time");
			int older = !strcmp(f[0], "op_type") && !strcmp(f[1], "execution_time");

			if (k != 4 || !(now || older) || strcmp(f[2], "execution_frequency") ||
			    strcmp(f[3], "percent")) {
				rc = nns_err_set(
				    err, NNS_EFORMAT,
				    "aicore type csv: line 1 is not the header "
				    "kernel_type,total_time,execution_frequency,percent "
				    "(or the older "
				    "op_type,execution_time,execution_frequency,percent)");
				goto out;
			}
			continue;
		}
		if (k == 1 && f[0][0] == 0)
			continue; /* blank line */
		if (k < 0) {
			rc = nns_err_set(err, NNS_EFORMAT,
					 "aicore type csv: line %zu: field longer than %d bytes",
					 line, MS_AT_FIELD_MAX - 1);
			goto out;
		}
		if (k != 4 || ms_csv_num(f[1], &tot) || ms_csv_num(f[2], &freq) ||
		    ms_csv_num(f[3], &pc) || freq < 0 || freq > 1e15 || freq != floor(freq)) {
			rc = nns_err_set(
			    err, NNS_EFORMAT,
			    "aicore type csv: line %zu: need 4 fields: name, ms, calls, percent",
			    line);
			goto out;
		}
		if (t->rows.n >= MS_AT_MAX_ROWS) {
			rc = nns_err_set(err, NNS_EFORMAT, "aicore type csv: more than %d rows",
					 MS_AT_MAX_ROWS);
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
		r.total_percent =
		    round(pc * 100.0 * 100.0) / 100.0; /* 1.16 -> 116, not 115.999... */
		r.order = t->rows.n;
		if (vec_push(&t->rows, r)) {
			rc = nns_err_set(err, NNS_ENOMEM, "aicore type csv: out of memory");
			goto out;
		}
	}
	if (line == 0)
		rc = nns_err_set(err, NNS_EFORMAT, "aicore type csv: empty file");
out:
	ms_csv_release(&c);
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

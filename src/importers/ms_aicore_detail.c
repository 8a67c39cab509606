/*
 * ms_aicore_detail.c - aicore_intermediate_<dev>_detail.csv -> op
 * statistics by op (definitions in ms_aicore_detail.h).
 */
#include "importers/ms_aicore_detail.h"
#include "importers/ms_csv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void copy_capped(char *dst, size_t size, const char *src, size_t len)
{
	if (len > size - 1)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = 0;
}

static int fill(struct ms_ad_row *r, char f[3][MS_AD_FIELD_MAX])
{
	const char *base = strrchr(f[0], '/'), *op;
	double t, freq;

	if (ms_csv_num(f[1], &t) || ms_csv_num(f[2], &freq) || freq < 0 || freq > 1e15 ||
	    freq != floor(freq))
		return -1;
	base = base ? base + 1 : f[0];
	op = strstr(base, "-op");
	memset(r, 0, sizeof(*r));
	copy_capped(r->op_name, sizeof(r->op_name), f[0], strlen(f[0]));
	copy_capped(r->kernel_name, sizeof(r->kernel_name), base, strlen(base));
	copy_capped(r->kernel_type, sizeof(r->kernel_type), base,
		    op ? (size_t)(op - base) : strlen(base));
	r->avg_execution_time_us = round(t * 1000.0 * 1000.0) / 1000.0;
	r->execution_frequency = (long)freq;
	return 0;
}

/* avg descending, ties in file order */
static int cmp_avg_desc(const void *a, const void *b)
{
	const struct ms_ad_row *x = a, *y = b;

	if (x->avg_execution_time_us != y->avg_execution_time_us)
		return x->avg_execution_time_us < y->avg_execution_time_us ? 1 : -1;
	return (x->order > y->order) - (x->order < y->order);
}

int ms_ad_parse(struct ms_ad *t, const char *buf, size_t n, struct nns_err *err)
{
	struct ms_csv c;
	char g[3][MS_AD_FIELD_MAX];
	size_t line = 0;
	int rc = NNS_OK, k;

	memset(t, 0, sizeof(*t));
	ms_csv_init(&c, buf, n);
	while ((k = ms_csv_row(&c, &g[0][0], 3, MS_AD_FIELD_MAX)) != 0) {
		struct ms_ad_row r;

		line++;
		if (line == 1) {
			/* "full_kernel_time": the header of MindInsight's own test resource */
			if (k != 3 ||
			    (strcmp(g[0], "full_kernel_name") &&
			     strcmp(g[0], "full_kernel_time")) ||
			    strcmp(g[1], "execution_time") || strcmp(g[2], "execution_frequency")) {
				rc = nns_err_set(
				    err, NNS_EFORMAT,
				    "aicore detail csv: line 1 is not the header "
				    "full_kernel_name,execution_time,execution_frequency");
				goto out;
			}
			continue;
		}
		if (k == 1 && g[0][0] == 0)
			continue;
		if (k < 0) {
			rc = nns_err_set(err, NNS_EFORMAT,
					 "aicore detail csv: line %zu: field longer than %d bytes",
					 line, MS_AD_FIELD_MAX - 1);
			goto out;
		}
		if (k != 3 || fill(&r, g)) {
			rc = nns_err_set(
			    err, NNS_EFORMAT,
			    "aicore detail csv: line %zu: need 3 fields: name, ms, calls", line);
			goto out;
		}
		if (t->rows.n >= MS_AD_MAX_ROWS) {
			rc = nns_err_set(err, NNS_EFORMAT, "aicore detail csv: more than %d rows",
					 MS_AD_MAX_ROWS);
			goto out;
		}
		r.order = t->rows.n;
		if (vec_push(&t->rows, r)) {
			rc = nns_err_set(err, NNS_ENOMEM, "aicore detail csv: out of memory");
			goto out;
		}
	}
	if (line == 0)
		rc = nns_err_set(err, NNS_EFORMAT, "aicore detail csv: empty file");
out:
	ms_csv_release(&c);
	if (rc) {
		ms_ad_release(t);
		return rc;
	}
	if (t->rows.n > 1)
		qsort(t->rows.v, t->rows.n, sizeof(t->rows.v[0]), cmp_avg_desc);
	return NNS_OK;
}

void ms_ad_release(struct ms_ad *t)
{
	vec_free(&t->rows);
}

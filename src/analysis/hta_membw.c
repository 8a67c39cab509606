/*
 * hta_membw.c - HTA's memory bandwidth analysis (TraceCounters.
 * get_memory_bw_summary / get_memory_bw_time_series) for one worker.
 *
 * Memcpy and memset device events are grouped by kind, HTA's
 * get_memory_kernel_type: "Memset", the first 11 characters of a memcpy's
 * name ("Memcpy HtoD", "Memcpy DtoH", "Memcpy DtoD", "Memcpy PtoP", ...,
 * from Kineto's "Memcpy HtoD (Pageable -> Device)"), or "Memcpy Unknown".
 * An operation's bandwidth is Kineto's "memory bandwidth (GB/s)" argument,
 * the column HTA reads (CUPTI's bytes over the exact duration: `dur` is
 * rounded to us, so bytes / dur can be far off for short copies); only
 * when a trace lacks it (PyTorch 1.x, nnscope's own traces), bytes /
 * duration in ns = GB/s, a zero duration counting as 1 ns. Per kind:
 * operations, bytes, busy time, mean/min/max of the per-operation
 * bandwidth, bytes/time, and the time series HTA draws:
 * +bandwidth at each start, -bandwidth at each end, summed (the bandwidth
 * of all copies of that kind in flight), with its peak.
 *
 * The summary is HTA's: describe() (count, mean, std, quartiles, max)
 * over the points of the series that are > 0.
 *
 * Differences from HTA: nnscope also reports per-operation statistics
 * (what one copy achieved) and the series' peak. At equal timestamps ends
 * come before starts, so back-to-back copies do not add up to a spike (HTA's
 * sort leaves ties in any order), and the running sum is reset to exactly
 * 0 whenever no copy is in flight (HTA clamps float drift below 0). A
 * copy's series interval is [ts, ts + max(dur, 1 ns)) (HTA rounds a zero
 * dur up to 1 of its units, 1 us). Only memcpy/memset events count (HTA
 * also takes a kernel named "Memcpy..."); their stream is not required.
 * Operations with neither the argument nor bytes count in count and time
 * but not in any bandwidth figure. All devices of the worker are summed
 * per kind, as HTA does per rank.
 */
#include "analysis/hta_time.h"
#include "common/satmath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct row {
	int64_t ts;
	double delta;
	uint32_t kind;
	int32_t start; /* 1 start, 0 end */
};

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->start - y->start; /* ends first */
}

static int cmp_kind(const void *a, const void *b)
{
	return strcmp(((const struct hta_membw_kind *)a)->name,
		      ((const struct hta_membw_kind *)b)->name);
}

static void kind_name(const struct model *m, const struct model_event *e, char *dst, size_t size)
{
	const char *name = model_str(m, e->name);
	size_t n;

	if (e->kind == MK_MEMSET || (name && strncmp(name, "Memset", 6) == 0)) {
		snprintf(dst, size, "Memset");
		return;
	}
	if (!name || strncmp(name, "Memcpy", 6) != 0) {
		snprintf(dst, size, "Memcpy Unknown");
		return;
	}
	n = strlen(name);
	if (n > 11)
		n = 11;
	while (n > 6 && name[n - 1] == ' ')
		n--;
	snprintf(dst, size, "%.*s", (int)n, name);
}

/* Sets *hit to the kind called name, adding it if new; past
 * HTA_MEMBW_MAX_KINDS - 1 distinct kinds, new names share "Memcpy Other"
 * (odd names cannot grow the list or make the lookups quadratic).
 * 0 or NNS_ENOMEM. */
static int find_kind(struct hta_membw *out, const char *name, size_t *hit)
{
	struct hta_membw_kind z;
	size_t i;

	if (*hit < out->kinds.n && strcmp(out->kinds.v[*hit].name, name) == 0)
		return NNS_OK;
	for (i = 0; i < out->kinds.n; i++)
		if (strcmp(out->kinds.v[i].name, name) == 0) {
			*hit = i;
			return NNS_OK;
		}
	if (out->kinds.n >= HTA_MEMBW_MAX_KINDS - 1 && strcmp(name, "Memcpy Other") != 0)
		return find_kind(out, "Memcpy Other", hit);
	memset(&z, 0, sizeof(z));
	snprintf(z.name, sizeof(z.name), "%s", name);
	if (vec_push(&out->kinds, z) != 0)
		return NNS_ENOMEM;
	*hit = out->kinds.n - 1;
	return NNS_OK;
}

/* The bandwidth of a memcpy/memset in GB/s: Kineto's "memory bandwidth
 * (GB/s)" argument when the trace has it (what HTA reads: CUPTI's bytes
 * over the exact duration), else bytes / dur in ns (dur 0 counts as 1 ns);
 * -1 when neither is known. *kineto is set when the argument was used. */
static double op_bw(const struct model *m, const struct model_event *e, int *kineto)
{
	const struct model_dev_args *a;

	*kineto = 0;
	if (e->extra == MODEL_NOIDX || e->extra >= m->dev_args.n)
		return -1;
	a = &m->dev_args.v[e->extra];
	if (a->mem_bw > 0) {
		*kineto = 1;
		return a->mem_bw;
	}
	if (a->bytes < 0)
		return -1;
	return (double)a->bytes / (double)(e->dur > 0 ? e->dur : 1);
}

/* bytes of e, -1 if absent */
static int64_t op_bytes(const struct model *m, const struct model_event *e)
{
	return e->extra != MODEL_NOIDX && e->extra < m->dev_args.n ? m->dev_args.v[e->extra].bytes
								   : -1;
}

static int is_mem_op(const struct model_event *e)
{
	return e->kind == MK_MEMCPY || e->kind == MK_MEMSET;
}

/* The kind of memory operation e (find_kind: added if new, *hit its
 * index); NULL when out of memory. */
static struct hta_membw_kind *kind_of(const struct model *m, const struct model_event *e,
				      struct hta_membw *out, size_t *hit)
{
	char name[16];

	kind_name(m, e, name, sizeof(name));
	return find_kind(out, name, hit) == 0 ? &out->kinds.v[*hit] : NULL;
}

typedef VEC(struct row) row_vec;

/* One memory operation e into its kind (k: count, time, bytes, and the
 * bandwidth statistics when e has a bandwidth; bw_mean a sum until
 * finish_kinds), and its start and end rows into rows when it has one. */
static int add_op(const struct model *m, const struct model_event *e, struct hta_membw_kind *k,
		  uint32_t kind, row_vec *rows)
{
	int64_t bytes;
	double bw;
	int kineto;

	k->count++;
	k->time = sat_add64(k->time, e->dur);
	if ((bytes = op_bytes(m, e)) >= 0) {
		k->with_bytes++;
		k->bytes = sat_add64(k->bytes, bytes);
		k->bw_avg += (double)(e->dur > 0 ? e->dur : 1); /* the time, until the end */
	}
	if ((bw = op_bw(m, e, &kineto)) < 0)
		return 0;
	if (k->with_bw == 0 || bw < k->bw_min)
		k->bw_min = bw;
	if (k->with_bw == 0 || bw > k->bw_max)
		k->bw_max = bw;
	k->bw_mean += bw;
	k->with_bw++;
	k->kineto_bw += kineto;
	if (vec_push(rows, ((struct row){e->ts, bw, kind, 1})) ||
	    vec_push(rows, ((struct row){e->ts + (e->dur > 0 ? e->dur : 1), -bw, kind, 0})))
		return NNS_ENOMEM;
	return 0;
}

/* Every memcpy/memset of the trace into its kind and the series rows. */
static int scan_ops(const struct model *m, struct hta_membw *out, row_vec *rows)
{
	size_t i, hit = 0;

	for (i = 0; i < m->events.n && (m->kinds & (MODEL_KB(MK_MEMCPY) | MODEL_KB(MK_MEMSET)));
	     i++) {
		const struct model_event *e = &m->events.v[i];
		struct hta_membw_kind *k;

		if (!is_mem_op(e))
			continue;
		if (!(k = kind_of(m, e, out, &hit)) || add_op(m, e, k, (uint32_t)hit, rows))
			return NNS_ENOMEM;
	}
	return 0;
}

/* Kind k's series, peak and summary from its rows r[0 .. n) (by time);
 * vals: room for n values. */
static int kind_series(struct hta_membw_kind *k, const struct row *r, size_t n, double *vals)
{
	struct hta_ds ds;
	double sum = 0;
	int64_t active = 0;
	size_t nv = 0;

	hta_ds_init(&ds, &k->series, r[0].ts, r[n - 1].ts, n, HTA_SERIES_MAX_POINTS);
	for (size_t i = 0; i < n; i++) {
		active += r[i].start ? 1 : -1;
		sum = active > 0 ? sum + r[i].delta : 0;
		if (sum < 0)
			sum = 0;
		if (sum > k->peak)
			k->peak = sum;
		if (sum > 0)
			vals[nv++] = sum;
		hta_ds_add(&ds, r[i].ts, sum);
	}
	hta_describe_of(vals, nv, &k->summary);
	return hta_ds_finish(&ds);
}

/* The means from the sums, and the kinds by name. */
static void finish_kinds(struct hta_membw *out)
{
	for (size_t i = 0; i < out->kinds.n; i++) {
		struct hta_membw_kind *k = &out->kinds.v[i];

		if (k->with_bw > 0)
			k->bw_mean /= (double)k->with_bw;
		if (k->with_bytes > 0)
			k->bw_avg = (double)k->bytes / k->bw_avg;
	}
	if (out->kinds.n > 1)
		qsort(out->kinds.v, out->kinds.n, sizeof(*out->kinds.v), cmp_kind);
}

int hta_membw_compute(const struct model *m, struct hta_membw *out, struct nns_err *err)
{
	row_vec rows = {0};
	double *vals = NULL; /* one kind's series values > 0, for its summary */
	size_t i, j, nr;
	int rc = NNS_ENOMEM;

	memset(out, 0, sizeof(*out));
	if (scan_ops(m, out, &rows) != 0)
		goto out;
	nr = rows.n;
	if (nr > 0 && !(vals = malloc(nr * sizeof(*vals))))
		goto out;
	if (nr > 1)
		qsort(rows.v, nr, sizeof(*rows.v), cmp_row);
	for (i = 0; i < nr; i = j) {
		for (j = i; j < nr && rows.v[j].kind == rows.v[i].kind; j++)
			;
		if (kind_series(&out->kinds.v[rows.v[i].kind], rows.v + i, j - i, vals) != 0)
			goto out;
	}
	finish_kinds(out);
	rc = NNS_OK;
out:
	vec_free(&rows);
	free(vals);
	if (rc != NNS_OK)
		return nns_err_set(err, rc, "memory bandwidth: out of memory");
	return rc;
}

void hta_membw_release(struct hta_membw *t)
{
	size_t i;

	for (i = 0; i < t->kinds.n; i++)
		vec_free(&t->kinds.v[i].series);
	vec_free(&t->kinds);
}

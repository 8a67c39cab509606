/*
 * ms_aicpu.c - AI CPU call files -> MindInsight's AICPU by-type and by-op
 * tables (definitions in ms_aicpu.h).
 */
#include "importers/ms_aicpu.h"
#include "common/hmap.h"
#include "importers/ms_csv.h"
#include "importers/ms_read.h"
#include "common/strhash.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FIELD_MAX MS_AICPU_NAME_MAX

void ms_aicpu_release(struct ms_aicpu *a)
{
	vec_free(&a->calls);
	vec_free(&a->types);
	vec_free(&a->ops);
	vec_free(&a->s);
	a->source = MS_AICPU_NONE;
	a->footer_ms = NAN;
}

static void blank(struct ms_aicpu *a)
{
	memset(a, 0, sizeof(*a));
	a->footer_ms = NAN;
}

static int add_strn(struct ms_aicpu *a, const char *s, size_t n, size_t *off)
{
	return ms_strs_add(&a->s, s, n, off);
}

static double round_to(double x, double scale)
{
	return round(x * scale) / scale;
}

/* Group index of name among groups whose name offsets are at key_off(i);
 * appends a group when new (*is_new). Collisions fall back to a scan. */
struct grp {
	struct hmap h;
	VEC(size_t) names; /* offset of each group's key in a->s */
};

static int64_t group_of(struct grp *g, const struct ms_aicpu *a, const char *key, size_t key_off,
			int *is_new)
{
	uint64_t hv = strhash(key);
	uint32_t *slot = hmap_get(&g->h, hv);
	size_t i;

	*is_new = 0;
	if (slot && !strcmp(ms_aicpu_str(a, g->names.v[*slot]), key))
		return *slot;
	if (slot) /* hash collision: scan */
		for (i = 0; i < g->names.n; i++)
			if (!strcmp(ms_aicpu_str(a, g->names.v[i]), key))
				return (int64_t)i;
	if (vec_push(&g->names, key_off))
		return -1;
	if (!slot && !hmap_put(&g->h, hv, (uint32_t)(g->names.n - 1), is_new))
		return -1;
	*is_new = 1;
	return (int64_t)g->names.n - 1;
}

static int cmp_type(const void *x, const void *y)
{
	const struct ms_aicpu_type *a = x, *b = y;

	if (a->total_time_us != b->total_time_us)
		return a->total_time_us < b->total_time_us ? 1 : -1;
	return (a->order > b->order) - (a->order < b->order);
}

static int cmp_op(const void *x, const void *y)
{
	const struct ms_aicpu_op *a = x, *b = y;

	if (a->avg_execution_time_us != b->avg_execution_time_us)
		return a->avg_execution_time_us < b->avg_execution_time_us ? 1 : -1;
	return (a->order > b->order) - (a->order < b->order);
}

/* Builds types and ops from calls. */
static int tables(struct ms_aicpu *a)
{
	struct grp gt, go;
	VEC(double) tsum = {0};
	VEC(double) osum = {0};
	VEC(double) dsum = {0};
	double all = 0;
	size_t i;
	int rc = NNS_ENOMEM;

	memset(&gt, 0, sizeof(gt));
	memset(&go, 0, sizeof(go));
	hmap_init(&gt.h);
	hmap_init(&go.h);
	for (i = 0; i < a->calls.n; i++) {
		const struct ms_aicpu_call *c = &a->calls.v[i];
		const char *nm = ms_aicpu_str(a, c->name);
		size_t tl = strcspn(nm, "-"), toff;
		char tbuf[FIELD_MAX];
		int64_t ti, oi;
		int is_new;

		memcpy(tbuf, nm, tl);
		tbuf[tl] = 0;
		ti = group_of(&gt, a, tbuf, 0, &is_new);
		if (ti < 0)
			goto out;
		if (is_new) {
			struct ms_aicpu_type t;

			if (add_strn(a, tbuf, tl, &toff))
				goto out;
			/* nm may have moved with a->s; the new group's key is toff */
			gt.names.v[ti] = toff;
			memset(&t, 0, sizeof(t));
			t.type = toff;
			t.order = (size_t)ti;
			if (vec_push(&a->types, t) || vec_push(&tsum, 0.0))
				goto out;
		}
		nm = ms_aicpu_str(a, c->name);
		oi = group_of(&go, a, nm, c->name, &is_new);
		if (oi < 0)
			goto out;
		if (is_new) {
			struct ms_aicpu_op o;

			memset(&o, 0, sizeof(o));
			o.name = c->name;
			o.type = a->types.v[ti].type;
			o.order = (size_t)oi;
			if (vec_push(&a->ops, o) || vec_push(&osum, 0.0) || vec_push(&dsum, 0.0))
				goto out;
		}
		tsum.v[ti] += c->total_ms;
		a->types.v[ti].execution_frequency++;
		osum.v[oi] += c->total_ms;
		dsum.v[oi] += c->dispatch_ms;
		a->ops.v[oi].execution_frequency++;
	}
	for (i = 0; i < a->types.n; i++)
		all += tsum.v[i] * 1000.0;
	for (i = 0; i < a->types.n; i++) {
		struct ms_aicpu_type *t = &a->types.v[i];

		t->total_time_us = round_to(tsum.v[i] * 1000.0, 1000.0);
		t->percent = all != 0 ? round_to(t->total_time_us / all * 100.0, 100.0) : 0;
	}
	for (i = 0; i < a->ops.n; i++) {
		struct ms_aicpu_op *o = &a->ops.v[i];
		double k = (double)o->execution_frequency;

		o->avg_execution_time_us = round_to(osum.v[i] / k * 1000.0, 1000.0);
		o->avg_dispatch_time_us = round_to(dsum.v[i] / k * 1000.0, 1000.0);
	}
	if (a->types.n > 1)
		qsort(a->types.v, a->types.n, sizeof(a->types.v[0]), cmp_type);
	if (a->ops.n > 1)
		qsort(a->ops.v, a->ops.n, sizeof(a->ops.v[0]), cmp_op);
	rc = NNS_OK;
out:
	hmap_release(&gt.h);
	hmap_release(&go.h);
	vec_free(&gt.names);
	vec_free(&go.names);
	vec_free(&tsum);
	vec_free(&osum);
	vec_free(&dsum);
	return rc;
}

static int push_call(struct ms_aicpu *a, struct ms_aicpu_call *c, const char *name, size_t nlen,
		     const char *file, struct nns_err *err)
{
	if (nlen == 0 || nlen >= MS_AICPU_NAME_MAX)
		return nns_err_set(err, NNS_EFORMAT, "%s:%zu: kernel name empty or longer than %d",
				   file, c->line, MS_AICPU_NAME_MAX - 1);
	if (!(c->total_ms >= 0) || !(c->dispatch_ms >= 0))
		return nns_err_set(err, NNS_EFORMAT, "%s:%zu: negative time", file, c->line);
	if (a->calls.n >= MS_AICPU_MAX_CALLS)
		return nns_err_set(err, NNS_EFORMAT, "%s: more than %d calls", file,
				   MS_AICPU_MAX_CALLS);
	if (add_strn(a, name, nlen, &c->name) || vec_push(&a->calls, *c))
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", file);
	return NNS_OK;
}

static int finish(struct ms_aicpu *a, int rc, int source, const char *file, struct nns_err *err)
{
	if (!rc && tables(a))
		rc = nns_err_set(err, NNS_ENOMEM, "%s: out of memory", file);
	if (rc) {
		ms_aicpu_release(a);
		return rc;
	}
	a->source = source;
	return NNS_OK;
}

static int num_int(const char *s, long *v)
{
	double d;

	if (ms_csv_num(s, &d) || d != floor(d) || fabs(d) > 9e15)
		return -1;
	*v = (long)d;
	return 0;
}

int ms_aicpu_parse_csv(struct ms_aicpu *a, const char *buf, size_t n, const char *name,
		       struct nns_err *err)
{
	struct ms_csv c;
	char f[8][FIELD_MAX];
	size_t line = 0;
	int rc = NNS_OK, k, ncol = 0;

	blank(a);
	if (!name)
		name = "aicpu csv";
	ms_csv_init(&c, buf, n);
	while ((k = ms_csv_row(&c, &f[0][0], 8, FIELD_MAX)) != 0) {
		struct ms_aicpu_call call;
		int bad;

		line++;
		if (k < 0) {
			rc = nns_err_set(err, NNS_EFORMAT, "%s:%zu: field longer than %d bytes",
					 name, line, FIELD_MAX - 1);
			goto out;
		}
		if (line == 1) {
			if ((k != 6 && k != 7) ||
			    (strcmp(f[0], "serial_number") && strcmp(f[0], "serial_num"))) {
				rc = nns_err_set(
				    err, NNS_EFORMAT,
				    "%s:1: not the header serial_number,kernel_type,"
				    "total_time,dispatch_time[,execution_time],run_start,"
				    "run_end",
				    name);
				goto out;
			}
			ncol = k;
			continue;
		}
		if (k == 1 && f[0][0] == 0)
			continue;
		if (k != ncol) {
			rc = nns_err_set(err, NNS_EFORMAT, "%s:%zu: %d fields, the header has %d",
					 name, line, k, ncol);
			goto out;
		}
		memset(&call, 0, sizeof(call));
		call.line = line;
		call.exec_ms = NAN;
		bad = num_int(f[0], &call.serial) || ms_csv_num(f[2], &call.total_ms) ||
		      ms_csv_num(f[3], &call.dispatch_ms) ||
		      (ncol == 7 && ms_csv_num(f[4], &call.exec_ms)) ||
		      ms_csv_num(f[ncol - 2], &call.run_start) ||
		      ms_csv_num(f[ncol - 1], &call.run_end);
		if (bad) {
			rc = nns_err_set(err, NNS_EFORMAT, "%s:%zu: a number field is not a number",
					 name, line);
			goto out;
		}
		rc = push_call(a, &call, f[1], strlen(f[1]), name, err);
		if (rc)
			goto out;
	}
	if (line == 0)
		rc = nns_err_set(err, NNS_EFORMAT, "%s:1: empty file", name);
out:
	ms_csv_release(&c);
	return finish(a, rc, MS_AICPU_CSV, name, err);
}

/* Splits [p, e) on blanks into at most max tokens; returns the count. */
static int tokens(const char *p, const char *e, const char **tok, size_t *len, int max)
{
	int k = 0;

	while (p < e) {
		const char *s;

		while (p < e && isspace((unsigned char)*p))
			p++;
		if (p >= e)
			break;
		s = p;
		while (p < e && !isspace((unsigned char)*p))
			p++;
		if (k < max) {
			tok[k] = s;
			len[k] = (size_t)(p - s);
		}
		k++;
	}
	return k;
}

static int tok_num(const char *t, size_t n, double *v)
{
	char tmp[64];

	if (n == 0 || n >= sizeof(tmp))
		return -1;
	memcpy(tmp, t, n);
	tmp[n] = 0;
	return ms_csv_num(tmp, v);
}

int ms_aicpu_parse_txt(struct ms_aicpu *a, const char *buf, size_t n, const char *name,
		       struct nns_err *err)
{
	static const char footer[] = "AI CPU Total Time(ms):";
	const char *p = buf, *end = buf + n;
	size_t line = 0;
	int rc = NNS_OK, header = 0;

	blank(a);
	if (!name)
		name = "aicpu txt";
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end, *q = p;
		const char *tok[7];
		size_t len[7];
		struct ms_aicpu_call c;
		double serial;
		int k;

		line++;
		p = nl ? nl + 1 : end;
		while (q < le && isspace((unsigned char)*q))
			q++;
		if (q >= le || *q == '-')
			continue; /* blank line or the "----" rule */
		if ((size_t)(le - q) >= sizeof(footer) - 1 &&
		    !memcmp(q, footer, sizeof(footer) - 1)) {
			double v;

			k = tokens(q + sizeof(footer) - 1, le, tok, len, 7);
			if (k != 1 || tok_num(tok[0], len[0], &v)) {
				rc = nns_err_set(err, NNS_EFORMAT, "%s:%zu: bad total line", name,
						 line);
				goto out;
			}
			a->footer_ms = v;
			continue;
		}
		k = tokens(q, le, tok, len, 7);
		if (!header) {
			if (k != 6 || len[0] != 13 || memcmp(tok[0], "serial_number", 13)) {
				rc = nns_err_set(
				    err, NNS_EFORMAT,
				    "%s:%zu: not the header serial_number node_type_name "
				    "total_time(ms) dispatch_time(ms) run_start run_end",
				    name, line);
				goto out;
			}
			header = 1;
			continue;
		}
		memset(&c, 0, sizeof(c));
		c.line = line;
		c.exec_ms = NAN;
		if (k != 6 || tok_num(tok[0], len[0], &serial) || serial != floor(serial) ||
		    fabs(serial) > 9e15 || /* a long, as num_int's */
		    tok_num(tok[2], len[2], &c.total_ms) ||
		    tok_num(tok[3], len[3], &c.dispatch_ms) ||
		    tok_num(tok[4], len[4], &c.run_start) || tok_num(tok[5], len[5], &c.run_end)) {
			rc = nns_err_set(err, NNS_EFORMAT,
					 "%s:%zu: need 6 columns: serial name total_ms dispatch_ms "
					 "run_start run_end",
					 name, line);
			goto out;
		}
		c.serial = (long)serial;
		rc = push_call(a, &c, tok[1], len[1], name, err);
		if (rc)
			goto out;
	}
	if (!header)
		rc = nns_err_set(err, NNS_EFORMAT, "%s:%zu: no header line", name, line ? line : 1);
out:
	return finish(a, rc, MS_AICPU_TXT, name, err);
}

int ms_aicpu_load(struct ms_aicpu *a, const struct ms_src *s, struct nns_err *err)
{
	char path[4096];
	char *buf;
	size_t n;
	int rc;

	blank(a);
	rc = ms_read(s, "aicpu_intermediate_", ".csv", path, sizeof(path), &buf, &n, err);
	if (rc)
		return rc;
	if (buf) {
		rc = ms_aicpu_parse_csv(a, buf, n, path, err);
		free(buf);
		return rc;
	}
	rc = ms_read(s, "output_data_preprocess_aicpu_", ".txt", path, sizeof(path), &buf, &n, err);
	if (rc || !buf)
		return rc;
	rc = ms_aicpu_parse_txt(a, buf, n, path, err);
	free(buf);
	return rc;
}

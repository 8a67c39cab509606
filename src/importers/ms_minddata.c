/*
 * ms_minddata.c - the MindData queue files of one MindSpore device
 * (ms_minddata.h): device_queue_profiling_<dev>.txt /
 * dataset_iterator_profiling_<dev>.txt (host queue) and minddata_aicpu_<dev>.txt
 * / minddata_getnext_profiling_<dev>.txt (chip GetNext), plus the file
 * helpers the other ms_minddata*.c readers share.
 */
#include "importers/ms_minddata.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- files ----------------------------------------------------------- */

int ms_md_slurp(const struct ms_src *s, const char *pre, const char *post, char *path, char **buf,
		size_t *len, struct nns_err *err)
{
	int rc;

	if (ms_src_path(s, pre, post, path, MS_MD_PATH_MAX))
		return nns_err_set(err, NNS_EINVAL, "%s/%s%d%s: path too long", s->dir, pre, s->dev,
				   post);
	rc = ms_src_read(s, pre, post, MS_MD_FILE_MAX, buf, len, err);
	if (rc == NNS_ENOTFOUND) {
		nns_err_clear(err);
		return 1;
	}
	return rc;
}

/* ---- whitespace-separated lines -------------------------------------- */

#define MAX_TOK 8

struct tok {
	const char *s;
	size_t n;
};

/* Splits [p, eol) on blanks into at most MAX_TOK tokens; the count (which
 * may exceed MAX_TOK: only the first MAX_TOK are stored). */
static int split(const char *p, const char *eol, struct tok *t)
{
	int k = 0;

	while (p < eol) {
		const char *q;

		while (p < eol &&
		       (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f'))
			p++;
		if (p >= eol)
			break;
		q = p;
		while (q < eol &&
		       !(*q == ' ' || *q == '\t' || *q == '\r' || *q == '\v' || *q == '\f'))
			q++;
		if (k < MAX_TOK) {
			t[k].s = p;
			t[k].n = (size_t)(q - p);
		}
		k++;
		p = q;
	}
	return k;
}

/* Splits the line at *p into t (split()), moves *p past it and counts it
 * in *line; returns the number of fields. */
static int next_line(const char **p, const char *end, size_t *line, struct tok *t)
{
	const char *eol = memchr(*p, '\n', (size_t)(end - *p));
	int k;

	if (!eol)
		eol = end;
	++*line;
	k = split(*p, eol, t);
	*p = eol < end ? eol + 1 : end;
	return k;
}

static int tok_i64(const struct tok *t, int64_t *out)
{
	char tmp[32], *e;
	long long v;

	if (t->n == 0 || t->n >= sizeof(tmp))
		return -1;
	memcpy(tmp, t->s, t->n);
	tmp[t->n] = '\0';
	errno = 0;
	v = strtoll(tmp, &e, 10);
	if (*e || errno)
		return -1;
	*out = (int64_t)v;
	return 0;
}

static int tok_dbl(const struct tok *t, double *out)
{
	char tmp[64], *e;

	if (t->n == 0 || t->n >= sizeof(tmp))
		return -1;
	memcpy(tmp, t->s, t->n);
	tmp[t->n] = '\0';
	errno = 0;
	*out = strtod(tmp, &e);
	return (*e || errno || !isfinite(*out)) ? -1 : 0;
}

static int bad(struct nns_err *err, const char *name, size_t line, const char *why)
{
	return nns_err_set(err, NNS_EFORMAT, "%s:%zu: %s", name, line, why);
}

/* ---- device queue ---------------------------------------------------- */

void ms_md_dq_release(struct ms_md_dq *q)
{
	vec_free(&q->queue);
	vec_free(&q->get);
	vec_free(&q->push);
	vec_free(&q->total);
	memset(q, 0, sizeof(*q));
}

int ms_md_parse_device_queue(const char *buf, size_t n, const char *name, struct ms_md_dq *out,
			     struct nns_err *err)
{
	const char *p = buf, *end = buf + n;
	size_t line = 0, recs = 0;
	int rc = NNS_OK;

	vec_free(&out->queue);
	vec_free(&out->get);
	vec_free(&out->push);
	vec_free(&out->total);
	while (p < end && rc == NNS_OK) {
		struct tok t[MAX_TOK];
		int64_t type, extra;
		int k = next_line(&p, end, &line, t);

		if (k == 0)
			continue;
		if (tok_i64(&t[0], &type))
			rc = bad(err, name, line, "the record type is not an integer");
		else if (type != 0 && type != 1)
			continue; /* a record kind this reader does not know */
		else if (k < 4)
			rc = bad(err, name, line, "fewer than 4 fields (type extra step value)");
		else if (++recs > MS_MD_MAX_RECORDS)
			rc = nns_err_set(err, NNS_ENOMEM, "%s:%zu: more than %d records", name,
					 line, MS_MD_MAX_RECORDS);
		else if (tok_i64(&t[1], &extra))
			rc = bad(err, name, line, "the second field is not an integer");
		else if (type == 0) {
			struct ms_md_trec r = {0, 0, line};

			if (tok_i64(&t[2], &r.step) || tok_dbl(&t[3], &r.cost_ms))
				rc = bad(err, name, line, "the step or the cost is not a number");
			else if (extra == 0 && vec_push(&out->get, r))
				rc = NNS_ENOMEM;
			else if (extra == 1 && vec_push(&out->push, r))
				rc = NNS_ENOMEM;
			else if (extra == 2 && vec_push(&out->total, r))
				rc = NNS_ENOMEM;
		} else {
			struct ms_md_qrec r = {0, extra, 0, NAN, line};

			if (tok_i64(&t[2], &r.step) || tok_i64(&t[3], &r.size))
				rc = bad(err, name, line,
					 "the step or the queue size is not an integer");
			else if (k > 4 && tok_dbl(&t[4], &r.time))
				rc = bad(err, name, line, "the time stamp is not a number");
			else if (vec_push(&out->queue, r))
				rc = NNS_ENOMEM;
		}
	}
	if (rc == NNS_ENOMEM && (!err || err->code != NNS_ENOMEM))
		nns_err_set(err, NNS_ENOMEM, "%s: out of memory", name);
	if (rc != NNS_OK) {
		int keep = out->from_dataset_iterator;

		ms_md_dq_release(out);
		out->from_dataset_iterator = keep;
		return rc;
	}
	out->present = 1;
	return NNS_OK;
}

/* ms_md_slurp of <first><dev>.txt, else of <second><dev>.txt (*used_second
 * set to 1 then); 1 when neither is there. */
static int slurp_either(const struct ms_src *s, const char *first, const char *second, char *path,
			char **buf, size_t *n, int *used_second, struct nns_err *err)
{
	int rc = ms_md_slurp(s, first, ".txt", path, buf, n, err);

	if (rc == 1) {
		*used_second = 1;
		rc = ms_md_slurp(s, second, ".txt", path, buf, n, err);
	}
	return rc;
}

int ms_md_read_device_queue(const struct ms_src *s, struct ms_md_dq *out, struct nns_err *err)
{
	char *buf;
	size_t n;
	int rc;

	ms_md_dq_release(out);
	rc = slurp_either(s, "device_queue_profiling_", "dataset_iterator_profiling_", out->path,
			  &buf, &n, &out->from_dataset_iterator, err);
	if (rc == 1) {
		ms_md_dq_release(out);
		return NNS_OK;
	}
	if (rc < 0)
		return rc;
	rc = ms_md_parse_device_queue(buf, n, out->path, out, err);
	free(buf);
	return rc;
}

/* ---- GetNext --------------------------------------------------------- */

void ms_md_gn_release(struct ms_md_gn *g)
{
	vec_free(&g->rec);
	memset(g, 0, sizeof(*g));
}

int ms_md_parse_get_next(const char *buf, size_t n, const char *name, int gpu, struct ms_md_gn *out,
			 struct nns_err *err)
{
	const char *p = buf, *end = buf + n;
	size_t line = 0;
	int rc = NNS_OK;

	vec_free(&out->rec);
	out->gpu = gpu;
	while (p < end && rc == NNS_OK) {
		struct tok t[MAX_TOK];
		struct ms_md_gnrec r;
		double a, b;
		int k = next_line(&p, end, &line, t);

		if (k == 0 || t[0].n < 7 || memcmp(t[0].s, "GetNext", 7) != 0)
			continue;
		memset(&r, 0, sizeof(r));
		r.line = line;
		if (k < 3)
			rc = bad(err, name, line, "a GetNext line needs a start and an end time");
		else if (out->rec.n >= MS_MD_MAX_RECORDS)
			rc = nns_err_set(err, NNS_ENOMEM, "%s:%zu: more than %d records", name,
					 line, MS_MD_MAX_RECORDS);
		else if (tok_dbl(&t[1], &a) || tok_dbl(&t[2], &b))
			rc = bad(err, name, line, "the start or end time is not a number");
		else if (k > 3 && tok_i64(&t[3], &r.queue))
			rc = bad(err, name, line, "the queue size is not an integer");
		else {
			r.has_queue = k > 3;
			/* upstream: (end - start) / 1e3 (us -> ms); the GPU file is ns */
			r.cost_ms = (b - a) / 1e3;
			if (gpu)
				r.cost_ms = r.cost_ms / 1e3;
			if (vec_push(&out->rec, r))
				rc = nns_err_set(err, NNS_ENOMEM, "%s: out of memory", name);
		}
	}
	if (rc != NNS_OK) {
		ms_md_gn_release(out);
		return rc;
	}
	out->present = 1;
	return NNS_OK;
}

int ms_md_read_get_next(const struct ms_src *s, struct ms_md_gn *out, struct nns_err *err)
{
	char *buf;
	size_t n;
	int rc, gpu = 0;

	ms_md_gn_release(out);
	rc = slurp_either(s, "minddata_aicpu_", "minddata_getnext_profiling_", out->path, &buf, &n,
			  &gpu, err);
	if (rc == 1) {
		ms_md_gn_release(out);
		return NNS_OK;
	}
	if (rc < 0)
		return rc;
	rc = ms_md_parse_get_next(buf, n, out->path, gpu, out, err);
	free(buf);
	return rc;
}

/* ---- all of them ------------------------------------------------------ */

int ms_md_any(const struct ms_src *s)
{
	static const char *const f[][2] = {
	    {"device_queue_profiling_", ".txt"}, {"dataset_iterator_profiling_", ".txt"},
	    {"minddata_aicpu_", ".txt"},	 {"minddata_getnext_profiling_", ".txt"},
	    {"minddata_pipeline_raw_", ".csv"},	 {"minddata_cpu_utilization_", ".json"}};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (ms_src_has(s, f[i][0], f[i][1]))
			return 1;
	return 0;
}

int ms_md_load(struct ms_md *m, const struct ms_src *s)
{
	struct nns_err e;

	memset(m, 0, sizeof(*m));
#define MS_MD_TRY(call, part)                                                                      \
	do {                                                                                       \
		nns_err_clear(&e);                                                                 \
		if ((call) != NNS_OK) {                                                            \
			part;                                                                      \
			if (m->nerr < MS_MD_MAX_ERRORS)                                            \
				m->errors[m->nerr++] = e;                                          \
		}                                                                                  \
	} while (0)
	MS_MD_TRY(ms_md_read_device_queue(s, &m->dq, &e), ms_md_dq_release(&m->dq));
	MS_MD_TRY(ms_md_read_get_next(s, &m->gn, &e), ms_md_gn_release(&m->gn));
	MS_MD_TRY(ms_md_read_pipeline(s, &m->pl, &e), ms_md_pipeline_release(&m->pl));
	MS_MD_TRY(ms_md_read_cpu(s, &m->cpu, &e), ms_md_cpu_release(&m->cpu));
#undef MS_MD_TRY
	return m->nerr;
}

void ms_md_release(struct ms_md *m)
{
	ms_md_dq_release(&m->dq);
	ms_md_gn_release(&m->gn);
	ms_md_pipeline_release(&m->pl);
	ms_md_cpu_release(&m->cpu);
	m->nerr = 0;
}

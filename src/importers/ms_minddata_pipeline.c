/*
 * ms_minddata_pipeline.c - minddata_pipeline_raw_<dev>.csv, the MindData
 * pipeline ops and their output queues (ms_minddata.h), read as upstream
 * MinddataPipelineAnalyser._convert_field_type does: op_id, num_workers,
 * output_queue_length, sample_interval and parent_id integers,
 * output_queue_average_size and output_queue_usage_rate numbers,
 * output_queue_size and children_id JSON lists; an empty cell is "none"
 * (op_id, op_type, num_workers and sample_interval may not be empty).
 */
#include "importers/ms_csv.h"
#include "importers/ms_minddata.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ms_md_pipeline_cols[MS_MD_PIPELINE_NCOLS] = {"op_id",
							       "op_type",
							       "num_workers",
							       "output_queue_size",
							       "output_queue_average_size",
							       "output_queue_length",
							       "output_queue_usage_rate",
							       "sample_interval",
							       "parent_id",
							       "children_id"};

static void op_free(struct ms_md_op *o)
{
	vec_free(&o->queue_size);
	vec_free(&o->children);
}

void ms_md_pipeline_release(struct ms_md_pipeline *p)
{
	for (size_t i = 0; i < p->ops.n; i++)
		op_free(&p->ops.v[i]);
	vec_free(&p->ops);
	memset(p, 0, sizeof(*p));
}

long ms_md_pipeline_find(const struct ms_md_pipeline *p, int64_t op_id)
{
	for (size_t i = 0; i < p->ops.n; i++)
		if (p->ops.v[i].op_id == op_id)
			return (long)i;
	return -1;
}

static int parse_i64(const char *s, int64_t *out)
{
	char *e;
	long long v;

	/* int() of upstream: an optional sign and decimal digits ("3.0",
	 * "0x10" and "" are not integers); blanks around are allowed */
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return -1;
	errno = 0;
	v = strtoll(s, &e, 10);
	while (*e == ' ' || *e == '\t')
		e++;
	if (*e || errno || e == s)
		return -1;
	*out = (int64_t)v;
	return 0;
}

/* A JSON list of numbers "[1, 2.5]" ("[]" is empty). ints: every item must
 * be an integer. Appends to dv (doubles) or iv (integers). 0 or -1. */
static int parse_list(const char *s, int ints, void *vec)
{
	const char *p = s;

	while (*p == ' ')
		p++;
	if (*p++ != '[')
		return -1;
	while (*p == ' ')
		p++;
	if (*p == ']')
		goto close;
	for (;;) {
		char *e;
		double d;

		errno = 0;
		d = strtod(p, &e);
		if (e == p || errno || !isfinite(d))
			return -1;
		if (ints) {
			VEC(int64_t) *iv = vec;

			if (d < -9.2e18 || d > 9.2e18 || d != (double)(int64_t)d ||
			    iv->n >= MS_MD_MAX_LIST || vec_push(iv, (int64_t)d))
				return -1;
		} else {
			VEC(double) *dv = vec;

			if (dv->n >= MS_MD_MAX_LIST || vec_push(dv, d))
				return -1;
		}
		p = e;
		while (*p == ' ')
			p++;
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == ']')
			break;
		return -1;
	}
close:
	p++;
	while (*p == ' ')
		p++;
	return *p ? -1 : 0;
}

/* Sets column col of o from the field s; NULL when fine, else why not. */
static const char *set_col(struct ms_md_op *o, int col, const char *s)
{
	int empty = *s == '\0';

	switch (col) {
	case 0:
		return parse_i64(s, &o->op_id) ? "op_id is not an integer" : NULL;
	case 1:
		if (empty)
			return "op_type is empty";
		snprintf(o->op_type, sizeof(o->op_type), "%s", s);
		return NULL;
	case 2:
		return parse_i64(s, &o->num_workers) ? "num_workers is not an integer" : NULL;
	case 3:
		o->has_queue_size = !empty;
		return !empty && parse_list(s, 0, &o->queue_size)
			   ? "output_queue_size is not a list of numbers"
			   : NULL;
	case 4:
		o->has_avg = !empty;
		return !empty && ms_csv_num(s, &o->avg)
			   ? "output_queue_average_size is not a number"
			   : NULL;
	case 5:
		o->has_length = !empty;
		return !empty && parse_i64(s, &o->length) ? "output_queue_length is not an integer"
							  : NULL;
	case 6:
		o->has_usage = !empty;
		return !empty && ms_csv_num(s, &o->usage)
			   ? "output_queue_usage_rate is not a number"
			   : NULL;
	case 7:
		return parse_i64(s, &o->sample_interval) ? "sample_interval is not an integer"
							 : NULL;
	case 8:
		o->has_parent = !empty;
		return !empty && parse_i64(s, &o->parent_id) ? "parent_id is not an integer" : NULL;
	case 9:
		o->has_children = !empty;
		return !empty && parse_list(s, 1, &o->children)
			   ? "children_id is not a list of integers"
			   : NULL;
	default:
		return "more than 10 fields";
	}
}

int ms_md_parse_pipeline(const char *buf, size_t n, const char *name, struct ms_md_pipeline *out,
			 struct nns_err *err)
{
	struct ms_csv c;
	const char *lp = buf; /* line counting: newlines before c.p */
	size_t line = 1, row_line;
	int rc = NNS_OK, eol, col;

	for (size_t i = 0; i < out->ops.n; i++)
		op_free(&out->ops.v[i]);
	vec_free(&out->ops);
	ms_csv_init(&c, buf, n);
	/* header */
	for (col = 0, eol = 0; !eol; col++) {
		int k = ms_csv_field(&c, &eol);

		if (k == -1 && col == 0) {
			rc = nns_err_set(err, NNS_EFORMAT, "%s:1: empty file (no header)", name);
			goto out;
		}
		if (k || col >= MS_MD_PIPELINE_NCOLS ||
		    strcmp(ms_csv_str(&c), ms_md_pipeline_cols[col]) != 0) {
			rc = nns_err_set(
			    err, NNS_EFORMAT,
			    "%s:1: not a minddata_pipeline_raw header (column %d should be %s)",
			    name, col + 1,
			    col < MS_MD_PIPELINE_NCOLS ? ms_md_pipeline_cols[col] : "absent");
			goto out;
		}
	}
	if (col != 10) {
		rc = nns_err_set(err, NNS_EFORMAT, "%s:1: the header has %d columns, not 10", name,
				 col);
		goto out;
	}
	while (c.p < c.end) {
		struct ms_md_op o;
		const char *why = NULL;

		for (; lp < c.p; lp++)
			line += *lp == '\n';
		row_line = line;
		if (*c.p == '\n' || *c.p == '\r') { /* blank line */
			ms_csv_skip_line(&c);
			continue;
		}
		memset(&o, 0, sizeof(o));
		for (col = 0, eol = 0; !eol && !why; col++) {
			int k = ms_csv_field(&c, &eol);

			if (k == -2)
				why = "a malformed or too long field";
			else if (k == -1)
				break;
			else
				why = set_col(&o, col, ms_csv_str(&c));
		}
		if (!why && col != 10)
			why = col < 10 ? "fewer than 10 fields" : "more than 10 fields";
		if (!why && out->ops.n >= MS_MD_MAX_OPS)
			why = "too many ops";
		if (!why && vec_push(&out->ops, o)) {
			op_free(&o);
			rc = nns_err_set(err, NNS_ENOMEM, "%s: out of memory", name);
			goto out;
		}
		if (why) {
			op_free(&o);
			rc = nns_err_set(err, NNS_EFORMAT, "%s:%zu: %s", name, row_line, why);
			goto out;
		}
	}
	out->present = 1;
out:
	ms_csv_release(&c);
	if (rc != NNS_OK) {
		for (size_t i = 0; i < out->ops.n; i++)
			op_free(&out->ops.v[i]);
		vec_free(&out->ops);
	}
	return rc;
}

int ms_md_read_pipeline(const struct ms_src *s, struct ms_md_pipeline *out, struct nns_err *err)
{
	char *buf;
	size_t n;
	int rc;

	ms_md_pipeline_release(out);
	rc = ms_md_slurp(s, "minddata_pipeline_raw_", ".csv", out->path, &buf, &n, err);
	if (rc == 1) {
		ms_md_pipeline_release(out);
		return NNS_OK;
	}
	if (rc < 0)
		return rc;
	rc = ms_md_parse_pipeline(buf, n, out->path, out, err);
	free(buf);
	return rc;
}

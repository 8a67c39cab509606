/*
 * ms_cluster_parse.c - parsers for the per-rank files of a MindSpore
 * cluster job (ms_cluster.h), with the CSV reader of ms_csv.h, and a tiny JSON parser
 * into a flat node array for the small JSON cells (link_info,
 * communication_operator_cost) and flops_summary. Nesting is capped at
 * MJ_DEPTH, nodes at MJ_NODES_MAX.
 */
#include "importers/ms_cluster.h"
#include "importers/ms_csv.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a tiny JSON parser ------------------------------------------------- */

#define MJ_DEPTH 16
#define MJ_NODES_MAX 4000000

enum { MJ_NULL, MJ_BOOL, MJ_NUM, MJ_STR, MJ_ARR, MJ_OBJ };

struct mj_node {
	int type;
	double num;
	const char *s; /* strings and keys point into the input (escapes kept raw) */
	size_t slen;
	const char *key; /* member key, NULL in arrays */
	size_t klen;
	uint32_t first, next; /* first child, next sibling; 0 = none (0 is the root) */
};

struct mj {
	const char *p, *end;
	VEC(struct mj_node) n;
	int bad;
};

static void mj_ws(struct mj *j)
{
	while (j->p < j->end && isspace((unsigned char)*j->p))
		j->p++;
}

static int mj_string(struct mj *j, const char **s, size_t *len)
{
	const char *q;

	if (j->p >= j->end || *j->p != '"')
		return -1;
	q = ++j->p;
	while (j->p < j->end && *j->p != '"') {
		if (*j->p == '\\')
			j->p++;
		j->p++;
	}
	if (j->p >= j->end)
		return -1;
	*s = q;
	*len = (size_t)(j->p - q);
	j->p++;
	return 0;
}

static int64_t mj_value(struct mj *j, int depth);

static int64_t mj_new(struct mj *j, int type)
{
	struct mj_node z;

	if (j->n.n >= MJ_NODES_MAX)
		return -1;
	memset(&z, 0, sizeof(z));
	z.type = type;
	if (vec_push(&j->n, z))
		return -1;
	return (int64_t)j->n.n - 1;
}

static int64_t mj_container(struct mj *j, int depth, int obj)
{
	int64_t me = mj_new(j, obj ? MJ_OBJ : MJ_ARR), prev = -1;
	char close = obj ? '}' : ']';

	if (me < 0 || depth >= MJ_DEPTH)
		return -1;
	j->p++;
	mj_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return me;
	}
	for (;;) {
		const char *k = NULL;
		size_t kl = 0;
		int64_t child;

		mj_ws(j);
		if (obj) {
			if (mj_string(j, &k, &kl))
				return -1;
			mj_ws(j);
			if (j->p >= j->end || *j->p != ':')
				return -1;
			j->p++;
		}
		child = mj_value(j, depth + 1);
		if (child < 0)
			return -1;
		j->n.v[child].key = k;
		j->n.v[child].klen = kl;
		if (prev < 0)
			j->n.v[me].first = (uint32_t)child;
		else
			j->n.v[prev].next = (uint32_t)child;
		prev = child;
		mj_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			return me;
		}
		return -1;
	}
}

static int64_t mj_value(struct mj *j, int depth)
{
	int64_t me;

	mj_ws(j);
	if (j->p >= j->end)
		return -1;
	switch (*j->p) {
	case '{':
		return mj_container(j, depth, 1);
	case '[':
		return mj_container(j, depth, 0);
	case '"': {
		const char *s;
		size_t l;

		if ((me = mj_new(j, MJ_STR)) < 0 || mj_string(j, &s, &l))
			return -1;
		j->n.v[me].s = s;
		j->n.v[me].slen = l;
		return me;
	}
	case 't':
	case 'f':
	case 'n': {
		static const char *const words[] = {"true", "false", "null"};

		for (int i = 0; i < 3; i++) {
			size_t l = strlen(words[i]);

			if ((size_t)(j->end - j->p) >= l && memcmp(j->p, words[i], l) == 0) {
				j->p += l;
				if ((me = mj_new(j, i == 2 ? MJ_NULL : MJ_BOOL)) < 0)
					return -1;
				j->n.v[me].num = i == 0;
				return me;
			}
		}
		return -1;
	}
	default: {
		char tmp[64];
		size_t l = 0;
		char *e;

		while (j->p + l < j->end && l < sizeof(tmp) - 1 &&
		       strchr("+-0123456789.eE", j->p[l]))
			l++;
		if (l == 0)
			return -1;
		memcpy(tmp, j->p, l);
		tmp[l] = '\0';
		if ((me = mj_new(j, MJ_NUM)) < 0)
			return -1;
		j->n.v[me].num = strtod(tmp, &e);
		if (*e)
			return -1;
		j->p += l;
		return me;
	}
	}
}

/* Parses buf[0..n) as one JSON value (node 0). 0 or -1. */
static int mj_parse(struct mj *j, const char *buf, size_t n)
{
	memset(j, 0, sizeof(*j));
	j->p = buf;
	j->end = buf + n;
	if (mj_value(j, 0) != 0)
		return -1;
	mj_ws(j);
	return j->p == j->end ? 0 : -1;
}

static void mj_free(struct mj *j)
{
	vec_free(&j->n);
}

static int key_is(const struct mj_node *x, const char *k)
{
	return x->key && x->klen == strlen(k) && memcmp(x->key, k, x->klen) == 0;
}

/* The n-th numeric element of array node a (strings holding numbers count). */
static int mj_arr_num(const struct mj *j, const struct mj_node *a, int idx, double *out)
{
	uint32_t c = a->type == MJ_ARR ? a->first : 0;

	for (int i = 0; c && i < idx; i++)
		c = j->n.v[c].next;
	if (!c)
		return -1;
	if (j->n.v[c].type == MJ_NUM) {
		*out = j->n.v[c].num;
		return 0;
	}
	return -1;
}

/* ---- step_trace_raw ----------------------------------------------------- */

static int fail(struct nns_err *err, int code, const char *what, size_t line, const char *why)
{
	return nns_err_set(err, code, "%s line %zu: %s", what, line, why);
}

int msc_parse_step_trace(struct msc_rank *r, const char *buf, size_t n, struct nns_err *err)
{
	/* columns: step_num,start_point,end_point,total,fp_point,bp_point,
	 * iteration_interval,fp_and_bp,tail[,stream_...] */
	struct ms_csv c;
	size_t line = 1;
	int rc = NNS_OK, eol;

	ms_csv_init(&c, buf, n);
	r->st.n = 0;
	ms_csv_skip_line(&c); /* header */
	while (c.p < c.end) {
		struct msc_st_row row;
		double v[9];
		int col = 0;

		line++;
		if (*c.p == '\n' || *c.p == '\r') {
			ms_csv_skip_line(&c);
			continue;
		}
		memset(&row, 0, sizeof(row));
		do {
			int k = ms_csv_field(&c, &eol);

			if (k == -1)
				break;
			if (k == -2) {
				rc = fail(err, NNS_EFORMAT, "step_trace_raw", line, "bad field");
				goto out;
			}
			if (col == 0)
				snprintf(row.step, sizeof(row.step), "%s", ms_csv_str(&c));
			else if (col < 9 && ms_csv_num(ms_csv_str(&c), &v[col]))
				v[col] =
				    0; /* '-' for the first step's start: MindInsight uses fp */
			col++;
		} while (!eol);
		if (col < 9) {
			rc = fail(err, NNS_EFORMAT, "step_trace_raw", line,
				  "fewer than 9 columns (step_num..tail)");
			goto out;
		}
		if (r->st.n >= MSC_MAX_ROWS) {
			rc = fail(err, NNS_ENOMEM, "step_trace_raw", line, "too many rows");
			goto out;
		}
		row.total = v[3];
		row.interval = v[6];
		row.fp_bp = v[7];
		row.tail = v[8];
		if (vec_push(&r->st, row)) {
			rc = nns_err_set(err, NNS_ENOMEM, "out of memory");
			goto out;
		}
	}
	if (r->st.n == 0)
		rc = nns_err_set(err, NNS_EFORMAT, "step_trace_raw: no data rows");
out:
	ms_csv_release(&c);
	r->has_st = rc == NNS_OK;
	return rc;
}

/* ---- ascend_cluster_analyse csv ----------------------------------------- */

int msc_parse_cluster_csv(struct msc_rank *r, const char *buf, size_t n, struct nns_err *err)
{
	struct ms_csv c;
	size_t line = 1;
	int rc = NNS_OK, eol, cols = 0;

	ms_csv_init(&c, buf, n);
	r->cl.n = 0;
	/* the header gives the column count */
	do {
		int k = ms_csv_field(&c, &eol);

		if (k < 0)
			break;
		cols++;
	} while (!eol);
	if (cols < 1 || cols > MSC_MAX_COLS) {
		rc = nns_err_set(err, NNS_EFORMAT, "cluster csv: bad header (%d columns)", cols);
		goto out;
	}
	r->cl_cols = cols;
	while (c.p < c.end) {
		double v[MSC_MAX_COLS];
		int col = 0;

		line++;
		if (*c.p == '\n' || *c.p == '\r') {
			ms_csv_skip_line(&c);
			continue;
		}
		do {
			int k = ms_csv_field(&c, &eol);

			if (k == -1)
				break;
			if (k == -2 || col >= cols || ms_csv_num(ms_csv_str(&c), &v[col])) {
				rc = fail(err, NNS_EFORMAT, "cluster csv", line, "not a number");
				goto out;
			}
			col++;
		} while (!eol);
		if (col != cols) {
			rc = fail(err, NNS_EFORMAT, "cluster csv", line, "wrong column count");
			goto out;
		}
		if (r->cl.n / (size_t)cols >= MSC_MAX_ROWS) {
			rc = fail(err, NNS_ENOMEM, "cluster csv", line, "too many rows");
			goto out;
		}
		for (int i = 0; i < cols; i++)
			if (vec_push(&r->cl, v[i])) {
				rc = nns_err_set(err, NNS_ENOMEM, "out of memory");
				goto out;
			}
	}
	if (r->cl.n == 0)
		rc = nns_err_set(err, NNS_EFORMAT, "cluster csv: no data rows");
out:
	ms_csv_release(&c);
	r->has_cl = rc == NNS_OK;
	return rc;
}

/* ---- hccl_raw ------------------------------------------------------------ */

/* Appends the links of a link_info object ({"src-dst": {"TYPE": [...]}}). */
static int add_links(struct msc_rank *r, const struct mj *j, uint32_t obj)
{
	const struct mj_node *o = &j->n.v[obj];

	if (o->type != MJ_OBJ)
		return -1;
	for (uint32_t c = o->first; c; c = j->n.v[c].next) {
		const struct mj_node *pair = &j->n.v[c];
		char key[32];
		int src, dst;

		if (!pair->key || pair->klen >= sizeof(key) || pair->type != MJ_OBJ)
			return -1;
		memcpy(key, pair->key, pair->klen);
		key[pair->klen] = '\0';
		if (sscanf(key, "%d-%d", &src, &dst) != 2)
			return -1;
		for (uint32_t t = pair->first; t; t = j->n.v[t].next) {
			const struct mj_node *tn = &j->n.v[t];
			struct msc_link l;

			memset(&l, 0, sizeof(l));
			l.src = src;
			l.dst = dst;
			if (!tn->key || tn->klen >= sizeof(l.type) ||
			    mj_arr_num(j, tn, 0, &l.time_ms) || mj_arr_num(j, tn, 1, &l.size_kb) ||
			    mj_arr_num(j, tn, 2, &l.bw_kbps))
				return -1;
			memcpy(l.type, tn->key, tn->klen);
			if (r->links.n >= MSC_MAX_ROWS || vec_push(&r->links, l))
				return -1;
		}
	}
	return 0;
}

/* Appends the operators of communication_operator_cost
 * ({"name": ["1", cost, wait, {links}]}). */
static int add_ops(struct msc_rank *r, const struct mj *j, uint32_t obj)
{
	const struct mj_node *o = &j->n.v[obj];

	if (o->type != MJ_OBJ)
		return -1;
	for (uint32_t c = o->first; c; c = j->n.v[c].next) {
		const struct mj_node *op = &j->n.v[c];
		struct msc_op x;
		size_t l;

		memset(&x, 0, sizeof(x));
		if (!op->key || mj_arr_num(j, op, 1, &x.cost_ms) ||
		    mj_arr_num(j, op, 2, &x.wait_ms))
			return -1;
		l = op->klen < sizeof(x.name) - 1 ? op->klen : sizeof(x.name) - 1;
		memcpy(x.name, op->key, l);
		if (r->ops.n >= MSC_MAX_ROWS || vec_push(&r->ops, x))
			return -1;
	}
	return 0;
}

int msc_parse_hccl(struct msc_rank *r, const char *buf, size_t n, struct nns_err *err)
{
	/* columns: step_num,communication_cost,wait_cost,link_info[,communication_operator_cost];
	 * the average row has step_num '-' (MindInsight reads only that one by default) */
	struct ms_csv c;
	size_t line = 1;
	int rc = NNS_OK, eol, found = 0;

	ms_csv_init(&c, buf, n);
	r->links.n = r->ops.n = 0;
	ms_csv_skip_line(&c);
	while (c.p < c.end && !found) {
		int col = 0, avg = 0;

		line++;
		if (*c.p == '\n' || *c.p == '\r') {
			ms_csv_skip_line(&c);
			continue;
		}
		do {
			int k = ms_csv_field(&c, &eol);
			struct mj j;

			if (k == -1)
				break;
			if (k == -2) {
				rc = fail(err, NNS_EFORMAT, "hccl_raw", line, "bad quoted field");
				goto out;
			}
			if (col == 0)
				avg = strcmp(ms_csv_str(&c), "-") == 0;
			if (!avg) {
				col++;
				continue;
			}
			if (col == 1 && ms_csv_num(ms_csv_str(&c), &r->comm_cost_ms))
				rc = fail(err, NNS_EFORMAT, "hccl_raw", line, "communication_cost");
			else if (col == 2 && ms_csv_num(ms_csv_str(&c), &r->wait_cost_ms))
				rc = fail(err, NNS_EFORMAT, "hccl_raw", line, "wait_cost");
			else if (col == 3 || col == 4) {
				if (mj_parse(&j, ms_csv_str(&c), c.flen) ||
				    (col == 3 ? add_links(r, &j, 0) : add_ops(r, &j, 0)))
					rc = fail(err, NNS_EFORMAT, "hccl_raw", line,
						  col == 3
						      ? "link_info is not {\"s-d\": {type: [ms, "
							"KB, KB/s]}}"
						      : "bad communication_operator_cost");
				mj_free(&j);
			}
			if (rc)
				goto out;
			col++;
		} while (!eol);
		if (avg) {
			if (col < 4) {
				rc = fail(err, NNS_EFORMAT, "hccl_raw", line,
					  "fewer than 4 columns");
				goto out;
			}
			found = 1;
		}
	}
	if (!found)
		rc = nns_err_set(err, NNS_EFORMAT, "hccl_raw: no average row (step_num '-')");
out:
	ms_csv_release(&c);
	r->has_hccl = rc == NNS_OK;
	return rc;
}

/* ---- flops_summary --------------------------------------------------------- */

int msc_parse_flops(struct msc_rank *r, const char *buf, size_t n, struct nns_err *err)
{
	struct mj j;
	double flops = -1, flops_s = -1, util = 0, cube = -1, vec = -1, cube_s = -1, vec_s = -1;
	int rc = NNS_OK;

	if (mj_parse(&j, buf, n) || j.n.v[0].type != MJ_OBJ) {
		rc = nns_err_set(err, NNS_EFORMAT, "flops_summary: not a JSON object");
		goto out;
	}
	for (uint32_t c = j.n.v[0].first; c; c = j.n.v[c].next) {
		const struct mj_node *x = &j.n.v[c];

		if (x->type != MJ_NUM)
			continue;
		if (key_is(x, "FLOPs"))
			flops = x->num;
		else if (key_is(x, "FLOPS"))
			flops_s = x->num;
		else if (key_is(x, "FLOPS_Utilization"))
			util = x->num;
		else if (key_is(x, "cube_FLOPs"))
			cube = x->num;
		else if (key_is(x, "vec_FLOPs"))
			vec = x->num;
		else if (key_is(x, "cube_FLOPS"))
			cube_s = x->num;
		else if (key_is(x, "vec_FLOPS"))
			vec_s = x->num;
	}
	/* MindInsight: FLOPs, else cube_FLOPs + vec_FLOPs (same for FLOPS) */
	if (flops <= 0 && cube >= 0 && vec >= 0)
		flops = cube + vec;
	if (flops_s < 0 && cube_s >= 0 && vec_s >= 0)
		flops_s = cube_s + vec_s;
	if (flops < 0 || flops_s < 0) {
		rc = nns_err_set(err, NNS_EFORMAT, "flops_summary: no FLOPs/FLOPS numbers");
		goto out;
	}
	r->flops = flops;
	r->flops_per_s = flops_s;
	r->flops_util = util;
out:
	mj_free(&j);
	r->has_flops = rc == NNS_OK;
	return rc;
}

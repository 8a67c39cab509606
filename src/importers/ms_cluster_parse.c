/*
 * ms_cluster_parse.c - parsers for the per-rank files of a MindSpore
 * cluster job (ms_cluster.h), with the CSV reader of ms_csv.h and the JSON
 * reader of ms_json.h for the small JSON cells (link_info,
 * communication_operator_cost) and flops_summary.
 */
#include "importers/ms_cluster.h"
#include "importers/ms_csv.h"
#include "importers/ms_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The idx-th element of array a as a number (MSJ_NUM only). */
static int arr_num(const struct msj *j, const struct msj_node *a, int idx, double *out)
{
	const struct msj_node *c = a->type == MSJ_ARR ? msj_first(j, a) : NULL;

	for (int i = 0; c && i < idx; i++)
		c = msj_next(j, c);
	if (!c || c->type != MSJ_NUM)
		return -1;
	*out = c->num;
	return 0;
}

/* ---- step_trace_raw ----------------------------------------------------- */

static int fail(struct nns_err *err, int code, const char *what, size_t line, const char *why)
{
	return nns_err_set(err, code, "%s line %zu: %s", what, line, why);
}

/* Moves c to the next line that is not blank, counting lines in *line;
 * 0 at the end of the buffer. */
static int next_row(struct ms_csv *c, size_t *line)
{
	while (c->p < c->end) {
		++*line;
		if (*c->p != '\n' && *c->p != '\r')
			return 1;
		ms_csv_skip_line(c);
	}
	return 0;
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
	while (next_row(&c, &line)) {
		struct msc_st_row row;
		double v[9];
		int col = 0;

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
	while (next_row(&c, &line)) {
		double v[MSC_MAX_COLS];
		int col = 0;

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
static int add_links(struct msc_rank *r, const struct msj *j, const struct msj_node *o)
{
	if (o->type != MSJ_OBJ)
		return -1;
	for (const struct msj_node *pair = msj_first(j, o); pair; pair = msj_next(j, pair)) {
		int src, dst;

		if (pair->klen >= 32 || pair->type != MSJ_OBJ ||
		    sscanf(msj_key(j, pair), "%d-%d", &src, &dst) != 2)
			return -1;
		for (const struct msj_node *tn = msj_first(j, pair); tn; tn = msj_next(j, tn)) {
			struct msc_link l;

			memset(&l, 0, sizeof(l));
			l.src = src;
			l.dst = dst;
			if (tn->klen >= sizeof(l.type) || arr_num(j, tn, 0, &l.time_ms) ||
			    arr_num(j, tn, 1, &l.size_kb) || arr_num(j, tn, 2, &l.bw_kbps))
				return -1;
			memcpy(l.type, msj_key(j, tn), tn->klen);
			if (r->links.n >= MSC_MAX_ROWS || vec_push(&r->links, l))
				return -1;
		}
	}
	return 0;
}

/* Appends the operators of communication_operator_cost
 * ({"name": ["1", cost, wait, {links}]}). */
static int add_ops(struct msc_rank *r, const struct msj *j, const struct msj_node *o)
{
	if (o->type != MSJ_OBJ)
		return -1;
	for (const struct msj_node *op = msj_first(j, o); op; op = msj_next(j, op)) {
		struct msc_op x;
		size_t l;

		memset(&x, 0, sizeof(x));
		if (arr_num(j, op, 1, &x.cost_ms) || arr_num(j, op, 2, &x.wait_ms))
			return -1;
		l = op->klen < sizeof(x.name) - 1 ? op->klen : sizeof(x.name) - 1;
		memcpy(x.name, msj_key(j, op), l);
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
	while (!found && next_row(&c, &line)) {
		int col = 0, avg = 0;

		do {
			int k = ms_csv_field(&c, &eol);
			struct msj j;

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
				struct nns_err ignore;

				if (msj_parse(&j, ms_csv_str(&c), c.flen, "hccl_raw", &ignore) ||
				    (col == 3 ? add_links(r, &j, msj_root(&j))
					      : add_ops(r, &j, msj_root(&j))))
					rc = fail(err, NNS_EFORMAT, "hccl_raw", line,
						  col == 3
						      ? "link_info is not {\"s-d\": {type: [ms, "
							"KB, KB/s]}}"
						      : "bad communication_operator_cost");
				msj_release(&j);
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
	struct msj j;
	struct nns_err ignore;
	double flops = -1, flops_s = -1, util = 0, cube = -1, vec = -1, cube_s = -1, vec_s = -1;
	int rc = NNS_OK;

	if (msj_parse(&j, buf, n, "flops_summary", &ignore) || j.n.v[0].type != MSJ_OBJ) {
		rc = nns_err_set(err, NNS_EFORMAT, "flops_summary: not a JSON object");
		goto out;
	}
	for (const struct msj_node *x = msj_first(&j, msj_root(&j)); x; x = msj_next(&j, x)) {
		const char *k = msj_key(&j, x);

		if (x->type != MSJ_NUM)
			continue;
		if (!strcmp(k, "FLOPs"))
			flops = x->num;
		else if (!strcmp(k, "FLOPS"))
			flops_s = x->num;
		else if (!strcmp(k, "FLOPS_Utilization"))
			util = x->num;
		else if (!strcmp(k, "cube_FLOPs"))
			cube = x->num;
		else if (!strcmp(k, "vec_FLOPs"))
			vec = x->num;
		else if (!strcmp(k, "cube_FLOPS"))
			cube_s = x->num;
		else if (!strcmp(k, "vec_FLOPS"))
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
	msj_release(&j);
	r->has_flops = rc == NNS_OK;
	return rc;
}

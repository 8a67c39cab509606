/*
 * cluster.c - the cluster step trace (cluster.h): one row per rank with
 * its average iteration interval, FP+BP, tail and total, its steps, its
 * communication, FLOPs and pipeline stage, built from a MindSpore cluster
 * job (MindInsight's ClusterStepTraceAnalyser definitions) or from the
 * per-worker profiles of an nnscope / Kineto run with several ranks. The
 * proposers are in cluster_propose.c. Pure: no I/O.
 *
 * MindSpore units: step_trace_raw counts are 10 ns (MindInsight shows
 * col / 1e5 ms), so us = count / 100; cluster csv and hccl_raw are ms.
 */
#include "analysis/cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cl_bottleneck_names[CL_BOTTLENECK_NAMES] = {
    "computation_time", "communication_alone_time", "stage_time", "receive_alone_time",
    "collective_communication_alone_time"};

void cl_init(struct cl_result *c)
{
	memset(c, 0, sizeof(*c));
	c->comm_rate = NAN;
	c->between_stage_rate = NAN;
	c->clock_error_us = NAN;
	c->stage_num = 1;
}

void cl_release(struct cl_result *c)
{
	for (size_t i = 0; i < c->ranks.n; i++)
		vec_free(&c->ranks.v[i].steps);
	for (size_t i = 0; i < c->proposals.n; i++)
		free(c->proposals.v[i].text);
	vec_free(&c->ranks);
	vec_free(&c->links);
	vec_free(&c->stages);
	vec_free(&c->proposals);
}

static struct cl_rank *new_rank(struct cl_result *c, struct nns_err *err)
{
	struct cl_rank r;

	if (c->ranks.n >= MSC_MAX_RANKS) {
		nns_err_set(err, NNS_ENOMEM, "more than %d ranks", MSC_MAX_RANKS);
		return NULL;
	}
	memset(&r, 0, sizeof(r));
	r.stage = 1;
	if (vec_push(&c->ranks, r)) {
		nns_err_set(err, NNS_ENOMEM, "out of memory");
		return NULL;
	}
	return &c->ranks.v[c->ranks.n - 1];
}

/* Appends a step within the caps; 0, or NNS_ENOMEM. */
static int push_step(struct cl_result *c, struct cl_rank *r, const struct cl_step *s)
{
	if (r->steps.n >= CL_MAX_STEPS_PER_RANK || c->steps_total >= CL_MAX_STEPS_TOTAL) {
		c->steps_dropped++;
		return NNS_OK;
	}
	if (vec_push(&r->steps, *s))
		return NNS_ENOMEM;
	c->steps_total++;
	return NNS_OK;
}

/* ---- MindSpore jobs --------------------------------------------------------- */

/* 10 ns system counts -> us. */
static double st_us(double counts)
{
	return counts / 100.0;
}

static int ms_rank(struct cl_result *c, const struct msc_job *j, const struct msc_rank *mr,
		   struct nns_err *err)
{
	struct cl_rank *r = new_rank(c, err);
	size_t cl_rows;

	if (!r)
		return NNS_ENOMEM;
	r->rank = mr->rank;
	snprintf(r->host, sizeof(r->host), "%s", mr->host);
	if (j->rank_size > 0 && j->stage_num > 0 && j->rank_size / j->stage_num > 0)
		r->stage = mr->rank / (j->rank_size / j->stage_num) + 1; /* MindInsight */
	cl_rows = mr->has_cl && mr->cl_cols > 0 ? mr->cl.n / (size_t)mr->cl_cols : 0;
	if (mr->has_st && mr->st.n > 0) {
		const struct msc_st_row *avg = &mr->st.v[mr->st.n - 1]; /* the last row */

		r->has_steptrace = 1;
		r->interval_us = st_us(avg->interval);
		r->fp_bp_us = st_us(avg->fp_bp);
		r->tail_us = st_us(avg->tail);
		r->total_us = st_us(avg->total);
		/* steps: every row but the average; step k = data row k */
		for (size_t i = 0; i + 1 < mr->st.n; i++) {
			const struct msc_st_row *x = &mr->st.v[i];
			struct cl_step s;

			memset(&s, 0, sizeof(s));
			snprintf(s.name, sizeof(s.name), "%s", x->step);
			s.interval_us = st_us(x->interval);
			s.fp_bp_us = st_us(x->fp_bp);
			s.tail_us = st_us(x->tail);
			s.total_us = st_us(x->total);
			s.start_us = NAN;
			if (i + 1 < cl_rows) {
				s.has_bottleneck = 1;
				for (int k = 0; k < mr->cl_cols && k < MSC_MAX_COLS; k++)
					s.bottleneck[k] =
					    mr->cl.v[i * (size_t)mr->cl_cols + (size_t)k] * 1000.0;
			}
			if (push_step(c, r, &s))
				return nns_err_set(err, NNS_ENOMEM, "out of memory");
		}
	}
	if (cl_rows > 0) {
		size_t last = (cl_rows - 1) * (size_t)mr->cl_cols;

		r->has_bottleneck = 1;
		r->bottleneck_cols = mr->cl_cols < MSC_MAX_COLS ? mr->cl_cols : MSC_MAX_COLS;
		for (int k = 0; k < r->bottleneck_cols; k++)
			r->bottleneck[k] = mr->cl.v[last + (size_t)k] * 1000.0;
	}
	if (mr->has_flops) {
		r->has_flops = 1;
		r->flops = mr->flops;
		r->flops_per_s = mr->flops_per_s;
	}
	if (mr->has_hccl) {
		r->has_comm = 1;
		r->comm_cost_us = mr->comm_cost_ms * 1000.0;
		r->wait_cost_us = mr->wait_cost_ms * 1000.0;
		r->comm_ops = mr->ops.n;
		for (size_t i = 0; i < mr->links.n; i++) {
			const struct msc_link *ml = &mr->links.v[i];
			struct cl_link l;

			memset(&l, 0, sizeof(l));
			l.reporter = mr->rank;
			l.src = ml->src;
			l.dst = ml->dst;
			snprintf(l.type, sizeof(l.type), "%s", ml->type);
			l.time_us = ml->time_ms * 1000.0;
			l.size_kb = ml->size_kb;
			l.bw_kbps = ml->bw_kbps;
			if (c->links.n >= (size_t)MSC_MAX_ROWS || vec_push(&c->links, l))
				return nns_err_set(err, NNS_ENOMEM, "too many links");
		}
	}
	return NNS_OK;
}

int cl_from_ms(struct cl_result *c, const struct msc_job *j, struct nns_err *err)
{
	int all_st = 1, all_fl = 1, all_hc = 1, rc;

	snprintf(c->source, sizeof(c->source), "mindspore");
	snprintf(c->mode, sizeof(c->mode), "%s", j->mode[0] ? j->mode : "data-parallel");
	c->stage_num = j->stage_num > 0 ? j->stage_num : 1;
	c->rank_size = j->rank_size > 0 ? j->rank_size : (int)j->ranks.n;
	snprintf(c->note, sizeof(c->note), "%s", j->note);
	for (size_t i = 0; i < j->ranks.n; i++) {
		const struct msc_rank *mr = &j->ranks.v[i];

		if ((rc = ms_rank(c, j, mr, err)))
			return rc;
		all_st &= mr->has_st;
		all_fl &= mr->has_flops;
		all_hc &= mr->has_hccl;
	}
	c->analyse_steps = all_st && j->ranks.n > 0;
	c->analyse_flops = all_fl && j->ranks.n > 0;
	c->analyse_hccl = all_hc && j->ranks.n > 0;
	return cl_finish(c, err);
}

/* ---- nnscope / Kineto runs ---------------------------------------------------- */

const char *cl_not_a_rank(const struct model *m)
{
	const char *role = m ? model_meta_get(m, "role") : NULL;

	/* a launcher (torchrun, mpirun) or a rank's forked helper (a DataLoader
	 * worker) is not a rank (collector meta.c) */
	if (role && (strcmp(role, "launcher") == 0 || strcmp(role, "helper") == 0))
		return role;
	return NULL;
}

int cl_add_profile(struct cl_result *c, const char *worker, const struct an_profile *p,
		   struct nns_err *err)
{
	const struct model *m = p->m;
	const struct an_steptrace *st = &p->steptrace;
	const char *host = m ? model_meta_get(m, "host") : NULL;
	struct cl_rank *r;
	double comm = 0;

	if (cl_not_a_rank(m))
		return NNS_OK;
	if (!c->source[0]) {
		snprintf(c->source, sizeof(c->source), "nnscope");
		snprintf(c->mode, sizeof(c->mode), "data-parallel");
		c->clock_aligned = 1;
	}
	if (!(r = new_rank(c, err)))
		return NNS_ENOMEM;
	r->rank = m && m->dist_rank >= 0 && m->dist_rank < INT32_MAX ? (int)m->dist_rank
								     : -1 - (int)(c->ranks.n - 1);
	snprintf(r->worker, sizeof(r->worker), "%s", worker ? worker : "");
	snprintf(r->host, sizeof(r->host), "%s", host ? host : "");
	if (m && m->dist_world_size > 0 && m->dist_world_size <= MSC_MAX_RANKS &&
	    m->dist_world_size > c->rank_size)
		c->rank_size = (int)m->dist_world_size;
	/* wall clock: nnscope traces are on CLOCK_REALTIME (mono + offset) */
	if (!m || m->mono_offset_ns == MODEL_NONE || m->mono_offset_ns == 0)
		c->clock_aligned = 0;
	r->clock_error_us = NAN;
	if (m) {
		const char *cs = model_meta_get(m, "clock_sync");
		const char *me = model_meta_get(m, "clock_maxerror_us");

		snprintf(r->clock_sync, sizeof(r->clock_sync), "%s", cs ? cs : "");
		if (me && *me)
			r->clock_error_us = strtod(me, NULL);
	}
	if (st->steps.n > 0) {
		r->has_steptrace = 1;
		r->interval_us = st->avg_interval / 1000.0;
		r->fp_bp_us = st->avg_fp_bp / 1000.0;
		r->tail_us = st->avg_tail / 1000.0;
		r->total_us = st->avg_total / 1000.0;
	}
	for (size_t i = 0; i < st->steps.n; i++) {
		const struct an_steptrace_row *x = &st->steps.v[i];
		struct cl_step s;

		memset(&s, 0, sizeof(s));
		snprintf(s.name, sizeof(s.name), "%s", x->name);
		s.interval_us = (double)x->iteration_interval / 1000.0;
		s.fp_bp_us = (double)x->fp_bp / 1000.0;
		s.tail_us = (double)x->tail / 1000.0;
		s.total_us = (double)(x->end - x->start) / 1000.0;
		s.start_us = (double)x->start; /* ns for now; relative in cl_finish */
		if (push_step(c, r, &s))
			return nns_err_set(err, NNS_ENOMEM, "out of memory");
	}
	/* communication: the mean Communication role time per step */
	if (p->overview.has_communication && p->overview.steps.n > 0) {
		comm = p->overview.avg[AN_COMM] / 1000.0;
		r->has_comm = 1;
		r->comm_cost_us = comm;
		r->comm_ops = p->comm_nodes.n;
	}
	return NNS_OK;
}

/* ---- finishing ---------------------------------------------------------------- */

static int cmp_rank(const void *a, const void *b)
{
	const struct cl_rank *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Ranks without rank metadata got -1, -2, ...: number them after the
 * largest known rank in the order they were added. */
static void number_ranks(struct cl_result *c)
{
	int top = -1;

	for (size_t i = 0; i < c->ranks.n; i++)
		if (c->ranks.v[i].rank > top)
			top = c->ranks.v[i].rank;
	for (size_t i = 0; i < c->ranks.n; i++)
		if (c->ranks.v[i].rank < 0)
			c->ranks.v[i].rank = ++top;
}

/* nnscope: step starts relative to the earliest step of any rank. */
static void align_steps(struct cl_result *c)
{
	double t0 = INFINITY;

	for (size_t i = 0; i < c->ranks.n; i++)
		for (size_t k = 0; k < c->ranks.v[i].steps.n; k++)
			if (c->ranks.v[i].steps.v[k].start_us < t0)
				t0 = c->ranks.v[i].steps.v[k].start_us;
	for (size_t i = 0; i < c->ranks.n; i++)
		for (size_t k = 0; k < c->ranks.v[i].steps.n; k++) {
			struct cl_step *s = &c->ranks.v[i].steps.v[k];

			s->start_us =
			    c->clock_aligned && isfinite(t0) ? (s->start_us - t0) / 1000.0 : NAN;
		}
}

/* 0 when every rank is on one host; else the worst NTP error bound (an
 * unsynchronized rank makes it unknown). */
static void clock_error(struct cl_result *c)
{
	int one_host = 1;
	double worst = 0;

	for (size_t i = 1; i < c->ranks.n; i++)
		one_host &= strcmp(c->ranks.v[i].host, c->ranks.v[0].host) == 0;
	if (one_host && c->ranks.n > 0 && c->ranks.v[0].host[0]) {
		c->clock_error_us = 0;
		return;
	}
	for (size_t i = 0; i < c->ranks.n; i++) {
		const struct cl_rank *r = &c->ranks.v[i];

		if (!isfinite(r->clock_error_us) || strcmp(r->clock_sync, "ntp") != 0) {
			c->clock_error_us = NAN;
			return;
		}
		if (r->clock_error_us > worst)
			worst = r->clock_error_us;
	}
	c->clock_error_us = worst;
}

static int compute_stages(struct cl_result *c, struct nns_err *err)
{
	c->stages.n = 0;
	for (int st = 1; st <= c->stage_num && st <= MSC_MAX_RANKS; st++) {
		struct cl_stage s;
		double coll = 0, busy = 0, fsum = 0, isum = 0;
		int n = 0, nb = 0;

		memset(&s, 0, sizeof(s));
		s.stage = st;
		for (size_t i = 0; i < c->ranks.n; i++) {
			const struct cl_rank *r = &c->ranks.v[i];

			if (r->stage != st)
				continue;
			n++;
			fsum += r->has_flops ? r->flops : 0;
			isum += r->interval_us;
			if (r->has_bottleneck && r->bottleneck_cols >= 5) {
				coll += r->bottleneck[4];
				busy += r->bottleneck[0] + r->bottleneck[1];
				nb++;
			}
		}
		s.ranks = n;
		s.flops_avg = n ? fsum / n : 0;
		s.interval_avg_us = n ? isum / n : 0;
		s.within_comm_rate = nb == n && n > 0 && busy > 0 ? coll / busy : NAN;
		if (vec_push(&c->stages, s))
			return nns_err_set(err, NNS_ENOMEM, "out of memory");
	}
	return NNS_OK;
}

/* Σcomm / (Σcomp + Σcomm) and, pipelined, Σreceive / (Σcomp + Σcomm) over
 * the cluster csv average rows of every rank (MindInsight rounds to 4). */
static void compute_rates(struct cl_result *c)
{
	double comp = 0, comm = 0, recv = 0;
	int all = c->ranks.n > 0, five = 1;

	for (size_t i = 0; i < c->ranks.n; i++) {
		const struct cl_rank *r = &c->ranks.v[i];

		if (!r->has_bottleneck || r->bottleneck_cols < 2) {
			all = 0;
			break;
		}
		comp += r->bottleneck[0];
		comm += r->bottleneck[1];
		if (r->bottleneck_cols >= 4)
			recv += r->bottleneck[3];
		else
			five = 0;
	}
	if (!all || comp + comm <= 0)
		return;
	c->comm_rate = cl_round(comm / (comp + comm), 4);
	if (five && strcmp(c->mode, "pipeline-parallel") == 0)
		c->between_stage_rate = cl_round(recv / (comp + comm), 4);
}

int cl_finish(struct cl_result *c, struct nns_err *err)
{
	int rc;

	number_ranks(c);
	if (c->ranks.n > 1)
		qsort(c->ranks.v, c->ranks.n, sizeof(*c->ranks.v), cmp_rank);
	if (strcmp(c->source, "nnscope") == 0) {
		int all = c->ranks.n > 0;

		align_steps(c);
		if (c->clock_aligned)
			clock_error(c);
		for (size_t i = 0; i < c->ranks.n; i++)
			all &= c->ranks.v[i].has_steptrace;
		c->analyse_steps = all;
		if (c->rank_size < (int)c->ranks.n)
			c->rank_size = (int)c->ranks.n;
	}
	if (c->steps_dropped && !c->note[0])
		snprintf(
		    c->note, sizeof(c->note),
		    "%zu steps left out of the per-step lists (at most %d per rank, %d in all); "
		    "the averages use every step",
		    c->steps_dropped, CL_MAX_STEPS_PER_RANK, CL_MAX_STEPS_TOTAL);
	if ((rc = compute_stages(c, err)))
		return rc;
	compute_rates(c);
	return cl_propose(c, err);
}

/* ---- helpers ------------------------------------------------------------------ */

double cl_round(double x, int digits)
{
	char buf[64];

	if (!isfinite(x))
		return x;
	/* printf rounds the exact binary value, as Python's round() does */
	snprintf(buf, sizeof(buf), "%.*f", digits, x);
	return strtod(buf, NULL);
}

double cl_ms(double us)
{
	return us * 100.0 / 1e5;
}

static double key_of(const struct cl_rank *r, int key)
{
	switch (key) {
	case 2:
		return r->interval_us;
	case 3:
		return r->fp_bp_us;
	case 4:
		return r->tail_us;
	case 5:
		return r->total_us;
	default:
		return r->rank;
	}
}

struct sort_by {
	int key, desc;
};

static int cmp_key(const void *a, const void *b, void *arg)
{
	const struct cl_rank *x = a, *y = b;
	const struct sort_by *sb = arg;
	int sort_key = sb->key, d;

	if (sort_key == 1)
		d = strcmp(x->host, y->host);
	else {
		double u = key_of(x, sort_key), v = key_of(y, sort_key);

		d = (u > v) - (u < v);
	}
	if (d == 0)
		d = (x->rank > y->rank) - (x->rank < y->rank);
	else if (sb->desc)
		d = -d;
	return d;
}

int cl_sort_ranks(struct cl_result *c, const char *key, int descending)
{
	static const char *const keys[] = {"rank",  "host", "iteration_interval",
					   "fp_bp", "tail", "total"};
	struct sort_by sb;
	int k = -1;

	for (int i = 0; i < 6; i++)
		if (key && strcmp(key, keys[i]) == 0)
			k = i;
	if (k < 0)
		return NNS_EINVAL;
	/* rank breaks ties, so the order is total */
	sb.key = k;
	sb.desc = descending;
	if (c->ranks.n > 1)
		qsort_r(c->ranks.v, c->ranks.n, sizeof(*c->ranks.v), cmp_key, &sb);
	return NNS_OK;
}

const struct cl_proposal *cl_find_proposal(const struct cl_result *c, const char *id)
{
	for (size_t i = 0; i < c->proposals.n; i++)
		if (strcmp(c->proposals.v[i].id, id) == 0)
			return &c->proposals.v[i];
	return NULL;
}

const struct cl_rank *cl_find_rank(const struct cl_result *c, int rank)
{
	for (size_t i = 0; i < c->ranks.n; i++)
		if (c->ranks.v[i].rank == rank)
			return &c->ranks.v[i];
	return NULL;
}

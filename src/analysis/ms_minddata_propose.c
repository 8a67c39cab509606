/*
 * ms_minddata_propose.c - MindInsight's MindData proposals (upstream
 * minddata_proposer.py and minddata_pipeline_proposer.py; labels, values
 * and thresholds in ms_minddata.h) with advice text for people, worded
 * after MindInsight's en-us "profiling.*" strings.
 */
#include "analysis/ms_minddata.h"
#include "common/vec.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ms_md_proposals_release(struct ms_md_proposals *x)
{
	for (size_t i = 0; i < x->v.n; i++)
		free(x->v.v[i].str);
	vec_free(&x->v);
}

const struct ms_md_proposal *ms_md_proposal_find(const struct ms_md_proposals *x, const char *id)
{
	for (size_t i = 0; i < x->v.n; i++)
		if (strcmp(x->v.v[i].id, id) == 0)
			return &x->v.v[i];
	return NULL;
}

/* Appends a proposal with nn numbers (and str, taken over) and a text. */
static int add(struct ms_md_proposals *x, const char *id, const double *nums, int nn, char *str,
	       const char *cause, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static int add(struct ms_md_proposals *x, const char *id, const double *nums, int nn, char *str,
	       const char *cause, const char *fmt, ...)
{
	struct ms_md_proposal p;
	va_list ap;

	memset(&p, 0, sizeof(p));
	snprintf(p.id, sizeof(p.id), "%s", id);
	for (int i = 0; i < nn && i < 4; i++)
		p.nums[p.nnums++] = nums[i];
	p.str = str;
	p.cause = cause;
	va_start(ap, fmt);
	vsnprintf(p.text, sizeof(p.text), fmt, ap);
	va_end(ap);
	if (vec_push(&x->v, p)) {
		free(str);
		return NNS_ENOMEM;
	}
	return NNS_OK;
}

static int queue_proposals(const struct ms_md_dq *q, const struct ms_md_gn *g,
			   struct ms_md_proposals *out)
{
	struct ms_md_queue_summary s;
	double rate = 0;
	int rc = NNS_OK;

	ms_md_queue_summary(q, g, &s);
	if (!s.present)
		return NNS_OK;
	if (s.has_get_next) {
		double v[2] = {(double)s.gn_empty, (double)s.gn_total};

		rc = add(out, "minddata_get_next_queue", v, 2, NULL, NULL,
			 "The ratio of empty queues on a chip is %zu/%zu: %s", s.gn_empty,
			 s.gn_total,
			 s.gn_empty ? "in those steps the device waited for a batch (GetNext found "
				      "its queue empty)."
				    : "the device never waited for a batch.");
		if (rc)
			return rc;
	}
	if (s.dq_total == 0) /* upstream divides by it */
		return NNS_OK;
	{
		double v[4] = {(double)s.dq_empty, (double)s.dq_total, (double)s.dq_full,
			       (double)s.dq_total};

		rate = ceil((double)s.dq_empty / (double)s.dq_total * 100);
		rc = add(out, "minddata_device_queue", v, 4, NULL, NULL,
			 "The ratio of empty queues on a host is %zu/%zu, and the ratio of full "
			 "queues is %zu/%zu. An empty host queue means the data pipeline did not "
			 "have the next batch ready; a full one means it is ahead of the device.",
			 s.dq_empty, s.dq_total, s.dq_full, s.dq_total);
		if (rc)
			return rc;
	}
	if (s.data_process == MS_MD_WARNING || s.data_transmission == MS_MD_WARNING) {
		double v[2] = {rate, MS_MD_EMPTY_WARNING_THRESHOLD * 100};

		if (s.data_process == MS_MD_WARNING)
			return add(out, "minddata_device_queue_rate", v, 2, NULL, "data_process",
				   "The ratio of empty queues on a host is %g%%, and the threshold "
				   "is %g%%. The data processing stage can be optimized: the "
				   "pipeline does not prepare batches as fast as the device "
				   "consumes them (see the pipeline ops below and their "
				   "num_parallel_workers).",
				   v[0], v[1]);
		return add(out, "minddata_device_queue_rate", v, 2, NULL, "data_transmission",
			   "The ratio of empty queues on a host is %g%%, and the threshold is "
			   "%g%%. There are empty queues on a chip. The data transmission stage "
			   "can be optimized: batches are ready on the host but do not reach the "
			   "device in time.",
			   v[0], v[1]);
	}
	if (s.device_queue_warning == MS_MD_WARNING)
		return add(out, "device_queue_warning", NULL, 0, strdup("warning"), NULL,
			   "The host queue was empty in %zu of %zu batches (at most %g%%)%s: the "
			   "data pipeline keeps up with the device; look elsewhere (the step "
			   "trace) for the time between steps.",
			   s.dq_empty, s.dq_total, MS_MD_EMPTY_WARNING_THRESHOLD * 100,
			   s.has_get_next ? " and the chip queue was never empty" : "");
	return NNS_OK;
}

static int cpu_proposal(const struct ms_md_cpu *c, const struct ms_md_dq *q,
			struct ms_md_proposals *out)
{
	struct ms_md_cpu_info ci;
	int rc;

	if (!c || !c->present)
		return NNS_OK;
	if ((rc = ms_md_cpu_analyse(c, q, &ci)))
		return rc;
	if (ci.has_idle && ci.active_avg > MS_MD_CPU_ACTIVE_THRESHOLD) {
		double v[1] = {ci.active_avg};

		rc = add(out, "minddata_cpu_utilization", v, 1, NULL, NULL,
			 "The average CPU usage of the entire system is %g%% (threshold %d%%), "
			 "which may affect the data processing performance: other processes or "
			 "too many workers compete for the CPUs.",
			 v[0], MS_MD_CPU_ACTIVE_THRESHOLD);
	}
	ms_md_cpu_info_release(&ci);
	return rc;
}

/* "<type>_<id>" of the flagged ops of one kind, last first, joined by '/';
 * NULL when none (or no memory: *nomem). */
static char *join_names(const struct ms_md_pipeline *p, const size_t *idx, size_t n, int kind,
			int *nomem)
{
	size_t cap = 0, len = 0;
	char *s = NULL;

	for (size_t k = n; k-- > 0;) {
		const struct ms_md_op *o = &p->ops.v[idx[k]];
		int leaf = !o->has_children || o->children.n == 0;
		char name[MS_MD_NAME_MAX + 32];
		int w;

		/* kind: 0 all, 1 leaves, 2 GeneratorOp, 3 MapOp, 4 BatchOp */
		if ((kind == 1 && !leaf) ||
		    (kind == 2 && (leaf || strcmp(o->op_type, "GeneratorOp") != 0)) ||
		    (kind == 3 && (leaf || strcmp(o->op_type, "MapOp") != 0)) ||
		    (kind == 4 && (leaf || strcmp(o->op_type, "BatchOp") != 0)))
			continue;
		w = snprintf(name, sizeof(name), "%s%s_%lld", len ? "/" : "", o->op_type,
			     (long long)o->op_id);
		if (vec_reserve_raw((void **)&s, &cap, len + (size_t)w + 1, 1)) {
			free(s);
			*nomem = 1;
			return NULL;
		}
		memcpy(s + len, name, (size_t)w + 1);
		len += (size_t)w;
	}
	return s;
}

static int pipeline_proposals(const struct ms_md_pipeline *p, struct ms_md_proposals *out)
{
	static const char *const ids[5] = {
	    "minddata_pipeline-general", "minddata_pipeline-dataset_op",
	    "minddata_pipeline-generator_op", "minddata_pipeline-map_op",
	    "minddata_pipeline-batch_op"};
	static const char *const texts[5] = {
	    "The %s operator in the pipeline may have performance bottlenecks: its output "
	    "queue is rarely filled while its input is (or, for a source, its queue is almost "
	    "always empty).",
	    "For the dataset operator %s, try to increase or decrease num_parallel_workers.",
	    "For %s, try to increase or decrease num_parallel_workers, or replace the "
	    "operator with the MindRecordDataset operator.",
	    "For %s, try to increase or decrease num_parallel_workers; if a Python operator "
	    "is used, you can optimize the training script.",
	    "For %s, you can increase the prefetch_size value."};
	size_t *idx, n = 0;
	int rc = NNS_OK, nomem = 0;

	if (!p || !p->present || p->ops.n == 0)
		return NNS_OK;
	idx = malloc(p->ops.n * sizeof(*idx));
	if (!idx)
		return NNS_ENOMEM;
	ms_md_pipeline_outside_threshold(p, MS_MD_PIPE_HIGH, MS_MD_PIPE_LOW, idx, &n);
	/* upstream drops every label when the first flagged op is the root */
	if (n && p->ops.v[idx[0]].has_parent) {
		for (int kind = 0; kind < 5 && !rc; kind++) {
			char *s = join_names(p, idx, n, kind, &nomem);

			if (nomem) {
				rc = NNS_ENOMEM;
				break;
			}
			if (s)
				rc = add(out, ids[kind], NULL, 0, s, NULL, texts[kind], s);
		}
	}
	free(idx);
	return rc;
}

int ms_md_propose(const struct ms_md_dq *q, const struct ms_md_gn *g,
		  const struct ms_md_pipeline *p, const struct ms_md_cpu *c,
		  struct ms_md_proposals *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	rc = queue_proposals(q, g, out);
	if (!rc)
		rc = cpu_proposal(c, q, out);
	if (!rc)
		rc = pipeline_proposals(p, out);
	if (rc)
		ms_md_proposals_release(out);
	return rc;
}

/*
 * hta_temporal.c - HTA's temporal breakdown (BreakdownAnalysis.
 * get_temporal_breakdown) per device of one worker.
 *
 * For each device: total = end of the last device event - start of the
 * first; idle = total - the union of all device events (kernels, memcpy,
 * memset); compute = the union of compute kernels; non-compute = busy -
 * compute, i.e. communication (NCCL/gloo) and memory kernels where no
 * compute kernel runs. total == compute + non_compute + idle exactly.
 *
 * Differences from HTA: HTA works per rank (all GPUs of a trace together);
 * nnscope splits by the events' device, so a worker driving several GPUs
 * gets one row each. HTA keeps only events with a stream (stream != -1);
 * nnscope counts every device event (a memcpy without a stream still
 * occupies the device). Kind (memcpy/memset) comes from Kineto's category
 * as well as from "Memcpy"/"Memset" in the name (HTA's only rule).
 */
#include "analysis/analysis.h"
#include "analysis/hta_time.h"
#include "analysis/names.h"

#include <stdlib.h>
#include <string.h>

struct dev_acc {
	int device;
	int64_t first, last;
	struct iv_set all, compute;
};

static int cmp_dev(const void *a, const void *b)
{
	const struct hta_temporal_dev *x = a, *y = b;

	return (x->device > y->device) - (x->device < y->device);
}

int hta_temporal_compute(const struct model *m, struct hta_temporal *out, struct nns_err *err)
{
	VEC(struct dev_acc) acc = {0};
	int32_t *slot = NULL;
	size_t i, j, hit;
	int rc = NNS_ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!(slot = malloc(65536 * sizeof(*slot))))
		goto out;
	for (i = 0; i < 65536; i++)
		slot[i] = -1;
	for (i = 0; i < m->events.n && (m->kinds & MODEL_KB_DEVICE); i++) {
		const struct model_event *e = &m->events.v[i];
		struct dev_acc *a;
		int64_t end;
		int dv;

		if (!model_kind_is_device(e->kind))
			continue;
		dv = model_event_device(m, (uint32_t)i);
		/* slot: device (int16) -> index into acc, -1 if none yet */
		if (slot[(uint16_t)dv] < 0) {
			struct dev_acc z = {0};

			z.device = dv;
			z.first = INT64_MAX;
			z.last = INT64_MIN;
			if (vec_push(&acc, z) != 0)
				goto out;
			slot[(uint16_t)dv] = (int32_t)(acc.n - 1);
		}
		hit = (size_t)slot[(uint16_t)dv];
		a = &acc.v[hit];
		end = e->ts + e->dur;
		if (e->ts < a->first)
			a->first = e->ts;
		if (end > a->last)
			a->last = end;
		if (e->dur <= 0)
			continue;
		if (iv_add(&a->all, e->ts, end) != 0)
			goto out;
		if (model_event_class(m, (uint32_t)i) == MC_COMPUTE &&
		    iv_add(&a->compute, e->ts, end) != 0)
			goto out;
	}
	for (i = 0; i < acc.n; i++) {
		struct dev_acc *a = &acc.v[i];
		struct hta_temporal_dev d = {0};
		int64_t busy;

		if (iv_merge(&a->all) != 0 || iv_merge(&a->compute) != 0)
			goto out;
		d.device = a->device;
		d.total = a->last - a->first;
		busy = iv_total(&a->all);
		d.compute = iv_total(&a->compute);
		d.idle = d.total - busy;
		d.non_compute = busy - d.compute;
		if (vec_push(&out->devs, d) != 0)
			goto out;
	}
	if (out->devs.n > 1)
		qsort(out->devs.v, out->devs.n, sizeof(*out->devs.v), cmp_dev);
	rc = NNS_OK;
out:
	free(slot);
	for (j = 0; j < acc.n; j++) {
		iv_set_release(&acc.v[j].all);
		iv_set_release(&acc.v[j].compute);
	}
	vec_free(&acc);
	if (rc != NNS_OK)
		return nns_err_set(err, rc, "temporal breakdown: out of memory");
	return rc;
}

void hta_temporal_release(struct hta_temporal *t)
{
	vec_free(&t->devs);
}

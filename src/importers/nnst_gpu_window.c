/*
 * nnst_gpu_window.c - keeps the GPU records of a .nnst trace that belong to
 * its collection windows (owner: the .nnst importer; called by
 * nnst_gpu.c's finish with the events it added).
 *
 * CUPTI and the NCCL plugin record from the moment they are enabled, while
 * the collector's own events stop between windows (nns_stop, a schedule's
 * wait steps) and are dropped in warmup steps. A GPU record belongs where
 * its launch was made, as torch.profiler keeps a kernel whose launch falls
 * in an active step: a kernel, copy or memset is judged by the start of its
 * runtime/driver record (same correlation id) when there is one, anything
 * else by its own start. Active time is what the window bounds say
 * (docs/FORMAT.md "Windows and steps"): a START or active STEP opens it, the
 * next bound of any kind (STOP, warmup STEP, next STEP) ends that piece;
 * the last opening bound runs to the end. A trace without bounds keeps
 * everything. Events outside are removed from model.events (their launch
 * parameter rows stay, unreferenced).
 */
#include "nnst_internal.h"

#include <stdlib.h>

struct span {
	int64_t t0, t1;
};

static int ts_cmp(const void *a, const void *b)
{
	const struct ni_bound *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* Whether t lies in one of the n sorted, disjoint spans. */
static int inside(const struct span *s, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].t1 <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && s[lo].t0 <= t && t < s[lo].t1;
}

/* The active spans from the window bounds; *n = 0 when the trace has
 * none (then everything is kept). */
static struct span *active_spans(struct ni *x, size_t *n)
{
	size_t nb = x->bounds.n, k = 0;
	struct span *s;

	*n = 0;
	if (nb == 0)
		return NULL;
	qsort(x->bounds.v, nb, sizeof(*x->bounds.v), ts_cmp);
	s = malloc(nb * sizeof(*s));
	if (!s)
		return NULL;
	for (size_t i = 0; i < nb; i++) {
		const struct ni_bound *b = &x->bounds.v[i];
		int64_t end = i + 1 < nb ? x->bounds.v[i + 1].ts : INT64_MAX;

		if (b->num < 0 || end <= b->ts)
			continue;
		if (k && s[k - 1].t1 == b->ts)
			s[k - 1].t1 = end; /* consecutive steps: one span */
		else
			s[k++] = (struct span){b->ts, end};
	}
	*n = k;
	return s;
}

int ni_gpu_keep_windows(struct ni *x, const uint32_t *added, size_t n)
{
	struct model *m = x->m;
	struct span *spans;
	struct hmap launch; /* correlation id -> event index of its launch */
	uint8_t *drop;
	size_t ns, w = 0, ndrop = 0;

	if (n == 0 || x->bounds.n == 0)
		return 0;
	spans = active_spans(x, &ns);
	if (!spans)
		return NNS_ENOMEM;
	drop = calloc(m->events.n, 1);
	if (!drop) {
		free(spans);
		return NNS_ENOMEM;
	}
	hmap_init(&launch);
	for (size_t i = 0; i < n; i++) {
		const struct model_event *e = &m->events.v[added[i]];
		int64_t c = model_corr(m, e);

		if (model_kind_is_launch(e->kind) && c != MODEL_NONE && c > 0 && c <= UINT32_MAX &&
		    !hmap_put(&launch, (uint64_t)c, added[i], NULL)) {
			hmap_release(&launch);
			free(drop);
			free(spans);
			return NNS_ENOMEM;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct model_event *e = &m->events.v[added[i]];
		int64_t t = e->ts, c = model_corr(m, e);

		if (model_kind_is_device(e->kind) && c != MODEL_NONE && c > 0 && c <= UINT32_MAX) {
			const uint32_t *l = hmap_get(&launch, (uint64_t)c);

			if (l)
				t = m->events.v[*l].ts;
		}
		if (!inside(spans, ns, t)) {
			drop[added[i]] = 1;
			ndrop++;
		}
	}
	hmap_release(&launch);
	free(spans);
	if (ndrop) {
		for (size_t i = 0; i < m->events.n; i++)
			if (!drop[i])
				m->events.v[w++] = m->events.v[i];
		m->events.n = w;
	}
	free(drop);
	return 0;
}

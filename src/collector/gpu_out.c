/*
 * gpu_out.c - the queue between GPU-side record producers (the CUPTI
 * backend's buffer-completed callback, the NCCL profiler plugin) and the
 * attached profiler's writer thread, which writes them as GPU and
 * GPUCLOCK chunks (docs/FORMAT.md "GPU records").
 * The profiler owns the queue (nns_profiler.gpu, freed by profiler.c);
 * producers only copy into it.
 *
 * Producers run off the hot path (CUPTI hands over whole buffers), so a
 * mutex and realloc are fine here. Holding reg_mu while nns_g.current is
 * the profiler keeps it alive: its writer clears nns_g.current under
 * reg_mu before the profiler can be freed.
 *
 * Back-pressure: a forced flush can hand over dozens of 4 MiB buffers at
 * once (a million records), faster than the writer drains them. When the
 * queue is full the producer wakes the writer and naps 1 ms with no lock
 * held, then looks the profiler up again, for at most GPU_WAIT_NS in all;
 * what still does not fit is counted as dropped. The writer thread itself
 * (CUPTI completes buffers on the thread that flushes) never waits.
 */
#include "collector.h"
#include "common/vec.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GPU_WAIT_NS 2000000000LL /* longest a producer waits for room */

/* Copies what fits of r[0..n) into the queue; returns how many. */
static size_t queue_locked(struct nns_profiler *p, const struct nnst_gpu *r, size_t n)
{
	size_t room = NNS_GPU_PENDING_MAX - p->ngpu, k = n < room ? n : room;

	/* k <= room keeps the queue under NNS_GPU_PENDING_MAX records */
	if (vec_reserve_raw((void **)&p->gpu, &p->gpu_cap, p->ngpu + k, sizeof(*p->gpu)))
		k = p->gpu_cap - p->ngpu;
	if (k)
		memcpy(p->gpu + p->ngpu, r, k * sizeof(*r));
	p->ngpu += k;
	return k;
}

size_t nns_gpu_submit(const struct nnst_gpu *r, size_t n)
{
	const struct timespec nap = {0, 1000000};
	size_t k = 0;
	long waited = 0;

	if (!r || !n)
		return 0;
	for (;;) {
		struct nns_profiler *p;
		int wake = 0, full = 0, writer = 0;

		pthread_mutex_lock(&nns_g.reg_mu);
		p = nns_g.current;
		if (p) {
			pthread_mutex_lock(&p->mu);
			k += queue_locked(p, r + k, n - k);
			wake = p->ngpu >= NNS_GPU_PENDING_MAX / 4;
			full = k < n;
			writer = p->writer_up && pthread_equal(pthread_self(), p->writer_th);
			if (full && (writer || waited >= GPU_WAIT_NS))
				p->gpu_dropped += n - k;
			pthread_mutex_unlock(&p->mu);
		}
		pthread_mutex_unlock(&nns_g.reg_mu);
		if (wake || full)
			nns_wake_writer();
		if (!p || !full || writer || waited >= GPU_WAIT_NS)
			return k;
		nanosleep(&nap, NULL);
		waited += nap.tv_nsec;
	}
}

int nns_gpu_clock_point(uint64_t gpu_ns, uint64_t raw)
{
	struct nns_profiler *p;
	int rc = -1;

	pthread_mutex_lock(&nns_g.reg_mu);
	p = nns_g.current;
	if (p) {
		pthread_mutex_lock(&p->mu);
		if (p->ngclk < NNS_GPUCLOCK_MAX) {
			p->gclk[p->ngclk].gpu_ns = gpu_ns;
			p->gclk[p->ngclk].raw = raw;
			p->ngclk++;
			rc = 0;
		}
		pthread_mutex_unlock(&p->mu);
	}
	pthread_mutex_unlock(&nns_g.reg_mu);
	return rc;
}

void nns_gpu_take_locked(struct nns_profiler *p, struct nnst_gpu **out, size_t *n,
			 struct nnst_gpuclock *clk, size_t *nclk)
{
	*out = p->gpu;
	*n = p->ngpu;
	p->gpu = NULL;
	p->ngpu = p->gpu_cap = 0;
	memcpy(clk, p->gclk, p->ngclk * sizeof(*clk));
	*nclk = p->ngclk;
	p->ngclk = 0;
}

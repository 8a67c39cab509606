/*
 * collector_check.c - prints what a .nnst file holds, one key=value per
 * line, for the collector's end-to-end scripts (owner: the collector).
 * Built from the format reader's objects (no analyzer):
 *
 *   collector_check FILE
 *   ok=1 end=0 truncated=0 chunks=N events=N lost=N threads=N clocks=N
 *   samples=N start=N stop=N steps=N marks=N pid=N meta.<key>=<value>...
 * Exit status 0 when the file opens, 1 otherwise.
 */
#include "test_collector_util.h"

int main(int argc, char **argv)
{
	struct tt_trace t;
	size_t events = 0, threads = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: collector_check FILE\n");
		return 2;
	}
	if (tt_load(&t, argv[1]))
		return 1;
	for (int i = 0; i < TT_MAX_THREADS; i++) {
		events += t.nev[i];
		threads += t.thread_seen[i];
	}
	printf("ok=%d\nend=%d\ntruncated=%d\nchunks=%zu\nevents=%zu\nlost=%llu\nthreads=%zu\n"
	       "clocks=%zu\nsamples=%zu\nstart=%zu\nstop=%zu\nsteps=%zu\nmarks=%zu\npid=%lld\n"
	       "ordered=%d\n",
	       t.ok, t.has_end, t.truncated, t.chunks, events,
	       (unsigned long long)tt_lost_total(&t), threads, t.clocks,
	       t.samples[1] + t.samples[2] + t.samples[3], tt_count(&t, NNST_EV_START, 0, 0),
	       tt_count(&t, NNST_EV_STOP, 0, 0), tt_count(&t, NNST_EV_STEP, 0, 0),
	       tt_count(&t, NNST_EV_MARK, 0, 0), (long long)t.hdr.pid,
	       t.thread_before_events && t.strings_before_use);
	for (size_t i = 0; i < t.nmeta; i++)
		printf("meta.%s=%s\n", t.meta[i][0], t.meta[i][1]);
	tt_free(&t);
	return 0;
}

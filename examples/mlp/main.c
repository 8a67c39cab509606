/*
 * main.c - the MLP example: trains a two-layer perceptron (mlp.c, OpenBLAS)
 * on synthetic classification batches produced by a loader thread into a
 * bounded queue (loader.c), instrumented with nnscope's C API.
 *
 *   build/examples/mlp [--steps N] [--batch B] [--in D] [--hidden H]
 *       [--classes C] [--lr LR] [--stall-ms MS] [--delay-ms MS]
 *       [--delay-from-step N] [--queue-cap Q] [--queue-sample-ms MS] [--threads T] [--seed S]
 *       [--out DIR] [--no-profile] [--analyse] [--quiet]
 *
 * Profiler options come from NNSCOPE_OPTIONS (or MS_PROFILER_OPTIONS), then
 * --out sets output_path. Per iteration the trace gets:
 *   "enumerate(DataLoader)#QueueLoader.__next__"  waiting for a batch (the
 *                                    analyzer's DataLoader naming)
 *   "forward", "backward", "Optimizer.step#SGD.step"
 *   nns_step()                       the step boundary
 * and "batch_queue" is sampled with nns_queue on each put and get, and
 * every --queue-sample-ms (default 1; 0: never) while the loop waits for a
 * batch. --stall-ms makes the loader sleep per batch so that the step is
 * dominated by the data wait (a data-pipeline bottleneck to find): with a
 * stall well above the step's compute the queue is empty in most samples
 * (> 80% at 20 ms), however slow the machine.
 * --delay-ms (or NNS_MLP_DELAY_MS; the option wins) makes the training loop
 * itself sleep at the start of every step, in a "mlp.delay" range ahead of
 * the data wait: a slow host in the iteration interval, for the cluster
 * test that launches several ranks and slows one (RANK/WORLD_SIZE are read
 * by the collector). --delay-from-step N (or NNS_MLP_DELAY_FROM; the option
 * wins) applies the delay only from step N on: a rank that slows midway,
 * for the live view's tests (its first "mlp.delay" range is when it
 * slowed).
 *
 * The last line is machine-readable for bench/overhead_examples:
 *   mlp: steps=N loss_first=.. loss_last=.. acc_last=.. step_ms_mean=..
 *        step_ms_median=.. wall_s=.. profiled=0|1 lost=..
 */
#include "loader.h"
#include "mlp.h"
#include "nnscope.h"

#include <cblas.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct args {
	int steps, batch, in, hidden, classes, stall_ms, delay_ms, delay_from, queue_cap, sample_ms;
	int threads;
	int quiet;
	int profile, analyse;
	float lr;
	uint64_t seed;
	const char *out;
};

/* OpenBLAS's own thread control (declared in its cblas.h, restated here in
 * case another CBLAS header is found first). */
void openblas_set_num_threads(int num_threads);

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: mlp [--steps N] [--batch B] [--in D] [--hidden H] [--classes C]\n"
		"           [--lr LR] [--stall-ms MS] [--delay-ms MS] [--delay-from-step N]\n"
		"           [--queue-cap Q] [--queue-sample-ms MS] [--threads T]\n"
		"           [--seed S] [--out DIR] [--no-profile] [--analyse] [--quiet]\n");
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct args *a)
{
	const char *delay_env = getenv("NNS_MLP_DELAY_MS");
	const char *from_env = getenv("NNS_MLP_DELAY_FROM");

	*a = (struct args){.steps = 200,
			   .batch = 128,
			   .in = 256,
			   .hidden = 512,
			   .classes = 10,
			   .queue_cap = 4,
			   .sample_ms = 1,
			   .threads = 1,
			   .profile = 1,
			   .lr = 0.05f,
			   .seed = 1};
	if (delay_env && *delay_env && parse_int(delay_env, 0, 60000, &a->delay_ms)) {
		fprintf(stderr, "mlp: bad NNS_MLP_DELAY_MS: %s (0..60000)\n", delay_env);
		return -1;
	}
	if (from_env && *from_env && parse_int(from_env, 0, 1 << 30, &a->delay_from)) {
		fprintf(stderr, "mlp: bad NNS_MLP_DELAY_FROM: %s (0..%d)\n", from_env, 1 << 30);
		return -1;
	}
	for (int i = 1; i < argc; i++) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int *ip = NULL, lo = 1, hi = 1 << 20;

		if (!strcmp(k, "--no-profile")) {
			a->profile = 0;
			continue;
		} else if (!strcmp(k, "--analyse")) {
			a->analyse = 1;
			continue;
		} else if (!strcmp(k, "--quiet")) {
			a->quiet = 1;
			continue;
		} else if (!strcmp(k, "-h") || !strcmp(k, "--help")) {
			usage();
			exit(0);
		}
		if (!v) {
			fprintf(stderr, "mlp: %s needs a value\n", k);
			return -1;
		}
		i++;
		if (!strcmp(k, "--steps"))
			ip = &a->steps;
		else if (!strcmp(k, "--batch"))
			ip = &a->batch;
		else if (!strcmp(k, "--in"))
			ip = &a->in;
		else if (!strcmp(k, "--hidden"))
			ip = &a->hidden;
		else if (!strcmp(k, "--classes"))
			ip = &a->classes, lo = 2;
		else if (!strcmp(k, "--stall-ms"))
			ip = &a->stall_ms, lo = 0, hi = 60000;
		else if (!strcmp(k, "--delay-ms"))
			ip = &a->delay_ms, lo = 0, hi = 60000;
		else if (!strcmp(k, "--delay-from-step"))
			ip = &a->delay_from, lo = 0, hi = 1 << 30;
		else if (!strcmp(k, "--queue-cap"))
			ip = &a->queue_cap, hi = 1024;
		else if (!strcmp(k, "--queue-sample-ms"))
			ip = &a->sample_ms, lo = 0, hi = 60000;
		else if (!strcmp(k, "--threads"))
			ip = &a->threads, hi = 256;
		else if (!strcmp(k, "--seed"))
			a->seed = strtoull(v, NULL, 10);
		else if (!strcmp(k, "--lr"))
			a->lr = strtof(v, NULL);
		else if (!strcmp(k, "--out"))
			a->out = v;
		else {
			fprintf(stderr, "mlp: unknown option %s\n", k);
			usage();
			return -1;
		}
		if (ip && parse_int(v, lo, hi, ip)) {
			fprintf(stderr, "mlp: bad value for %s: %s (%d..%d)\n", k, v, lo, hi);
			return -1;
		}
	}
	return 0;
}

static nns_profiler *make_profiler(const struct args *a)
{
	struct nns_options o;
	nns_profiler *p = NULL;
	char err[256] = "";
	int rc;

	nns_options_init(&o);
	rc = nns_options_from_env(&o, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "mlp: NNSCOPE_OPTIONS: %s\n", err);
		return NULL;
	}
	if (a->out)
		snprintf(o.output_path, sizeof(o.output_path), "%s", a->out);
	rc = nns_create(&p, &o);
	if (rc) {
		fprintf(stderr, "mlp: cannot start nnscope in %s: %s (%s)\n", o.output_path,
			nns_last_error(NULL), nns_strerror(rc));
		return NULL;
	}
	nns_set_metadata(p, "example", "mlp");
	return p;
}

int main(int argc, char **argv)
{
	struct args a;
	struct mlp m;
	struct loader l;
	nns_profiler *prof = NULL;
	uint32_t n_wait, n_fwd, n_bwd, n_opt, n_delay;
	double *times, t0, wall;
	float loss = 0, loss_first = 0;
	int correct = 0, rc = 1;

	if (parse_args(argc, argv, &a))
		return 2;
	openblas_set_num_threads(a.threads);
	times = calloc((size_t)a.steps, sizeof(double));
	if (!times || mlp_init(&m, a.in, a.hidden, a.classes, a.batch, a.seed)) {
		fprintf(stderr, "mlp: out of memory\n");
		return 1;
	}
	n_wait = nns_name("enumerate(DataLoader)#QueueLoader.__next__");
	n_fwd = nns_name("forward");
	n_bwd = nns_name("backward");
	n_opt = nns_name("Optimizer.step#SGD.step");
	n_delay = nns_name("mlp.delay");

	struct loader_cfg lc = {.batches = a.steps,
				.batch = a.batch,
				.dim = a.in,
				.classes = a.classes,
				.queue_cap = a.queue_cap,
				.stall_ms = a.stall_ms,
				.sample_ms = a.sample_ms,
				.noise = 6.0f,
				.seed = a.seed};
	if (loader_start(&l, &lc))
		goto out_model;
	/* after the set-up, so that step 0 is a training step */
	if (a.profile && !(prof = make_profiler(&a)))
		goto out_loader;

	wall = now_s();
	for (int step = 0; step < a.steps; step++) {
		struct batch *b;

		t0 = now_s();
		if (a.delay_ms > 0 && step >= a.delay_from) {
			struct timespec d = {a.delay_ms / 1000,
					     (long)(a.delay_ms % 1000) * 1000000L};

			nns_push(n_delay);
			while (nanosleep(&d, &d) != 0 && errno == EINTR)
				;
			nns_pop();
		}
		nns_push(n_wait);
		b = loader_next(&l);
		nns_pop();
		if (!b) {
			fprintf(stderr, "mlp: the loader stopped early at step %d\n", step);
			goto out_loader;
		}
		NNS_RANGE(n_fwd)
		{
			loss = mlp_forward(&m, b->x, b->y, b->n, &correct);
		}
		NNS_RANGE(n_bwd)
		{
			mlp_backward(&m, b->x, b->y, b->n);
		}
		NNS_RANGE(n_opt)
		{
			mlp_sgd(&m, a.lr);
		}
		loader_release(&l, b);
		if (prof)
			nns_step(prof);
		times[step] = now_s() - t0;
		if (step == 0)
			loss_first = loss;
		if (!a.quiet && (step % 20 == 0 || step == a.steps - 1))
			printf("step %4d  loss %.4f  acc %.3f\n", step, loss,
			       (double)correct / (double)b->n);
	}
	wall = now_s() - wall;
	rc = 0;

	/* mean and median over the steps after the first tenth (warm-up) */
	int skip = a.steps / 10, n = a.steps - skip;
	double sum = 0;

	for (int i = skip; i < a.steps; i++)
		sum += times[i];
	qsort(times + skip, (size_t)n, sizeof(double), cmp_double);
	printf("mlp: steps=%d loss_first=%.4f loss_last=%.4f acc_last=%.3f step_ms_mean=%.4f "
	       "step_ms_median=%.4f wall_s=%.3f profiled=%d lost=%llu\n",
	       a.steps, loss_first, loss, (double)correct / (double)a.batch, sum / n * 1e3,
	       times[skip + n / 2] * 1e3, wall, prof != NULL,
	       prof ? (unsigned long long)nns_lost_events(prof) : 0ULL);
out_loader:
	loader_stop(&l);
	if (prof) {
		if (rc == 0 && a.analyse) {
			int arc = nns_analyse(prof);

			if (arc) {
				fprintf(stderr, "mlp: analyse: %s (%s)\n", nns_last_error(prof),
					nns_strerror(arc));
				rc = 1;
			}
		}
		nns_destroy(prof);
	}
out_model:
	mlp_free(&m);
	free(times);
	return rc;
}

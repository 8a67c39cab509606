/*
 * loader.h - the MLP example's data loader: a producer thread generating
 * synthetic classification batches into a bounded queue (mutex + condition
 * variables), consumed by the training loop. A --stall-ms delay per batch
 * makes the loader the bottleneck on purpose.
 *
 * Batches cycle between two bounded queues: `free` (empty buffers) and
 * `full` (ready batches, named "batch_queue" in the trace, sampled with
 * nns_queue on every put and get, and every --queue-sample-ms while the
 * training loop waits on it empty, as a queue monitor would: the share of
 * empty samples then measures the waiting, not just the hand-overs). The
 * consumer owns a batch between loader_next() and loader_release().
 */
#ifndef MLP_LOADER_H
#define MLP_LOADER_H

#include <pthread.h>
#include <stdint.h>

struct batch {
	float *x; /* n x dim, row-major */
	int *y;	  /* n labels in [0, classes) */
	int n;
	long index;
};

struct bqueue {
	struct batch **items;
	int cap, head, count, closed;
	uint32_t name; /* nnscope queue name; 0 = not sampled */
	int sample_ms; /* > 0: sampled this often while a get waits */
	pthread_mutex_t mu;
	pthread_cond_t not_empty, not_full;
};

struct loader_cfg {
	int batches; /* how many batches to produce */
	int batch, dim, classes;
	int queue_cap; /* capacity of the ready queue */
	int stall_ms;  /* extra delay per batch */
	int sample_ms; /* the ready queue's sampling period while empty (0: none) */
	float noise;   /* sample = (centre + noise * N(0, 1)), scaled to unit variance */
	uint64_t seed;
};

struct loader {
	struct loader_cfg cfg;
	struct bqueue full, free;
	struct batch *pool;
	int npool;
	float *centres; /* classes x dim */
	float *noise;	/* a table of N(0, 1) samples */
	pthread_t thread;
	int started;
	uint32_t n_produce, n_stall;
};

/* 0 on success, -1 (with a message on stderr) on failure. */
int loader_start(struct loader *l, const struct loader_cfg *cfg);
/* The next batch, or NULL when all were produced. Blocks while empty. */
struct batch *loader_next(struct loader *l);
void loader_release(struct loader *l, struct batch *b);
/* Joins the producer and frees everything. */
void loader_stop(struct loader *l);

/* xorshift64* generator shared with the model's initialisation. */
uint64_t rng_next(uint64_t *s);
float rng_uniform(uint64_t *s); /* [0, 1) */
float rng_normal(uint64_t *s);

#endif

/*
 * loader.c - the MLP example's producer thread and bounded queues
 * (loader.h). The producer draws each sample from a Gaussian around its
 * class centre; centres are fixed by the seed, so the task is learnable and
 * the loss goes down. Instrumentation: the producer's work is the range
 * "QueueLoader.produce" (and "QueueLoader.stall" for the deliberate delay)
 * on the loader thread; every put/get on the ready queue is an nns_queue
 * sample (size, capacity) of "batch_queue", and so is every sample_ms of a
 * get waiting on it empty.
 */
#include "loader.h"
#include "nnscope.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

float rng_uniform(uint64_t *s)
{
	return (float)(rng_next(s) >> 40) / (float)(1u << 24);
}

float rng_normal(uint64_t *s)
{
	float u = rng_uniform(s), v = rng_uniform(s);

	if (u < 1e-7f)
		u = 1e-7f;
	return sqrtf(-2.0f * logf(u)) * cosf(6.2831853f * v);
}

static int bq_init(struct bqueue *q, int cap, uint32_t name)
{
	memset(q, 0, sizeof(*q));
	q->items = calloc((size_t)cap, sizeof(*q->items));
	if (!q->items)
		return -1;
	q->cap = cap;
	q->name = name;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
	return 0;
}

static void bq_release(struct bqueue *q)
{
	free(q->items);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->not_empty);
	pthread_cond_destroy(&q->not_full);
}

static void bq_put(struct bqueue *q, struct batch *b)
{
	pthread_mutex_lock(&q->mu);
	while (q->count == q->cap)
		pthread_cond_wait(&q->not_full, &q->mu);
	q->items[(q->head + q->count) % q->cap] = b;
	q->count++;
	if (q->name)
		nns_queue(q->name, (uint32_t)q->count, (uint32_t)q->cap);
	pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->mu);
}

/* NULL once the queue is closed and drained. */
static struct batch *bq_get(struct bqueue *q)
{
	struct batch *b = NULL;

	pthread_mutex_lock(&q->mu);
	while (q->count == 0 && !q->closed) {
		struct timespec dl;

		if (!q->name || q->sample_ms <= 0) {
			pthread_cond_wait(&q->not_empty, &q->mu);
			continue;
		}
		/* found empty: a sample now and one per period of waiting */
		nns_queue(q->name, 0, (uint32_t)q->cap);
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_nsec += (long)(q->sample_ms % 1000) * 1000000L;
		dl.tv_sec += q->sample_ms / 1000 + dl.tv_nsec / 1000000000L;
		dl.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&q->not_empty, &q->mu, &dl);
	}
	if (q->count > 0) {
		b = q->items[q->head];
		q->head = (q->head + 1) % q->cap;
		q->count--;
		if (q->name)
			nns_queue(q->name, (uint32_t)q->count, (uint32_t)q->cap);
		pthread_cond_signal(&q->not_full);
	}
	pthread_mutex_unlock(&q->mu);
	return b;
}

static void bq_close(struct bqueue *q)
{
	pthread_mutex_lock(&q->mu);
	q->closed = 1;
	pthread_cond_broadcast(&q->not_empty);
	pthread_mutex_unlock(&q->mu);
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Noise comes from a table of N(0, 1) values made once, read at a random
 * offset per sample: a batch costs about a memory copy, so without
 * --stall-ms the loader is much faster than a training step. */
#define NOISE_TABLE (1u << 20)

static void fill(struct loader *l, struct batch *b, uint64_t *rng)
{
	const struct loader_cfg *c = &l->cfg;
	/* unit variance per feature keeps the initial loss near log(classes) */
	float scale = 1.0f / sqrtf(1.0f + c->noise * c->noise);
	size_t span = NOISE_TABLE - (size_t)c->dim;

	for (int i = 0; i < c->batch; i++) {
		int y = (int)(rng_next(rng) % (uint64_t)c->classes);
		const float *ctr = l->centres + (size_t)y * (size_t)c->dim;
		const float *nz = l->noise + rng_next(rng) % span;
		float *x = b->x + (size_t)i * (size_t)c->dim;

		b->y[i] = y;
		for (int j = 0; j < c->dim; j++)
			x[j] = scale * (ctr[j] + c->noise * nz[j]);
	}
	b->n = c->batch;
}

static void *producer(void *arg)
{
	struct loader *l = arg;
	uint64_t rng = l->cfg.seed * 2654435761u + 7;

	for (long i = 0; i < l->cfg.batches; i++) {
		struct batch *b = bq_get(&l->free);

		if (!b)
			break;
		nns_push(l->n_produce);
		if (l->cfg.stall_ms > 0) {
			nns_push(l->n_stall);
			sleep_ms(l->cfg.stall_ms);
			nns_pop();
		}
		fill(l, b, &rng);
		b->index = i;
		nns_pop();
		bq_put(&l->full, b);
	}
	bq_close(&l->full);
	return NULL;
}

int loader_start(struct loader *l, const struct loader_cfg *cfg)
{
	uint64_t rng;

	memset(l, 0, sizeof(*l));
	l->cfg = *cfg;
	l->n_produce = nns_name("QueueLoader.produce");
	l->n_stall = nns_name("QueueLoader.stall");
	/* every buffer can be in `free` at once */
	l->npool = cfg->queue_cap + 2;
	l->pool = calloc((size_t)l->npool, sizeof(*l->pool));
	l->centres = malloc((size_t)cfg->classes * (size_t)cfg->dim * sizeof(float));
	l->noise = malloc(NOISE_TABLE * sizeof(float));
	if (cfg->dim >= (int)NOISE_TABLE) {
		fprintf(stderr, "mlp: --in must be below %u\n", NOISE_TABLE);
		return -1;
	}
	if (!l->pool || !l->centres || !l->noise ||
	    bq_init(&l->full, cfg->queue_cap, nns_name("batch_queue")) ||
	    bq_init(&l->free, l->npool, 0))
		goto oom;
	l->full.sample_ms = cfg->sample_ms;
	rng = cfg->seed + 1;
	for (int i = 0; i < cfg->classes * cfg->dim; i++)
		l->centres[i] = rng_normal(&rng);
	for (size_t i = 0; i < NOISE_TABLE; i++)
		l->noise[i] = rng_normal(&rng);
	for (int i = 0; i < l->npool; i++) {
		l->pool[i].x = malloc((size_t)cfg->batch * (size_t)cfg->dim * sizeof(float));
		l->pool[i].y = malloc((size_t)cfg->batch * sizeof(int));
		if (!l->pool[i].x || !l->pool[i].y)
			goto oom;
		bq_put(&l->free, &l->pool[i]);
	}
	if (pthread_create(&l->thread, NULL, producer, l) != 0) {
		fprintf(stderr, "mlp: cannot start the loader thread\n");
		return -1;
	}
	l->started = 1;
	return 0;
oom:
	fprintf(stderr, "mlp: out of memory for the loader\n");
	return -1;
}

struct batch *loader_next(struct loader *l)
{
	return bq_get(&l->full);
}

void loader_release(struct loader *l, struct batch *b)
{
	bq_put(&l->free, b);
}

void loader_stop(struct loader *l)
{
	if (l->started) {
		/* drain so that the producer never blocks on a full queue */
		struct batch *b;

		while ((b = bq_get(&l->full)) != NULL)
			bq_put(&l->free, b);
		pthread_join(l->thread, NULL);
	}
	for (int i = 0; l->pool && i < l->npool; i++) {
		free(l->pool[i].x);
		free(l->pool[i].y);
	}
	free(l->pool);
	free(l->centres);
	free(l->noise);
	if (l->full.items)
		bq_release(&l->full);
	if (l->free.items)
		bq_release(&l->free);
	memset(l, 0, sizeof(*l));
}

/*
 * conns.c - the connection guard of `nnscope serve` (conns.h): the list of
 * open connections, oldest first, the shedding of waiting ones above
 * `keep`, and the reaper thread that enforces the request deadline.
 */
#include "server/conns.h"
#include "common/clock.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define REAP_TICK_MS 100

/* ---- the list (caller holds mu) ----------------------------------------------- */

static void unlink_slot(struct conn_guard *g, struct conn_slot *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		g->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		g->tail = c->prev;
	c->prev = c->next = NULL;
}

static void append_slot(struct conn_guard *g, struct conn_slot *c)
{
	c->prev = g->tail;
	c->next = NULL;
	if (g->tail)
		g->tail->next = c;
	else
		g->head = c;
	g->tail = c;
}

/* Ends a waiting connection: libmicrohttpd reads the end of the stream and
 * closes it (and calls cg_close, which waits for mu). */
static void shut_locked(struct conn_guard *g, struct conn_slot *c)
{
	shutdown(c->fd, SHUT_RDWR);
	c->shut = 1;
	g->open--;
}

/* ---- the reaper ------------------------------------------------------------------ */

int cg_reap(struct conn_guard *g, int64_t now)
{
	int n = 0;

	pthread_mutex_lock(&g->mu);
	/* oldest first: the first slot still in time ends the walk */
	for (struct conn_slot *c = g->head; c && g->deadline_ns > 0; c = c->next) {
		if (now - c->since_ns <= g->deadline_ns)
			break;
		if (c->busy || c->shut)
			continue;
		shut_locked(g, c);
		g->reaped++;
		n++;
	}
	pthread_mutex_unlock(&g->mu);
	return n;
}

static void *reaper_main(void *arg)
{
	struct conn_guard *g = arg;

	pthread_mutex_lock(&g->mu);
	while (!g->stop) {
		struct timespec until = clock_deadline(CLOCK_REALTIME, REAP_TICK_MS);

		pthread_cond_timedwait(&g->cv, &g->mu, &until);
		if (g->stop)
			break;
		pthread_mutex_unlock(&g->mu);
		cg_reap(g, clock_mono_ns());
		pthread_mutex_lock(&g->mu);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

/* ---- the connections' events ---------------------------------------------------- */

struct conn_slot *cg_open(struct conn_guard *g, int fd)
{
	struct conn_slot *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->fd = fd;
	c->since_ns = clock_mono_ns();
	pthread_mutex_lock(&g->mu);
	append_slot(g, c);
	g->open++;
	/* keep headroom under the limit: the oldest waiting ones make room */
	for (struct conn_slot *o = g->head; o && o != c && g->open > g->keep; o = o->next) {
		if (o->busy || o->shut)
			continue;
		shut_locked(g, o);
		g->shed++;
	}
	pthread_mutex_unlock(&g->mu);
	return c;
}

void cg_request(struct conn_guard *g, struct conn_slot *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&g->mu);
	c->busy = 1;
	pthread_mutex_unlock(&g->mu);
}

void cg_done(struct conn_guard *g, struct conn_slot *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&g->mu);
	c->busy = 0;
	c->since_ns = clock_mono_ns();
	unlink_slot(g, c); /* the newest waiting one now */
	append_slot(g, c);
	pthread_mutex_unlock(&g->mu);
}

void cg_close(struct conn_guard *g, struct conn_slot *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&g->mu);
	unlink_slot(g, c);
	if (!c->shut)
		g->open--;
	pthread_mutex_unlock(&g->mu);
	free(c);
}

int cg_init(struct conn_guard *g, int keep, double deadline_s)
{
	memset(g, 0, sizeof(*g));
	g->keep = keep > 0 ? keep : 1;
	g->deadline_ns = deadline_s > 0 ? (int64_t)(deadline_s * 1e9) : 0;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	if (pthread_create(&g->reaper, NULL, reaper_main, g) != 0) {
		pthread_mutex_destroy(&g->mu);
		pthread_cond_destroy(&g->cv);
		return -1;
	}
	g->started = 1;
	return 0;
}

void cg_release(struct conn_guard *g)
{
	if (!g->started)
		return;
	pthread_mutex_lock(&g->mu);
	g->stop = 1;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	pthread_join(g->reaper, NULL);
	while (g->head) {
		struct conn_slot *c = g->head;

		unlink_slot(g, c);
		free(c);
	}
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	g->started = 0;
}

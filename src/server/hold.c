/*
 * hold.c - long polls (hold.h): the held requests, a list under the
 * mutex, and the thread that resumes each one when its entry's load
 * settles or its wait is over.
 */
#include "server/hold.h"
#include "common/clock.h"
#include "common/err.h"

#include <errno.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <time.h>

struct hold_req {
	struct MHD_Connection *c;
	struct reg_entry *e;
	int need;	  /* enum reg_need */
	int64_t until_ns; /* clock_mono_ns */
	struct hold_req *next;
};

/* Resumes the held requests that are done waiting (all of them when
 * stopping); caller holds mu. Returns when the next one's wait is over
 * (clock_mono_ns; INT64_MAX when none is left). */
static int64_t resume_due_locked(struct srv_holds *h)
{
	int64_t now = clock_mono_ns(), next = INT64_MAX;
	struct hold_req **pp = &h->list;

	while (*pp) {
		struct hold_req *q = *pp;

		if (h->stop || now >= q->until_ns || reg_settled(h->reg, q->e, q->need)) {
			*pp = q->next;
			h->n--;
			MHD_resume_connection(q->c);
			free(q);
		} else {
			if (q->until_ns < next)
				next = q->until_ns;
			pp = &q->next;
		}
	}
	return next;
}

/* The registry's on_settle hook: a load settled, look at the held
 * requests now. */
static void hold_kick(void *arg)
{
	struct srv_holds *h = arg;

	pthread_mutex_lock(&h->mu); /* held by the thread up to its wait: no kick is lost */
	pthread_cond_signal(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

static void *hold_main(void *arg)
{
	struct srv_holds *h = arg;

	pthread_mutex_lock(&h->mu);
	while (!h->stop) {
		int64_t next;

		next = resume_due_locked(h);
		if (!h->list) {
			pthread_cond_wait(&h->cv, &h->mu);
		} else {
			/* until a kick, the first wait's end, or the next look
			 * for what settles without a kick */
			int64_t until = clock_mono_ns() + (int64_t)HOLD_TICK_MS * 1000000;
			struct timespec t;

			if (next < until)
				until = next;
			t.tv_sec = (time_t)(until / 1000000000);
			t.tv_nsec = (long)(until % 1000000000);
			pthread_cond_timedwait(&h->cv, &h->mu, &t);
		}
	}
	resume_due_locked(h);
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

int hold_start(struct srv_holds *h, struct registry *r)
{
	pthread_condattr_t ca;

	h->reg = r;
	h->list = NULL;
	h->n = h->stop = h->started = h->joined = 0;
	if (pthread_mutex_init(&h->mu, NULL))
		return NNS_ENOMEM;
	if (pthread_condattr_init(&ca) || pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&h->cv, &ca)) {
		pthread_mutex_destroy(&h->mu);
		return NNS_ENOMEM;
	}
	pthread_condattr_destroy(&ca);
	if (pthread_create(&h->th, NULL, hold_main, h)) {
		pthread_cond_destroy(&h->cv);
		pthread_mutex_destroy(&h->mu);
		return NNS_ENOMEM;
	}
	h->started = 1;
	reg_on_settle(r, hold_kick, h);
	return NNS_OK;
}

void hold_stop(struct srv_holds *h)
{
	if (!h->started)
		return;
	reg_on_settle(h->reg, NULL, NULL);
	pthread_mutex_lock(&h->mu);
	h->stop = 1;
	pthread_cond_signal(&h->cv);
	pthread_mutex_unlock(&h->mu);
	pthread_join(h->th, NULL);
	h->started = 0;
	h->joined = 1;
}

void hold_release(struct srv_holds *h)
{
	if (h->started)
		hold_stop(h);
	if (!h->joined)
		return;
	pthread_cond_destroy(&h->cv);
	pthread_mutex_destroy(&h->mu);
	h->joined = 0;
}

int hold_add(struct srv_holds *h, struct MHD_Connection *c, struct reg_entry *e, int need,
	     long wait_ms)
{
	struct hold_req *q;

	if (wait_ms <= 0 || !h->started)
		return 0;
	if (wait_ms > HOLD_WAIT_MAX_MS)
		wait_ms = HOLD_WAIT_MAX_MS;
	if (!(q = malloc(sizeof(*q))))
		return 0;
	q->c = c;
	q->e = e;
	q->need = need;
	q->until_ns = clock_mono_ns() + (int64_t)wait_ms * 1000000;
	pthread_mutex_lock(&h->mu);
	if (h->stop || h->n >= HOLD_MAX) {
		pthread_mutex_unlock(&h->mu);
		free(q);
		return 0;
	}
	/* suspended before the thread can see it: a resume never comes first */
	MHD_suspend_connection(c);
	q->next = h->list;
	h->list = q;
	h->n++;
	pthread_cond_signal(&h->cv);
	pthread_mutex_unlock(&h->mu);
	return 1;
}

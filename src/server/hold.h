/*
 * hold.h - long polls: a request whose entry is still loading, and which
 * said it would wait (header X-Nnscope-Wait: MS, docs/SERVER.md), is not
 * answered 202 at once but suspended (libmicrohttpd's suspend/resume) until
 * its entry's load settles (ready, or with what the request reads: its
 * trace index published for a trace request, its base passes run for a
 * view; failed, stopped) or MS pass; then it is answered as if it had
 * just been asked. A page that waits for a trace so learns that it is
 * ready when it is, not at its next poll.
 *
 * One thread resumes the held requests. The registry wakes it when a load
 * settles (its on_settle hook); it also looks every HOLD_TICK_MS while any
 * request is held (what settles without the hook: a load cancelled or
 * abandoned) and at the end of each one's wait, and sleeps otherwise. At
 * most HOLD_MAX requests are held at once (the next ones are answered 202
 * at once). hold_stop resumes every held request (a daemon must not stop
 * with suspended connections) and refuses new ones.
 *
 * Ownership: struct srv_holds is caller storage (struct server); the
 * entries it points to belong to the registry, which never frees an entry
 * before it is released itself (after hold_stop). A loader may still call
 * the hook after hold_stop: hold_release, after the registry's release,
 * frees the lock and condition it takes.
 */
#ifndef NNS_SERVER_HOLD_H
#define NNS_SERVER_HOLD_H

#include "server/registry.h"

#include <pthread.h>
#include <stdint.h>

#define HOLD_MAX 64
#define HOLD_TICK_MS 50	      /* the look for what settles without the registry's hook */
#define HOLD_WAIT_MAX_MS 1000 /* the longest wait a request may ask for */

struct MHD_Connection;
struct hold_req;

struct srv_holds {
	struct registry *reg;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th;
	struct hold_req *list; /* the held requests */
	int n, started, stop;
	int joined; /* hold_stop joined the thread: hold_release frees mu and cv */
};

/* Starts the thread that resumes held requests. NNS_OK or NNS_ENOMEM. */
int hold_start(struct srv_holds *h, struct registry *r);
/* Resumes every held request, refuses new ones and joins the thread. */
void hold_stop(struct srv_holds *h);
/* hold_stop if it was not called, then frees the lock and condition: after
 * the registry's release (reg_release), when no loader can call the hook. */
void hold_release(struct srv_holds *h);
/* Suspends connection c (from its access handler) until entry e's load
 * settles (need: what it reads, enum reg_need, reg_settled) or wait_ms pass (at most
 * HOLD_WAIT_MAX_MS). 1 when it is held (answer nothing now: the handler
 * is called again on resume), 0 when it is not (stopping, HOLD_MAX held,
 * out of memory, wait_ms <= 0). */
int hold_add(struct srv_holds *h, struct MHD_Connection *c, struct reg_entry *e, int need,
	     long wait_ms);

#endif

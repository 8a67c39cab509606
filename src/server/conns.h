/*
 * conns.h - the connection guard of `nnscope serve`: no client can hold
 * the server's connections.
 *
 * libmicrohttpd's timeout restarts on every byte, so a client that
 * trickles a header byte now and then, or that opens connections and
 * sends nothing, keeps them forever; with its connection limit reached,
 * nobody else gets in. The guard tracks every open connection (http.c
 * tells it: opened, request read, request answered, closed) and shuts down
 * the socket of one that is waiting for a request:
 *   - when the request has not been read in full deadline_ns after the
 *     connection opened or its previous request was answered (a total
 *     deadline, not reset by each byte; the reaper thread looks every
 *     100 ms);
 *   - when more than `keep` connections are open (a new one arrives with
 *     less than the headroom left under the limit): the oldest waiting ones
 *     go first, so that a new client always finds a free slot.
 * A connection whose request is being answered is never shut down here
 * (libmicrohttpd's inactivity timeout covers a client that stops reading).
 *
 * The socket is only shut down (shutdown(2)), never closed: libmicrohttpd
 * sees the end of the stream and closes the connection itself. The guard's
 * mutex is held from the shutdown's decision to the call, and cg_close()
 * takes it before libmicrohttpd closes the descriptor, so a descriptor
 * number is never used after its connection is gone.
 *
 * Ownership: struct conn_guard is caller storage (cg_init .. cg_release);
 * slots are the guard's, from cg_open() until cg_close().
 */
#ifndef NNS_SERVER_CONNS_H
#define NNS_SERVER_CONNS_H

#include <pthread.h>
#include <stdint.h>

struct conn_slot {
	int fd;
	int busy;	  /* a request is being answered */
	int shut;	  /* shut down by the guard (counted no more) */
	int64_t since_ns; /* opened, or its last request answered */
	struct conn_slot *prev, *next;
};

struct conn_guard {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct conn_slot *head, *tail; /* (mu) oldest `since_ns` first */
	int open;		       /* (mu) tracked and not shut down */
	int keep;		       /* shed waiting connections above this many */
	int64_t deadline_ns;	       /* for a request to arrive in full; 0: none */
	uint64_t shed, reaped;	       /* (mu) connections shut down, by cause */
	pthread_t reaper;
	int started, stop; /* (mu) stop */
};

/* Starts the guard: at most `keep` connections before the oldest waiting
 * ones are shed, deadline_s (0: none) for a request to arrive. 0, or -1
 * when the reaper thread cannot start. */
int cg_init(struct conn_guard *g, int keep, double deadline_s);
/* Stops the reaper and frees the slots left (after the HTTP daemon stopped). */
void cg_release(struct conn_guard *g);

/* A connection opened on fd: its slot (NULL when out of memory: not
 * tracked). May shed older waiting connections. */
struct conn_slot *cg_open(struct conn_guard *g, int fd);
/* Its request was read in full: answered from now on, never shed. */
void cg_request(struct conn_guard *g, struct conn_slot *c);
/* Its request was answered: it waits for the next one, deadline from now. */
void cg_done(struct conn_guard *g, struct conn_slot *c);
/* It closed: the slot is freed (c may be NULL). */
void cg_close(struct conn_guard *g, struct conn_slot *c);

/* One look of the reaper at time now (clock_mono_ns): shuts down the
 * waiting connections past the deadline; returns how many. */
int cg_reap(struct conn_guard *g, int64_t now);

#endif

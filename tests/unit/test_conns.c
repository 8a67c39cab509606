/*
 * test_conns.c - the connection guard of `nnscope serve` (src/server/conns.h)
 * on real sockets (socketpairs): the oldest waiting connections are shut
 * down above `keep`, a connection being answered never is, the reaper ends
 * a connection whose request has not arrived by the deadline however the
 * bytes trickle, and an answered request restarts the connection's clock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/clock.h"
#include "server/conns.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#define MS 1000000LL

struct pair {
	int srv, cli; /* the server's end (tracked) and the client's */
};

static void open_pair(struct pair *p)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	p->srv = sv[0];
	p->cli = sv[1];
	fcntl(p->cli, F_SETFL, O_NONBLOCK);
}

static void close_pair(struct pair *p)
{
	close(p->srv);
	close(p->cli);
}

/* The client sees the end of the stream: the guard shut the server's end. */
static int ended(const struct pair *p)
{
	char c;
	ssize_t n = recv(p->cli, &c, 1, 0);

	return n == 0;
}

/* g's counter, read under its lock (the reaper writes it) */
static uint64_t locked(struct conn_guard *g, const uint64_t *v)
{
	uint64_t x;

	pthread_mutex_lock(&g->mu);
	x = *v;
	pthread_mutex_unlock(&g->mu);
	return x;
}

static void test_shed_oldest_waiting(void **st)
{
	struct conn_guard g;
	struct pair p[6];
	struct conn_slot *s[6];

	(void)st;
	assert_int_equal(cg_init(&g, 4, 0), 0);
	for (int i = 0; i < 4; i++) {
		open_pair(&p[i]);
		s[i] = cg_open(&g, p[i].srv);
		assert_non_null(s[i]);
	}
	/* at keep: nobody shed */
	for (int i = 0; i < 4; i++)
		assert_false(ended(&p[i]));
	/* the oldest is being answered: the next waiting one goes instead */
	cg_request(&g, s[0]);
	open_pair(&p[4]);
	s[4] = cg_open(&g, p[4].srv);
	assert_false(ended(&p[0]));
	assert_true(ended(&p[1]));
	assert_false(ended(&p[2]));
	assert_int_equal(locked(&g, &g.shed), 1);
	/* answered: it waits again, now the newest; 2 is the oldest waiting */
	cg_done(&g, s[0]);
	open_pair(&p[5]);
	s[5] = cg_open(&g, p[5].srv);
	assert_true(ended(&p[2]));
	assert_false(ended(&p[0]));
	assert_false(ended(&p[3]));
	assert_int_equal(g.open, 4);
	/* closing a shed slot does not count it twice */
	for (int i = 0; i < 6; i++)
		cg_close(&g, s[i]);
	assert_int_equal(g.open, 0);
	cg_release(&g);
	for (int i = 0; i < 6; i++)
		close_pair(&p[i]);
}

static void test_deadline_not_reset_by_bytes(void **st)
{
	struct conn_guard g;
	struct pair a, b;
	struct conn_slot *sa, *sb;
	int64_t t0 = clock_mono_ns();
	char buf[8];

	(void)st;
	assert_int_equal(cg_init(&g, 100, 0.4), 0);
	open_pair(&a);
	open_pair(&b);
	sa = cg_open(&g, a.srv);
	sb = cg_open(&g, b.srv);
	cg_request(&g, sb); /* b is being answered: never reaped */
	/* a trickles a byte every 50 ms: the deadline still ends it */
	while (!ended(&a) && clock_mono_ns() - t0 < 3000 * MS) {
		(void)!send(a.cli, "G", 1, MSG_NOSIGNAL);
		(void)!read(a.srv, buf, sizeof(buf));
		usleep(50000);
	}
	assert_true(ended(&a));
	assert_in_range((clock_mono_ns() - t0) / MS, 350, 1500);
	assert_false(ended(&b));
	assert_int_equal(locked(&g, &g.reaped), 1);
	/* b answered: waiting from now on, reaped 0.4 s later */
	cg_done(&g, sb);
	assert_int_equal(cg_reap(&g, clock_mono_ns() + 200 * MS), 0);
	assert_int_equal(cg_reap(&g, clock_mono_ns() + 500 * MS), 1);
	assert_true(ended(&b));
	cg_close(&g, sa);
	cg_close(&g, sb);
	cg_release(&g);
	close_pair(&a);
	close_pair(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shed_oldest_waiting),
	    cmocka_unit_test(test_deadline_not_reset_by_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * fork.c - fork and signal safety of the collector.
 *
 * fork(): pthread_atfork handlers take the collector's global locks before
 * the fork (life_mu, reg_mu, the names lock) and release them on both
 * sides, so a child never inherits a half-held lock. In the child, only the
 * forking thread exists: every profiler's own locks are re-initialised,
 * its inherited file descriptor closed, the other threads' buffers
 * reclaimed and the forking thread's emptied (the parent writes what they
 * held). The profiler that was collecting restarts lazily, at the child's
 * first event or lifecycle call, with a new file <host>_<childpid>.nnst
 * (META fork_parent_pid); a child that execs or exits without emitting
 * anything leaves no file. Other profilers restart at their next
 * nns_start().
 *
 * Signals: the event calls take no lock, so they are async-signal-safe
 * once the calling thread has registered (its first event allocates). In
 * LD_PRELOAD mode, SIGTERM and SIGINT get a handler that asks the writer to
 * flush (and, when the previous disposition was the default, i.e. the
 * process is about to die, to write END), waits up to 2 s, then chains to
 * the previous handler or re-raises with the default action.
 */
#include "collector/collector.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static struct nns_profiler *fork_profiler; /* restarts in the child (life_mu) */

static void prepare(void)
{
	pthread_mutex_lock(&nns_g.life_mu);
	pthread_mutex_lock(&nns_g.reg_mu);
	nns_names_atfork_prepare();
	nns_nvtx_atfork(0);
}

static void parent(void)
{
	nns_nvtx_atfork(1);
	nns_names_atfork_parent();
	pthread_mutex_unlock(&nns_g.reg_mu);
	pthread_mutex_unlock(&nns_g.life_mu);
}

static void child(void)
{
	struct nns_profiler *cur;

	nns_nvtx_atfork(1);
	nns_names_atfork_child();
	pthread_mutex_unlock(&nns_g.reg_mu);
	pthread_mutex_unlock(&nns_g.life_mu);

	cur = nns_g.current;
	nns_g.current = NULL;
	atomic_store(&nns_g.writers_live, 0);
	atomic_store(&nns_g.writer_idle, 0);
	for (struct nns_profiler *p = nns_all_profilers; p; p = p->next_all) {
		nns_profiler_sync_init(p);
		p->writer_up = 0;
		p->sampler_up = 0;
		nnst_writer_close(&p->w);
		p->nsamples = 0;
		p->flush_req = p->flush_done = 0;
		p->quit = p->detach_req = p->detach_done = 0;
		p->io_failed = 0;
		p->ended = 0;
		p->child_pending = 1;
	}
	fork_profiler = cur && cur->started ? cur : NULL;
	nns_tb_after_fork_child();
	if (fork_profiler)
		atomic_store(&nns_g.fork_pending,
			     1); /* the state word stays: events take the slow path */
	else
		nns_state_store(0);
}

static void install(void)
{
	pthread_atfork(prepare, parent, child);
}

void nns_install_atfork(void)
{
	pthread_once(&atfork_once, install);
}

void nns_fork_resume_locked(void)
{
	struct nns_profiler *p;

	if (!atomic_exchange(&nns_g.fork_pending, 0))
		return;
	p = fork_profiler;
	fork_profiler = NULL;
	if (p && p->child_pending && nns_restart_child_locked(p))
		nns_state_store(0);
}

void nns_fork_resume(void)
{
	pthread_mutex_lock(&nns_g.life_mu);
	nns_fork_resume_locked();
	pthread_mutex_unlock(&nns_g.life_mu);
}

int nns_fork_profiler_is(const struct nns_profiler *p)
{
	return fork_profiler == p;
}

/* ---- signals --------------------------------------------------------------------- */

static struct sigaction old_term, old_int;
static int signals_installed;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	struct sigaction *old = sig == SIGTERM ? &old_term : &old_int;
	int saved = errno;
	int dfl = !(old->sa_flags & SA_SIGINFO) && old->sa_handler == SIG_DFL;

	if (atomic_load(&nns_g.writers_live) > 0) {
		uint64_t req;
		struct timespec ms = {0, 1000000L};

		if (dfl)
			atomic_store(&nns_g.sig_final, 1);
		req = atomic_fetch_add(&nns_g.sig_req, 1) + 1;
		nns_wake_writer();
		for (int i = 0; i < 2000 && atomic_load(&nns_g.sig_done) < req; i++)
			nanosleep(&ms, NULL);
	}
	if (old->sa_flags & SA_SIGINFO) {
		if (old->sa_sigaction)
			old->sa_sigaction(sig, si, uc);
	} else if (old->sa_handler == SIG_DFL) {
		sigaction(sig, old, NULL);
		raise(sig); /* delivered when this handler returns */
	} else if (old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
	}
	errno = saved;
}

int nns_install_signal_flush(void)
{
	struct sigaction sa;

	if (signals_installed)
		return NNS_OK;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, NULL, &old_term) || sigaction(SIGINT, NULL, &old_int))
		return NNS_EINVAL;
	/* An ignored signal stays ignored (nohup, background jobs). */
	if (old_term.sa_handler != SIG_IGN || (old_term.sa_flags & SA_SIGINFO))
		sigaction(SIGTERM, &sa, NULL);
	if (old_int.sa_handler != SIG_IGN || (old_int.sa_flags & SA_SIGINFO))
		sigaction(SIGINT, &sa, NULL);
	signals_installed = 1;
	return NNS_OK;
}

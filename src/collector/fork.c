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
 * A child that leaves by exit(), exec, _exit() or a fatal signal keeps
 * what it collected (exit.c, sigflush.c).
 *
 * Signals: the event calls take no lock, so they are async-signal-safe
 * once the calling thread has registered (its first event allocates). The
 * fatal-signal flush is in sigflush.c.
 */
#include "collector/collector.h"

#include <stdlib.h>

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
		p->io_told = 0;
		atomic_store(&p->lost, 0); /* the child's file counts the child's losses */
		p->gpu_dropped = 0;
		p->ended = 0;
		p->child_pending = 1;
		/* the child's own file: nothing handed over, its own CPU time */
		p->handoff = p->handoff_ready = p->continued = 0;
		p->kept = p->named_early = 0;
		p->collector_cpu_ns = 0;
		atomic_store(&p->sampler_cpu_ns, 0);
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

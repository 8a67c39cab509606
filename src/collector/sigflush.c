/*
 * sigflush.c - the trace survives a fatal signal: before SIGSEGV, SIGBUS,
 * SIGFPE, SIGILL, SIGABRT, SIGTERM or SIGINT ends the process, the writer
 * thread writes everything already published (and END), then the process
 * ends as it would have. nns_create() and the LD_PRELOAD constructor
 * install the handlers once per process (nns_install_signal_flush).
 *
 * The flush (nns_flush_async) asks every writer thread to do one round now
 * (nns_g.sig_req; with `final`, nns_g.sig_final makes it write END), wakes
 * them with a futex, and polls nns_g.sig_done every 1 ms for at most 2 s.
 *
 * What is async-signal-safe here, and what was chosen:
 *   - the handler itself only loads and stores atomics, calls futex(2),
 *     nanosleep(2), getpid(2), sigaction(2) and raise(3): all safe in a
 *     handler. It takes no lock, allocates nothing and writes nothing;
 *   - the writing is done by the writer thread, which runs as usual (a
 *     fatal signal stops only the thread it hits, and the writer blocks
 *     every signal, so it never runs these handlers): it has the file's
 *     chunk sequence, names and buffers, and the events of the crashing
 *     thread up to the signal are published (each event's count is a
 *     release store). Writing the buffers from the handler was rejected:
 *     the writer may be in the middle of a chunk of the same file, and
 *     the chunk sequence and names written live in writer state that a
 *     handler cannot take without a lock;
 *   - not safe, hence bounded: the writer takes reg_mu and the profiler's
 *     mu, may call malloc, and forces CUPTI's flush (its last GPU records).
 *     If the signalled thread holds one of those locks (a crash inside the
 *     collector's slow path, heap corruption inside malloc, an abort inside
 *     libcupti) the writer cannot finish: the handler gives up after 2 s and
 *     the process dies with the trace as of the writer's last round
 *     (readable, no END). A fatal signal on the writer thread itself (a
 *     collector bug) is not handled: the signal is blocked there, so the
 *     kernel applies the default action.
 *
 * Per signal:
 *   SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT: when the disposition before
 *     ours was the default, flush with END, restore the default and
 *     re-raise (pending until the handler returns; a fault also re-faults).
 *     When a handler was there before ours (a runtime that catches faults:
 *     a JVM, Python's faulthandler), it runs first, at once; if it returns
 *     having restored the default action (it means to die, as faulthandler
 *     does), flush with END; otherwise the program handled the fault and
 *     goes on, and nothing is flushed.
 *   SIGTERM, SIGINT: flush first (END only when the default action will
 *     end the process), then chain to the previous handler or re-raise.
 * An ignored signal stays ignored. A program that installs its own handler
 * after the collector replaces ours (nothing is chained then). The
 * library's destructor (exit.c) puts the previous handlers back where ours
 * are still installed: after it the traces are closed, and a dlclose()d
 * library must leave no handler pointing into it. A vfork()
 * child sharing the parent's memory does not flush (nns_is_self).
 *
 * _exit() and _Exit() (exit.c) use nns_flush_async(1) too: they may be
 * called from a signal handler, and run no destructor.
 */
#include "collector/collector.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#define FLUSH_WAIT_MS 2000

static const int sigs[] = {SIGTERM, SIGINT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define NSIGS ((int)(sizeof(sigs) / sizeof(sigs[0])))
static struct sigaction old_sa[NSIGS]; /* the disposition before ours */
static _Atomic int signals_installed;

void nns_flush_async(int final)
{
	struct timespec ms = {0, 1000000L};
	uint64_t req;

	if (!nns_is_self() || atomic_load(&nns_g.writers_live) <= 0)
		return;
	if (final)
		atomic_store(&nns_g.sig_final, 1);
	req = atomic_fetch_add(&nns_g.sig_req, 1) + 1;
	nns_wake_writer();
	for (int i = 0; i < FLUSH_WAIT_MS && atomic_load(&nns_g.sig_done) < req; i++)
		nanosleep(&ms, NULL);
}

static int is_default(const struct sigaction *sa)
{
	return !(sa->sa_flags & SA_SIGINFO) && sa->sa_handler == SIG_DFL;
}

static void chain(const struct sigaction *old, int sig, siginfo_t *si, void *uc)
{
	if (old->sa_flags & SA_SIGINFO) {
		if (old->sa_sigaction)
			old->sa_sigaction(sig, si, uc);
	} else if (old->sa_handler != SIG_IGN && old->sa_handler != SIG_DFL) {
		old->sa_handler(sig);
	}
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	const struct sigaction *old = NULL;
	int saved = errno, fault = sig != SIGTERM && sig != SIGINT;

	for (int i = 0; i < NSIGS; i++)
		if (sigs[i] == sig)
			old = &old_sa[i];
	if (!old)
		return;
	if (is_default(old)) {
		nns_flush_async(1);
		sigaction(sig, old, NULL);
		raise(sig); /* delivered when this handler returns */
	} else if (!fault) {
		nns_flush_async(0);
		chain(old, sig, si, uc);
	} else {
		struct sigaction now;

		chain(old, sig, si, uc);
		/* the handler before ours gave up on the process */
		if (sigaction(sig, NULL, &now) == 0 && is_default(&now))
			nns_flush_async(1);
	}
	errno = saved;
}

int nns_install_signal_flush(void)
{
	struct sigaction sa;
	int expect = 0;

	if (!atomic_compare_exchange_strong(&signals_installed, &expect, 1))
		return NNS_OK;
	for (int i = 0; i < NSIGS; i++) {
		if (sigaction(sigs[i], NULL, &old_sa[i]))
			continue;
		/* An ignored signal stays ignored (nohup, background jobs). */
		if (!(old_sa[i].sa_flags & SA_SIGINFO) && old_sa[i].sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_signal;
		/* the previous handler's mask while it runs through ours; the
		 * alternate stack when the program set one up (stack overflow) */
		sa.sa_mask = old_sa[i].sa_mask;
		sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
		sigaction(sigs[i], &sa, NULL);
	}
	return NNS_OK;
}

void nns_uninstall_signal_flush(void)
{
	struct sigaction now;

	if (!atomic_load(&signals_installed))
		return;
	for (int i = 0; i < NSIGS; i++)
		if (sigaction(sigs[i], NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
		    now.sa_sigaction == on_signal)
			sigaction(sigs[i], &old_sa[i], NULL);
}

/*
 * profiler.c - the profiler lifecycle of nnscope.h: create, start, stop,
 * step (with schedules), destroy, metadata, errors and lost counts.
 *
 * Lifecycle calls are serialised by nns_g.life_mu. A started profiler is
 * "attached": its writer drains the per-thread buffers; starting another
 * stops and detaches the first. What a step boundary writes (see
 * docs/FORMAT.md, "Windows and steps"):
 *   active -> active          STEP(a = new step)
 *   active -> warmup / off    STOP(a = last step collected, b = window)
 *   warmup / off -> active    START(a = new step, b = window)
 *   other changes involving warmup: STEP flagged NNST_EVF_WARMUP
 * and the state word follows: 0 off, the categories plus the warmup bit in
 * warmup, the categories when active.
 */
#include "collector/collector.h"
#include "common/clock.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct nns_profiler *nns_all_profilers;
/* Why the last nns_create() failed (process-wide: thread-local storage
 * would count against the static TLS a dlopen()ed library may use). */
static char create_error[NNS_ERR_MSG_MAX];

void nns_set_error(struct nns_profiler *p, int code, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&p->mu);
	p->err.code = code;
	va_start(ap, fmt);
	vsnprintf(p->err.msg, sizeof(p->err.msg), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&p->mu);
}

NNS_API const char *nns_last_error(const nns_profiler *cp)
{
	struct nns_profiler *p = (struct nns_profiler *)cp;

	if (!p)
		return create_error;
	pthread_mutex_lock(&p->mu);
	memcpy(p->errcopy, p->err.msg, sizeof(p->errcopy));
	pthread_mutex_unlock(&p->mu);
	return p->errcopy;
}

NNS_API uint64_t nns_lost_events(const nns_profiler *p)
{
	return p ? atomic_load_explicit(&p->lost, memory_order_relaxed) : 0;
}

static uint32_t categories(const struct nns_options *o)
{
	uint32_t c = NNS_CAT_MARK;

	if (o->op_time)
		c |= NNS_CAT_RANGE;
	if (o->profile_memory)
		c |= NNS_CAT_MEM;
	if (o->data_process)
		c |= NNS_CAT_QUEUE;
	if (o->profile_communication)
		c |= NNS_CAT_COMM;
	return c;
}

static void publish_state(struct nns_profiler *p)
{
	uint32_t st = 0;

	if (p->phase == NNS_PHASE_ACTIVE)
		st = categories(&p->o);
	else if (p->phase == NNS_PHASE_WARMUP)
		st = categories(&p->o) | NNS_ST_WARMUP;
	pthread_mutex_lock(&nns_g.reg_mu);
	if (nns_g.current == p)
		nns_state_store(st);
	pthread_mutex_unlock(&nns_g.reg_mu);
}

/* Moves to phase np; boundary: at a step boundary (p->step just began). */
static void set_phase(struct nns_profiler *p, int np, int boundary)
{
	int op = p->phase;
	long k = p->step;

	if (p->hi_fd >= 0 && (boundary || (op == NNS_PHASE_OFF) != (np == NNS_PHASE_OFF))) {
		char s[32];

		if (op != NNS_PHASE_OFF) { /* the step ends (or collection stops in it) */
			snprintf(s, sizeof(s), "%ld", boundary ? k - 1 : k);
			nns_hostinfo_row(p, "Step", s, 1);
		}
		if (np != NNS_PHASE_OFF) {
			snprintf(s, sizeof(s), "%ld", k);
			nns_hostinfo_row(p, "Step", s, 0);
		}
	}
	/* exec with a handoff: the window goes on in the next image (no STOP),
	 * which records no START for it (handoff.c) */
	if (op == NNS_PHASE_ACTIVE && np != NNS_PHASE_ACTIVE && !p->handoff)
		nns_emit_control(NNST_EV_STOP, 0, (uint64_t)(boundary ? k - 1 : k),
				 (uint64_t)(p->window - 1));
	p->phase = np;
	publish_state(p);
	if (np == NNS_PHASE_ACTIVE && op != NNS_PHASE_ACTIVE && !p->continued)
		nns_emit_control(NNST_EV_START, 0, (uint64_t)k, (uint64_t)p->window++);
	else if (np == NNS_PHASE_ACTIVE && op != NNS_PHASE_ACTIVE)
		p->window++;
	if (np == NNS_PHASE_ACTIVE)
		p->continued = 0;
	if (!boundary)
		return;
	if (op == NNS_PHASE_ACTIVE && np == NNS_PHASE_ACTIVE)
		nns_emit_control(NNST_EV_STEP, 0, (uint64_t)k, 0);
	else if (np == NNS_PHASE_WARMUP || (op == NNS_PHASE_WARMUP && np == NNS_PHASE_OFF))
		nns_emit_control(NNST_EV_STEP, NNST_EVF_WARMUP, (uint64_t)k, 0);
}

static int phase_now(const struct nns_profiler *p)
{
	long window;

	return nns_sched_phase(&p->o, p->step, &window);
}

/* In a forked child, the profiler that was current at the fork restarts
 * (new file, own pid) at the first lifecycle call or event. */
static void fork_check_locked(void)
{
	if (NNS_UNLIKELY(atomic_load_explicit(&nns_g.fork_pending, memory_order_acquire)))
		nns_fork_resume_locked();
}

static int start_locked(struct nns_profiler *p)
{
	int rc;

	if (p->child_pending && (rc = nns_restart_child_locked(p)))
		return rc;
	if (p->closed) {
		nns_set_error(p, NNS_EIO, "the trace was closed when the process %s",
			      p->closed == NNS_CLOSED_EXEC ? "called exec" : "exited");
		return NNS_EIO;
	}
	if (p->io_failed)
		return NNS_EIO;
	if (p->started)
		return NNS_OK;
	if ((rc = nns_attach(p))) {
		nns_set_error(p, rc,
			      "the collecting profiler's writer does not answer (stuck writing "
			      "its trace?); this one cannot take the event buffers");
		return rc;
	}
	__atomic_store_n(&p->started, 1, __ATOMIC_RELAXED); /* the sampler reads it */
	p->phase = NNS_PHASE_OFF;
	if (p->hi_fd >= 0)
		nns_hostinfo_row(p, "Profiler", "Collect", 0);
	set_phase(p, phase_now(p), 0);
	return NNS_OK;
}

static void stop_locked(struct nns_profiler *p)
{
	if (!p->started)
		return;
	set_phase(p, NNS_PHASE_OFF, 0);
	__atomic_store_n(&p->started, 0, __ATOMIC_RELAXED);
	if (p->hi_fd >= 0)
		nns_hostinfo_row(p, "Profiler", "Collect", 1);
}

int nns_attach(struct nns_profiler *p)
{
	struct nns_profiler *q;
	size_t blk;

	pthread_mutex_lock(&nns_g.reg_mu);
	q = nns_g.current;
	pthread_mutex_unlock(&nns_g.reg_mu);
	if (q == p)
		return NNS_OK;
	if (q) {
		stop_locked(q);
		nns_state_store(0);
		if (nns_writer_detach(q, 10000))
			return NNS_EIO;
	}
	blk = (p->o.buffer_kb_per_thread << 10) / NNS_TBUF_BLOCKS;
	blk -= blk % sizeof(struct nnst_event);
	pthread_mutex_lock(&nns_g.reg_mu);
	nns_g.current = p;
	p->gen = ++nns_g.file_gen;
	nns_g.max_mapped = p->o.max_buffer_mb << 20;
	nns_g.blk_bytes = blk;
	for (struct nns_tbuf *t = nns_g.threads; t; t = t->next) {
		nns_writer_skip_stale_locked(t);
		t->lost_base = atomic_load_explicit(&t->lost, memory_order_relaxed);
		t->lost_written = 0;
	}
	nns_g.lost_unreg_base = atomic_load_explicit(&nns_g.lost_unreg, memory_order_relaxed);
	p->lost_unreg_written = 0;
	pthread_mutex_unlock(&nns_g.reg_mu);
	p->attached_once = 1;
	return NNS_OK;
}

int nns_sync_flush(struct nns_profiler *p, int timeout_ms)
{
	struct timespec until;
	uint64_t req;
	int rc = 0;

	if (!p->writer_up)
		return NNS_OK;
	until = clock_deadline(CLOCK_REALTIME, timeout_ms);
	pthread_mutex_lock(&p->mu);
	req = ++p->flush_req;
	pthread_mutex_unlock(&p->mu);
	nns_wake_writer();
	pthread_mutex_lock(&p->mu);
	while (p->flush_done < req && rc == 0)
		rc = pthread_cond_timedwait(&p->cv, &p->mu, &until);
	pthread_mutex_unlock(&p->mu);
	return rc ? NNS_EIO : NNS_OK;
}

void nns_profiler_sync_init(struct nns_profiler *p)
{
	pthread_condattr_t ca;

	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->scv, &ca);
	pthread_condattr_destroy(&ca);
}

static void release(struct nns_profiler *p)
{
	struct nns_kv *kv = p->meta;

	while (kv) {
		struct nns_kv *next = kv->next;

		free(kv->key);
		free(kv->value);
		free(kv);
		kv = next;
	}
	nnst_buf_release(&p->buf);
	free(p->samples);
	free(p->gpu);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	pthread_cond_destroy(&p->scv);
	free(p);
}

/* Opens the file and starts the threads of p (creation, or a child's restart). */
int nns_open_locked(struct nns_profiler *p, struct nns_err *err)
{
	int rc;

	if ((rc = nns_writer_open(p, err)))
		return rc;
	if ((rc = nns_writer_start(p, err))) {
		nnst_writer_close(&p->w);
		return rc;
	}
	if (p->o.profile_framework != NNS_FRAMEWORK_NONE && p->hi_fd < 0 &&
	    (rc = nns_hostinfo_open(p, err)))
		goto fail;
	if (p->o.cpu_sampling_interval_ms > 0 && (rc = nns_sampler_start(p, err)))
		goto fail;
	return NNS_OK;
fail:
	nns_writer_join(p);
	nns_hostinfo_close(p);
	return rc;
}

void nns_close_locked(struct nns_profiler *p, int why, int timeout_ms)
{
	p->was_started = p->started;
	nns_cupti_detach(p); /* the last GPU records, before the writer's final drain */
	stop_locked(p);
	nns_sampler_join(p);
	if (nns_writer_join_timed(p, timeout_ms)) /* stuck in I/O: it keeps p */
		why = NNS_CLOSED_EXIT;		  /* and p is never reopened */
	pthread_mutex_lock(&nns_g.reg_mu);
	if (nns_g.current == p) {
		nns_g.current = NULL;
		nns_state_store(0);
	}
	pthread_mutex_unlock(&nns_g.reg_mu);
	p->closed = why;
}

void nns_reopen_locked(struct nns_profiler *p)
{
	struct nns_err err;
	int rc;

	if (p->closed != NNS_CLOSED_EXEC)
		return;
	p->closed = 0;
	nns_err_clear(&err);
	if ((rc = nns_open_locked(p, &err))) {
		nns_set_error(p, rc, "after a failed exec: %s", err.msg);
		p->closed = NNS_CLOSED_EXIT;
		return;
	}
	nns_set_metadata(p, "reopened", "after a failed exec");
	if (p->was_started)
		start_locked(p);
}

int nns_restart_child_locked(struct nns_profiler *p)
{
	struct nns_err err;
	struct nns_rankinfo parent = p->rank;
	char ppid[32];
	int rc, was_started = p->started;

	p->child_pending = 0;
	p->pid = getpid();
	if (p->role.parent_rank >= 0) /* a helper's child: helps the same rank */
		parent.rank = p->role.parent_rank;
	nns_rank_from_env(&p->rank);
	nns_role_of_self(&p->role, &p->rank, &parent);
	nns_err_clear(&err);
	if (nns_tls)
		nns_tb_prefault(nns_tls);
	if ((rc = nns_open_locked(p, &err))) {
		nns_set_error(p, rc, "in the forked child %ld: %s", (long)p->pid, err.msg);
		nns_status_open_failed(err.msg);
		__atomic_store_n(&p->started, 0, __ATOMIC_RELAXED);
		p->phase = NNS_PHASE_OFF;
		return rc;
	}
	snprintf(ppid, sizeof(ppid), "%ld", (long)getppid());
	nns_set_metadata(p, "fork_parent_pid", ppid);
	__atomic_store_n(&p->started, 0, __ATOMIC_RELAXED);
	p->phase = NNS_PHASE_OFF;
	return was_started ? start_locked(p) : NNS_OK;
}

NNS_API int nns_create(nns_profiler **out, const struct nns_options *o)
{
	struct nns_profiler *p;
	struct nns_err err;
	int rc;

	create_error[0] = '\0';
	nns_err_clear(&err);
	if (!out) {
		snprintf(create_error, sizeof(create_error), "nns_create: out is NULL");
		return NNS_EINVAL;
	}
	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(create_error, sizeof(create_error), "nns_create: out of memory");
		return NNS_ENOMEM;
	}
	nns_options_init(&p->o);
	if (o) {
		if (o->struct_size == 0 || o->struct_size > sizeof(p->o)) {
			free(p);
			snprintf(create_error, sizeof(create_error),
				 "options not initialised with nns_options_init()");
			return NNS_EINVAL;
		}
		memcpy(&p->o, o, o->struct_size);
		p->o.struct_size = sizeof(p->o);
	} else if ((rc = nns_options_from_env(&p->o, create_error, sizeof(create_error)))) {
		free(p);
		return rc;
	}
	if ((rc = nns_options_check(&p->o, &err))) {
		free(p);
		snprintf(create_error, sizeof(create_error), "%s", err.msg);
		return rc;
	}
	nns_profiler_sync_init(p);
	p->keep_rule = nns_preload_creating(); /* nns_create by the program: always a file */
	p->hi_fd = -1;
	p->w.fd = -1;
	p->pid = getpid();
	nns_rank_from_env(&p->rank);
	nns_role_of_self(&p->role, &p->rank, NULL);
	p->samples = malloc(NNS_SAMPLES_MAX * sizeof(*p->samples));
	if (!p->samples) {
		release(p);
		snprintf(create_error, sizeof(create_error), "nns_create: out of memory");
		return NNS_ENOMEM;
	}
	nns_install_atfork();
	nns_install_signal_flush();

	pthread_mutex_lock(&nns_g.life_mu);
	fork_check_locked();
	if ((rc = nns_open_locked(p, &err))) {
		pthread_mutex_unlock(&nns_g.life_mu);
		snprintf(create_error, sizeof(create_error), "%s", err.msg);
		release(p);
		return rc;
	}
	p->next_all = nns_all_profilers;
	nns_all_profilers = p;
	if (p->o.start && (rc = start_locked(p))) {
		pthread_mutex_unlock(&nns_g.life_mu);
		snprintf(create_error, sizeof(create_error), "%s", nns_last_error(p));
		nns_destroy(p);
		return rc;
	}
	pthread_mutex_unlock(&nns_g.life_mu);
	*out = p;
	return NNS_OK;
}

NNS_API int nns_start(nns_profiler *p)
{
	int rc;

	if (!p)
		return NNS_EINVAL;
	pthread_mutex_lock(&nns_g.life_mu);
	fork_check_locked();
	rc = start_locked(p);
	pthread_mutex_unlock(&nns_g.life_mu);
	return rc;
}

NNS_API int nns_stop(nns_profiler *p)
{
	int rc = NNS_OK;

	if (!p)
		return NNS_EINVAL;
	pthread_mutex_lock(&nns_g.life_mu);
	fork_check_locked();
	if (p->child_pending) { /* nothing was collected in this child */
		__atomic_store_n(&p->started, 0, __ATOMIC_RELAXED);
		p->phase = NNS_PHASE_OFF;
		pthread_mutex_unlock(&nns_g.life_mu);
		return NNS_OK;
	}
	stop_locked(p);
	nns_cupti_flush(); /* CUPTI's pending records, before the writer's flush */
	nns_sync_flush(p, 5000);
	pthread_mutex_lock(&p->mu);
	if (p->io_failed)
		rc = NNS_EIO;
	pthread_mutex_unlock(&p->mu);
	pthread_mutex_unlock(&nns_g.life_mu);
	return rc;
}

NNS_API int nns_step(nns_profiler *p)
{
	int rc = NNS_OK;

	if (!p)
		return NNS_EINVAL;
	pthread_mutex_lock(&nns_g.life_mu);
	fork_check_locked();
	if (p->child_pending && p->started && (rc = nns_restart_child_locked(p))) {
		pthread_mutex_unlock(&nns_g.life_mu);
		return rc;
	}
	p->step++;
	if (p->started)
		set_phase(p, phase_now(p), 1);
	pthread_mutex_unlock(&nns_g.life_mu);
	return rc;
}

NNS_API int nns_set_metadata(nns_profiler *p, const char *key, const char *value)
{
	struct nns_kv *kv, **pp;

	if (!p || !key || !*key)
		return NNS_EINVAL;
	kv = calloc(1, sizeof(*kv));
	if (!kv)
		return NNS_ENOMEM;
	kv->key = strdup(key);
	kv->value = strdup(value ? value : "");
	if (!kv->key || !kv->value) {
		free(kv->key);
		free(kv->value);
		free(kv);
		return NNS_ENOMEM;
	}
	pthread_mutex_lock(&p->mu);
	for (pp = &p->meta; *pp; pp = &(*pp)->next)
		;
	*pp = kv;
	pthread_mutex_unlock(&p->mu);
	return NNS_OK;
}

NNS_API void nns_destroy(nns_profiler *p)
{
	struct nns_profiler **pp;

	if (!p)
		return;
	pthread_mutex_lock(&nns_g.life_mu);
	if (!p->child_pending) {
		fork_check_locked();
		nns_cupti_detach(p); /* the last GPU records, before the writer's final drain */
		stop_locked(p);
		nns_sampler_join(p);
		nns_writer_join(p); /* drains, detaches, END, close */
	} else {
		nnst_writer_close(&p->w);
		if (nns_fork_profiler_is(p))
			atomic_store(&nns_g.fork_pending, 0);
	}
	pthread_mutex_lock(&nns_g.reg_mu);
	if (nns_g.current == p) {
		nns_g.current = NULL;
		nns_state_store(0);
	}
	pthread_mutex_unlock(&nns_g.reg_mu);
	nns_hostinfo_close(p);
	for (pp = &nns_all_profilers; *pp; pp = &(*pp)->next_all) {
		if (*pp == p) {
			*pp = p->next_all;
			break;
		}
	}
	pthread_mutex_unlock(&nns_g.life_mu);
	release(p);
}

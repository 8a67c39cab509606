/*
 * sampler.c - the sampler thread (cpu_sampling_interval_ms > 0, while the
 * profiler is started): CPU and memory from /proc, handed to the writer as
 * SAMPLES records (struct nnst_sample).
 *
 * Each tick (utilizations in percent over the interval since the last):
 *   MACHINE  from /proc/stat: user (+nice), sys (+irq, softirq), idle,
 *            iowait, as shares of all CPUs' time; running = procs_running;
 *            ctx_switches = context switches; rss_kb = MemTotal -
 *            MemAvailable (host memory in use, /proc/meminfo).
 *   PROCESS  from /proc/self/stat and status: user and sys in percent of one
 *            CPU (top's convention: 250 = two and a half CPUs busy);
 *            running = threads; ctx_switches = voluntary + involuntary
 *            switches of the process; rss_kb = VmRSS.
 *   THREAD   one per thread from /proc/self/task/<tid>/stat: tid, user and
 *            sys in percent of one CPU.
 * The first time a thread is seen its name goes into META as
 * "thread.<tid>.name" (threads without events have no THREAD record).
 * GPU   NVML counters (nvml.c) at the same period, emitted as counter
 *       events from this thread (named "nnscope-sampler"); NVML is opened
 *       when the thread starts and shut down when it ends.
 *
 * The thread has a descriptor table of its own (private_fds), so that the
 * files it opens never take a descriptor number the program is about to
 * get, and it holds none of the program's files open.
 */
#include "collector/collector.h"
#include "collector/tsc.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROCBUF (256u << 10)
#define MAX_TRACKED 8192

struct machine {
	uint64_t user, sys, idle, iowait, total, ctxt;
	uint32_t running;
};

struct tick {
	uint64_t ut, st;
};

struct tracked {
	pid_t tid;
	uint64_t ut, st;
	int seen; /* in the last scan */
};

struct sstate {
	char *buf;
	struct machine m;
	struct tick proc;
	uint64_t proc_ctx;
	struct tracked *thr;
	size_t nthr;
	int64_t t_ns;
	long hz;
};

static ssize_t read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, total = 0;

	if (fd < 0)
		return -1;
	while ((size_t)total + 1 < size &&
	       (n = read(fd, buf + total, size - 1 - (size_t)total)) > 0)
		total += n;
	close(fd);
	buf[total] = '\0';
	return total;
}

static uint64_t status_field(const char *text, const char *key)
{
	const char *s = strstr(text, key);

	return s ? strtoull(s + strlen(key), NULL, 10) : 0;
}

uint64_t nns_read_vmrss_kb(void)
{
	char buf[4096];

	if (read_file("/proc/self/status", buf, sizeof(buf)) <= 0)
		return 0;
	return status_field(buf, "\nVmRSS:");
}

static int read_machine(struct sstate *s, struct machine *m)
{
	unsigned long long v[8] = {0};
	const char *l;

	if (read_file("/proc/stat", s->buf, PROCBUF) <= 0)
		return -1;
	if (sscanf(s->buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7]) < 4)
		return -1;
	m->user = v[0] + v[1];
	m->sys = v[2] + v[5] + v[6];
	m->idle = v[3];
	m->iowait = v[4];
	m->total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
	l = strstr(s->buf, "\nctxt ");
	m->ctxt = l ? strtoull(l + 6, NULL, 10) : 0;
	l = strstr(s->buf, "\nprocs_running ");
	m->running = l ? (uint32_t)strtoul(l + 15, NULL, 10) : 0;
	return 0;
}

/* utime and stime (fields 14 and 15) of a stat file, after the ")". */
static int read_stat_times(const char *path, char *buf, size_t size, struct tick *t)
{
	unsigned long long ut, st;
	char *p;

	if (read_file(path, buf, size) <= 0 || !(p = strrchr(buf, ')')))
		return -1;
	if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	t->ut = ut;
	t->st = st;
	return 0;
}

static float pct(uint64_t part, uint64_t whole)
{
	return whole ? (float)(100.0 * (double)part / (double)whole) : 0.0f;
}

static float cpu_pct(uint64_t ticks, double secs, long hz)
{
	return secs > 0 ? (float)(100.0 * (double)ticks / ((double)hz * secs)) : 0.0f;
}

static struct tracked *find_thread(struct sstate *s, pid_t tid)
{
	for (size_t i = 0; i < s->nthr; i++)
		if (s->thr[i].tid == tid)
			return &s->thr[i];
	return NULL;
}

static void push(struct nns_profiler *p, const struct nnst_sample *x)
{
	pthread_mutex_lock(&p->mu);
	if (p->nsamples < NNS_SAMPLES_MAX)
		p->samples[p->nsamples++] = *x;
	else
		p->samples_dropped++;
	pthread_mutex_unlock(&p->mu);
}

/* One tick; emit = 0 only records the baseline. */
/* The machine's CPU split, running tasks, context switches and memory in
 * use since the last tick (one sample when emit). */
static void sample_machine(struct nns_profiler *p, struct sstate *s, int64_t now, int emit)
{
	struct nnst_sample x;
	struct machine m;

	if (read_machine(s, &m) != 0)
		return;
	if (emit && m.total > s->m.total) {
		uint64_t dt = m.total - s->m.total;

		memset(&x, 0, sizeof(x));
		x.mono_ns = now;
		x.kind = NNST_SAMPLE_MACHINE;
		x.user = pct(m.user - s->m.user, dt);
		x.sys = pct(m.sys - s->m.sys, dt);
		x.idle = pct(m.idle - s->m.idle, dt);
		x.iowait = pct(m.iowait - s->m.iowait, dt);
		x.running = m.running;
		x.ctx_switches = m.ctxt - s->m.ctxt;
		if (read_file("/proc/meminfo", s->buf, PROCBUF) > 0)
			x.rss_kb = status_field(s->buf, "MemTotal:") -
				   status_field(s->buf, "\nMemAvailable:");
		push(p, &x);
	}
	s->m = m;
}

/* This process's CPU, threads, context switches and RSS. */
static void sample_process(struct nns_profiler *p, struct sstate *s, int64_t now, double secs,
			   int emit)
{
	struct nnst_sample x;
	struct tick pt;
	char small[1024];
	uint64_t ctx;

	if (read_stat_times("/proc/self/stat", small, sizeof(small), &pt) != 0 ||
	    read_file("/proc/self/status", s->buf, PROCBUF) <= 0)
		return;
	ctx = status_field(s->buf, "\nvoluntary_ctxt_switches:") +
	      status_field(s->buf, "\nnonvoluntary_ctxt_switches:");
	if (emit) {
		memset(&x, 0, sizeof(x));
		x.mono_ns = now;
		x.kind = NNST_SAMPLE_PROCESS;
		x.user = cpu_pct(pt.ut - s->proc.ut, secs, s->hz);
		x.sys = cpu_pct(pt.st - s->proc.st, secs, s->hz);
		x.running = (uint32_t)status_field(s->buf, "\nThreads:");
		x.ctx_switches = ctx - s->proc_ctx;
		x.rss_kb = status_field(s->buf, "\nVmRSS:");
		push(p, &x);
	}
	s->proc = pt;
	s->proc_ctx = ctx;
}

/* One thread of /proc/self/task: tracked from its first sight (its name
 * becomes run metadata), sampled from the next tick on. */
static void sample_thread(struct nns_profiler *p, struct sstate *s, pid_t tid, int64_t now,
			  double secs, int emit)
{
	struct nnst_sample x;
	struct tracked *t;
	struct tick tt;
	char path[64], small[1024];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", (long)tid);
	if (read_stat_times(path, small, sizeof(small), &tt))
		return;
	t = find_thread(s, tid);
	if (!t && s->nthr < MAX_TRACKED) {
		char key[48];

		t = &s->thr[s->nthr++];
		t->tid = tid;
		t->ut = tt.ut;
		t->st = tt.st;
		snprintf(path, sizeof(path), "/proc/self/task/%ld/comm", (long)tid);
		if (read_file(path, small, sizeof(small)) > 0) {
			small[strcspn(small, "\n")] = '\0';
			snprintf(key, sizeof(key), "thread.%ld.name", (long)tid);
			nns_set_metadata(p, key, small);
		}
	} else if (t && emit) {
		memset(&x, 0, sizeof(x));
		x.mono_ns = now;
		x.tid = tid;
		x.kind = NNST_SAMPLE_THREAD;
		x.user = cpu_pct(tt.ut - t->ut, secs, s->hz);
		x.sys = cpu_pct(tt.st - t->st, secs, s->hz);
		push(p, &x);
	}
	if (t) {
		t->ut = tt.ut;
		t->st = tt.st;
		t->seen = 1;
	}
}

static void sample(struct nns_profiler *p, struct sstate *s, int emit)
{
	int64_t now = clock_ns(CLOCK_MONOTONIC);
	double secs = (double)(now - s->t_ns) / 1e9;
	DIR *d;
	struct dirent *de;

	sample_machine(p, s, now, emit);
	sample_process(p, s, now, secs, emit);
	for (size_t i = 0; i < s->nthr; i++)
		s->thr[i].seen = 0;
	if ((d = opendir("/proc/self/task"))) {
		while ((de = readdir(d))) {
			pid_t tid = (pid_t)atol(de->d_name);

			if (tid > 0)
				sample_thread(p, s, tid, now, secs, emit);
		}
		closedir(d);
	}
	for (size_t i = 0; i < s->nthr;) { /* forget threads that ended */
		if (!s->thr[i].seen)
			s->thr[i] = s->thr[--s->nthr];
		else
			i++;
	}
	s->t_ns = now;
}

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Gives the calling thread a descriptor table of its own, empty. The
 * thread opens files every tick (/proc; at its start, NVML's library
 * probes ~40 paths): in the program's table each open takes the lowest
 * free number for a moment, and a program that frees one to reuse it
 * (a shell's `echo > f`: close(1), then dup2(f, 1)) then gets EBUSY or
 * another number (tests/e2e/collector_run.sh saw the shell's echo fail
 * about 1 run in 12). Its copies of the program's descriptors are closed
 * at once: none of the program's pipes stays open behind its back. Where
 * unshare is refused (a seccomp filter), the thread shares the program's
 * table as before. */
static void private_fds(void)
{
	if (unshare(CLONE_FILES) != 0)
		return;
	if (close_range(0, ~0U, 0) != 0) {
		long max = sysconf(_SC_OPEN_MAX);

		for (long fd = 0; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
			close((int)fd);
	}
}

static void *sampler_main(void *arg)
{
	struct nns_profiler *p = arg;
	struct sstate s;
	struct nns_nvml *nvml = NULL;
	int was_started = 0;

	/* its own name: the GPU counters it emits sit on this thread's track,
	 * which must not pass for one of the program's threads */
	pthread_setname_np(pthread_self(), "nnscope-sampler");
	private_fds();
	atomic_store(&p->sampler_tid, (int)nns_gettid()); /* keep.c: its counters keep nothing */
	memset(&s, 0, sizeof(s));
	s.hz = sysconf(_SC_CLK_TCK);
	if (s.hz <= 0)
		s.hz = 100;
	s.buf = malloc(PROCBUF);
	s.thr = calloc(MAX_TRACKED, sizeof(*s.thr));
	if (!s.buf || !s.thr)
		goto out;
	nvml = nns_nvml_open(p);
	if (__atomic_load_n(&p->started, __ATOMIC_RELAXED)) {
		sample(p, &s, 0); /* the baseline of the first interval */
		was_started = 1;
	}
	for (;;) {
		struct timespec until;
		long ms = p->o.cpu_sampling_interval_ms;
		int quit, started;

		until = clock_deadline(CLOCK_MONOTONIC, ms);
		pthread_mutex_lock(&p->mu);
		while (!p->sampler_quit && pthread_cond_timedwait(&p->scv, &p->mu, &until) == 0)
			;
		quit = p->sampler_quit;
		pthread_mutex_unlock(&p->mu);
		if (quit)
			break;
		started = __atomic_load_n(&p->started, __ATOMIC_RELAXED);
		if (started) {
			sample(p, &s, was_started);
			nns_nvml_sample(nvml);
		}
		atomic_store(&p->sampler_cpu_ns, thread_cpu_ns()); /* keep.c: not the program's */
		was_started = started;
	}
out:
	atomic_store(&p->sampler_cpu_ns, thread_cpu_ns());
	nns_nvml_close(nvml);
	free(s.buf);
	free(s.thr);
	return NULL;
}

int nns_sampler_start(struct nns_profiler *p, struct nns_err *err)
{
	sigset_t all, old;
	int rc;

	p->sampler_quit = 0;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&p->sampler_th, NULL, sampler_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return nns_err_set(err, NNS_ENOMEM, "starting the sampler thread: %s",
				   strerror(rc));
	p->sampler_up = 1;
	return NNS_OK;
}

void nns_sampler_join(struct nns_profiler *p)
{
	if (!p->sampler_up)
		return;
	pthread_mutex_lock(&p->mu);
	p->sampler_quit = 1;
	pthread_cond_broadcast(&p->scv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->sampler_th, NULL);
	p->sampler_up = 0;
}

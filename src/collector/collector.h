/*
 * collector.h - internals of libnnscope.so shared by the files of src/collector.
 * Nothing outside src/collector includes it, except the collector's unit tests.
 *
 * Shape of the collector:
 *   - one process-wide state word (nns_state): 0 when nothing collects,
 *     else the enabled event categories and the warmup bit. Every event call
 *     starts with one relaxed load of it and one predictable branch. It is
 *     the collector's one piece of process-wide state that the hot path
 *     reads, because LD_PRELOAD and plain C callers have no handle to pass;
 *   - per-thread buffers (struct nns_tbuf, reached through a __thread
 *     pointer): NNS_TBUF_BLOCKS blocks of 32-byte events, pre-faulted when
 *     the thread registers (its first event). The owner thread appends and
 *     publishes the count with a release store; when a block is full it is
 *     marked FULL and the thread moves to its next block if that one is
 *     FREE, else drops and counts. No lock, allocation or system call;
 *   - the writer thread of the attached profiler (writer.c) drains blocks
 *     in order, writes chunks, and returns blocks to FREE;
 *   - a registry of thread buffers and a pool of block memory (nns_g, under
 *     reg_mu), capped at max_buffer_mb.
 * Locks are only taken off the hot path, always in this order:
 *   life_mu -> reg_mu -> (a profiler's mu) -> names mu -> nvtx mu (nvtx.c).
 * The CUPTI backend's locks sit before reg_mu (cupti.c):
 *   life_mu -> cupti call_mu -> cupti conv_mu -> reg_mu; its cu.mu is a leaf.
 */
#ifndef NNS_COLLECTOR_COLLECTOR_H
#define NNS_COLLECTOR_COLLECTOR_H

#include "nnscope.h"
#include "common/err.h"
#include "format/nnst.h"
#include "format/nnst_writer.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NNS_LIKELY(x) __builtin_expect(!!(x), 1)
#define NNS_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---- the state word -------------------------------------------------------- */

enum nns_cat {
	NNS_CAT_RANGE = 1u << 0, /* push/pop/begin/end: op_time */
	NNS_CAT_MARK = 1u << 1,	 /* marks, counters, flows: always while collecting */
	NNS_CAT_MEM = 1u << 2,	 /* memory alloc/free: profile_memory */
	NNS_CAT_QUEUE = 1u << 3, /* data-queue samples: data_process */
	NNS_CAT_COMM = 1u << 4,	 /* NCCL collectives: profile_communication */
	NNS_ST_WARMUP = 1u << 8	 /* events get NNST_EVF_WARMUP */
};
#define NNS_ST_FLAGS(st) ((uint8_t)(((st) >> 8) & NNST_EVF_WARMUP))

/* The state word, twice: nns_state (hidden: the library's event calls
 * read it with one RIP-relative load) and nns_hot_state[0] (exported for
 * the inline NNS_PUSH/NNS_POP checks of nnscope.h). The exported one must
 * not be the hidden one's alias: a program that reads it gets a copy
 * relocation, and the library's default-visibility references then go to
 * the program's copy. Both are written on every (rare) state change; a
 * caller that sees them differ for a moment only makes or skips a call
 * that then tests nns_state. Each sits alone on its cache line. */
struct nns_state_line {
	uint32_t word;
	uint32_t pad[15];
} __attribute__((aligned(64)));
extern struct nns_state_line nns_state;

static inline uint32_t nns_state_load(void)
{
	return __atomic_load_n(&nns_state.word, __ATOMIC_RELAXED);
}

static inline void nns_state_store(uint32_t v)
{
	__atomic_store_n(&nns_state.word, v, __ATOMIC_RELAXED);
	__atomic_store_n(&nns_hot_state[0], v, __ATOMIC_RELAXED);
}

/* ---- per-thread buffers ------------------------------------------------------ */

#define NNS_TBUF_BLOCKS 2

enum { NNS_BLK_FREE = 0, NNS_BLK_CUR = 1, NNS_BLK_FULL = 2 };

struct nns_block {
	_Atomic uint32_t n; /* events published (owner: release store) */
	_Atomic uint32_t
	    state;     /* NNS_BLK_*: FREE->CUR (owner), CUR->FULL (owner), FULL->FREE (writer) */
	uint64_t seq;  /* position in the thread's sequence, set before CUR */
	uint32_t done; /* events already written (writer only) */
	uint32_t cap;  /* events it holds, 0 = no memory */
	struct nnst_event *ev;
};

struct nns_tbuf {
	/* owner thread, first cache line */
	struct nnst_event *ev; /* current block's events (NULL = none) */
	uint32_t pos, cap;     /* next slot, slots in the current block */
	_Atomic uint32_t *pub; /* &cur->n */
	struct nns_block *cur;
	uint64_t next_seq;     /* seq of the next block taken */
	_Atomic uint64_t lost; /* events dropped by this thread (owner writes) */
	uint64_t handles;      /* nns_begin handles issued */
	unsigned next_blk;     /* index of the next block to take */
	/* set at registration */
	uint32_t index; /* thread index in traces */
	pid_t tid;
	char name[16];	    /* thread name at registration */
	_Atomic int exited; /* the thread ended; the writer reaps after draining */
	size_t blk_bytes;   /* bytes of each block's memory (0: none) */
	struct nns_block blk[NNS_TBUF_BLOCKS];
	/* writer only */
	uint64_t wseq;		/* seq of the next block to write */
	uint64_t announced_gen; /* file generation whose THREAD chunk names it */
	uint32_t names_gen;	/* nns_nvtx_thread_names_gen() at that THREAD chunk */
	uint64_t lost_base;	/* lost at the time the current file saw it */
	uint64_t lost_written;	/* value in the last LOST chunk */
	struct nns_tbuf *next;	/* registry list (reg_mu) */
} __attribute__((aligned(64)));

extern __thread struct nns_tbuf *nns_tls __attribute__((tls_model("initial-exec")));

/* Slow path of an event that needs k slots: registers the thread, or moves
 * to the next block, or counts k lost events and returns NULL. */
struct nns_tbuf *nns_tb_slow(uint32_t k);

/* ---- the process-wide registry --------------------------------------------- */

struct nns_region {
	void *mem;
	size_t bytes;
	struct nns_region *next;
};

struct nns_global {
	pthread_mutex_t life_mu; /* lifecycle calls: current profiler, attach */
	pthread_mutex_t reg_mu;	 /* everything below but the atomics */
	struct nns_tbuf *threads;
	uint32_t next_index;
	struct nns_region *pool;      /* free block memory */
	size_t mapped;		      /* bytes of block memory mapped */
	size_t max_mapped;	      /* cap (max_buffer_mb of the attached profiler) */
	size_t blk_bytes;	      /* block size for threads registering now */
	struct nns_profiler *current; /* the profiler whose writer drains the buffers */
	uint64_t file_gen;	      /* increments at each attach */
	pthread_key_t key;
	int key_ok;
	_Atomic uint64_t lost_unreg;	    /* events of threads that could not register */
	_Atomic uint32_t wake_seq;	    /* futex word the writer sleeps on */
	_Atomic int writer_idle;	    /* the writer sleeps long: wake it on block full */
	_Atomic int fork_pending;	    /* in a forked child: restart the profiler lazily */
	_Atomic uint64_t sig_req, sig_done; /* signal-handler flush requests */
	_Atomic int sig_final;		    /* the signal will end the process */
	_Atomic int writers_live;	    /* writer threads running */
	uint64_t lost_unreg_base;	    /* lost_unreg when the current profiler attached */
	_Atomic int self_pid;		    /* this process (exit.c: differs in a vfork child) */
};
extern struct nns_global nns_g;

void nns_wake_writer(void);
/* Futex wait on nns_g.wake_seq while it equals seen, at most timeout_ns. */
void nns_writer_sleep(uint32_t seen, long timeout_ns);

/* Thread buffers: tbuf.c (callers hold reg_mu where noted). */
void nns_tb_recycle_locked(struct nns_tbuf *t); /* unlinked, drained: frees it */
void nns_tb_after_fork_child(void);		/* only the calling thread survives */
void nns_tb_prefault(struct nns_tbuf *t);	/* copy-on-write faults now, not later */
void nns_fork_resume(void);			/* fork.c: a child's first use */
pid_t nns_gettid(void);

/* ---- names: names.c ------------------------------------------------------------ */

/* Appends STRINGS records for ids [*from, count) to b while they fit;
 * advances *from. Returns 1 when more remain. */
int nns_names_serialize(uint32_t *from, struct nnst_buf *b);
uint32_t nns_names_count(void); /* the next id this image gives */
/* Ids of this image start at base + 1 (exec handoff; before any name). */
void nns_names_set_base(uint32_t base);
void nns_names_atfork_prepare(void);
void nns_names_atfork_parent(void);
void nns_names_atfork_child(void);

/* ---- options: options.c ------------------------------------------------------- */

int nns_options_check(const struct nns_options *o, struct nns_err *err);
/* The options as one JSON object (for the META chunk). */
void nns_options_to_json(const struct nns_options *o, char *dst, size_t size);

/* ---- schedules: schedule.c ---------------------------------------------------- */

enum nns_phase { NNS_PHASE_OFF = 0, NNS_PHASE_WARMUP = 1, NNS_PHASE_ACTIVE = 2 };

/* The phase of step `step` (0-based) for a started profiler with options o:
 * the torch.profiler schedule (skip_first, wait, warmup, active, repeat)
 * gated by MindSpore's start_step/stop_step (1-based step numbers, that is
 * step + 1). *window gets the index of the schedule cycle (0 without one). */
int nns_sched_phase(const struct nns_options *o, long step, long *window);
int nns_sched_has_schedule(const struct nns_options *o);

/* ---- environment and metadata: meta.c ----------------------------------------- */

struct nns_rankinfo {
	long rank, world_size, local_rank; /* -1 unknown */
	const char *source;		   /* the variable family, "" if none */
};
void nns_rank_from_env(struct nns_rankinfo *r);
void nns_hostname(char *dst, size_t size);
/* The launcher a command line (argv joined by NUL bytes, n bytes) runs:
 * "torchrun" (torchrun, python -m torch.distributed.run / .launch),
 * "mpirun", "mpiexec", "srun", ...; NULL when it is none. Pure. */
const char *nns_launcher_of(const char *cmdline, size_t n);
/* The process's role in a distributed job and the stem of its trace's
 * name: "launcher" (nns_launcher_of this process: no rank, even one an
 * outer launcher gave), "rank" (a rank from the environment), "helper"
 * (a forked child that inherited its parent's rank: a DataLoader worker),
 * "" (none). */
struct nns_role {
	const char *role;     /* "launcher", "rank", "helper", "" */
	const char *launcher; /* the launcher's name, for role "launcher" */
	long parent_rank;     /* helper: the rank it inherited, else -1 */
};
/* r: this process's rank (updated: cleared for a launcher); parent: the
 * rank its parent profiled with, NULL when not a forked child. */
void nns_role_of_self(struct nns_role *out, struct nns_rankinfo *r,
		      const struct nns_rankinfo *parent);
/* <host>_<pid>, <host>_rank<R>_<pid> or <host>_launcher_<pid> into dst. */
void nns_trace_stem(char *dst, size_t size, const char *host, const struct nns_role *role,
		    const struct nns_rankinfo *r, long pid);

/* ---- the profiler ---------------------------------------------------------------- */

struct nns_kv {
	char *key, *value;
	struct nns_kv *next;
};

#define NNS_SAMPLES_MAX 4096
#define NNS_GPU_PENDING_MAX (256u << 10) /* GPU records queued (80 B each) */
#define NNS_GPUCLOCK_MAX 64		 /* CUPTI clock points queued */

struct nns_profiler {
	struct nns_options o;
	pthread_mutex_t mu; /* (mu) fields */
	pthread_cond_t cv;  /* writer -> waiters on flush_done, quit_done */
	struct nns_err err; /* last error (mu) */
	char errcopy[NNS_ERR_MSG_MAX];
	char path[1200]; /* the trace file (its name to be, until kept) */
	struct nns_rankinfo rank;
	struct nns_role role;
	pid_t pid; /* the process that owns the file */

	/* lifecycle state (callers hold life_mu) */
	int started;
	int phase; /* enum nns_phase now */
	long step; /* 0-based step in progress */
	long window;
	int attached_once;

	/* writer thread */
	pthread_t writer_th;
	int writer_up;
	struct nnst_writer w;
	struct nnst_buf buf;
	uint64_t flush_req, flush_done; /* (mu) */
	int detach_req, detach_done;	/* (mu) */
	int quit;			/* (mu) */
	int io_failed;			/* (mu) */
	char io_why[NNS_ERR_MSG_MAX];	/* (mu) the failed write: "writing ... at byte N: why" */
	struct nns_kv *meta;		/* pending META (mu) */
	uint32_t strings_written;	/* writer */
	uint64_t gen;			/* file generation while attached (reg_mu) */
	int ended;			/* END written: nothing more (writer) */
	uint64_t lost_unreg_written;	/* process LOST value last written (writer) */
	_Atomic uint64_t lost;

	/* samples, produced by the sampler thread (mu) */
	struct nnst_sample *samples;
	size_t nsamples;
	uint64_t samples_dropped;
	pthread_t sampler_th;
	int sampler_up;
	int sampler_quit; /* (mu) */
	pthread_cond_t scv;

	/* host_info CSV (callers hold life_mu) */
	int hi_fd;

	/* GPU records and CUPTI clock points waiting for the writer (mu;
	 * gpu_out.c). The writer swaps the arrays out and writes them. */
	struct nnst_gpu *gpu;
	size_t ngpu, gpu_cap;
	struct nnst_gpuclock gclk[NNS_GPUCLOCK_MAX];
	size_t ngclk;
	uint64_t gpu_dropped; /* records refused: queue full or no memory */

	/* a forked child's copy that has not restarted yet */
	int child_pending;
	/* closed by exit.c (life_mu): NNS_CLOSED_EXIT at exit, NNS_CLOSED_EXEC
	 * before exec (reopened if exec fails); was_started: it collected then */
	int closed, was_started;
	int writer_done;    /* (mu) the writer thread has finished */
	int io_told;	    /* (writer) the write failure was reported (status.c) */
	int in_writer;	    /* (writer) its thread runs: chunks are written there */
	uint64_t sig_seen0; /* nns_g.sig_req when the writer was started */

	/* keep.c: the file gets its name once the process records something */
	int keep_rule;		 /* the preloaded profiler: its file is named only once kept */
	int kept;		 /* (writer) the file is named in the output directory */
	int named_early;	 /* (writer) no O_TMPFILE: named at open, unlinked if not kept */
	_Atomic int sampler_tid; /* its NVML counters do not make a file worth keeping */
	_Atomic int64_t sampler_cpu_ns; /* CPU time the sampler thread used */
	int64_t collector_cpu_ns;	/* (writer) the collector's threads, this file so far */
	/* handoff.c: exec continues the file in the new image */
	int handoff;	      /* (life_mu) this close passes the file on (no STOP, no close) */
	int handoff_ready;    /* (writer) END written, the fd kept open: off, seq below */
	uint64_t handoff_off; /* the END chunk's offset */
	uint64_t handoff_seq; /* its sequence number */
	int continued;	      /* the window goes on from before the exec: no START */
	struct nns_profiler *next_all; /* every live profiler (life_mu) */
};

extern struct nns_profiler *nns_all_profilers; /* life_mu */

/* gpu_out.c: GPU records (CUPTI backend, NCCL profiler plugin) go to
 * the attached profiler's writer. Callable from any thread but a signal
 * handler; they take reg_mu then the profiler's mu and may allocate.
 * nns_gpu_submit returns the records queued (the rest are counted as
 * dropped: queue full at NNS_GPU_PENDING_MAX, or no memory); 0 when no
 * profiler is attached. Names in the records must come from nns_name(). */
size_t nns_gpu_submit(const struct nnst_gpu *r, size_t n);
/* Queues one CUPTI clock point (gpu_ns with the raw timestamp read at the
 * same moment); 0 queued, -1 none attached or the queue is full. */
int nns_gpu_clock_point(uint64_t gpu_ns, uint64_t raw);
/* Writer side: moves the queued records to *out (caller frees) and
 * the clock points into clk (room for NNS_GPUCLOCK_MAX); caller holds
 * p->mu. */
void nns_gpu_take_locked(struct nns_profiler *p, struct nnst_gpu **out, size_t *n,
			 struct nnst_gpuclock *clk, size_t *nclk);

/* profiler.c */
enum { NNS_CLOSED_EXIT = 1, NNS_CLOSED_EXEC = 2 };
int nns_open_locked(struct nns_profiler *p, struct nns_err *err); /* file + threads */
/* Ends p's file as nns_destroy does (STOP, the last events and counts,
 * END) but keeps p allocated for the program that still holds it; later
 * calls on it do nothing (nns_start returns NNS_EIO). why: NNS_CLOSED_*.
 * The writer gets timeout_ms to finish. */
void nns_close_locked(struct nns_profiler *p, int why, int timeout_ms);
/* After a failed exec: p, closed for it, opens a new file (the next span of
 * this pid) and collects again if it did. */
void nns_reopen_locked(struct nns_profiler *p);
void nns_profiler_sync_init(struct nns_profiler *p); /* mu, cv, scv */
void nns_set_error(struct nns_profiler *p, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int nns_restart_child_locked(struct nns_profiler *p);
/* Emits one lifecycle event (START/STOP/STEP) on the calling thread,
 * bypassing the state word. */
void nns_emit_control(uint8_t type, uint8_t flags, uint64_t a, uint64_t b);
/* Waits until the writer has written everything published so far. */
int nns_sync_flush(struct nns_profiler *p, int timeout_ms);

/* writer.c */
int nns_writer_open(struct nns_profiler *p, struct nns_err *err);  /* file + header + META */
int nns_writer_start(struct nns_profiler *p, struct nns_err *err); /* the thread */
void nns_writer_join(struct nns_profiler *p);			   /* quit, END, close */
/* The same, waiting at most timeout_ms for the writer; NNS_EIO when it is
 * still busy (stuck writing): it is left running. */
int nns_writer_join_timed(struct nns_profiler *p, int timeout_ms);
int nns_writer_detach(struct nns_profiler *p, int timeout_ms);
void nns_writer_skip_stale_locked(struct nns_tbuf *t); /* reg_mu held */
/* Makes p the profiler whose writer drains the buffers (life_mu held; the
 * previous one is detached first). */
int nns_attach(struct nns_profiler *p);

/* sampler.c */
int nns_sampler_start(struct nns_profiler *p, struct nns_err *err);
void nns_sampler_join(struct nns_profiler *p);

uint64_t nns_read_vmrss_kb(void);

/* nvml.c: GPU counters from NVML (dlopen), owned by the sampler thread.
 * nns_nvml_open returns NULL when NVML cannot be used (META "nvml" says
 * why); sample and close accept NULL. */
struct nns_nvml;
struct nns_nvml *nns_nvml_open(struct nns_profiler *p);
void nns_nvml_sample(struct nns_nvml *n); /* one counter per device and query */
void nns_nvml_close(struct nns_nvml *n);  /* nvmlShutdown, dlclose, free */

/* hostinfo.c */
int nns_hostinfo_open(struct nns_profiler *p, struct nns_err *err);
void nns_hostinfo_row(struct nns_profiler *p, const char *event, const char *stage, int start_end);
void nns_hostinfo_close(struct nns_profiler *p);

/* nvtx.c: NVTX v3 injection (NVTX_INJECTION64_PATH). */
NNS_API int InitializeInjectionNvtx2(const void *(*get_export_table)(uint32_t id));
/* The name nvtxNameOsThread gave thread tid into dst: 1, else 0. */
int nns_nvtx_thread_name(pid_t tid, char *dst, size_t size);
/* Changes at each nvtxNameOsThread call (0: never called). */
uint32_t nns_nvtx_thread_names_gen(void);
/* fork(): 0 takes nvtx.c's lock (a leaf, after names mu), 1 releases it. */
void nns_nvtx_atfork(int release);

/* cupti.c: the CUPTI backend (GPU activity). InitializeInjection is
 * libcuda's entry for CUDA_INJECTION64_PATH; nns_cupti_enable (nnscope.h)
 * the API's. The rest do nothing unless CUPTI collects: */
NNS_API int InitializeInjection(void);
void nns_cupti_flush(void);		       /* forced flush (nns_stop, life_mu held) */
void nns_cupti_detach(struct nns_profiler *p); /* p destroyed: final flush, unsubscribe */
void nns_cupti_tick(void);		       /* writer thread: clock point ~1/s, devices */

/* fork.c */
void nns_install_atfork(void);
void nns_fork_resume_locked(void); /* life_mu held */
int nns_fork_profiler_is(const struct nns_profiler *p);

/* sigflush.c: the fatal-signal flush (installed by nns_create and the
 * LD_PRELOAD constructor) and the flush a signal handler or _exit() may
 * run: asks the writer threads to write what is published (and END when
 * final), waits up to 2 s; async-signal-safe. */
int nns_install_signal_flush(void);
void nns_uninstall_signal_flush(void); /* the previous handlers back */
void nns_flush_async(int final);

/* exit.c: closes this process's profilers at exit (the library
 * destructor) and before exec; 1 when this is the process whose memory
 * the collector's state describes (0 in a vfork child). */
int nns_is_self(void);

/* status.c: in LD_PRELOAD mode, tells the user and `nnscope run` that
 * events were not written: at the first write failure of p (one line on
 * stderr, once, and a status datagram) and at the end of p's file when
 * anything was lost (a datagram). Called by p's writer thread. */
void nns_status_init(void); /* reads NNSCOPE_STATUS (the constructor) */
void nns_status_failed(struct nns_profiler *p);
void nns_status_final(struct nns_profiler *p);
void nns_status_open_failed(const char *why); /* no trace for this process */
/* preload.c */
int nns_preload_mode(void);			 /* NNSCOPE_PRELOAD=1 made a profiler here */
struct nns_profiler *nns_preload_profiler(void); /* the one it made, or NULL */
int nns_preload_creating(void);			 /* 1 while the constructor creates it */

/* keep.c: which traces stay (docs/ARCHITECTURE.md, "Which processes leave
 * a file"). The writer thread calls these. */
#define NNS_KEEP_CPU_NS 100000000LL /* 100 ms of the program's own CPU time */
/* p->path: the name the trace gets (nns_trace_stem in the output dir). */
int nns_keep_name(struct nns_profiler *p, const char *host, struct nns_err *err);
/* Creates the file: O_TMPFILE in the output directory (nameless until
 * kept), else named at once (named_early, p->path the name taken).
 * Returns the descriptor, or NNS_E* with err set. */
int nns_keep_create(struct nns_profiler *p, struct nns_err *err);
/* Names the file (linkat) if it is not yet: the process recorded
 * something. NNS_EIO when it cannot be named. */
int nns_keep_link(struct nns_profiler *p, struct nns_err *err);
/* 1 when events[0..n) hold one the program recorded (not START/STOP). */
int nns_keep_events(const struct nnst_event *ev, size_t n);
/* CPU time of the collector's threads for p's files so far (called on the
 * writer thread: its own time is the calling thread's). */
int64_t nns_keep_collector_cpu(struct nns_profiler *p);
/* 1 when p is not kept yet and the program has used NNS_KEEP_CPU_NS of
 * CPU time outside the collector's threads (writer thread). */
int nns_keep_cpu_due(struct nns_profiler *p);
/* At the file's last close: an unkept named_early file is removed. */
void nns_keep_close(struct nns_profiler *p);

/* handoff.c: exec chains keep one file (exit.c, preload.c). */
/* Whether envp makes the new image load this library in preload mode. */
int nns_handoff_wanted(char *const envp[]);
/* envp plus NNSCOPE_EXEC_TRACE describing p's kept-open file (malloc'd
 * array, the strings are envp's and one malloc'd string: free with
 * nns_handoff_env_free); FD_CLOEXEC cleared. NULL when p cannot hand off. */
char **nns_handoff_env(struct nns_profiler *p, char *const envp[]);
void nns_handoff_env_free(struct nns_profiler *p, char **env); /* and FD_CLOEXEC back */
/* In the new image's constructor: reads and removes NNSCOPE_EXEC_TRACE;
 * sets the names' and threads' bases. 1 when a file is waiting. */
int nns_handoff_receive(void);
/* Writer open: takes the waiting file for p (1), else 0. */
int nns_handoff_take(struct nns_profiler *p, struct nns_err *err);
/* Continues p's own kept-open file (after a failed exec): 0 or NNS_E*. */
int nns_handoff_resume(struct nns_profiler *p, int fd, uint64_t off, uint64_t seq,
		       struct nns_err *err);

#endif

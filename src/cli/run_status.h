/*
 * run_status.h - what `nnscope run` hears from the collector in the
 * processes it runs: each preloaded library sends a status datagram when
 * writing its trace fails and when a trace ends having lost events
 * (src/collector/status.c defines the format). `nnscope run` listens on an
 * abstract Unix datagram socket with a random name, passed to the command
 * in NNSCOPE_STATUS, reads while the command runs, and at exit prints the
 * totals and turns a write failure into its exit status (cmd_run.c).
 *
 * Ownership: a struct run_status is the caller's; run_status_close frees
 * what it holds.
 */
#ifndef NNS_CLI_RUN_STATUS_H
#define NNS_CLI_RUN_STATUS_H

#include <stddef.h>
#include <stdint.h>

/* The last word of one trace (one process may write several). */
struct run_status_trace {
	long pid;
	int failed, final;
	uint64_t lost, gpu_lost;
	char path[1024];
	char error[1024];
};

struct run_status {
	int fd;	       /* the socket; -1 when none (the run goes on unheard) */
	char name[64]; /* "@nnscope-run-<hex>": NNSCOPE_STATUS */
	struct run_status_trace *v;
	size_t n, cap;
	size_t ignored; /* datagrams that were not a status, or no memory */
};

/* Binds the socket: 0, or -1 (fd = -1; nothing is heard). */
int run_status_open(struct run_status *rs);
/* Reads every datagram queued now, without blocking. */
void run_status_read(struct run_status *rs);
/* Prints on stderr what was lost: each failed trace (path, events not
 * written, why), then the totals, and events dropped on full buffers as a
 * warning. Returns 1 when a trace could not be written (or created), else
 * 0. */
int run_status_report(const struct run_status *rs);
void run_status_close(struct run_status *rs);

#endif

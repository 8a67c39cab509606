/*
 * analyse_mpi.h - `nnscope analyse --mpi`: the workers (ranks) of a run are
 * split across the MPI processes (per span group, largest trace file first
 * to the least loaded process, by bytes); each process loads and analyses its share and writes
 * those workers' output files itself (a shared file system is required: every process reads the run
 * and writes into the same --out directory); the cluster step-trace row of each worker goes to MPI
 * process 0 as bytes, and process 0 builds the cluster result and hands it to v->on_cluster
 * (cluster.json). distributed.json is not written in this mode (it needs every worker's full
 * profile in one process). All processes must run the same binary on the same architecture (rows
 * travel as raw structs).
 */
#ifndef NNS_CLI_ANALYSE_MPI_H
#define NNS_CLI_ANALYSE_MPI_H

#include "cli/cli.h"
#include "cli/mpi_dl.h"

/* Called once by every process after discovering the runs (go = 0: this
 * process stops, rs unused): process 0 compares what each process found
 * (run names, workers, spans) and tells all whether to go on. Returns 1 to
 * go on; 0 when process 0 stops (nothing to analyse, or a MindSpore job
 * that it alone analyses); -1 when another process stops or sees other
 * runs than process 0 (process 0 says which: e.g. the input is not on a
 * shared file system). */
int cli_mpi_agree(struct mpi_dl *mpi, int go, const struct run_set *rs);

/* cli_visit_run() over this process's share of r's workers. Every process
 * must call it for the same runs in the same order. On process 0,
 * *visited counts the spans loaded by all processes and v->load_failed
 * the spans none could load (elsewhere both stay 0). A trace that cannot be
 * loaded is printed by its process and is no failure here, as in
 * cli_visit_run. Returns CLI_OK or CLI_EINPUT (each failure printed). */
int cli_visit_run_mpi(const struct run *r, struct cli_visit *v, struct mpi_dl *mpi,
		      size_t *visited);

#endif

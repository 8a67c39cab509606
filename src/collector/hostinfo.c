/*
 * hostinfo.c - MindSpore's host_info CSV (profile_framework != null):
 * <output_path>/host_info/host_info_<rank>.csv with the header
 *   tid,pid,parent_pid,module_name,event,stage,level,start_end,custom_info,
 *   memory_usage(kB),time_stamp(us)
 *
 * Rows nnscope writes (module_name "nnscope", level 1, custom_info empty):
 *   event "Profiler", stage "Collect": start_end 0 at start, 1 at stop;
 *   event "Step", stage "<N>": 0 when step N begins and 1 when it ends,
 *   for the steps a started profiler collects (active or warmup).
 * memory_usage(kB) is VmRSS for "all" and "memory" (0 for "time");
 * time_stamp(us) is CLOCK_MONOTONIC in microseconds (MindSpore's
 * steady_clock), written for every mode. Each row is one write() to a file
 * opened O_APPEND, so processes of the same rank (a parent and its forked
 * workers) never interleave inside a row; the header is written by the
 * process that creates the file.
 */
#include "collector/collector.h"
#include "collector/tsc.h"
#include "common/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char HEADER[] = "tid,pid,parent_pid,module_name,event,stage,level,start_end,"
			     "custom_info,memory_usage(kB),time_stamp(us)\n";

int nns_hostinfo_open(struct nns_profiler *p, struct nns_err *err)
{
	char dir[1200], path[1300];
	long rank = p->rank.rank >= 0 ? p->rank.rank : 0;
	int fd, rc;

	snprintf(dir, sizeof(dir), "%s/host_info", p->o.output_path);
	if ((rc = fs_mkdirs(dir, err)))
		return rc;
	snprintf(path, sizeof(path), "%s/host_info_%ld.csv", dir, rank);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, HEADER, sizeof(HEADER) - 1) != (ssize_t)sizeof(HEADER) - 1) {
			close(fd);
			return nns_err_set(err, NNS_EIO, "writing %s: %s", path, strerror(errno));
		}
	} else if (errno == EEXIST) {
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	}
	if (fd < 0)
		return nns_err_set(err, NNS_EIO, "opening %s: %s", path, strerror(errno));
	p->hi_fd = fd;
	return NNS_OK;
}

void nns_hostinfo_row(struct nns_profiler *p, const char *event, const char *stage, int start_end)
{
	char row[512];
	uint64_t rss = 0;
	int n;

	if (p->hi_fd < 0)
		return;
	if (p->o.profile_framework == NNS_FRAMEWORK_ALL ||
	    p->o.profile_framework == NNS_FRAMEWORK_MEMORY)
		rss = nns_read_vmrss_kb();
	n = snprintf(row, sizeof(row), "%ld,%ld,%ld,nnscope,%s,%s,1,%d,,%llu,%lld\n",
		     (long)nns_gettid(), (long)getpid(), (long)getppid(), event, stage, start_end,
		     (unsigned long long)rss, (long long)(clock_ns(CLOCK_MONOTONIC) / 1000));
	if (n > 0 && (size_t)n < sizeof(row) && write(p->hi_fd, row, (size_t)n) != n)
		nns_set_error(p, NNS_EIO, "writing host_info: %s", strerror(errno));
}

void nns_hostinfo_close(struct nns_profiler *p)
{
	if (p->hi_fd >= 0)
		close(p->hi_fd);
	p->hi_fd = -1;
}

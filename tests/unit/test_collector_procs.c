/*
 * test_collector_procs.c - which processes leave a trace and what they
 * are called (owner: the collector): the launcher a command line runs
 * (nns_launcher_of), the role a process takes from its rank, its parent's
 * rank and its command line (nns_role_of_self), the trace's name
 * (nns_trace_stem), and the keep rule's event test (nns_keep_events).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "collector/collector.h"

#include <string.h>

/* argv given as one string with '|' between arguments */
static const char *launcher(const char *argv)
{
	char buf[512];
	size_t n = strlen(argv);

	memcpy(buf, argv, n + 1);
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '|')
			buf[i] = '\0';
	return nns_launcher_of(buf, n + 1);
}

static void test_launchers(void **state)
{
	(void)state;
	assert_string_equal(launcher("/usr/bin/torchrun|--nproc_per_node|2|train.py"), "torchrun");
	assert_string_equal(launcher("mpirun|-np|4|./a.out"), "mpirun");
	assert_string_equal(launcher("/opt/ompi/bin/mpiexec|-n|2|x"), "mpiexec");
	assert_string_equal(launcher("srun|-N2|python|t.py"), "srun");
	assert_string_equal(launcher("orted|--daemonize"), "orted");
	assert_string_equal(
	    launcher("/usr/bin/python3|-m|torch.distributed.run|--nproc_per_node|2|t.py"),
	    "torchrun");
	assert_string_equal(launcher("python3.11|-u|-mtorch.distributed.launch|t.py"), "torchrun");
	/* torchrun is a Python script: python3 /usr/bin/torchrun ... */
	assert_string_equal(launcher("/usr/bin/python3|/usr/local/bin/torchrun|t.py"), "torchrun");
	assert_string_equal(launcher("python3|-X|dev|-W|ignore|/bin/torchrun|t.py"), "torchrun");
	/* not launchers */
	assert_null(launcher("/usr/bin/python3|train.py|--launcher|torchrun"));
	assert_null(launcher("python3|-m|torch.distributed.elastic.foo"));
	assert_null(launcher("python3|-c|import torchrun"));
	assert_null(launcher("bash|-c|torchrun x"));
	assert_null(launcher("/usr/bin/mpirun-wrapper|x"));
	assert_null(launcher("/usr/bin/mypython|torchrun"));
	assert_null(nns_launcher_of("", 0));
}

static void test_roles_and_names(void **state)
{
	struct nns_rankinfo r = {3, 4, 1, "torch"}, parent = {3, 4, 1, "torch"};
	struct nns_role role;
	char stem[128];

	(void)state;
	nns_role_of_self(&role, &r, NULL); /* this test's command line is no launcher */
	assert_string_equal(role.role, "rank");
	assert_int_equal(r.rank, 3);
	nns_trace_stem(stem, sizeof(stem), "h", &role, &r, 42);
	assert_string_equal(stem, "h_rank3_42");

	/* a forked child that still holds its parent's rank helps it */
	nns_role_of_self(&role, &r, &parent);
	assert_string_equal(role.role, "helper");
	assert_int_equal(role.parent_rank, 3);
	assert_int_equal(r.rank, -1);
	nns_trace_stem(stem, sizeof(stem), "h", &role, &r, 43);
	assert_string_equal(stem, "h_43");

	/* one whose environment names another rank is that rank */
	r = (struct nns_rankinfo){5, 8, 1, "torch"};
	nns_role_of_self(&role, &r, &parent);
	assert_string_equal(role.role, "rank");
	assert_int_equal(r.rank, 5);

	r = (struct nns_rankinfo){-1, -1, -1, ""};
	nns_role_of_self(&role, &r, NULL);
	assert_string_equal(role.role, "");
	nns_trace_stem(stem, sizeof(stem), "h", &role, &r, 7);
	assert_string_equal(stem, "h_7");

	role = (struct nns_role){"launcher", "torchrun", -1};
	nns_trace_stem(stem, sizeof(stem), "h", &role, &r, 8);
	assert_string_equal(stem, "h_launcher_8");
}

static void test_keep_events(void **state)
{
	struct nnst_event ev[3];

	(void)state;
	memset(ev, 0, sizeof(ev));
	ev[0].type = NNST_EV_START;
	ev[1].type = NNST_EV_STOP;
	assert_int_equal(nns_keep_events(ev, 2), 0); /* the collector's own markers */
	assert_int_equal(nns_keep_events(ev, 0), 0);
	for (int t = NNST_EV_PUSH; t <= NNST_EV_STEP; t++) {
		ev[2].type = (uint8_t)t;
		assert_int_equal(nns_keep_events(ev, 3), 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_launchers),
	    cmocka_unit_test(test_roles_and_names),
	    cmocka_unit_test(test_keep_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * an_roles.h - the step-time roles, in tb_plugin's priority order, and the
 * one table of their names: the title ("Kernel" ... "Other") and the JSON
 * key ("kernel_us" ... "other_us") of each, for every writer and the
 * breakdown (breakdown.c defines them).
 */
#ifndef NNS_ANALYSIS_AN_ROLES_H
#define NNS_ANALYSIS_AN_ROLES_H

/* Step-time roles, in tb_plugin's priority order. */
enum an_role {
	AN_KERNEL = 0,
	AN_MEMCPY,
	AN_MEMSET,
	AN_COMM,
	AN_RUNTIME,
	AN_DATALOADER,
	AN_CPUOP,
	AN_OTHER,
	AN_NROLES
};
extern const char *const an_role_names[AN_NROLES]; /* "Kernel" ... "Other" */
extern const char *const an_role_keys[AN_NROLES];  /* "kernel_us" ... "other_us" */

#endif

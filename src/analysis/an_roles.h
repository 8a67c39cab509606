/*
 * an_roles.h - the step-time roles, in tb_plugin's priority order, and the
 * one table of their names (AN_ROLE_TABLE): every writer, the schema and
 * the breakdown take a role's name, key and column title from it
 * (breakdown.c defines the arrays).
 */
#ifndef NNS_ANALYSIS_AN_ROLES_H
#define NNS_ANALYSIS_AN_ROLES_H

/* The role table: X(role, name, key, title, description) per role, in
 * tb_plugin's priority order (the enum's). name is the role's name in
 * reports ("Communication"), key its overview/CSV/SQL column
 * ("communication_us"), title and description the column's short title
 * ("Comm") and text in the result schema (output/schema_tables.c). */
#define AN_ROLE_TABLE(X)                                                                           \
	X(AN_KERNEL, "Kernel", "kernel_us", "Kernel",                                              \
	  "GPU kernels running (highest priority), µs")                                            \
	X(AN_MEMCPY, "Memcpy", "memcpy_us", "Memcpy", "copies running and no kernel, µs")          \
	X(AN_MEMSET, "Memset", "memset_us", "Memset", "memsets running and nothing above, µs")     \
	X(AN_COMM, "Communication", "communication_us", "Comm",                                    \
	  "communication (NCCL/Gloo) and nothing above, µs")                                       \
	X(AN_RUNTIME, "Runtime", "runtime_us", "Runtime",                                          \
	  "CUDA runtime/driver calls on the CPU and nothing above, µs")                            \
	X(AN_DATALOADER, "DataLoader", "dataloader_us", "DataLoader",                              \
	  "data loading on the CPU and nothing above, µs")                                         \
	X(AN_CPUOP, "CPU Exec", "cpu_exec_us", "CPU Exec",                                         \
	  "operators on the CPU and nothing above, µs")                                            \
	X(AN_OTHER, "Other", "other_us", "Other", "the rest of the step, µs")

/* Step-time roles, in tb_plugin's priority order. */
/* clang-format off */
enum an_role {
#define AN_ROLE_ENUM(role, name, key, title, desc) role,
	AN_ROLE_TABLE(AN_ROLE_ENUM)
#undef AN_ROLE_ENUM
	AN_NROLES
};
/* clang-format on */
extern const char *const an_role_names[AN_NROLES]; /* "Kernel" ... "Other" */
extern const char *const an_role_keys[AN_NROLES];  /* "kernel_us" ... "other_us" */

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * perfns - get, set, run under, list and lock the perf_event_paranoid level
 * of user namespaces (kernel.perf_event_paranoid per user namespace).
 */
#include <stdio.h>
#include <string.h>

#include "perfns.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} cmds[] = {
	{ "get", cmd_get, "print the level of a user namespace" },
	{ "set", cmd_set, "raise the level of a running user namespace" },
	{ "run", cmd_run, "run a command in a new user namespace at a level" },
	{ "tree", cmd_tree, "show every user namespace with its level" },
	{ "grant", cmd_grant,
	  "let one user namespace profile below the host's level" },
	{ "revoke", cmd_revoke, "take a grant back" },
	{ "oci-hook", cmd_oci_hook,
	  "OCI runtime hook: lock a container's user namespace" },
};

static void print_usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"Usage: perfns COMMAND [OPTIONS]\n"
		"\n"
		"kernel.perf_event_paranoid per user namespace.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f,
		"\n"
		"'perfns COMMAND --help' describes each command; man perfns.\n"
		"Exit status: 0 ok, 1 refused or failed, 2 usage error.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		print_usage(stdout);
		return EXIT_OK;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);

	fprintf(stderr, "%s: unknown command '%s'\nTry '%s --help'.\n",
		prog, argv[1], prog);
	return EXIT_USAGE;
}
